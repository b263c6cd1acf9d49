// Turning a step's target (selector, point, percent, prompt) into what the drag API takes:
// a point in the box's action space (real pixels × scale), or a natural-language string.
import { BoxflowError, kStepValue } from '../../errors.js';
import type { ElementPoint, Step, Target } from '../../flow/types.js';
import { centre, describeSelector, nearMatches, query, serializeTree } from '../../layout/index.js';
import type { LayoutNode, LayoutTree, Selector } from '../../layout/types.js';
import type { StepRun } from './types.js';
import { pollUntil } from '../poll.js';

export type ApiTarget = { x: number; y: number } | string;

/** Real screen pixels to the box's action space. */
export function toAction(run: StepRun, p: { x: number; y: number }): { x: number; y: number } {
  const s = run.rt.state.scale;
  return { x: Math.round(p.x * s * 100) / 100, y: Math.round(p.y * s * 100) / 100 };
}

export async function resolveTarget(run: StepRun, target: Target): Promise<ApiTarget> {
  if ('selector' in target) {
    const node = await findVisible(run, target.selector, { needGeometry: true });
    return toAction(run, target.point ? pointIn(node, target.point) : centre(node, (t) => run.rt.masker.text(t)));
  }
  if ('prompt' in target) return target.prompt;
  if ('point' in target) return toAction(run, target.point);
  if ('runtimePoint' in target) throw unevaluated(target.runtimePoint);
  const screen = await screenSize(run);
  return toAction(run, { x: (target.percent.x / 100) * screen.width, y: (target.percent.y / 100) * screen.height });
}

// ------------------------------------------------------------------ points given as ${...}

/** A handler got a `${...}` point the executor did not evaluate: a bug of boxflow's, never a guess at a place. */
const unevaluated = (text: string) => new BoxflowError('INTERNAL', `the point ${JSON.stringify(text)} reached a step handler unevaluated (evaluatePoints runs before every step)`);

const kNumber = '(-?\\d+(?:\\.\\d+)?)';
const kPointText = new RegExp(`^${kNumber}(%?),${kNumber}(%?)$`);

/**
 * A point's text (what a `${...}` gave), read as Maestro reads a point: "x,y" pixels or "x%,y%"
 * (both parts alike, whitespace ignored). `screen`: of the screen (a percent from 0 to 100, pixels
 * as given); `element`: inside an element (percent of its bounds from 0 to 100, pixels from its
 * top-left, neither negative). Undefined when the text is neither.
 */
export function parsePointText(text: string, where: 'screen' | 'element'): { x: number; y: number; unit: '%' | 'px' } | undefined {
  const m = kPointText.exec(text.replace(/\s/g, ''));
  if (!m || m[2] !== m[4]) return undefined;
  const p = { x: Number(m[1]), y: Number(m[3]), unit: m[2] ? ('%' as const) : ('px' as const) };
  if (p.unit === '%' && !(p.x >= 0 && p.x <= 100 && p.y >= 0 && p.y <= 100)) return undefined;
  if (where === 'element' && (p.x < 0 || p.y < 0)) return undefined;
  return p;
}

/** The target with its `${...}` point evaluated now and checked; STEP_INVALID naming the value when it is not a point. */
export function evaluateTarget(run: StepRun, target: Target, what: string): Target {
  if ('runtimePoint' in target) {
    const text = run.resolve(target.runtimePoint);
    const p = parsePointText(text, 'screen');
    if (!p) throw kStepValue(what, target.runtimePoint, text, 'a point of the screen: "x,y" (pixels) or "x%,y%" (0 to 100)');
    return p.unit === '%' ? { percent: { x: p.x, y: p.y } } : { point: { x: p.x, y: p.y } };
  }
  if ('selector' in target && typeof target.point === 'string') {
    const text = run.resolve(target.point);
    const p = parsePointText(text, 'element');
    if (!p) throw kStepValue(what, target.point, text, 'a point inside the element: "x%,y%" (percent of its bounds, 0 to 100) or "x,y" (pixels from its top-left)');
    return { ...target, point: p };
  }
  return target;
}

/** The keys of a step that hold a Target, and how an error names each. */
const kTargetKeys = { target: 'point', from: 'from point', to: 'to point' } as const;

/**
 * The step as its handler gets it: every point given as `${...}` (Maestro's `point: "${output.p}"`,
 * inside an element or alone, a swipe's `start`/`end`) evaluated now, when the step runs, and its
 * form checked then. The executor calls this before every handler; a step without one is returned as it is.
 */
export function evaluatePoints<S extends Step>(step: S, run: StepRun): S {
  let out: Record<string, unknown> | undefined;
  for (const [key, what] of Object.entries(kTargetKeys)) {
    const t = (step as unknown as Record<string, unknown>)[key];
    if (typeof t !== 'object' || t === null || !('runtimePoint' in t || ('selector' in t && typeof (t as { point?: unknown }).point === 'string'))) continue;
    out ??= { ...step };
    out[key] = evaluateTarget(run, t as Target, what);
  }
  return (out as S | undefined) ?? step;
}

/**
 * A point inside an element's bounds, as Maestro computes it: percent of its width and height
 * from its top-left, or pixels from its top-left (which must lie inside it).
 */
export function pointIn(node: LayoutNode, p: ElementPoint | string): { x: number; y: number } {
  if (typeof p === 'string') throw unevaluated(p);
  const b = node.bounds!;
  const width = b.right - b.left;
  const height = b.bottom - b.top;
  if (p.unit === '%') return { x: b.left + (width * p.x) / 100, y: b.top + (height * p.y) / 100 };
  if (p.x >= width || p.y >= height) {
    throw new BoxflowError('STEP_INVALID', `point "${p.x},${p.y}" lies outside the element, which is ${Math.round(width)}×${Math.round(height)} pixels (a pixel point counts from its top-left)`);
  }
  return { x: b.left + p.x, y: b.top + p.y };
}

/** Polls the layout until the selector matches a visible node; fails with ELEMENT_NOT_FOUND. */
export async function findVisible(run: StepRun, selector: Selector, opts: { needGeometry?: boolean } = {}): Promise<LayoutNode> {
  let last: LayoutTree | undefined;
  const found = await pollUntil(async () => {
    last = await run.rt.layout.tree(run.signal);
    if (opts.needGeometry) run.rt.layout.requireGeometry(last, `${run.record.command} ${describeSelector(selector)}`);
    return query(last, selector)[0];
  }, run.deadline, run.signal);
  if (found.value) return found.value;
  if (BoxflowError.is(found.lastError) && found.lastError.code !== 'ELEMENT_NOT_FOUND') throw found.lastError;
  await attachEvidence(run, selector, last);
  throw new BoxflowError('ELEMENT_NOT_FOUND', `no visible element matches ${describeSelector(selector)} after ${run.timeoutMs} ms${candidateHint(run)}`);
}

export async function screenSize(run: StepRun): Promise<{ width: number; height: number }> {
  const tree = await run.rt.layout.tree(run.signal);
  if (tree.screen) return tree.screen;
  throw new BoxflowError('GEOMETRY_UNAVAILABLE', `${run.record.command}: the box's layout does not give the screen size; use pixel points`);
}

/**
 * Keeps the tree the step searched (as the runner saw it, secrets masked) and the near matches
 * found in it, for the report. Without a tree (the box gave none), the box's raw layout instead.
 */
export async function attachEvidence(run: StepRun, selector: Selector, tree: LayoutTree | undefined): Promise<void> {
  try {
    const candidates = tree ? nearMatches(tree, selector, 5).map((n) => ({ text: n.text, id: n.id, desc: n.desc, tag: n.tag, order: n.order })) : [];
    let snapshot: string;
    if (tree) snapshot = await run.rt.artifacts.put(Buffer.from(JSON.stringify(run.rt.masker.deep(serializeTree(tree, (t) => run.rt.masker.text(t))))), 'json');
    else {
      const content = await run.rt.layout.content(run.signal);
      snapshot = await run.rt.artifacts.put(Buffer.from(run.rt.masker.markup(content)), content.trimStart().startsWith('<?xml') || content.includes('<hierarchy') ? 'xml' : 'html');
    }
    run.record.layout = { snapshot, format: tree?.format ?? (snapshot.endsWith('.xml') ? 'android' : 'html'), selector: describeSelector(selector), candidates };
  } catch {
    // Evidence is best effort: the step's own error is what matters.
  }
}

function candidateHint(run: StepRun): string {
  const c = run.record.layout?.candidates ?? [];
  if (!c.length) return '';
  // Mask, then cut: a secret cut short is no longer one the masker can find.
  const show = (text: string) => {
    const t = run.rt.masker.text(text);
    return JSON.stringify(t.length > 40 ? `${t.slice(0, 37)}...` : t);
  };
  return `; nearest: ${c.slice(0, 3).map((n) => show(n.text || n.desc || n.id || n.tag)).join(', ')}`;
}
