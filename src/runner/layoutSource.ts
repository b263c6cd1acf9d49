// Where a step's view of the screen comes from. Android boxes: the screen-layout XML (it has
// bounds). Linux boxes: the HTML has no geometry, so element boxes come from the box's own
// browser through the pre-signed CDP URL (one DOMSnapshot.captureSnapshot call per look).
import type { Browser, CDPSession, Frame, Page } from 'playwright-core';
import type { BoxClient } from '../api/client.js';
import { BoxflowError } from '../errors.js';
import { domRef, fromDomSnapshot, kSnapshotStyles, parseLayout, type DomSnapshot, type FrameSnapshot } from '../layout/index.js';
import type { LayoutNode, LayoutTree } from '../layout/types.js';
import type { BoxInfo } from './types.js';

export class LayoutSource {
  #browser: Browser | undefined;
  #session: { page: Page; cdp: CDPSession } | undefined;
  #cdpUnavailable: string | undefined;

  constructor(
    private readonly client: BoxClient,
    private readonly box: BoxInfo,
    /** The tab the flow last opened (its id is the CDP target id), when it opened one. */
    private readonly state: { tabId?: string } = {},
  ) {}

  /** The current layout; with geometry whenever the box can give it. */
  async tree(signal?: AbortSignal): Promise<LayoutTree> {
    if (this.box.type === 'linux') {
      // Without its browser a Linux box's layout has no positions: an error that says why, never a
      // tree that silently cannot tap, see or scroll anything.
      const session = await this.#cdp().catch((err: unknown) => {
        this.#cdpUnavailable = (err as Error).message;
        if (BoxflowError.is(err) && err.code !== 'BROWSER_ERROR') throw err;
        throw new BoxflowError('GEOMETRY_UNAVAILABLE', `the layout of box ${this.box.id} has no element positions without its browser, and its CDP URL failed: ${(err as Error).message}`, { cause: err });
      });
      return quietly(async () => {
        try {
          return await snapshotTree(session);
        } catch {
          // The page went away (navigation, closed browser): look again once.
          this.#session = undefined;
          return snapshotTree(await this.#cdp());
        }
      });
    }
    return parseLayout((await this.client.screenLayout(this.box.id, { signal })).content);
  }

  /**
   * The browser node behind a node of a tree this source built on a Linux box, with the CDP session
   * of its frame (cross-origin iframes have their own), for steps a drag cannot do.
   */
  dom(node: LayoutNode): { cdp: CDPSession; backendNodeId: number } {
    let root = node;
    while (root.parent) root = root.parent;
    const ref = domRef(node);
    const cdp = ref && kTreeSessions.get(root)?.[ref.snapshot];
    if (!ref || !cdp) throw new BoxflowError('GEOMETRY_UNAVAILABLE', `box ${this.box.id} gives no browser access to ${node.tag} (CDP${this.#cdpUnavailable ? `: ${this.#cdpUnavailable}` : ' is only used on Linux boxes'})`);
    return { cdp, backendNodeId: ref.backendNodeId };
  }

  /** Raw screen-layout content, kept as evidence when a step fails. */
  async content(signal?: AbortSignal): Promise<string> {
    return (await this.client.screenLayout(this.box.id, { signal })).content;
  }

  requireGeometry(tree: LayoutTree, what: string): void {
    if (tree.hasGeometry) return;
    throw new BoxflowError(
      'GEOMETRY_UNAVAILABLE',
      `${what}: box ${this.box.id} gives no element geometry${this.#cdpUnavailable ? ` (CDP: ${this.#cdpUnavailable})` : ''}; use a point ({x, y} or "50%,50%") or a {prompt} target`,
    );
  }

  /** The active tab as a Playwright Page (TS flows: `box.browser.page()`). */
  async page(): Promise<Page> {
    return (await this.#cdp()).page;
  }

  /** Forget the connection (the box's browser was closed or restarted). */
  reset(): void {
    const b = this.#browser;
    this.#browser = undefined;
    this.#session = undefined;
    if (b) void quietly(() => b.close()).catch(() => {});
  }

  async close(): Promise<void> {
    const b = this.#browser;
    this.#browser = undefined;
    this.#session = undefined;
    if (b) await quietly(() => b.close()).catch(() => {});
  }

  #cdp(): Promise<{ page: Page; cdp: CDPSession }> {
    return quietly(() => this.#connect());
  }

  /**
   * The tab the box itself calls active (its tab list), when the flow opened none: the box knows
   * which tab it brought to the front, where a page's focus is only a guess. Undefined when the
   * service cannot say.
   */
  async #activeTabId(): Promise<string | undefined> {
    try {
      const { data } = await this.client.listTabs(this.box.id);
      return data.find((t) => t.active)?.id;
    } catch {
      return undefined;
    }
  }

  async #connect(): Promise<{ page: Page; cdp: CDPSession }> {
    if (this.#browser && !this.#browser.isConnected()) this.reset();
    if (!this.#browser) {
      const url = await this.client.cdpUrl(this.box.id, {});
      // Playwright's connect leaves downloads as the box set them (into its working dir).
      this.#browser = await (await playwright()).chromium.connectOverCDP(url, { timeout: 15_000 });
      this.#browser.on('disconnected', () => {
        this.#browser = undefined;
        this.#session = undefined;
      });
    }
    const page = await activePage(this.#browser, this.state.tabId ?? (await this.#activeTabId()));
    if (this.#session?.page !== page) {
      this.#session = { page, cdp: await page.context().newCDPSession(page) };
    }
    return this.#session;
  }
}

/**
 * Runs boxflow's own reading of a box's browser as one internal Playwright call: inside a test of
 * `boxflow/test`, Playwright reports every API call as a step (a "Connect over CDP" with a path into
 * node_modules, CDP sends); these are boxflow's plumbing, not the user's steps. Playwright has no
 * public switch for it; its client's `_wrapApiCall(fn, {internal: true})` is what it uses for its
 * own plumbing. Where that is missing, the calls are made as they are (and show as steps).
 */
export async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const { chromium } = await playwright();
  // An empty title: errors inside keep their own message (no "apiName: " prefix).
  const wrap = (chromium as unknown as { _wrapApiCall?: (f: () => Promise<T>, o: { internal: boolean; title: string }) => Promise<T> })._wrapApiCall;
  return typeof wrap === 'function' ? wrap.call(chromium, fn, { internal: true, title: '' }) : fn();
}

/** playwright-core, loaded when a flow first reads a box's browser: loading it takes a quarter of a second a CLI start does not need. */
const playwright = () => import('playwright-core');

const kTargetIds = new WeakMap<Page, string>();

async function targetId(page: Page): Promise<string> {
  let id = kTargetIds.get(page);
  if (!id) {
    const session = await page.context().newCDPSession(page);
    id = (await session.send('Target.getTargetInfo')).targetInfo.targetId;
    await session.detach().catch(() => {});
    kTargetIds.set(page, id);
  }
  return id;
}

async function activePage(browser: Browser, tabId: string | undefined): Promise<Page> {
  const pages = browser.contexts().flatMap((c) => c.pages());
  if (!pages.length) throw new BoxflowError('GEOMETRY_UNAVAILABLE', 'the box\'s browser has no open tab');
  // The tab the flow opened last is the box's active tab (the server makes an opened tab active).
  if (tabId) {
    for (const p of pages) if ((await targetId(p).catch(() => '')) === tabId) return p;
  }
  // Otherwise the one whose document has focus; the newest tab as a last resort.
  for (const p of [...pages].reverse()) {
    if (await p.evaluate(() => document.visibilityState === 'visible' && document.hasFocus()).catch(() => false)) return p;
  }
  return pages.at(-1)!;
}

const kTreeSessions = new WeakMap<LayoutNode, CDPSession[]>(); // by tree root
// Sessions of out-of-process frames (cross-origin iframes); null: the frame is in its parent's process.
const kFrameSessions = new WeakMap<Frame, Promise<CDPSession | null>>();

function frameSession(page: Page, frame: Frame): Promise<CDPSession | null> {
  let s = kFrameSessions.get(frame);
  if (!s) {
    s = page.context().newCDPSession(frame).catch(() => null);
    kFrameSessions.set(frame, s);
  }
  return s;
}

const capture = (cdp: CDPSession) =>
  cdp.send('DOMSnapshot.captureSnapshot', { computedStyles: kSnapshotStyles, includeDOMRects: true }) as unknown as Promise<DomSnapshot>;

async function snapshotTree({ page, cdp }: { page: Page; cdp: CDPSession }): Promise<LayoutTree> {
  const [snapshot, metrics] = await Promise.all([capture(cdp), cdp.send('Page.getLayoutMetrics')]);
  // Cross-origin iframes run in their own process: each is captured through its own session and
  // placed in its <iframe>, which the main frame's session names (frames nested in them are not).
  const sessions: CDPSession[] = [cdp];
  const frames: FrameSnapshot[] = [];
  for (const frame of page.frames()) {
    if (frame === page.mainFrame() || frame.parentFrame() !== page.mainFrame()) continue;
    const session = await frameSession(page, frame);
    if (!session) continue;
    try {
      const { frameTree } = await session.send('Page.getFrameTree');
      const { backendNodeId } = await cdp.send('DOM.getFrameOwner', { frameId: frameTree.frame.id });
      frames.push({ snapshot: await capture(session), ownerBackendNodeId: backendNodeId });
      sessions.push(session);
    } catch {
      // The frame went away between the listing and the capture.
    }
  }
  const vp = metrics.cssVisualViewport;
  const tree = fromDomSnapshot(snapshot, { width: vp.clientWidth, height: vp.clientHeight, scrollX: vp.pageX, scrollY: vp.pageY }, frames);
  kTreeSessions.set(tree.root, sessions);
  return tree;
}
