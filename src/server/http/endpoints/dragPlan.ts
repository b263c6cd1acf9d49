// One reading of a drag body for every backend (Chromium, adb): text targets, the points, the time
// each segment takes, the limits, the trace and the message. A backend only finds and moves.
import { BoxflowError } from '../../../errors.js';
import { formatDuration, kDurationLimits, parseDuration } from '../../../api/duration.js';
import type { DragBody, Point } from '../../../api/schemas.js';
import type { TraceOp } from '../trace.js';

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

export { resolveTextTarget } from '../../devices/targets.js';
