// Turning a step's target (selector, point, percent, prompt) into what the drag API takes:
// a point in the box's action space (real pixels × scale), or a natural-language string.
import { BoxflowError } from '../../errors.js';
import type { ElementPoint, Target } from '../../flow/types.js';
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
    const node = await findVisible(run, run.resolve(target.selector), { needGeometry: true });
    return toAction(run, target.point ? pointIn(node, target.point) : centre(node, (t) => run.rt.masker.text(t)));
  }
  if ('prompt' in target) return run.resolve(target.prompt);
  if ('point' in target) return toAction(run, target.point);
  const screen = await screenSize(run);
  return toAction(run, { x: (target.percent.x / 100) * screen.width, y: (target.percent.y / 100) * screen.height });
}

/**
 * A point inside an element's bounds, as Maestro computes it: percent of its width and height
 * from its top-left, or pixels from its top-left (which must lie inside it).
 */
export function pointIn(node: LayoutNode, p: ElementPoint): { x: number; y: number } {
  const b = node.bounds!;
  const width = b.right - b.left;
  const height = b.bottom - b.top;
  if (p.unit === '%') return { x: b.left + (width * p.x) / 100, y: b.top + (height * p.y) / 100 };
  if (p.x >= width || p.y >= height) {
    throw new BoxflowError('INVALID_ARGUMENT', `point "${p.x},${p.y}" lies outside the element, which is ${Math.round(width)}×${Math.round(height)} pixels (a pixel point counts from its top-left)`);
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
