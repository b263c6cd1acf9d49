// One reading of a drag body for every backend (Chromium, adb): text targets, the points, the time
// each segment takes, the limits, the trace and the message. A backend only finds and moves.
import { distance } from 'fastest-levenshtein';
import { BoxflowError } from '../errors.js';
import { formatDuration, kDurationLimits, parseDuration } from '../api/duration.js';
import type { DragBody, Point } from '../api/schemas.js';
import { didYouMean, kSuggestMaxLength } from '../api/suggest.js';
import { preview } from '../api/validate.js';
import type { TargetMatch, TargetResolution } from './chromium/linuxBox.js';
import type { TraceOp } from './trace.js';

export interface DragPlan {
  /** In the box's action scale. */
  points: Point[];
  /** ms per segment between consecutive points. */
  segments: number[];
  durationMs: number;
  /** Every point is the same: a tap, held for durationMs. */
  tap: boolean;
  trace: TraceOp;
  message: string;
  actual: { start: Point; end: Point; duration: string };
}

/**
 * `resolve` turns a text target into a point; `fit` may move a point (e.g. onto the screen). The
 * whole move may take at most kDurationLimits.dragMax, so a request answers within a client's
 * timeout and never holds its box for hours.
 */
export async function planDrag(body: DragBody, resolve: (target: Point | string, field: string) => Promise<Point>, fit: (p: Point) => Point = (p) => p): Promise<DragPlan> {
  const dragMaxMs = parseDuration(kDurationLimits.dragMax);
  let points: Point[];
  let segments: number[];
  let durationMs: number;
  if ('path' in body) {
    durationMs = parseDuration(body.duration ?? '50ms', '/duration');
    points = body.path.map((p) => ({ x: p.x, y: p.y }));
    segments = points.slice(1).map(() => durationMs);
    if (durationMs * segments.length > dragMaxMs) {
      throw new BoxflowError('INVALID_DURATION', `/duration: ${segments.length} intervals of ${formatDuration(durationMs)} take longer than the maximum drag, ${kDurationLimits.dragMax}`);
    }
  } else {
    durationMs = parseDuration(body.duration ?? '500ms', '/duration', kDurationLimits.dragMax);
    points = [await resolve(body.start, '/start'), await resolve(body.end, '/end')];
    segments = [durationMs];
  }
  points = points.map(fit);
  const start = points[0]!;
  const end = points.at(-1)!;
  const tap = points.every((p) => p.x === start.x && p.y === start.y);
  const at = (p: Point) => `(${p.x}, ${p.y})`;
  return {
    points,
    segments,
    durationMs,
    tap,
    trace: tap ? { kind: 'tap', point: start } : { kind: 'drag', path: points },
    message: tap ? `tapped ${at(start)}${durationMs ? ` for ${formatDuration(durationMs)}` : ''}` : `dragged from ${at(start)} to ${at(end)} through ${points.length} points`,
    actual: { start, end, duration: formatDuration(durationMs) },
  };
}

/** A `type`'s message: how many characters, but not for a `sensitive` text, whose length is a secret too. */
export function typeMessage(body: { text: string; mode?: string; pressEnter?: boolean; sensitive?: unknown }): string {
  const what = body.sensitive === true ? 'a secret' : `${[...body.text].length} characters`;
  return `${body.mode === 'replace' ? 'replaced the text with' : 'typed'} ${what}${body.pressEnter ? ' and pressed Enter' : ''}`;
}

/** The label a `type` draws on its trace: never the text of a `sensitive` type (docs/api.md). */
export function typeTraceLabel(body: { text: string; pressEnter?: boolean; sensitive?: unknown }): string {
  const shown = body.sensitive === true ? '••••' : JSON.stringify(body.text);
  return `type: ${shown}${body.pressEnter ? ' ⏎' : ''}`;
}

/**
 * A text target (`start: "Send"`) as a point in the box's action scale, from what the backend found
 * on the screen at real pixels: 422 TARGET_AMBIGUOUS or TARGET_NOT_FOUND with the nearest candidates.
 */
export async function resolveTextTarget(target: Point | string, field: string, scale: number, find: (text: string) => Promise<TargetResolution>): Promise<Point> {
  if (typeof target !== 'string') return target;
  const round = (n: number) => Math.round(n * 100) / 100;
  const scaled = (m: TargetMatch) => ({ ...m, x: round(m.x * scale), y: round(m.y * scale) });
  const r = await find(target);
  if ('found' in r) return { x: round(r.found.x * scale), y: round(r.found.y * scale) };
  if ('ambiguous' in r) {
    const candidates = r.ambiguous.map(scaled);
    throw new BoxflowError('TARGET_AMBIGUOUS', `${field}: ${preview(target)} matches ${candidates.length} elements (${r.how}): ${candidates.slice(0, 5).map((c) => `${c.tag} "${c.text}"`).join(', ')}`, { details: { target, candidates } });
  }
  const want = target.toLowerCase();
  const short = want.length <= kSuggestMaxLength;
  const candidates = (short ? r.candidates.map((c) => ({ c, d: distance(want, c.text) })).sort((a, b) => a.d - b.d).map((x) => x.c) : r.candidates).slice(0, 10).map(scaled);
  const suggestion = didYouMean(target, candidates.map((c) => c.text));
  const hint = !candidates.length ? '; the screen shows no text' : suggestion ? `; did you mean "${suggestion}"?` : '';
  throw new BoxflowError('TARGET_NOT_FOUND', `${field}: no visible element shows or is labelled ${preview(target)}${hint}`, { details: { target, candidates } });
}
