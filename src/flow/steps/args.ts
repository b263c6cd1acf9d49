// The schema pieces and normalisers that steps of several categories share: selectors, targets,
// points, files, names.
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseDuration } from '../../api/duration.js';
import { parseRegexLiteral } from '../../layout/text.js';
import { kNameWithoutRole, kNestedKeys, kPatternKeys, type Selector, type SelectorObject } from '../../layout/types.js';
import { kDirections, kPercentPointPattern, kSelectorKeys, targetSchema, type JsonSchema, type Path } from '../parts.js';
import type { ElementPoint, Target } from '../types.js';
import type { NormalizeCtx } from './types.js';

const kPercentRe = new RegExp(kPercentPointPattern);
export const noArg: JsonSchema = {
  title: 'empty (this step takes no argument)',
  anyOf: [{ type: 'null' }, { type: 'object', properties: {}, additionalProperties: false }],
};
export const str = (description?: string): JsonSchema => ({ type: 'string', minLength: 1, ...(description ? { description } : {}) });
export const ms = (v: string | undefined): number | undefined => (v === undefined ? undefined : parseDuration(v));
/** A value given as `${...}`: evaluated when the step runs, its type checked then. */
export const runtimeText: JsonSchema = { type: 'string', pattern: '\\$\\{', description: 'A ${...} evaluated when the step runs.' };
export const isRuntime = (v: unknown): v is string => typeof v === 'string' && v.includes('${');
export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function checkSelector(sel: Selector, ctx: NormalizeCtx, rel: Path): Selector {
  if (typeof sel === 'string') {
    checkRegex(sel, ctx, rel);
    return sel;
  }
  for (const k of kPatternKeys) {
    const text = sel[k];
    if (text !== undefined) checkRegex(text, ctx, [...rel, k]);
  }
  if (sel.name !== undefined && sel.role === undefined) ctx.fail([...rel, 'name'], kNameWithoutRole, { atKey: true });
  if (sel.size && sel.size.width === undefined && sel.size.height === undefined) ctx.fail([...rel, 'size'], 'needs width, height or both (tolerance alone matches any size)');
  for (const k of kNestedKeys) {
    const inner = sel[k];
    if (Array.isArray(inner)) inner.forEach((s, i) => checkSelector(s, ctx, [...rel, k, i]));
    else if (inner !== undefined) checkSelector(inner, ctx, [...rel, k]);
  }
  return sel;
}

/** A `/regex/flags` that does not compile fails at load time, at its place; one holding `${NAME}` is checked when it runs. */
export function checkRegex(text: string, ctx: NormalizeCtx, rel: Path): void {
  if (text.includes('${')) return;
  try {
    parseRegexLiteral(text);
  } catch (err) {
    const cause = (err as Error).cause;
    ctx.fail(rel, `${JSON.stringify(text)} is not a valid regular expression: ${cause instanceof Error ? cause.message : (err as Error).message}`);
  }
}

/** The selector keys of a map that may also hold other keys (longPress duration, assertLayout count, ...). */
export function pickSelector(arg: Record<string, unknown>, ctx: NormalizeCtx, rel: Path = [], except: string[] = []): SelectorObject {
  const sel: Record<string, unknown> = {};
  for (const k of kSelectorKeys) if (arg[k] !== undefined && !except.includes(k)) sel[k] = arg[k];
  if (!Object.keys(sel).length) ctx.fail(rel, `needs at least one selector key (${kSelectorKeys.slice(0, 7).join(', ')}, ...)`);
  return checkSelector(sel as SelectorObject, ctx, rel) as SelectorObject;
}

function percentOf(text: string, ctx: NormalizeCtx, rel: Path): { x: number; y: number } | undefined {
  const m = kPercentRe.exec(text);
  if (!m) {
    if (text.includes('%') && /^[\s\d.,%+-]+$/.test(text)) {
      ctx.fail(rel, `"${text}" is not a point: write "x%,y%" with percentages from 0 to 100, e.g. "50%,80%"`);
    }
    return undefined;
  }
  const x = Number(m[1]);
  const y = Number(m[2]);
  if (x > 100 || y > 100) ctx.fail(rel, `"${text}" is off the screen: percentages go from 0 to 100`);
  return { x, y };
}

export function toTarget(v: unknown, ctx: NormalizeCtx, rel: Path = []): Target {
  if (typeof v === 'string') {
    const percent = percentOf(v, ctx, rel);
    return percent ? { percent } : { selector: checkSelector(v, ctx, rel) };
  }
  if (Array.isArray(v)) return { point: { x: v[0] as number, y: v[1] as number } };
  const o = v as Record<string, unknown>;
  if (o.point !== undefined && (typeof o.prompt === 'string' || typeof o.x === 'number')) {
    ctx.fail([...rel, 'point'], 'point is a place inside an element: give it with selector keys, e.g. { id: card, point: "50%,90%" }', { atKey: true });
  }
  if (typeof o.prompt === 'string') return { prompt: o.prompt };
  if (typeof o.x === 'number' && typeof o.y === 'number') return { point: { x: o.x, y: o.y } };
  // `point` without selector keys: a point of the screen ("x,y" pixels, "x%,y%"), or a ${...} giving one when the step runs.
  if (o.point !== undefined && !kSelectorKeys.some((k) => o[k] !== undefined)) return screenPointOf(String(o.point), ctx, [...rel, 'point']);
  const selector = pickSelector(o, ctx, rel);
  if (o.point === undefined) return { selector };
  // A ${...} point is evaluated, and its form checked, when the step runs (runner/steps/target.ts).
  return { selector, point: isRuntime(o.point) ? o.point : elementPointOf(String(o.point), ctx, [...rel, 'point']) };
}

/** A point of the screen given as `point` alone: "x%,y%" (0 to 100) or "x,y" pixels; a ${...} is kept for the step's run. */
function screenPointOf(text: string, ctx: NormalizeCtx, rel: Path): Target {
  if (isRuntime(text)) return { runtimePoint: text };
  const percent = percentOf(text, ctx, rel);
  if (percent) return { percent };
  const px = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!px) ctx.fail(rel, `"${text}" is not a point of the screen: write "x,y" (pixels) or "x%,y%" (percent of the screen), or give selector keys for a point inside an element`);
  return { point: { x: Number(px[1]), y: Number(px[2]) } };
}

/** A point inside an element: "x%,y%" of its bounds (0 to 100), or "x,y" pixels from its top-left. */
const kElementPointRe = /^\s*(\d+(?:\.\d+)?)(%?)\s*,\s*(\d+(?:\.\d+)?)(%?)\s*$/;
const elementPoint: JsonSchema = {
  anyOf: [{ type: 'string', pattern: kElementPointRe.source }, runtimeText],
  description:
    'A point inside the element instead of its centre: "x%,y%" of its bounds (0 to 100), or "x,y" pixels from its top-left. ' +
    'Without selector keys, a point of the screen: "x,y" pixels or "x%,y%". A ${...} giving one is evaluated when the step runs.',
};

function elementPointOf(text: string, ctx: NormalizeCtx, rel: Path): ElementPoint {
  const m = kElementPointRe.exec(text);
  if (!m || m[2] !== m[4]) ctx.fail(rel, `"${text}" is not a point inside an element: write "x%,y%" (percent of its bounds) or "x,y" (pixels from its top-left), both parts alike`);
  const p: ElementPoint = { x: Number(m[1]), y: Number(m[3]), unit: m[2] ? '%' : 'px' };
  if (p.unit === '%' && (p.x > 100 || p.y > 100)) ctx.fail(rel, `"${text}" is outside the element: percentages go from 0 to 100`);
  return p;
}

/** A target that may name a point inside its element (tap, longPress, doubleTap, hover, swipe from). */
export const elementTarget = (extra: Record<string, JsonSchema> = {}): JsonSchema => targetSchema({ ...extra, point: elementPoint });

export function resolveFile(file: string, ctx: NormalizeCtx): string {
  // Templated paths are resolved by the runner, once their variables are known.
  if (file.includes('${') || /^[a-z][a-z0-9+.-]*:\/\//i.test(file) || isAbsolute(file)) return file;
  return resolve(dirname(ctx.file), file);
}

export const envValues = (env: Record<string, unknown> | undefined): Record<string, string> | undefined =>
  env === undefined ? undefined : Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));

export const screenshotName: JsonSchema = { type: 'string', minLength: 1, pattern: '^[^\\\\:*?"<>|]+$', description: 'Baseline / attachment name (no \\ : * ? " < > |).' };
export function checkName(name: string, ctx: NormalizeCtx, rel: Path): string {
  if (name.startsWith('/') || name.split('/').includes('..')) ctx.fail(rel, `"${name}" must be a relative name without ".." segments`);
  return name;
}

export const kDirection: JsonSchema = { type: 'string', enum: [...kDirections] };

export const permissionsSchema: JsonSchema = {
  type: 'object',
  description: 'Permission names (all, camera, location, notifications, ..., or android.permission.X) to allow, deny or unset.',
  additionalProperties: { anyOf: [{ type: 'string', enum: ['allow', 'deny', 'unset'] }, runtimeText] },
  minProperties: 1,
};
