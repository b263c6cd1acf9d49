// One reading of the GBOX pointer actions (click, tap, long-press, move, scroll, swipe, touch) for
// every backend, as dragPlan.ts is for drag: targets, defaults, limits, `actual`, the message and
// the trace, all in the box's action scale. A backend (linux.ts, android.ts) only performs the
// Gesture it is given, in real pixels.
import { BoxflowError } from '../../../errors.js';
import { formatDuration, kDurationLimits, parseDuration } from '../../../api/duration.js';
import { kDistancePresets, type ClickBody, type DetectedElement, type DistancePreset, type LongPressBody, type MoveBody, type Point, type ScrollBody, type SwipeBody, type SwipeDirection, type TapBody, type TouchBody, type TouchPoint } from '../../../api/schemas.js';
import type { TraceOp } from '../trace.js';
import type { Finger, Gesture, GestureContext } from '../../devices/gesture.js';

export type { Finger, Gesture, GestureContext } from '../../devices/gesture.js';

export interface GesturePlan {
  gesture: Gesture;
  /** The response's `actual`, when the endpoint has one. */
  actual?: Record<string, unknown>;
  message: string;
  trace: TraceOp;
}


const round = (n: number) => Math.round(n * 100) / 100;
const at = (p: Point) => `(${p.x}, ${p.y})`;

async function targetPoint(body: { x?: number; y?: number; target?: string | DetectedElement }, ctx: GestureContext): Promise<Point> {
  if (body.target === undefined) return ctx.fit({ x: body.x!, y: body.y! });
  if (typeof body.target === 'string') return ctx.fit(await ctx.resolve(body.target, '/target'));
  return ctx.fit({ x: body.target.centerX, y: body.target.centerY });
}

export async function planClick(body: ClickBody, ctx: GestureContext): Promise<GesturePlan> {
  const point = await targetPoint(body, ctx);
  const button = body.button ?? 'left';
  const double = body.double ?? false;
  const mods = body.modifierKeys ?? [];
  const held = mods.length ? ` holding ${mods.join('+')}` : '';
  return {
    gesture: { kind: 'click', at: point, button, count: double ? 2 : 1, modifierKeys: mods },
    actual: { button, double, x: point.x, y: point.y, ...(body.modifierKeys ? { modifierKeys: mods } : {}) },
    message: `${double ? 'double-clicked' : 'clicked'} ${at(point)}${button === 'left' ? '' : ` with the ${button} button`}${held}`,
    trace: { kind: 'tap', point },
  };
}

export async function planTap(body: TapBody, ctx: GestureContext): Promise<GesturePlan> {
  const point = await targetPoint(body, ctx);
  return {
    gesture: { kind: 'touch', name: 'tap', fingers: [{ keyframes: [{ atMs: 0, ...point }] }] },
    actual: { x: point.x, y: point.y },
    message: `tapped ${at(point)}`,
    trace: { kind: 'tap', point },
  };
}

export async function planLongPress(body: LongPressBody, ctx: GestureContext): Promise<GesturePlan> {
  const point = await targetPoint(body, ctx);
  const ms = parseDuration(body.duration ?? '1s', '/duration', kDurationLimits.dragMax);
  const duration = formatDuration(ms);
  return {
    gesture: { kind: 'touch', name: 'long press', fingers: [{ keyframes: [{ atMs: 0, ...point }, { atMs: ms, ...point }] }] },
    actual: { duration, x: point.x, y: point.y },
    message: `long-pressed ${at(point)} for ${duration}`,
    trace: { kind: 'tap', point },
  };
}

export function planMove(body: MoveBody, ctx: GestureContext): GesturePlan {
  const point = ctx.fit({ x: body.x, y: body.y });
  return { gesture: { kind: 'move', at: point }, message: `moved to ${at(point)}`, trace: { kind: 'label', text: `move: ${at(point)}` } };
}

/** The unit steps of a direction on screen (y grows downwards). */
const kSteps: Record<SwipeDirection, [number, number]> = {
  up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0],
  upLeft: [-1, -1], upRight: [1, -1], downLeft: [-1, 1], downRight: [1, 1],
};

/**
 * The way from the centre (or `location`) for `direction`: by default to the screen's edge (half of
 * it; a diagonal to the corner); a preset is that share of the screen, pixels go along the direction.
 */
async function directionVector(direction: SwipeDirection, distance: number | string | undefined, ctx: GestureContext): Promise<Point> {
  const [ux, uy] = kSteps[direction];
  if (typeof distance === 'number') {
    const norm = Math.hypot(ux, uy);
    return { x: round((ux / norm) * distance), y: round((uy / norm) * distance) };
  }
  const share = distance === undefined ? 0.5 : kDistancePresets[distance as DistancePreset];
  const screen = await ctx.screen();
  return { x: round(ux * share * screen.width), y: round(uy * share * screen.height) };
}

async function origin(location: string | undefined, ctx: GestureContext): Promise<Point> {
  if (location !== undefined) return ctx.fit(await ctx.resolve(location, '/location'));
  const screen = await ctx.screen();
  return { x: round(screen.width / 2), y: round(screen.height / 2) };
}

export async function planScroll(body: ScrollBody, ctx: GestureContext): Promise<GesturePlan> {
  let point: Point;
  let dx: number;
  let dy: number;
  let durationMs = 0;
  if ('direction' in body) {
    point = await origin(body.location, ctx);
    // Going by what is revealed (docs/api.md): `up` reveals what is below, as a positive scrollY.
    const v = await directionVector(body.direction, body.distance, ctx);
    dx = round(-v.x);
    dy = round(-v.y);
    durationMs = parseDuration(body.duration ?? '500ms', '/duration', kDurationLimits.dragMax);
  } else {
    point = ctx.fit({ x: body.x, y: body.y });
    dx = body.scrollX;
    dy = body.scrollY;
  }
  return {
    gesture: { kind: 'wheel', at: point, dx, dy, durationMs },
    actual: { scrollX: dx, scrollY: dy, x: point.x, y: point.y },
    message: `scrolled by (${dx}, ${dy}) at ${at(point)}`,
    trace: { kind: 'drag', path: [point, ctx.fit({ x: point.x + dx, y: point.y + dy })] },
  };
}

export async function planSwipe(body: SwipeBody, ctx: GestureContext): Promise<GesturePlan> {
  let start: Point;
  let end: Point;
  if ('direction' in body) {
    start = await origin(body.location, ctx);
    const v = await directionVector(body.direction, body.distance, ctx);
    end = ctx.fit({ x: start.x + v.x, y: start.y + v.y });
  } else {
    start = ctx.fit(await ctx.resolve(body.start, '/start'));
    end = ctx.fit(await ctx.resolve(body.end, '/end'));
  }
  const ms = parseDuration(body.duration ?? '500ms', '/duration', kDurationLimits.dragMax);
  const duration = formatDuration(ms);
  return {
    gesture: { kind: 'touch', name: 'swipe', fingers: [{ keyframes: [{ atMs: 0, ...start }, { atMs: ms, ...end }] }] },
    actual: { duration, start, end },
    message: `swiped from ${at(start)} to ${at(end)} in ${duration}`,
    trace: { kind: 'drag', path: [start, end] },
  };
}

const kTouchMoveDefault = '200ms';
const kTouchWaitDefault = '500ms';

/** Each entry of `points` is a finger; its moves and waits follow each other; the fingers act together. */
export function planTouch(body: TouchBody, ctx: GestureContext): GesturePlan {
  const maxMs = parseDuration(kDurationLimits.dragMax);
  const fingers: Finger[] = [];
  const points: TouchPoint[] = [];
  body.points.forEach((finger, i) => {
    let pos = ctx.fit(finger.start);
    let t = 0;
    const keyframes = [{ atMs: 0, ...pos }];
    const actions: NonNullable<TouchPoint['actions']> = [];
    (finger.actions ?? []).forEach((a, j) => {
      const where = `/points/${i}/actions/${j}`;
      const isMove = a.type === 'move' || (a.type !== 'wait' && (a.x !== undefined || a.y !== undefined));
      if (isMove && (a.x === undefined || a.y === undefined)) throw new BoxflowError('INVALID_REQUEST', `${where}/${a.x === undefined ? 'x' : 'y'} is required for a move`);
      const ms = parseDuration(a.duration ?? (isMove ? kTouchMoveDefault : kTouchWaitDefault), `${where}/duration`, kDurationLimits.dragMax);
      t += ms;
      if (t > maxMs) throw new BoxflowError('INVALID_DURATION', `/points/${i}: the finger's moves and waits take longer than the maximum gesture, ${kDurationLimits.dragMax}`);
      if (isMove) pos = ctx.fit({ x: a.x!, y: a.y! });
      keyframes.push({ atMs: t, ...pos });
      actions.push(isMove ? { type: 'move', x: pos.x, y: pos.y, duration: formatDuration(ms) } : { type: 'wait', duration: formatDuration(ms) });
    });
    fingers.push({ keyframes });
    points.push({ start: { x: keyframes[0]!.x, y: keyframes[0]!.y }, ...(finger.actions ? { actions } : {}) });
  });
  const totalMs = Math.max(...fingers.map((f) => f.keyframes.at(-1)!.atMs));
  const one = fingers.length === 1 ? fingers[0]!.keyframes : undefined;
  const path = one?.map((k) => ({ x: k.x, y: k.y }));
  const still = path?.every((p) => p.x === path[0]!.x && p.y === path[0]!.y);
  return {
    gesture: { kind: 'touch', name: 'touch', fingers },
    actual: { points },
    message: `touched with ${fingers.length} finger${fingers.length === 1 ? '' : 's'} for ${formatDuration(totalMs)}`,
    trace: !path ? { kind: 'label', text: `touch: ${fingers.length} fingers` } : still ? { kind: 'tap', point: path[0]! } : { kind: 'drag', path },
  };
}

/** The gesture in real pixels (action coordinates are divided by the scale). */
export function unscaled(g: Gesture, scale: number): Gesture {
  const p = (q: Point) => ({ x: q.x / scale, y: q.y / scale });
  switch (g.kind) {
    case 'click':
    case 'move':
      return { ...g, at: p(g.at) };
    case 'wheel':
      return { ...g, at: p(g.at), dx: g.dx / scale, dy: g.dy / scale };
    case 'touch':
      return { ...g, fingers: g.fingers.map((f) => ({ keyframes: f.keyframes.map((k) => ({ atMs: k.atMs, ...p(k) })) })) };
  }
}
