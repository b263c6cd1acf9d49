// Chromium draws a page only when something on it changed, and tells each new frame to a screencast.
// A screencast of tiny frames (a few bytes each) is thus a change signal for the page: a capture
// stays the screen's image as long as no frame came after it, and a screen is still once no frame
// came for a while. That saves the captures (~40 ms each) that only confirm what is known.
import type { RawCdp } from './rawCdp.js';

/** Two frames at 60 Hz, and the time a frame takes to be told: a change is seen within it. */
export const kQuietMs = 35;

export class FrameWatch {
  #frames = 0;
  #still: { png: Buffer; scale: number; frames: number } | undefined;
  readonly #waiters = new Set<() => void>();

  /** Watches the page of `cdp`; undefined when Chromium offers no screencast there. */
  static async start(cdp: RawCdp): Promise<FrameWatch | undefined> {
    const watch = new FrameWatch();
    cdp.on('Page.screencastFrame', (p) => {
      watch.#frame();
      cdp.send('Page.screencastFrameAck', { sessionId: p.sessionId }).catch(() => {});
    });
    try {
      await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 10, maxWidth: 16, maxHeight: 16, everyNthFrame: 1 });
      return watch;
    } catch {
      return undefined;
    }
  }

  /**
   * Runs a capture of the whole screen and keeps it as the screen's image, unless a frame besides
   * the one the capture itself makes Chromium draw came meanwhile (the screen changed during it).
   * A frame told only after the capture answered counts as a change: never a stale image, at
   * worst a capture more.
   */
  async capture(scale: number, take: () => Promise<Buffer>): Promise<Buffer> {
    const seen = this.#frames;
    const png = await take();
    this.#still = this.#frames - seen <= 1 ? { png, scale, frames: this.#frames } : undefined;
    return png;
  }

  /** The last capture at this scale while no frame came since: the screen as it is. */
  current(scale: number): Buffer | undefined {
    const still = this.#still;
    return still && still.frames === this.#frames && still.scale === scale ? still.png : undefined;
  }

  /** True once no frame came for `ms`; false at the first frame. */
  quiet(ms: number, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const end = () => {
        clearTimeout(timer);
        this.#waiters.delete(moved);
        signal?.removeEventListener('abort', aborted);
      };
      const moved = () => {
        end();
        resolve(false);
      };
      const aborted = () => {
        end();
        reject(signal!.reason as Error);
      };
      const timer = setTimeout(() => {
        end();
        resolve(true);
      }, ms);
      this.#waiters.add(moved);
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  #frame(): void {
    this.#frames++;
    for (const w of [...this.#waiters]) w();
  }
}
