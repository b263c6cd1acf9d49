// The GBOX vocabulary on a Linux box (Chromium over CDP): gestures as Input.dispatch* events on the
// active tab, the screen's rotation, the clipboard, tabs, tall screenshots. Every CDP command goes
// through the tab's raw connection, so each is bounded by the box's CDP timeout.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { BoxflowError } from '../../../errors.js';
import { kLimits, type Display, type Orientation, type Point, type Tab } from '../../../api/schemas.js';
import type { LinuxBox } from './chromium/linuxBox.js';
import { keyDef, keyEvent, kModControl, type KeyEvent } from './chromium/keys.js';
import { call, kClipboardCatch, kClipboardWrite } from './chromium/pageScripts.js';
import type { CdpConnection } from '../../../cdp/connection.js';
import { resolveTextTarget } from '../targets.js';
import type { Finger, Gesture, GestureContext } from '../gesture.js';

const kStepMs = 16; // one pointer event per frame at 60 Hz
const kNavigationTimeoutMs = 30_000;
const kButtonBits = { left: 1, right: 2, middle: 4 } as const;

/** Targets, the screen and its edges in the box's action scale. */
export function linuxContext(box: LinuxBox, scale: number): GestureContext {
  const { width, height } = box.resolution;
  const clamp = (v: number, max: number) => Math.round(Math.min(Math.max(v, 0), max) * 100) / 100;
  return {
    resolve: (target, field) => resolveTextTarget(target, field, scale, (text) => box.resolveTarget(text)),
    fit: (p) => ({ x: clamp(p.x, width * scale), y: clamp(p.y, height * scale) }),
    screen: async () => ({ width: width * scale, height: height * scale }),
  };
}

/** Performs a gesture (real pixels) on the active tab; a request that goes away stops it, fingers and keys released. */
export async function performOnLinux(box: LinuxBox, g: Gesture, signal?: AbortSignal): Promise<void> {
  const cdp = await box.pageCdp();
  signal?.throwIfAborted();
  switch (g.kind) {
    case 'move':
      await cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: g.at.x, y: g.at.y, button: 'none', buttons: 0 });
      return;
    case 'click':
      return click(cdp, g, signal);
    case 'wheel':
      return wheel(cdp, g, signal);
    case 'touch':
      return touch(cdp, g.fingers, signal);
  }
}

/** Modifier keys go down in order (each adding its flag), the clicks, then the keys go up in reverse. */
async function click(cdp: CdpConnection, g: Extract<Gesture, { kind: 'click' }>, signal?: AbortSignal): Promise<void> {
  const defs = g.modifierKeys.map((name) => keyDef(name)!);
  const flags = defs.map((_, i) => defs.slice(0, i + 1).reduce((m, d) => m | (d.modifier ?? 0), 0));
  const mods = flags.at(-1) ?? 0;
  const ups: KeyEvent[] = defs.map((d, i) => keyEvent(d, 'up', flags[i - 1] ?? 0)).reverse();
  const mouse = (type: string, clickCount: number, buttons: number) =>
    cdp.send('Input.dispatchMouseEvent', { type, x: g.at.x, y: g.at.y, button: type === 'mouseMoved' ? 'none' : g.button, buttons, clickCount, modifiers: mods });
  let down = 0;
  try {
    for (; down < defs.length; down++) await cdp.send('Input.dispatchKeyEvent', keyEvent(defs[down]!, 'down', flags[down]!));
    await mouse('mouseMoved', 0, 0);
    for (let count = 1; count <= g.count; count++) {
      signal?.throwIfAborted();
      await mouse('mousePressed', count, kButtonBits[g.button]);
      await mouse('mouseReleased', count, 0);
    }
  } finally {
    for (const up of ups.slice(defs.length - down)) await cdp.send('Input.dispatchKeyEvent', up);
  }
}

/** Wheel events at the point: one for the whole delta, or spread over `durationMs` (one per frame). */
async function wheel(cdp: CdpConnection, g: Extract<Gesture, { kind: 'wheel' }>, signal?: AbortSignal): Promise<void> {
  await cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: g.at.x, y: g.at.y, button: 'none', buttons: 0 });
  const steps = Math.max(1, Math.round(g.durationMs / kStepMs));
  const started = performance.now();
  for (let k = 1; k <= steps; k++) {
    await sleepUntil(started + ((k - 1) * g.durationMs) / steps, signal);
    await cdp.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x: g.at.x, y: g.at.y, deltaX: g.dx / steps, deltaY: g.dy / steps });
  }
}

/** Where a finger is at `t` ms: on the straight line between the keyframes around it. */
function fingerAt(f: Finger, t: number): Point {
  const ks = f.keyframes;
  const next = ks.findIndex((k) => k.atMs >= t);
  if (next <= 0) return next === 0 ? { x: ks[0]!.x, y: ks[0]!.y } : { x: ks.at(-1)!.x, y: ks.at(-1)!.y };
  const a = ks[next - 1]!;
  const b = ks[next]!;
  const r = (t - a.atMs) / (b.atMs - a.atMs);
  return { x: a.x + (b.x - a.x) * r, y: a.y + (b.y - a.y) * r };
}

/** The times a touch event is due: every keyframe, and a frame's time apart while a finger moves. */
function touchTimes(fingers: Finger[]): number[] {
  const times = new Set<number>();
  for (const f of fingers) {
    f.keyframes.forEach((b, i) => {
      times.add(b.atMs);
      const a = f.keyframes[i - 1];
      if (a && (a.x !== b.x || a.y !== b.y)) for (let t = a.atMs + kStepMs; t < b.atMs; t += kStepMs) times.add(t);
    });
  }
  return [...times].filter((t) => t > 0).sort((a, b) => a - b);
}

/** Every finger down at once, moved through its keyframes (one touchMove per frame), all up after the last. */
async function touch(cdp: CdpConnection, fingers: Finger[], signal?: AbortSignal): Promise<void> {
  const points = (t: number) => fingers.map((f, id) => ({ ...fingerAt(f, t), id }));
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: points(0) });
  const started = performance.now();
  let last = JSON.stringify(points(0));
  try {
    for (const t of touchTimes(fingers)) {
      await sleepUntil(started + t, signal);
      const now = points(t);
      const key = JSON.stringify(now);
      if (key === last) continue;
      last = key;
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: now });
    }
  } catch (err) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchCancel', touchPoints: [] }).catch(() => {});
    throw err;
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

async function sleepUntil(deadline: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const wait = deadline - performance.now();
  if (wait > 1) await sleep(wait, undefined, { signal });
}

// ---------------------------------------------------------------- rotation and display

/** The screen as GBOX's display reports it: its orientation is the one the box's pages see. */
export function linuxDisplay(box: LinuxBox): Display {
  return { orientation: box.orientation, resolution: box.resolution };
}

/** Turns the screen (chromium/viewport.ts): the viewport swaps width and height, the page sees the orientation. */
export async function rotateLinux(box: LinuxBox, orientation: Orientation): Promise<Display> {
  await box.rotate(orientation);
  return linuxDisplay(box);
}

// ---------------------------------------------------------------- clipboard

/** A world of our own in the tab's main frame: the page's globals (a replaced addEventListener) cannot get in the way. */
export async function isolatedWorld(cdp: CdpConnection, worldName = 'boxflow-clipboard'): Promise<number> {
  const { frameTree } = await cdp.send<{ frameTree: { frame: { id: string } } }>('Page.getFrameTree');
  const { executionContextId } = await cdp.send<{ executionContextId: number }>('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName });
  return executionContextId;
}

export interface Evaluated {
  result: { value?: unknown; objectId?: string };
  exceptionDetails?: { text: string };
}

/** Sets the browser's clipboard (shared by the box's tabs) through a copy in the active tab. */
export async function writeClipboard(box: LinuxBox, text: string): Promise<void> {
  const cdp = await box.pageCdp();
  const contextId = await isolatedWorld(cdp);
  const r = await cdp.send<Evaluated>('Runtime.evaluate', { expression: call(kClipboardWrite, text), contextId, userGesture: true, returnByValue: true });
  if (r.result.value !== true) throw new BoxflowError('UNPROCESSABLE', `the active tab did not take the clipboard's text${r.exceptionDetails ? `: ${r.exceptionDetails.text}` : ''}`);
}

/**
 * Reads the browser's clipboard: a paste (Control+V) in the active tab, whose event is caught before
 * the page's own listeners and cancelled, so nothing is inserted. The page does see the key events.
 */
export async function readClipboard(box: LinuxBox): Promise<string> {
  const cdp = await box.pageCdp();
  const contextId = await isolatedWorld(cdp);
  const { result } = await cdp.send<Evaluated>('Runtime.evaluate', { expression: call(kClipboardCatch), contextId });
  if (!result.objectId) throw new BoxflowError('UNPROCESSABLE', 'the active tab has no document to read the clipboard in');
  try {
    const v = keyDef('v')!;
    await cdp.send('Input.dispatchKeyEvent', { ...keyEvent(v, 'down', kModControl), commands: ['paste'] });
    await cdp.send('Input.dispatchKeyEvent', keyEvent(v, 'up', kModControl));
    const got = await cdp.send<Evaluated>('Runtime.callFunctionOn', { objectId: result.objectId, functionDeclaration: 'function () { this.stop(); return this.text; }', returnByValue: true });
    if (typeof got.result.value !== 'string') throw new BoxflowError('UNPROCESSABLE', 'the active tab kept the paste from happening (its page cancels Control+V), so the clipboard could not be read');
    return got.result.value;
  } finally {
    await cdp.send('Runtime.releaseObject', { objectId: result.objectId }).catch(() => {});
  }
}

// ---------------------------------------------------------------- tabs

async function pages(box: LinuxBox): Promise<Page[]> {
  return (await box.activePage()).context().pages();
}

/** The tab with this id (its CDP target id) in this box's browser: 404 TAB_NOT_FOUND otherwise. */
async function tabPage(box: LinuxBox, id: string): Promise<Page> {
  for (const page of await pages(box)) if ((await box.tabId(page)) === id) return page;
  throw new BoxflowError('TAB_NOT_FOUND', `the box's browser has no tab ${JSON.stringify(id.slice(0, 100))}; GET /browser/tabs lists them`);
}

export async function listTabs(box: LinuxBox): Promise<Tab[]> {
  return Promise.all((await pages(box)).map((p) => box.tabInfo(p)));
}

export async function switchTab(box: LinuxBox, id: string): Promise<Tab> {
  const page = await tabPage(box, id);
  await box.activate(page);
  return box.tabInfo(page);
}

export async function closeTab(box: LinuxBox, id: string): Promise<{ message: string }> {
  await box.closePage(await tabPage(box, id));
  return { message: `closed tab ${id}` };
}

/** Navigates one tab (active or not), waits for DOMContentLoaded; a request that goes away stops the load. */
export async function navigateTab(box: LinuxBox, id: string, url: string, signal?: AbortSignal): Promise<Tab> {
  const page = await tabPage(box, id);
  const stop = () => box.stopLoading(page);
  signal?.addEventListener('abort', stop, { once: true });
  try {
    signal?.throwIfAborted();
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: kNavigationTimeoutMs });
  } catch (cause) {
    if (signal?.aborted) throw signal.reason;
    throw new BoxflowError('URL_UNREACHABLE', `cannot open ${url.slice(0, 200)} in tab ${id}: ${(cause as Error).message.split('\n')[0]!.replace(/^page\.goto: /, '')}`, { cause });
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  return box.tabInfo(page);
}

// ---------------------------------------------------------------- screenshots

/**
 * The page from its top, as tall as its content (at least the viewport), `maxHeight` pixels at most
 * (in the action scale). Chromium renders it at full size first, so the page itself is cut at
 * kLimits.captureHeight pixels too (a small scale would otherwise ask for ten times that).
 */
export async function tallScreenshot(box: LinuxBox, scale: number, maxHeight: number): Promise<Buffer> {
  const cdp = await box.pageCdp();
  const { width, height: viewport } = box.resolution;
  const { cssContentSize } = await cdp.send<{ cssContentSize: { height: number } }>('Page.getLayoutMetrics');
  const height = Math.max(1, Math.floor(Math.min(Math.max(cssContentSize.height, viewport), maxHeight / scale, kLimits.captureHeight)));
  const { data } = await cdp.send<{ data: string }>('Page.captureScreenshot', { format: 'png', clip: { x: 0, y: 0, width, height, scale }, captureBeyondViewport: true, optimizeForSpeed: true });
  return Buffer.from(data, 'base64');
}
