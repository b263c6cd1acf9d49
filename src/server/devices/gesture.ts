// A pointer action as a device performs it, in real pixels (the endpoints plan it in the action
// scale: http/endpoints/gestures.ts), and what planning asks of the device.
import type { KeyName, Point } from '../../api/schemas.js';

/** A finger's path: where it is at each time (ms from the start), straight lines between. */
export interface Finger {
  keyframes: Array<{ atMs: number; x: number; y: number }>;
}

export type Gesture =
  | { kind: 'click'; at: Point; button: 'left' | 'right' | 'middle'; count: 1 | 2; modifierKeys: KeyName[] }
  | { kind: 'move'; at: Point }
  /** Wheel deltas: positive reveals what is below / on the right. */
  | { kind: 'wheel'; at: Point; dx: number; dy: number; durationMs: number }
  /** Fingers down at their first keyframe, up after the last one's time (all at once). */
  | { kind: 'touch'; fingers: Finger[]; name: 'tap' | 'long press' | 'swipe' | 'touch' };

export interface GestureContext {
  /** A text target as a point (422 when it matches nothing or several elements). */
  resolve: (target: Point | string, field: string) => Promise<Point>;
  /** The point where the box acts for `p` (e.g. moved onto the screen). */
  fit: (p: Point) => Point;
  /** The screen's size in the action scale (for directions without a `location`). */
  screen: () => Promise<{ width: number; height: number }>;
}
