// Where a pointer action lands on a Linux box, checked as Playwright checks a click's target, and
// running a function in the page on the element behind a layout node. Used by tap, long press,
// doubleTap, hover, fill, check and uncheck.
import { BoxflowError } from '../../errors.js';
import type { Target } from '../../flow/types.js';
import { centre, describeSelector } from '../../layout/index.js';
import type { LayoutNode } from '../../layout/types.js';
import { delay } from '../poll.js';
import { findVisible, pointIn, screenSize, toAction } from './target.js';
import type { StepRun } from './types.js';

export const at = (p: { x: number; y: number }) => `(${Math.round(p.x)}, ${Math.round(p.y)})`;

/** A target in CSS px of the page (Linux boxes: screen pixels are CSS px). */
export async function pagePoint(run: StepRun, target: Target): Promise<{ x: number; y: number }> {
  if ('prompt' in target) throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `${run.record.command} takes a selector or a point, not a {prompt}`);
  if ('selector' in target) return centre(await findVisible(run, target.selector, { needGeometry: true }), (t) => run.rt.masker.text(t));
  if ('percent' in target) {
    const s = await screenSize(run);
    return { x: (target.percent.x / 100) * s.width, y: (target.percent.y / 100) * s.height };
  }
  // A ${...} point is evaluated before any handler runs (evaluatePoints in target.ts): here it is a bug, never a guess.
  if ('runtimePoint' in target) throw new BoxflowError('INTERNAL', `the point ${JSON.stringify(target.runtimePoint)} reached ${run.record.command} unevaluated`);
  return target.point;
}

/**
 * Where a pointer action on `target` lands (CSS px), checked as Playwright checks a click's target:
 * the pointer moves there first (a menu the move opens or closes does so now), then one call in the
 * page checks that the element stands still over an animation frame and that it is what is under
 * that point (or contains it). Else the element is looked up again and tried again until the step's
 * deadline, then TARGET_OBSCURED names what is there. Points and percentages land where they say.
 */
export async function landingPoint(run: StepRun, target: Target): Promise<{ x: number; y: number }> {
  if (!('selector' in target)) return pagePoint(run, target);
  const { selector } = target;
  let blocker = '';
  for (;;) {
    const node = await findVisible(run, selector, { needGeometry: true });
    // A point inside the element (Maestro's `point: "56%,33%"`), where the target has one.
    const p = target.point ? pointIn(node, target.point) : centre(node, (t) => run.rt.masker.text(t));
    await run.rt.client.move(run.rt.box.id, { ...toAction(run, p), options: { screenshot: false } }, { signal: run.signal, timeoutMs: run.rt.options.actionTimeout });
    // A check that could not run (the element left the page, the page navigated away) confirms
    // nothing: the element is looked up again, as when something else is there.
    let failed: string | undefined;
    const hit = await onElement<{ ok: boolean; still: boolean; at: string }>(run, node, kHitCheck, p.x, p.y).catch((err: unknown) => {
      if (run.signal.aborted) throw err;
      failed = err instanceof Error ? err.message : String(err);
      return { ok: false, still: false, at: '' };
    });
    if (hit.ok && hit.still) return p;
    if (!hit.ok) blocker = hit.at;
    if (performance.now() >= run.deadline) {
      const why = failed !== undefined ? `: the check of what is there failed (${run.rt.masker.text(failed)})` : hit.ok ? ': it is still moving' : blocker ? `: ${run.rt.masker.text(blocker)} is` : '';
      throw new BoxflowError('TARGET_OBSCURED', `${describeSelector(selector)} is not what is under the pointer at ${at(p)}${why} (after ${run.timeoutMs} ms)`);
    }
    await delay(50, run.signal);
  }
}

/**
 * In the page, on the element: its box before and after one animation frame (at most 100 ms: a
 * page that draws no frames counts as still), and what is under (x, y) in the top frame (a frame's
 * own coordinates are not the screen's: there only stillness is checked).
 */
const kHitCheck = `function (x, y) {
  const box = () => { const r = this.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].join(); };
  const before = box();
  return new Promise((resolve, reject) => {
    // In a callback, what throws must reject: uncaught there, it would leave the check unanswered.
    const done = () => {
      try {
        const still = box() === before;
        if (window !== window.top) return resolve({ ok: true, still, at: '' });
        const el = document.elementFromPoint(x, y);
        const name = (e) => e ? e.localName + (e.id ? '#' + e.id : '') + (e.classList.length ? '.' + [...e.classList].join('.') : '') : 'nothing';
        resolve({ ok: !!el && (el === this || this.contains(el)), still, at: name(el) });
      } catch (err) {
        reject(err);
      }
    };
    requestAnimationFrame(done);
    setTimeout(done, 100);
  });
}`;

/** Runs `fn` in the page on the element behind `node` (in its own frame), returning its result. */
export async function onElement<T>(run: StepRun, node: LayoutNode, fn: string, ...args: unknown[]): Promise<T> {
  const { cdp, backendNodeId } = run.rt.layout.dom(node);
  return callOnNode<T>(run, (method, params) => cdp.send(method, params), backendNodeId, fn, args);
}

/** A DevTools command sender: a session of the flow's connection, or a queued connection's for one session. */
export type CdpSend = (method: string, params: Record<string, unknown>) => Promise<unknown>;

/** Runs `fn` on the node `backendNodeId` (resolved, called with `args`, released) over `send`. */
export async function callOnNode<T>(run: StepRun, send: CdpSend, backendNodeId: number, fn: string, args: unknown[]): Promise<T> {
  const { object } = (await send('DOM.resolveNode', { backendNodeId })) as { object: { objectId: string } };
  const res = (await send('Runtime.callFunctionOn', {
    objectId: object.objectId,
    functionDeclaration: fn,
    arguments: args.map((value) => ({ value })),
    returnByValue: true,
    awaitPromise: true,
  })) as { result: { value: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } };
  await send('Runtime.releaseObject', { objectId: object.objectId }).catch(() => {});
  if (res.exceptionDetails) throw new BoxflowError('UNPROCESSABLE', `${run.record.command}: the page threw ${res.exceptionDetails.exception?.description ?? res.exceptionDetails.text}`);
  return res.result.value as T;
}

