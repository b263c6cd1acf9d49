// A Linux box's pointer and keys (linuxBox.ts): CDP's Input.dispatch* on the active tab's own
// connection, as Playwright itself sends them.
import { setTimeout as sleep } from 'node:timers/promises';
import { BoxflowError } from '../../../../errors.js';
import type { KeyName, Point } from '../../../../api/schemas.js';
import type { CdpConnection } from '../../../../cdp/connection.js';
import { keyDef, keyEvent, type KeyDef } from './keys.js';

const kMoveStepMs = 16; // one pointer move per frame at 60 Hz

/**
 * Pointer down at the first point, moves through the rest (each segment over its ms; a
 * zero-length segment holds still), up at the last. Real pixels. When `signal` aborts, the
 * pointer is released where it is and the abort reason is thrown.
 */
export async function dispatchDrag(s: CdpConnection, points: Point[], segmentMs: number[], signal?: AbortSignal): Promise<void> {
  const first = points[0]!;
  const mouse = (type: string, p: Point, buttons: number) =>
    s.send('Input.dispatchMouseEvent', { type, x: p.x, y: p.y, button: type === 'mouseMoved' && buttons === 0 ? 'none' : 'left', buttons, clickCount: type === 'mouseMoved' ? 0 : 1 });
  signal?.throwIfAborted();
  await mouse('mouseMoved', first, 0);
  await mouse('mousePressed', first, 1);
  let prev = first;
  let at = first;
  let deadline = performance.now();
  try {
    for (let i = 1; i < points.length; i++) {
      const next = points[i]!;
      const ms = segmentMs[i - 1] ?? 0;
      if (next.x === prev.x && next.y === prev.y) {
        deadline += ms;
        await sleepUntil(deadline, signal);
        continue;
      }
      const steps = Math.max(1, Math.round(ms / kMoveStepMs));
      for (let k = 1; k <= steps; k++) {
        deadline += ms / steps;
        await sleepUntil(deadline, signal);
        at = { x: prev.x + ((next.x - prev.x) * k) / steps, y: prev.y + ((next.y - prev.y) * k) / steps };
        await mouse('mouseMoved', at, 1);
      }
      prev = next;
    }
  } catch (err) {
    if (signal?.aborted) await mouse('mouseReleased', at, 0).catch(() => {});
    throw err;
  }
  await mouse('mouseReleased', prev, 0);
}

/** Each key down and up in turn; with `combination`, all down (modifiers held) then up in reverse. */
export async function dispatchKeys(s: CdpConnection, names: readonly KeyName[], combination: boolean, signal?: AbortSignal): Promise<void> {
  const defs = names.map((n) => {
    const def = keyDef(n);
    if (!def) throw new BoxflowError('INVALID_REQUEST', `/keys: unknown key "${n}"`);
    return def;
  });
  const send = (def: KeyDef, phase: 'down' | 'up', mods: number) => s.send('Input.dispatchKeyEvent', keyEvent(def, phase, mods));
  if (!combination) {
    for (const def of defs) {
      signal?.throwIfAborted();
      await send(def, 'down', def.modifier ?? 0);
      await send(def, 'up', 0);
    }
    return;
  }
  let mods = 0;
  const held: KeyDef[] = [];
  try {
    for (const def of defs) {
      mods |= def.modifier ?? 0;
      await send(def, 'down', mods);
      held.push(def);
    }
  } finally {
    for (const def of held.reverse()) {
      mods &= ~(def.modifier ?? 0);
      await send(def, 'up', mods);
    }
  }
}


async function sleepUntil(deadline: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const wait = deadline - performance.now();
  if (wait > 1) await sleep(wait, undefined, { signal });
}
