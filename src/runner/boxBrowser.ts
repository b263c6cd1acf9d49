// A Linux box's browser as the runner reads it: one DevTools connection (src/cdp) to the box's
// pre-signed CDP URL, a flat-mode session per tab it reads, one per out-of-process frame of it.
import { CdpConnection } from '../cdp/connection.js';
import { BoxflowError } from '../errors.js';

/** What a step sends a DevTools command through: a tab's session, or one of its frames'. */
export interface CdpSession {
  send<T = Record<string, unknown>>(method: string, params?: object): Promise<T>;
}

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
  subtype?: string;
  parentFrameId?: string;
  browserContextId?: string;
}

/** The largest message taken from the browser: a DOMSnapshot of a big page, a screenshot. */
export const kMaxPayload = 256 * 1024 * 1024;
/** Opening the connection (as Playwright's connectOverCDP was bounded). */
const kOpenTimeoutMs = 15_000;
/** A command the browser leaves unanswered this long fails (BROWSER_TIMEOUT). */
const kCommandTimeoutMs = 60_000;

type Waiter = (method: string, params: Record<string, unknown>) => void;
const kWatched = ['Page.frameNavigated', 'Page.navigatedWithinDocument', 'Page.loadEventFired'];

export class BoxBrowser {
  readonly #conn: CdpConnection;
  readonly #waiters = new Set<Waiter>();
  /** Sessions of out-of-process frames by target id; null: the frame could not be attached. */
  readonly #frames = new Map<string, Promise<CdpSession | null>>();

  private constructor(conn: CdpConnection) {
    this.#conn = conn;
    for (const method of kWatched) conn.on(method, (params) => this.#waiters.forEach((w) => w(method, params)));
  }

  static async open(url: string): Promise<BoxBrowser> {
    const conn = await CdpConnection.open(url, {
      maxPayload: kMaxPayload,
      timeoutMs: kOpenTimeoutMs,
      closed: () => new BoxflowError('BROWSER_ERROR', "the box's browser connection closed"),
    });
    return new BoxBrowser(conn);
  }

  get open(): boolean {
    return this.#conn.open;
  }

  /** A command to the browser itself (the connection's own session). */
  send<T = Record<string, unknown>>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    return this.#conn.send<T>(method, params, { timeoutMs: kCommandTimeoutMs, ...(sessionId ? { sessionId } : {}) });
  }

  /** The browser's tabs, oldest first. */
  async tabs(): Promise<TargetInfo[]> {
    return (await this.#targets()).filter((t) => t.type === 'page' && !t.subtype);
  }

  async attach(targetId: string): Promise<BrowserTab> {
    const { sessionId } = await this.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    return new BrowserTab(this, targetId, sessionId);
  }

  /** Sessions of the out-of-process frames (cross-origin iframes) whose parent is the tab's main frame. */
  async childFrames(tab: BrowserTab): Promise<Array<{ frameId: string; session: CdpSession }>> {
    const frames = (await this.#targets()).filter((t) => t.type === 'iframe' && t.parentFrameId === tab.targetId);
    const ids = new Set(frames.map((f) => f.targetId));
    for (const id of this.#frames.keys()) if (!ids.has(id)) this.#frames.delete(id);
    const out: Array<{ frameId: string; session: CdpSession }> = [];
    for (const { targetId } of frames) {
      let s = this.#frames.get(targetId);
      if (!s) {
        s = this.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true }).then(
          ({ sessionId }) => ({ send: (method, params = {}) => this.send(method, params, sessionId) }) as CdpSession,
          () => null,
        );
        this.#frames.set(targetId, s);
      }
      const session = await s;
      if (session) out.push({ frameId: targetId, session });
    }
    return out;
  }

  /** Resolves with the first watched event `match` takes (once `arm` has been sent), or fails after `timeoutMs`. */
  async waitFor(arm: () => Promise<unknown>, match: (method: string, params: Record<string, unknown>) => boolean, timeoutMs: number, what: string): Promise<void> {
    let waiter: Waiter | undefined;
    let timer: NodeJS.Timeout | undefined;
    const seen = new Promise<void>((resolve, reject) => {
      waiter = (method, params) => {
        if (match(method, params)) resolve();
      };
      this.#waiters.add(waiter);
      timer = setTimeout(() => reject(new BoxflowError('STEP_TIMEOUT', `${what}: the page did not get there within ${Math.round(timeoutMs)} ms`)), timeoutMs);
    });
    try {
      await arm();
      await seen;
    } finally {
      this.#waiters.delete(waiter!);
      clearTimeout(timer);
    }
  }

  close(): void {
    this.#conn.close();
  }

  async #targets(): Promise<TargetInfo[]> {
    return (await this.send<{ targetInfos: TargetInfo[] }>('Target.getTargets')).targetInfos;
  }
}

/** One tab of the box's browser, attached (its session ends with the connection). */
export class BrowserTab implements CdpSession {
  constructor(
    readonly browser: BoxBrowser,
    /** The tab's CDP target id (also its main frame's id, and the Box API's tab id). */
    readonly targetId: string,
    readonly sessionId: string,
  ) {}

  send<T = Record<string, unknown>>(method: string, params: object = {}): Promise<T> {
    return this.browser.send<T>(method, params, this.sessionId);
  }

  /** The value of `expression` in the tab's main frame (a promise is awaited); what it throws fails as an Error. */
  async evaluate<T>(expression: string): Promise<T> {
    const res = await this.send<{ result: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } }>('Runtime.evaluate', {
      expression,
      returnByValue: true,
      awaitPromise: true,
    });
    if (res.exceptionDetails) throw new Error(`the page threw ${res.exceptionDetails.exception?.description ?? res.exceptionDetails.text}`);
    return res.result.value as T;
  }

  /** The URL the tab shows. */
  async url(): Promise<string> {
    return (await this.send<{ targetInfo: TargetInfo }>('Target.getTargetInfo')).targetInfo.url;
  }

  /** Deletes the cookies of the tab's browser context. */
  async clearCookies(): Promise<void> {
    const { targetInfo } = await this.send<{ targetInfo: TargetInfo }>('Target.getTargetInfo');
    const { browserContextIds } = await this.browser.send<{ browserContextIds: string[] }>('Target.getBrowserContexts');
    const id = targetInfo.browserContextId;
    await this.browser.send('Storage.clearCookies', id && browserContextIds.includes(id) ? { browserContextId: id } : {});
  }

  /** Loads the tab's page again and waits for its load event, within `timeoutMs`. */
  async reload(timeoutMs: number): Promise<void> {
    await this.send('Page.enable');
    let navigated = false;
    try {
      await this.browser.waitFor(
        () => this.send('Page.reload'),
        (method, params) => {
          if (method === 'Page.frameNavigated' && this.#mainFrame(params)) navigated = true;
          return navigated && method === 'Page.loadEventFired';
        },
        timeoutMs,
        'reload',
      );
    } finally {
      await this.send('Page.disable').catch(() => {});
    }
  }

  /** Goes one entry back in the tab's history, waiting until the navigation commits; false when there is none. */
  async goBack(timeoutMs: number): Promise<boolean> {
    const { currentIndex, entries } = await this.send<{ currentIndex: number; entries: Array<{ id: number }> }>('Page.getNavigationHistory');
    const entry = entries[currentIndex - 1];
    if (!entry) return false;
    await this.send('Page.enable');
    try {
      await this.browser.waitFor(
        () => this.send('Page.navigateToHistoryEntry', { entryId: entry.id }),
        (method, params) => (method === 'Page.frameNavigated' && this.#mainFrame(params)) || (method === 'Page.navigatedWithinDocument' && params.frameId === this.targetId),
        timeoutMs,
        'back',
      );
    } finally {
      await this.send('Page.disable').catch(() => {});
    }
    return true;
  }

  #mainFrame(params: Record<string, unknown>): boolean {
    const frame = params.frame as { id?: string; parentId?: string } | undefined;
    return !!frame && !frame.parentId && frame.id === this.targetId;
  }
}
