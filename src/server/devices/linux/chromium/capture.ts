// A Linux box's screen (linuxBox.ts): captures of the active tab, with its frames watched
// (frameWatch.ts) so that an unchanged screen costs no capture and a settled one can be told.
import { setTimeout as sleep } from 'node:timers/promises';
import { BoxflowError } from '../../../../errors.js';
import type { Resolution } from '../../../../api/schemas.js';
import type { CdpConnection } from '../../../../cdp/connection.js';
import { FrameWatch, PageCommitted } from './frameWatch.js';

const kSwapRetryMs = 50;
/** A capture that takes longer fell into a renderer swap and will never answer: try on a new connection. */
const kCaptureStallMs = 5_000;
/**
 * A page that animates at 60 Hz draws a frame at least this often. Also how long the action's frame
 * is waited for before the first capture: Chromium tells a frame 20-40 ms after the change (often,
 * not always, within this).
 */
const kFrameToldMs = 20;
/**
 * The still stretch goes on this long after a capture's answer. The capture's own frame is told
 * before the answer (all of 98 measured captures that drew one), but a page's frame drawn late in the
 * capture is told 20-40 ms after it was drawn: these ms catch some of them. Without them, the
 * transition test took an after-image mid-transition in 1 of 20 runs on a loaded machine.
 */
const kOwnFrameToldMs = 5;

export class ScreenCapture {
  /** The active tab's own CDP connection (LinuxBox: it starts the browser if needed). */
  readonly #input: () => Promise<CdpConnection>;
  readonly #resolution: () => Resolution;
  /** The bound on one capture, its retries included (the box's CDP timeout). */
  readonly #timeoutMs: number;
  readonly #watches = new WeakMap<CdpConnection, Promise<FrameWatch | undefined>>();

  constructor(opts: { input: () => Promise<CdpConnection>; resolution: () => Resolution; timeoutMs: number }) {
    this.#input = opts.input;
    this.#resolution = opts.resolution;
    this.#timeoutMs = opts.timeoutMs;
  }

  /** A PNG of the viewport (or of `clip`, in real pixels), `scale` times its size. */
  async screenshot(scale: number, clip?: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
    // While a navigation swaps the page's renderer, Chromium has no frame to draw for a moment: it
    // answers "Not attached to an active page", or never answers a capture asked of the old renderer.
    // Both pass with the navigation, so try again until the CDP bound: at once when the commit is
    // told during the capture, after a stall on a fresh connection.
    const until = performance.now() + this.#timeoutMs;
    for (;;) {
      try {
        return await this.#take(scale, clip, Math.min(kCaptureStallMs, until - performance.now()));
      } catch (err) {
        const committed = err instanceof PageCommitted;
        const swapped = /Not attached to an active page/i.test((err as Error).message);
        const stalled = BoxflowError.is(err) && err.code === 'BROWSER_TIMEOUT';
        if (!(committed || swapped || stalled) || until - performance.now() <= kSwapRetryMs) {
          throw committed ? new BoxflowError('BROWSER_TIMEOUT', `the page navigated during every capture for ${this.#timeoutMs / 1000}s`) : err;
        }
        if (stalled) (await this.#input()).close();
        if (!committed) await sleep(kSwapRetryMs);
      }
    }
  }

  async #take(scale: number, clip: { x: number; y: number; width: number; height: number } | undefined, timeoutMs: number): Promise<Buffer> {
    const s = await this.#input();
    // The whole viewport at its size needs no clip, so no round trip for the scroll offset.
    let box: object = {};
    if (clip || scale !== 1) {
      const { cssVisualViewport: vv } = await s.send<{ cssVisualViewport: { pageX: number; pageY: number } }>('Page.getLayoutMetrics', {}, { timeoutMs });
      const area = clip ?? { x: 0, y: 0, ...this.#resolution() };
      box = { clip: { x: vv.pageX + area.x, y: vv.pageY + area.y, width: area.width, height: area.height, scale } };
    }
    const take = async () => {
      const { data } = await s.send<{ data: string }>('Page.captureScreenshot', {
        format: 'png',
        ...box,
        captureBeyondViewport: false,
        // zlib's fastest level instead of its default: the PNG is a little larger and takes a fraction of the time.
        optimizeForSpeed: true,
      }, { timeoutMs });
      return Buffer.from(data, 'base64');
    };
    const watch = await this.#watchOf(s);
    if (!watch) return take();
    return clip ? watch.untilCommit(take()) : watch.capture(scale, () => watch.untilCommit(take()));
  }

  #watchOf(cdp: CdpConnection): Promise<FrameWatch | undefined> {
    let w = this.#watches.get(cdp);
    if (!w) {
      // Not the CDP bound: a page that cannot start a screencast at once (a renderer swap) is only watched less.
      w = FrameWatch.start(cdp, kCaptureStallMs);
      this.#watches.set(cdp, w);
    }
    return w;
  }

  /**
   * The screen as it is: the last capture when Chromium drew no frame since, else a new one. A change
   * made shortly before the call (Chromium tells a frame 20-40 ms after the change) may not show.
   */
  async screen(scale: number): Promise<Buffer> {
    const watch = await this.#watchOf(await this.#input());
    return watch?.current(scale) ?? this.screenshot(scale);
  }

  /**
   * The after-shot of `settle: 'frames'`, `maxMs` at most: the first capture with no frame told
   * besides its own from its start until kFrameToldMs after its start and kOwnFrameToldMs after its
   * answer. The still stretch thus overlaps the capture
   * instead of following it: a page that animates draws a second frame within it. Before the first
   * capture, the frame that shows the action is waited for, up to kFrameToldMs: a capture taken while
   * it is drawn would see two frames, and one taken while a navigation swaps the page's renderer
   * stalls. Undefined without a screencast: the caller compares captures instead.
   */
  async settledScreen(scale: number, maxMs: number, signal?: AbortSignal): Promise<Buffer | undefined> {
    const until = performance.now() + maxMs;
    const watch = await this.#watchOf(await this.#input());
    if (!watch) return undefined;
    // Not "no frame came, so the last capture is the screen": the action's frame may be told later
    // than that (20-40 ms after the change). Only a capture is sure to show what the action did.
    await watch.quiet(Math.min(kFrameToldMs, Math.max(0, until - performance.now())), signal);
    for (;;) {
      signal?.throwIfAborted();
      const seen = watch.count;
      const began = performance.now();
      const frame = await this.screenshot(scale);
      const at = Math.min(until, Math.max(began + kFrameToldMs, performance.now() + kOwnFrameToldMs));
      if ((await watch.still(seen, at, frame, scale, signal)) || performance.now() >= until) return frame;
    }
  }
}
