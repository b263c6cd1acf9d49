// The GBOX vocabulary on an Android box, through AndroidBox's public methods: a gesture is one
// `input` command (tap, swipe, or `input motionevent` for a path: AndroidBox.drag), and every value
// that reaches the device's shell is a number the server computed (sh, shellQuote.ts). What adb's
// `input` cannot do (hover, several fingers, other mouse buttons) is a clear 422, never a guess.
import { BoxflowError } from '../../../errors.js';
import { kOrientations, type Display, type Orientation, type Point } from '../../../api/schemas.js';
import type { AndroidBox } from './androidBox.js';
import { sh } from '../../../api/shellQuote.js';
import { resolveTextTarget } from '../targets.js';
import type { Finger, Gesture, GestureContext } from '../gesture.js';

/** Points of a finger's path while it moves: `input motionevent` takes one shell request each. */
const kMotionStepMs = 50;
/** A scroll without a duration is a swipe of this long: adb's `input swipe` needs one. */
const kScrollSwipeMs = 500;

const unprocessable = (what: string) => new BoxflowError('UNPROCESSABLE', `${what} on an Android box: adb's \`input\` has no way to do it (a Linux box can)`);

/** Targets are looked up in the device's uiautomator dump; the screen's size comes from `wm size` (two device commands, only for directions). */
export function androidContext(box: AndroidBox, scale: number): GestureContext {
  let display: Promise<Display> | undefined;
  return {
    resolve: (target, field) => resolveTextTarget(target, field, scale, (text) => box.resolveTarget(text)),
    // As for drag: a point is passed as given (the device clamps it).
    fit: (p) => p,
    screen: async () => {
      const { resolution } = await (display ??= androidDisplay(box));
      return { width: resolution.width * scale, height: resolution.height * scale };
    },
  };
}

/** Refuses, before any image is taken, what an Android box cannot do. */
export function checkOnAndroid(g: Gesture): void {
  if (g.kind === 'move') throw unprocessable('moving the pointer without touching the screen (hover)');
  if (g.kind === 'click' && g.button !== 'left') throw unprocessable(`a ${g.button}-button click`);
  if (g.kind === 'click' && g.modifierKeys.length) throw unprocessable('a click with modifierKeys held');
  if (g.kind === 'touch' && g.fingers.length > 1) throw unprocessable(`a touch with ${g.fingers.length} fingers (adb drives one)`);
}

/** A shell line that prints nothing on success; any output is the device's error. */
async function quiet(box: AndroidBox, line: string): Promise<void> {
  const out = (await box.shell(line)).trim();
  if (out) throw new BoxflowError('DEVICE_ERROR', `\`${line.slice(0, 80)}\` failed on ${box.info.serial}: ${out.split('\n').slice(0, 3).join(' | ')}`);
}

/** Device pixels. Tap, hold and one straight move are one `input tap`/`input swipe`; a longer path is `input motionevent`s (AndroidBox.drag), which `signal` stops. */
export async function performOnAndroid(box: AndroidBox, g: Gesture, signal?: AbortSignal): Promise<void> {
  checkOnAndroid(g);
  switch (g.kind) {
    case 'click': {
      const x = Math.round(g.at.x);
      const y = Math.round(g.at.y);
      // Both taps on one shell line: a device that starts a VM per `input` would miss the double-tap window otherwise.
      if (g.count === 2) return quiet(box, sh`input tap ${x} ${y}; input tap ${x} ${y}`);
      return box.drag([{ x, y }], [0], signal);
    }
    case 'wheel': {
      // The finger moves against the content: revealing what is below is a swipe upwards.
      const end = { x: Math.max(0, g.at.x - g.dx), y: Math.max(0, g.at.y - g.dy) };
      return box.drag([g.at, end], [g.durationMs || kScrollSwipeMs], signal);
    }
    case 'touch': {
      const { points, segments } = fingerPath(g.fingers[0]!);
      return box.drag(points, segments, signal);
    }
    case 'move':
      return;
  }
}

/** A finger as AndroidBox.drag's points and segment times: its keyframes, with a point every kMotionStepMs where it moves along a path of several legs. */
function fingerPath(f: Finger): { points: Point[]; segments: number[] } {
  const ks = f.keyframes;
  const points: Point[] = [{ x: ks[0]!.x, y: ks[0]!.y }];
  const segments: number[] = [];
  ks.slice(1).forEach((b, i) => {
    const a = ks[i]!;
    const ms = b.atMs - a.atMs;
    const moves = a.x !== b.x || a.y !== b.y;
    const steps = moves && ks.length > 2 ? Math.max(1, Math.round(ms / kMotionStepMs)) : 1;
    for (let k = 1; k <= steps; k++) {
      points.push({ x: a.x + ((b.x - a.x) * k) / steps, y: a.y + ((b.y - a.y) * k) / steps });
      segments.push(ms / steps);
    }
  });
  return { points, segments };
}

/**
 * `wm size` (the override, else the physical size; both in the natural orientation) and the rotation
 * from `dumpsys input` (`SurfaceOrientation: N`, or a viewport's `orientation=N` on newer Androids):
 * 1 and 3 swap width and height. 0-3 are named portrait, landscapeLeft, portraitUpsideDown,
 * landscapeRight (which landscape is which is not verified on a device).
 */
export async function androidDisplay(box: AndroidBox): Promise<Display> {
  const size = await box.shell('wm size');
  const m = /Override size: (\d+)x(\d+)/.exec(size) ?? /Physical size: (\d+)x(\d+)/.exec(size);
  if (!m) throw new BoxflowError('DEVICE_ERROR', `\`wm size\` on ${box.info.serial} did not give a size: ${size.trim().split('\n')[0]!.slice(0, 200)}`);
  const input = await box.shell('dumpsys input');
  const r = /SurfaceOrientation:\s*(?:ROTATION_)?(\d)/.exec(input) ?? /\borientation=(\d)\b/.exec(input);
  const rotation = r ? Number(r[1]) % 4 : 0;
  const [width, height] = rotation % 2 ? [Number(m[2]), Number(m[1])] : [Number(m[1]), Number(m[2])];
  return { orientation: kOrientations[rotation]!, resolution: { width, height } };
}

/**
 * screen-rotation: auto-rotate off and `user_rotation` N, the index of the orientation in the
 * spec's enum (portrait 0, landscapeLeft 1, portraitUpsideDown 2, landscapeRight 3, as
 * androidDisplay reads it back). AndroidBox.rotate reads the settings before the box's first turn
 * and its release puts them back, so the rotation does not outlive the box.
 */
export async function rotateOnAndroid(box: AndroidBox, orientation: Orientation): Promise<string> {
  const rotation = kOrientations.indexOf(orientation) as 0 | 1 | 2 | 3;
  await box.rotate(rotation);
  return `rotated the screen to ${orientation} (user_rotation ${rotation}, auto-rotate off until the box is released)`;
}
