// Chromium draws a page only when something on it changed (or a capture asks for a frame), and
// tells each new frame to a screencast. A screencast of tiny frames (a few bytes each) is thus a
// change signal for the page: a capture during which no other frame was drawn shows a still screen,
// and stays the screen's image until the next frame. That saves the captures (~40 ms each) that
// only confirmed what was known.
import type { CdpConnection } from '../../../../cdp/connection.js';

/** A capture abandoned because the page's main frame committed a navigation before it answered. */
export class PageCommitted extends Error {
  constructor() {
    super("the page navigated during the capture");
  }
}

export class FrameWatch {
  #frames = 0;
  #still: { png: Buffer; scale: number; frames: number } | undefined;
  readonly #waiters = new Set<() => void>();
  readonly #commitWaiters = new Set<() => void>();

  /** Watches the page of `cdp`; undefined when Chromium offers no screencast there (within `timeoutMs`). */
  static async start(cdp: CdpConnection, timeoutMs: number): Promise<FrameWatch | undefined> {
    const watch = new FrameWatch();
    cdp.on('Page.screencastFrame', (p) => {
      watch.#frames++;
      for (const w of [...watch.#waiters]) w();
      cdp.send('Page.screencastFrameAck', { sessionId: p.sessionId }).catch(() => {});
    });
    cdp.on('Page.frameNavigated', (p) => {
      if ((p.frame as { parentId?: string } | undefined)?.parentId) return;
      for (const w of [...watch.#commitWaiters]) w();
    });
    try {
      // Page events tell the main frame's commits (Page.frameNavigated); without them a capture is only not guarded.
      await Promise.all([
        cdp.send('Page.startScreencast', { format: 'jpeg', quality: 10, maxWidth: 16, maxHeight: 16, everyNthFrame: 1 }, { timeoutMs }),
        cdp.send('Page.enable', {}, { timeoutMs }).catch(() => {}),
      ]);
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

  /**
   * `work` (a capture of this page), or a PageCommitted rejection when the page's main frame commits
   * a navigation before it answers. A navigation to another site swaps the page's renderer, and a
   * capture asked of the old one may never answer (12 of 40 taps on a link to another site stalled
   * until the 5 s bound); one asked once the commit is told answers.
   */
  untilCommit<T>(work: Promise<T>): Promise<T> {
    let committed = () => {};
    const commit = new Promise<never>((_, reject) => (committed = () => reject(new PageCommitted())));
    this.#commitWaiters.add(committed);
    // The race handles a late failure of an abandoned capture too.
    return Promise.race([work, commit]).finally(() => this.#commitWaiters.delete(committed));
  }

  /** Frames told so far: a mark for `still`. */
  get count(): number {
    return this.#frames;
  }

  /**
   * True when, until `at` (performance.now()), at most one frame is told after the mark `seen`;
   * false at the second. Around a capture begun at `seen`, that one is the frame the capture itself
   * makes Chromium draw (told before the capture answers, as measured). Then `png` becomes the
   * screen's image, that frame included.
   */
  async still(seen: number, at: number, png: Buffer, scale: number, signal?: AbortSignal): Promise<boolean> {
    while (this.#frames - seen <= 1) {
      const left = at - performance.now();
      if (left <= 0) {
        this.#still = { png, scale, frames: this.#frames };
        return true;
      }
      await this.quiet(left, signal);
    }
    return false;
  }

  /** The last capture at this scale while no frame came since: the screen as it is. */
  current(scale: number): Buffer | undefined {
    const still = this.#still;
    return still && still.frames === this.#frames && still.scale === scale ? still.png : undefined;
  }

  /** True when no frame comes within `ms`; false at the first one. */
  quiet(ms: number, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const end = (settle: () => void) => () => {
        clearTimeout(timer);
        this.#waiters.delete(moved);
        signal?.removeEventListener('abort', aborted);
        settle();
      };
      const moved = end(() => resolve(false));
      const aborted = end(() => reject(signal!.reason as Error));
      const timer = setTimeout(end(() => resolve(true)), ms);
      this.#waiters.add(moved);
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }
}
