// A Linux box: one Chromium, driven over CDP. The screen is the active tab's viewport.
// Input goes straight to CDP (Input.dispatch*), as Playwright itself does, through a cached
// CDP session per page, so an action costs the same round trips as a direct Playwright call.
// Where the Chromium runs is its BrowserSource: a process on this machine (the default), or a
// session of a Selenium Grid (src/server/grid); both are reached through a CdpPipe's endpoints.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { BoxflowError } from '../../errors.js';
import type { KeyName, Point, Resolution, Tab } from '../../api/schemas.js';
import { launchChromium, type LaunchIdentity } from './process.js';
import { keyDef, keyEvent, type KeyDef } from './keys.js';
import { RawCdp } from './rawCdp.js';
import { FrameWatch } from './frameWatch.js';
import { call, kResolveTarget, kSelectFocused, kSerializeDocument, kTabInfo } from './pageScripts.js';

const kMoveStepMs = 16; // one pointer move per frame at 60 Hz
const kNavigationTimeoutMs = 30_000;
const kSwapRetryMs = 50;
/** A capture that takes longer fell into a renderer swap and will never answer: try on a new connection. */
const kCaptureStallMs = 5_000;
/** A frame drawn now is told within about this: one frame at 60 Hz and the few ms the telling takes. */
const kFrameToldMs = 20;
/** Default bound on one browser command: a page stuck in a loop answers nothing, ever. */
export const kCdpTimeoutMs = 30_000;

export interface TargetMatch {
  tag: string;
  text: string;
  x: number;
  y: number;
}
export type TargetResolution = { how: string; found: TargetMatch } | { how: string; ambiguous: TargetMatch[] } | { how: string; candidates: TargetMatch[] };

/** A browser a BrowserSource started: its DevTools endpoints (those of a CdpPipe) and its lifetime. */
export interface BrowserHandle {
  devtools: { readonly wsEndpoint: string; pageEndpoint(targetId: string): string };
  /** Resolves once the browser is gone (exited, or its connection lost). */
  exited: Promise<void>;
  /** Ends the browser (idempotent) and resolves once it is gone. */
  kill(): Promise<void>;
  /** Why it went away on its own: `exitedAlone`, or it stopped answering and was killed. */
  goneReason(exitedAlone: boolean): string;
}

/** A browser started and connected, not yet the box's. */
interface Started {
  proc: BrowserHandle;
  browser: Browser;
  profile: number;
}

/** Where a box's browser comes from: a Chromium on this machine, or a session of a Selenium Grid. */
export interface BrowserSource {
  readonly kind: 'local' | 'grid';
  /** Starts a browser; a source with `spares` starts one on each of its profiles (0 or 1). */
  start(resolution: Resolution, profile?: number): Promise<BrowserHandle>;
  /** After closeBrowser: removes what the browser left (a local profile), so the next one starts as new. */
  cleanUp?(profile?: number): Promise<void>;
  /**
   * Whether the box may start its next browser while the current one runs (on the other profile):
   * a box whose browser is closed between flows then hands the next flow a browser already started.
   */
  readonly spares?: boolean;
}

/** The second profile of a local box (`<profile>-2`), where its next browser is prepared. */
export const kSpareProfileSuffix = '-2';

export interface LocalChromiumOptions {
  executablePath: string;
  userDataDir: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  identity?: LaunchIdentity;
}

/** A Chromium process on this machine for each browser of the box, on the box's own profile. */
export function localChromium(opts: LocalChromiumOptions): BrowserSource {
  const profileDir = (profile = 0) => (profile ? `${opts.userDataDir}${kSpareProfileSuffix}` : opts.userDataDir);
  return {
    kind: 'local',
    spares: true,
    async start(resolution, profile) {
      const proc = await launchChromium({ executablePath: opts.executablePath, userDataDir: profileDir(profile), cwd: opts.cwd, ...resolution, ...(opts.env ? { env: opts.env } : {}), ...(opts.identity ?? {}) });
      return {
        devtools: proc.devtools,
        exited: proc.exited,
        kill: proc.kill,
        goneReason: (exitedAlone) => (exitedAlone ? `Chromium exited (${proc.child.signalCode ?? `exit code ${proc.child.exitCode}`})` : 'Chromium stopped answering over DevTools and was killed'),
      };
    },
    // A closed browser leaves nothing behind: cookies, storage and cache go with it, so the next
    // browser (the next flow's) starts as a new box's would. The directory itself stays, with its owner.
    async cleanUp(profile) {
      const dir = profileDir(profile);
      const names = await readdir(dir).catch(() => [] as string[]);
      await Promise.all(names.map((n) => rm(join(dir, n), { recursive: true, force: true, maxRetries: 3 })));
    },
  };
}

export class LinuxBox {
  readonly #source: BrowserSource;
  readonly #cdpTimeoutMs: number;
  #resolution: Resolution;
  #crashed: string | undefined;
  #proc: BrowserHandle | undefined;
  #browser: Browser | undefined;
  #context: BrowserContext | undefined;
  #starting: Promise<void> | undefined;
  /** The profile (0 or 1) of the current browser. */
  #profile = 0;
  /** The next browser, started on the other profile while the current one runs (see BrowserSource.spares). */
  #spare: { profile: number; ready: Promise<Started> } | undefined;
  /** Set once the box's browser was closed and opened again: from then on a spare is kept ready. */
  #recycles = false;
  #active: Page | undefined;
  readonly #sessions = new WeakMap<Page, Promise<CDPSession>>();
  readonly #raw = new WeakMap<Page, Promise<RawCdp>>();
  readonly #targetIds = new WeakMap<Page, string>();
  readonly #watches = new WeakMap<RawCdp, Promise<FrameWatch | undefined>>();
  /** Called whenever the browser process goes away (closed or crashed). */
  onBrowserGone: (() => void) | undefined;
  /** Called once when Chromium went away without closeBrowser: the box is broken from then on. */
  onCrash: ((reason: string) => void) | undefined;

  /** A local Chromium (LocalChromiumOptions), or the browsers of `source`. */
  constructor(opts: { resolution: Resolution; cdpTimeoutMs?: number } & (LocalChromiumOptions | { source: BrowserSource })) {
    this.#source = 'source' in opts ? opts.source : localChromium(opts);
    this.#cdpTimeoutMs = opts.cdpTimeoutMs ?? kCdpTimeoutMs;
    this.#resolution = { ...opts.resolution };
  }

  /** Where the box's browser runs: this machine, or a Selenium Grid. */
  get sourceKind(): 'local' | 'grid' {
    return this.#source.kind;
  }

  get resolution(): Resolution {
    return { ...this.#resolution };
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
    this.#throwIfCrashed();
    if (this.#browser) return;
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    await this.#starting;
  }

  /** Starts a browser on `profile` and connects to it; not yet the box's. */
  async #launch(profile: number): Promise<Started> {
    const proc = await this.#source.start(this.#resolution, profile);
    let browser: Browser;
    try {
      browser = await chromium.connectOverCDP(proc.devtools.wsEndpoint, { timeout: 30_000 });
    } catch (cause) {
      await proc.kill();
      throw new BoxflowError('BROWSER_ERROR', `cannot connect to the box's Chromium: ${(cause as Error).message}`, { cause });
    }
    return { proc, browser, profile };
  }

  /** Starts the next browser on the other profile, unless one is ready or starting. */
  #prepareSpare(): void {
    if (this.#spare || !this.#source.spares || this.#crashed) return;
    const profile = 1 - this.#profile;
    const ready = this.#launch(profile);
    ready.catch(() => {});
    this.#spare = { profile, ready };
  }

  /** Takes the spare browser if one is ready and alive (else undefined, and it is dropped). */
  async #takeSpare(): Promise<Started | undefined> {
    const spare = this.#spare;
    this.#spare = undefined;
    if (!spare) return undefined;
    const started = await spare.ready.catch(() => undefined);
    if (started && started.browser.isConnected()) return started;
    if (started) await started.proc.kill().catch(() => {});
    return undefined;
  }

  async #start(): Promise<void> {
    const { proc, browser, profile } = (await this.#takeSpare()) ?? (await this.#launch(this.#profile));
    const context = browser.contexts()[0] ?? (await browser.newContext());
    this.#proc = proc;
    this.#browser = browser;
    this.#context = context;
    this.#profile = profile;
    // Not through closeBrowser: Chromium died (or dropped us). The box says so rather than
    // starting a blank browser that would let a test go on against the wrong page.
    const forget = () => {
      if (this.#browser !== browser) return;
      this.#crashed = 'Chromium went away';
      this.#browser = undefined;
      this.#context = undefined;
      this.#active = undefined;
      this.#proc = undefined;
      void this.#takeSpare().then((spare) => spare?.proc.kill());
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
    for (const page of context.pages()) this.#adopt(page, false);
    const pages = context.pages();
    this.#active = pages.at(-1) ?? (await context.newPage());
    await Promise.all(context.pages().map((p) => p.setViewportSize(this.#resolution).catch(() => {})));
    // The next flow's browser starts now, while this one runs (boxes whose browser is recycled).
    if (this.#recycles) this.#prepareSpare();
  }

  #adopt(page: Page, makeActive: boolean): void {
    if (makeActive) {
      this.#active = page;
      page.setViewportSize(this.#resolution).catch(() => {});
    }
    page.once('close', () => {
      if (this.#active === page) this.#active = this.#context?.pages().at(-1);
    });
  }

  /**
   * Closes the box's browser and removes what it left; the next action starts a new one. With
   * `final` (the box ends) a spare goes too. Otherwise, on a source with spares, the next browser is
   * started on the other profile now (if it is not running already), so that it is ready for the
   * next flow.
   */
  async closeBrowser(opts: { final?: boolean } = {}): Promise<void> {
    await this.#starting?.catch(() => {});
    const browser = this.#browser;
    const proc = this.#proc;
    const profile = this.#profile;
    this.#browser = undefined;
    this.#context = undefined;
    this.#active = undefined;
    this.#proc = undefined;
    if (opts.final) {
      const spare = await this.#takeSpare();
      if (spare) {
        await spare.proc.kill();
        await this.#source.cleanUp?.(spare.profile);
      }
    } else if (browser || proc) {
      this.#recycles = true;
      this.#prepareSpare();
    }
    if (browser) await this.#bounded('close', browser.close()).catch(() => {});
    if (proc) await proc.kill();
    if (browser || proc) {
      await this.#source.cleanUp?.(profile);
      this.onBrowserGone?.();
    }
  }

  #throwIfCrashed(): void {
    if (this.#crashed) throw new BoxflowError('BOX_CRASHED', `the box's browser is gone: ${this.#crashed}; terminate the box and create another`);
  }

  /** `work` (a Playwright call), failing with BROWSER_TIMEOUT when the browser does not answer in time. */
  #bounded<T>(what: string, work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new BoxflowError('BROWSER_TIMEOUT', `the box's browser did not answer (${what}) within ${this.#cdpTimeoutMs / 1000}s`)), this.#cdpTimeoutMs);
    });
    work.catch(() => {}); // its late failure, after a timeout, is nobody's business
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  async activePage(): Promise<Page> {
    this.#throwIfCrashed();
    const page = this.#active;
    if (page && !page.isClosed()) return page;
    await this.ensureBrowser();
    const context = this.#liveContext();
    const existing = this.#active && !this.#active.isClosed() ? this.#active : context.pages().at(-1);
    this.#active = existing ?? (await this.#bounded('open a page', context.newPage()));
    await this.#bounded('set the viewport', this.#active.setViewportSize(this.#resolution));
    return this.#active;
  }

  /** The active page as it is now, without starting a browser: undefined while the box has none (src/server/recordingLinux.ts). */
  get currentPage(): Page | undefined {
    const page = this.#active;
    return this.#browser && page && !page.isClosed() ? page : undefined;
  }

  /** A new CDP connection of its own to `page` (a recording's screencast runs on it, apart from input); it closes with the page. */
  async recordingConnection(page: Page): Promise<RawCdp> {
    const devtools = this.#running().devtools;
    const cdp = await RawCdp.connect(devtools.pageEndpoint(await this.#targetId(page)), this.#cdpTimeoutMs);
    page.once('close', () => cdp.close());
    return cdp;
  }

  #session(page: Page): Promise<CDPSession> {
    let s = this.#sessions.get(page);
    if (!s) {
      s = this.#bounded('attach to the page', page.context().newCDPSession(page));
      this.#sessions.set(page, s);
      s.catch(() => this.#sessions.delete(page));
    }
    return s;
  }

  /** The raw CDP connection of the active page. */
  async #input(): Promise<RawCdp> {
    return this.#rawOf(await this.activePage());
  }

  #rawOf(page: Page): Promise<RawCdp> {
    let r = this.#raw.get(page);
    if (!r) {
      const devtools = this.#running().devtools;
      r = this.#targetId(page).then((id) => RawCdp.connect(devtools.pageEndpoint(id), this.#cdpTimeoutMs));
      this.#raw.set(page, r);
      r.then(
        (cdp) => page.once('close', () => cdp.close()),
        () => this.#raw.delete(page),
      );
    }
    return r.then((cdp) => {
      if (cdp.open) return cdp;
      this.#raw.delete(page);
      return this.#rawOf(page);
    });
  }

  async #targetId(page: Page): Promise<string> {
    let id = this.#targetIds.get(page);
    if (!id) {
      const s = await this.#session(page);
      id = ((await this.#bounded('Target.getTargetInfo', s.send('Target.getTargetInfo'))) as { targetInfo: { targetId: string } }).targetInfo.targetId;
      this.#targetIds.set(page, id);
    }
    return id;
  }

  // ---------------------------------------------------------------- display

  async setResolution(res: Resolution): Promise<void> {
    this.#resolution = { ...res };
    if (!this.#context) return;
    await Promise.all(this.#context.pages().map((p) => p.setViewportSize(res).catch(() => {})));
  }

  /** A PNG of the viewport (or of `clip`, in real pixels), `scale` times its size. */
  async screenshot(scale: number, clip?: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
    // While a navigation swaps the page's renderer, Chromium has no frame to draw for a moment: it
    // answers "Not attached to an active page", or never answers on the old connection. Both pass
    // with the navigation, so try again (on a fresh connection after a stall) until the CDP bound.
    const until = performance.now() + this.#cdpTimeoutMs;
    for (;;) {
      const left = until - performance.now();
      try {
        return await this.#capture(scale, clip, Math.min(kCaptureStallMs, left));
      } catch (err) {
        const swapped = /Not attached to an active page/i.test((err as Error).message);
        const stalled = BoxflowError.is(err) && err.code === 'BROWSER_TIMEOUT';
        if (!(swapped || stalled) || left <= kCaptureStallMs) throw err;
        if (stalled) (await this.#input()).close();
        await sleep(kSwapRetryMs);
      }
    }
  }

  async #capture(scale: number, clip: { x: number; y: number; width: number; height: number } | undefined, timeoutMs: number): Promise<Buffer> {
    const s = await this.#input();
    // The whole viewport at its size needs no clip, so no round trip for the scroll offset.
    let box: object = {};
    if (clip || scale !== 1) {
      const { cssVisualViewport: vv } = await s.send<{ cssVisualViewport: { pageX: number; pageY: number } }>('Page.getLayoutMetrics', {}, timeoutMs);
      const area = clip ?? { x: 0, y: 0, ...this.#resolution };
      box = { clip: { x: vv.pageX + area.x, y: vv.pageY + area.y, width: area.width, height: area.height, scale } };
    }
    const take = async () => {
      const { data } = await s.send<{ data: string }>('Page.captureScreenshot', {
        format: 'png',
        ...box,
        captureBeyondViewport: false,
        // zlib's fastest level instead of its default: the PNG is a little larger and takes a fraction of the time.
        optimizeForSpeed: true,
      }, timeoutMs);
      return Buffer.from(data, 'base64');
    };
    const watch = clip ? undefined : await this.#watchOf(s);
    return watch ? watch.capture(scale, take) : take();
  }

  #watchOf(cdp: RawCdp): Promise<FrameWatch | undefined> {
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
   * made in the last frame's time (~16 ms) before the call may not be told yet, and not show.
   */
  async screen(scale: number): Promise<Buffer> {
    const watch = await this.#watchOf(await this.#input());
    return watch?.current(scale) ?? this.screenshot(scale);
  }

  /**
   * The after-shot of `settle: 'frames'`, `maxMs` at most: the first capture during which Chromium
   * drew no frame but the one the capture asks for, and none in kFrameToldMs after it (a frame drawn
   * late in the capture is told a little later). The first capture waits up to kFrameToldMs for the
   * frame that shows the action (a capture taken while it is drawn would be one too many). `onStill`
   * gets each candidate as soon as it is one (the trace is drawn on it meanwhile). Undefined without
   * a screencast: the caller compares captures instead.
   */
  async settledScreen(scale: number, maxMs: number, signal?: AbortSignal, onStill?: (png: Buffer) => unknown): Promise<Buffer | undefined> {
    const until = performance.now() + maxMs;
    const left = () => Math.max(0, until - performance.now());
    const watch = await this.#watchOf(await this.#input());
    if (!watch) return undefined;
    await watch.quiet(Math.min(kFrameToldMs, left()), signal);
    for (;;) {
      signal?.throwIfAborted();
      const frame = await this.screenshot(scale);
      if (!left()) return frame;
      if (watch.current(scale) === frame) {
        onStill?.(frame);
        if (await watch.quiet(Math.min(kFrameToldMs, left()), signal)) return frame;
      }
    }
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

  /**
   * Pointer down at the first point, moves through the rest (each segment over its ms; a
   * zero-length segment holds still), up at the last. Real pixels. When `signal` aborts, the
   * pointer is released where it is and the abort reason is thrown.
   */
  async drag(points: Point[], segmentMs: number[], signal?: AbortSignal): Promise<void> {
    const s = await this.#input();
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

  async pressKeys(names: readonly KeyName[], combination: boolean, signal?: AbortSignal): Promise<void> {
    const s = await this.#input();
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
    const page = reuse ? previous : await this.#bounded('open a tab', context.newPage());
    this.#active = page;
    await this.#bounded('set the viewport', page.setViewportSize(this.#resolution));
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
    await this.#bounded('bring the tab to front', page.bringToFront()).catch(() => {});
    return this.tabInfo(page);
  }

  async tabInfo(page: Page): Promise<Tab> {
    const id = await this.#targetId(page);
    const info = (await this.#bounded('read the tab', page.evaluate(call(kTabInfo)))) as { title: string; favicon: string; readyState: string };
    return { id, title: info.title, url: page.url(), favicon: info.favicon, active: page === this.#active, loading: info.readyState !== 'complete' };
  }

  // ---------------------------------------------------------------- the rest of the GBOX vocabulary (src/server/gbox/linux.ts)

  /** The raw CDP connection of the active tab (gestures, the clipboard); each command is bounded by the CDP timeout. */
  pageCdp(): Promise<RawCdp> {
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

async function sleepUntil(deadline: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const wait = deadline - performance.now();
  if (wait > 1) await sleep(wait, undefined, { signal });
}
