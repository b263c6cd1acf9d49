// A Linux box: one Chromium, driven over CDP. The screen is the active tab's viewport.
// Input goes straight to CDP (Input.dispatch*), as Playwright itself does, through a cached
// CDP session per page, so an action costs the same round trips as a direct Playwright call.
// Where the Chromium runs is its BrowserSource: a process on this machine (the default), or a
// session of a Selenium Grid (src/server/grid); both are reached through a CdpPipe's endpoints.
//
// What the box calls its browser is a browser context in that Chromium (Target.createBrowserContext:
// an off-the-record profile, as each Playwright test gets). Closing the box's browser disposes the
// context and with it everything the pages left (cookies, storage, service workers, cache,
// permissions); the next browser is a new context in the same process, ready at once, where a new
// process took a second or more. The process ends with the box (or when it crashes).
import type { TargetResolution } from '../../targets.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { BoxflowError } from '../../../../errors.js';
import type { KeyName, Orientation, Point, Resolution, Tab } from '../../../../api/schemas.js';
import type { CdpConnection } from '../../../../cdp/connection.js';
import { ScreenCapture } from './capture.js';
import { dispatchDrag, dispatchKeys } from './input.js';
import { bounded, PageConnections } from './pages.js';
import { call, kResolveTarget, kSelectFocused, kSerializeDocument, kTabInfo } from './pageScripts.js';
import { localChromium, type BrowserHandle, type BrowserSource, type LocalChromiumOptions } from './source.js';
import { metricsOverride, screenOrientation, turnedResolution } from './viewport.js';

export { localChromium, type BrowserHandle, type BrowserSource, type LocalChromiumOptions } from './source.js';

const kNavigationTimeoutMs = 30_000;
/** Default bound on one browser command: a page stuck in a loop answers nothing, ever. */
export const kCdpTimeoutMs = 30_000;

export type { TargetMatch, TargetResolution } from '../../targets.js';

export class LinuxBox {
  readonly #source: BrowserSource;
  readonly #cdpTimeoutMs: number;
  #resolution: Resolution;
  /** The orientation the screen was last turned to (see screenOrientation). */
  #turned: Orientation | undefined;
  #crashed: string | undefined;
  #proc: BrowserHandle | undefined;
  #browser: Browser | undefined;
  /** The box's Playwright connection shows the pages of every context in its default one. */
  #context: BrowserContext | undefined;
  /** The browser target's own session on that connection (contexts and targets are made there). */
  #browserCdp: CDPSession | undefined;
  /** The box's browser: the context its pages open in; undefined while the box's browser is closed. */
  #contextId: string | undefined;
  #starting: Promise<void> | undefined;
  #active: Page | undefined;
  readonly #pages: PageConnections;
  readonly #capture: ScreenCapture;
  /** The screen each page was last given (viewport.ts), so an unchanged one costs no round trip. */
  readonly #screens = new WeakMap<Page, string>();
  /** Called whenever the browser process goes away (closed or crashed). */
  onBrowserGone: (() => void) | undefined;
  /** Called once when Chromium went away without closeBrowser: the box is broken from then on. */
  onCrash: ((reason: string) => void) | undefined;

  /** A local Chromium (LocalChromiumOptions), or the browsers of `source`. */
  constructor(opts: { resolution: Resolution; cdpTimeoutMs?: number } & (LocalChromiumOptions | { source: BrowserSource })) {
    this.#source = 'source' in opts ? opts.source : localChromium(opts);
    this.#cdpTimeoutMs = opts.cdpTimeoutMs ?? kCdpTimeoutMs;
    this.#resolution = { ...opts.resolution };
    this.#pages = new PageConnections({ devtools: () => this.#running().devtools, timeoutMs: this.#cdpTimeoutMs });
    this.#capture = new ScreenCapture({ input: () => this.#input(), resolution: () => this.#resolution, timeoutMs: this.#cdpTimeoutMs });
  }

  /** Where the box's browser runs: this machine, or a Selenium Grid. */
  get sourceKind(): 'local' | 'grid' {
    return this.#source.kind;
  }

  get resolution(): Resolution {
    return { ...this.#resolution };
  }

  /** The screen's orientation, as the box's pages see it. */
  get orientation(): Orientation {
    return screenOrientation(this.#resolution, this.#turned);
  }

  /** The current Chromium's browser DevTools endpoint, starting Chromium if it is closed. */
  async wsEndpoint(): Promise<string> {
    await this.ensureBrowser();
    return this.#running().devtools.wsEndpoint;
  }

  #liveContext(): BrowserContext {
    this.#running();
    return this.#context!;
  }

  #liveContextId(): string {
    this.#running();
    if (!this.#contextId) throw new BoxflowError('BOX_CRASHED', "the box's browser is gone: it closed while the request ran");
    return this.#contextId;
  }

  /** The current Chromium, or BOX_CRASHED when it went away between two awaits. */
  #running(): BrowserHandle {
    this.#throwIfCrashed();
    if (!this.#proc) throw new BoxflowError('BOX_CRASHED', "the box's browser is gone: it closed while the request ran");
    return this.#proc;
  }

  /** Why Chromium went away on its own, once it has; a crashed box never starts another. */
  get crashed(): string | undefined {
    return this.#crashed;
  }

  async ensureBrowser(): Promise<void> {
    while (this.#starting) await this.#starting.catch(() => {});
    this.#throwIfCrashed();
    if (this.#contextId) return;
    this.#starting = (async () => {
      if (!this.#browser) await this.#startProcess();
      if (!this.#contextId) await this.#openContext();
    })().finally(() => {
      this.#starting = undefined;
    });
    await this.#starting;
  }

  /** The browser context id of the box's browser (the one a tenant's CDP connection works in), once it is open. */
  get contextId(): string | undefined {
    return this.#contextId;
  }

  /** Starts the box's Chromium and connects to it. */
  async #startProcess(): Promise<void> {
    // playwright-core is loaded with the first box, while its Chromium starts, not with the server.
    const playwright = import('playwright-core');
    playwright.catch(() => {}); // its failure is the connect's, below
    const proc = await this.#source.start(this.#resolution);
    let browser: Browser;
    let browserCdp: CDPSession;
    try {
      const { chromium } = await playwright;
      browser = await chromium.connectOverCDP(proc.devtools.wsEndpoint, { timeout: 30_000 });
      browserCdp = await browser.newBrowserCDPSession();
    } catch (cause) {
      await proc.kill();
      throw new BoxflowError('BROWSER_ERROR', `cannot connect to the box's Chromium: ${(cause as Error).message}`, { cause });
    }
    const context = browser.contexts()[0]!;
    this.#proc = proc;
    this.#browser = browser;
    this.#browserCdp = browserCdp;
    this.#context = context;
    // Not through closeBrowser: Chromium died (or dropped us). The box says so rather than
    // starting a blank browser that would let a test go on against the wrong page.
    const forget = () => {
      if (this.#browser !== browser) return;
      this.#crashed = 'Chromium went away';
      this.#forgetProcess();
      void (async () => {
        const exitedAlone = await Promise.race([proc.exited.then(() => true), sleep(2_000).then(() => false)]);
        await proc.kill();
        this.#crashed = proc.goneReason(exitedAlone);
        this.onCrash?.(this.#crashed);
      })();
      this.onBrowserGone?.();
    };
    browser.on('disconnected', forget);
    void proc.exited.then(forget);
    context.on('page', (page) => this.#adopt(page, true));
  }

  #forgetProcess(): void {
    this.#browser = undefined;
    this.#browserCdp = undefined;
    this.#context = undefined;
    this.#contextId = undefined;
    this.#active = undefined;
    this.#proc = undefined;
  }

  /**
   * Opens a new browser context with one blank tab and makes it the box's browser; a page of
   * another context (the tab a grid's Chrome starts with; a local Chromium starts with none) is
   * closed, so that the box's tabs are the new context's alone.
   */
  async #openContext(): Promise<void> {
    const cdp = this.#browserCdp!;
    const { browserContextId } = await this.#bounded('open a browser context', cdp.send('Target.createBrowserContext', { disposeOnDetach: false }));
    const downloadPath = this.#source.downloadDir;
    if (downloadPath) await this.#bounded('set where downloads go', cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath, browserContextId }));
    const page = await this.#newPage(browserContextId);
    this.#contextId = browserContextId;
    this.#active = page;
    await this.#fit(page);
    const { targetInfos } = await this.#bounded('list the tabs', cdp.send('Target.getTargets'));
    const strays = new Set(targetInfos.filter((t) => t.type === 'page' && t.browserContextId !== browserContextId).map((t) => t.targetId));
    const pages = this.#context!.pages().filter((p) => p !== page);
    await Promise.all(pages.map(async (p) => strays.has(await this.#targetId(p).catch(() => '')) && (await p.close().catch(() => {}))));
  }

  /** A new blank tab in the context `browserContextId`, as Playwright's Page. */
  async #newPage(browserContextId: string): Promise<Page> {
    const context = this.#context!;
    const cdp = this.#browserCdp!;
    // Playwright shows a page once it has set it up, which may be before or after createTarget
    // answers: the new tab is a page that was not there before with the target's id.
    const before = new Set(context.pages());
    const arrived: Page[] = [];
    let wake = () => {};
    const onPage = (p: Page) => {
      arrived.push(p);
      wake();
    };
    context.on('page', onPage);
    try {
      const { targetId } = await this.#bounded('open a tab', cdp.send('Target.createTarget', { url: 'about:blank', browserContextId }));
      arrived.push(...context.pages().filter((p) => !before.has(p) && !arrived.includes(p)));
      const deadline = performance.now() + this.#cdpTimeoutMs;
      for (;;) {
        while (arrived.length) {
          const p = arrived.shift()!;
          if ((await this.#targetId(p).catch(() => '')) === targetId) return p;
        }
        if (performance.now() > deadline) throw new BoxflowError('BROWSER_TIMEOUT', `the box's browser did not show its new tab within ${this.#cdpTimeoutMs / 1000}s`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
    } finally {
      context.off('page', onPage);
    }
  }

  #adopt(page: Page, makeActive: boolean): void {
    if (makeActive) {
      this.#active = page;
      // Nobody waits on a tab that opened itself: a failure here is told by the next action on it, which fits it again.
      this.#fit(page).catch(() => {});
    }
    page.once('close', () => {
      if (this.#active === page) this.#active = this.#context?.pages().at(-1);
    });
  }

  /**
   * Closes the box's browser: its context goes, with everything its pages left; the next request
   * that needs the browser opens a new context in the same Chromium, with a blank tab, in a few
   * hundred ms instead of a Chromium start (a stopApp then the next flow's launchApp open one, not
   * two). Whoever was connected to the box's browser (over CDP, a recording) is told, as
   * when a browser process ends. A Chromium that does not answer is ended, and the next action
   * starts a new one. With `final` (the box ends) the process ends and its profile is removed.
   */
  async closeBrowser(opts: { final?: boolean } = {}): Promise<void> {
    while (this.#starting) await this.#starting.catch(() => {});
    if (!opts.final && this.#browser) {
      // A browser that cannot dispose of a context is not trusted with the next flow: it ends below.
      const reset = this.#resetContext().then(() => true, () => false);
      this.#starting = reset.then(() => {
        this.#starting = undefined;
      });
      if (await reset) {
        this.onBrowserGone?.();
        return;
      }
    }
    const browser = this.#browser;
    const proc = this.#proc;
    this.#forgetProcess();
    if (browser) await this.#bounded('close', browser.close()).catch(() => {});
    if (proc) await proc.kill();
    if (browser || proc) {
      await this.#source.cleanUp?.();
      this.onBrowserGone?.();
    }
  }

  /** Disposes of every browser context but the default one: the box's, and any a tenant made over CDP. */
  async #resetContext(): Promise<void> {
    const cdp = this.#browserCdp!;
    this.#contextId = undefined;
    this.#active = undefined;
    const { browserContextIds } = await this.#bounded('list the browser contexts', cdp.send('Target.getBrowserContexts'));
    await this.#bounded('close the browser', Promise.all(browserContextIds.map((id) => cdp.send('Target.disposeBrowserContext', { browserContextId: id }))));
  }

  #throwIfCrashed(): void {
    if (this.#crashed) throw new BoxflowError('BOX_CRASHED', `the box's browser is gone: ${this.#crashed}; terminate the box and create another`);
  }

  /** `work` (a Playwright call), failing with BROWSER_TIMEOUT when the browser does not answer in time. */
  #bounded<T>(what: string, work: Promise<T>): Promise<T> {
    return bounded(what, work, this.#cdpTimeoutMs);
  }

  async activePage(): Promise<Page> {
    this.#throwIfCrashed();
    const page = this.#active;
    if (page && !page.isClosed()) return page;
    await this.ensureBrowser();
    const context = this.#liveContext();
    const existing = this.#active && !this.#active.isClosed() ? this.#active : context.pages().at(-1);
    this.#active = existing ?? (await this.#newPage(this.#liveContextId()));
    await this.#fit(this.#active);
    return this.#active;
  }

  /** The active page as it is now, without starting a browser: undefined while the box has none (src/server/devices/linux/recording.ts). */
  get currentPage(): Page | undefined {
    const page = this.#active;
    return this.#browser && page && !page.isClosed() ? page : undefined;
  }

  /** A new CDP connection of its own to `page` (a recording's screencast runs on it, apart from input); it closes with the page. */
  recordingConnection(page: Page): Promise<CdpConnection> {
    return this.#pages.ownConnection(page);
  }

  #session(page: Page): Promise<CDPSession> {
    return this.#pages.session(page);
  }

  /** The raw CDP connection of the active page. */
  async #input(): Promise<CdpConnection> {
    return this.#rawOf(await this.activePage());
  }

  #rawOf(page: Page): Promise<CdpConnection> {
    return this.#pages.raw(page);
  }

  #targetId(page: Page): Promise<string> {
    return this.#pages.targetId(page);
  }

  // ---------------------------------------------------------------- display

  /** Resizes the screen of every tab; its orientation is `turned` when given, else as screenOrientation says. */
  async setResolution(res: Resolution, turned?: Orientation): Promise<void> {
    this.#resolution = { ...res };
    if (turned) this.#turned = turned;
    if (!this.#context) return;
    // A tab that closed meanwhile needs no size; any other failure is the answer's.
    await Promise.all(this.#context.pages().map((p) => this.#fit(p).catch((err: unknown) => {
      if (!p.isClosed()) throw err;
    })));
  }

  /** Turns the screen: width and height swap between a portrait and a landscape orientation, and the pages are told. */
  rotate(orientation: Orientation): Promise<void> {
    return this.setResolution(turnedResolution(this.#resolution, orientation), orientation);
  }

  /**
   * Gives `page` the box's screen. On the page's own CDP session, not through Playwright's
   * setViewportSize, which always tells the page its screen is landscape; the override stays with
   * the tab across its navigations (and renderer swaps) until it closes.
   */
  async #fit(page: Page): Promise<void> {
    const metrics = metricsOverride(this.#resolution, this.orientation);
    const key = JSON.stringify(metrics);
    if (this.#screens.get(page) === key) return;
    const s = await this.#session(page);
    await this.#bounded('set the viewport', s.send('Emulation.setDeviceMetricsOverride', metrics));
    this.#screens.set(page, key);
  }

  /** A PNG of the viewport (or of `clip`, in real pixels), `scale` times its size (capture.ts). */
  screenshot(scale: number, clip?: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
    return this.#capture.screenshot(scale, clip);
  }

  /** The screen as it is: the last capture when Chromium drew no frame since, else a new one (capture.ts). */
  screen(scale: number): Promise<Buffer> {
    return this.#capture.screen(scale);
  }

  /** The after-shot of `settle: 'frames'` (capture.ts); undefined without a screencast. */
  settledScreen(scale: number, maxMs: number, signal?: AbortSignal): Promise<Buffer | undefined> {
    return this.#capture.settledScreen(scale, maxMs, signal);
  }

  async layout(): Promise<string> {
    const page = await this.activePage();
    return (await this.#bounded('read the page', page.evaluate(call(kSerializeDocument)))) as string;
  }

  // ---------------------------------------------------------------- input

  /** Resolves a text target on the active tab; coordinates are real viewport pixels. */
  async resolveTarget(target: string): Promise<TargetResolution> {
    const page = await this.activePage();
    return (await this.#bounded('find the target', page.evaluate(call(kResolveTarget, target)))) as TargetResolution;
  }


  /** Pointer down at the first point, through the rest, up at the last (input.ts); `signal` releases it where it is. */
  async drag(points: Point[], segmentMs: number[], signal?: AbortSignal): Promise<void> {
    return dispatchDrag(await this.#input(), points, segmentMs, signal);
  }

  async pressKeys(names: readonly KeyName[], combination: boolean, signal?: AbortSignal): Promise<void> {
    return dispatchKeys(await this.#input(), names, combination, signal);
  }

  /** Inserts text into the focused element without key events. Returns what had focus. */
  async type(text: string, replace: boolean): Promise<'field' | 'other' | 'none' | 'unknown'> {
    const page = await this.activePage();
    const s = await this.#rawOf(page);
    let focus: 'field' | 'other' | 'none' | 'unknown' = 'unknown';
    if (replace) focus = (await this.#bounded('select the field', page.evaluate(call(kSelectFocused, text === '')))) as 'field' | 'other' | 'none';
    if (text !== '') await s.send('Input.insertText', { text });
    return focus;
  }

  // ---------------------------------------------------------------- tabs

  /** Opens `url` in a new tab (the lone blank one is reused); a request that goes away stops the load. */
  async openTab(url: string, signal?: AbortSignal): Promise<Tab> {
    const previous = await this.activePage();
    // A lone blank tab is reused, so a fresh box does not keep an empty tab around.
    const context = this.#liveContext();
    const reuse = previous.url() === 'about:blank' && context.pages().length === 1;
    const page = reuse ? previous : await this.#newPage(this.#liveContextId());
    this.#active = page;
    await this.#fit(page);
    const stop = () => void this.#session(page).then((s) => s.send('Page.stopLoading')).catch(() => {});
    signal?.addEventListener('abort', stop, { once: true });
    try {
      signal?.throwIfAborted();
      await page.goto(url, { waitUntil: 'domcontentloaded', timeout: kNavigationTimeoutMs });
    } catch (cause) {
      if (!reuse) {
        await page.close().catch(() => {});
        if (!previous.isClosed()) this.#active = previous;
      }
      if (signal?.aborted) throw signal.reason;
      const text = (cause as Error).message.split('\n')[0]!.replace(/^page\.goto: /, '');
      throw new BoxflowError('URL_UNREACHABLE', `cannot open ${url}: ${text}`, { cause });
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    // A new tab opens in front (Target.createTarget); the lone tab a fresh context has is its front one.
    if (!reuse) await this.#bounded('bring the tab to front', page.bringToFront()).catch(() => {});
    return this.tabInfo(page);
  }

  async tabInfo(page: Page): Promise<Tab> {
    const id = await this.#targetId(page);
    const info = (await this.#bounded('read the tab', page.evaluate(call(kTabInfo)))) as { title: string; favicon: string; readyState: string };
    return { id, title: info.title, url: page.url(), favicon: info.favicon, active: page === this.#active, loading: info.readyState !== 'complete' };
  }

  // ---------------------------------------------------------------- the rest of the GBOX vocabulary (src/server/devices/linux/actions.ts)

  /** The raw CDP connection of the active tab (gestures, the clipboard); each command is bounded by the CDP timeout. */
  pageCdp(): Promise<CdpConnection> {
    return this.#input();
  }

  /** A tab's id: its CDP target id. */
  tabId(page: Page): Promise<string> {
    return this.#targetId(page);
  }

  /** Makes `page` the active tab, the screen actions see, and brings it to the front. */
  async activate(page: Page): Promise<void> {
    this.#active = page;
    await this.#bounded('bring the tab to front', page.bringToFront());
  }

  /** Closes a tab; the active one's place goes to the last tab left. */
  async closePage(page: Page): Promise<void> {
    await this.#bounded('close the tab', page.close());
  }

  /** Stops a tab's load (a request that went away), best effort. */
  stopLoading(page: Page): void {
    void this.#session(page).then((s) => s.send('Page.stopLoading')).catch(() => {});
  }
}
