// Where a step's view of the screen comes from. Android boxes: the screen-layout XML (it has
// bounds). Linux boxes: the HTML has no geometry, so element boxes come from the box's own
// browser through the pre-signed CDP URL (one DOMSnapshot.captureSnapshot call per look), read
// with boxflow's own DevTools client (boxBrowser.ts).
import type { BoxClient } from '../api/client.js';
import { BoxflowError } from '../errors.js';
import type { BoxPage } from '../flow/boxPage.js';
import { domRef, fromDomSnapshot, kSnapshotStyles, parseLayout, type DomSnapshot, type FrameSnapshot } from '../layout/index.js';
import type { LayoutNode, LayoutTree } from '../layout/types.js';
import { BoxBrowser, type BrowserTab, type CdpSession } from './boxBrowser.js';
import type { BoxInfo } from './types.js';

export class LayoutSource {
  #browser: Promise<BoxBrowser> | undefined;
  #tab: BrowserTab | undefined;
  /** box.page()'s Playwright connection, opened when a flow asks for it. */
  #page: BoxPage | undefined;
  /** Connections of box.page() a reset left behind, closed with the next one's opening (or the source's close). */
  #stalePages: BoxPage[] = [];
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
      const tab = await this.tab().catch((err: unknown) => {
        this.#cdpUnavailable = (err as Error).message;
        if (BoxflowError.is(err) && err.code !== 'BROWSER_ERROR') throw err;
        throw new BoxflowError('GEOMETRY_UNAVAILABLE', `the layout of box ${this.box.id} has no element positions without its browser, and its CDP URL failed: ${(err as Error).message}`, { cause: err });
      });
      try {
        return await snapshotTree(tab);
      } catch {
        // The page went away (navigation, closed tab or browser): look again once.
        this.#tab = undefined;
        return snapshotTree(await this.tab());
      }
    }
    return parseLayout((await this.client.screenLayout(this.box.id, { signal })).content);
  }

  /**
   * The browser node behind a node of a tree this source built on a Linux box, with the CDP session
   * of its frame (cross-origin iframes have their own), for steps a drag cannot do.
   */
  dom(node: LayoutNode): { cdp: CdpSession; backendNodeId: number } {
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

  /**
   * The tab the flow's steps act on, attached: the one the flow opened last, else the one the box
   * calls active. A new connection when the last one closed (the browser closed or restarted).
   */
  async tab(): Promise<BrowserTab> {
    let browser = await this.#connection();
    if (!browser.open) {
      this.reset();
      browser = await this.#connection();
    }
    const targetId = await activeTarget(browser, this.state.tabId ?? (await this.#activeTabId()));
    if (this.#tab?.browser !== browser || this.#tab.targetId !== targetId) this.#tab = await browser.attach(targetId);
    return this.#tab;
  }

  /** The active tab as a Playwright Page (TS flows and boxflow/test: `box.page()`). */
  async page(): Promise<BoxPage['page']> {
    const { targetId } = await this.tab();
    if (this.#page?.targetId === targetId && this.#page.usable()) return this.#page.page;
    if (this.#page) this.#stalePages.push(this.#page);
    this.#page = undefined;
    await this.#closeStalePages();
    const { openBoxPage } = await import('../flow/boxPage.js');
    this.#page = await openBoxPage(await this.client.cdpUrl(this.box.id, {}), targetId);
    return this.#page.page;
  }

  /**
   * Forget the connection (the box's browser was closed or restarted, or the page is another one).
   * box.page() opens a new Page after it too: Playwright's view of a page another client navigated
   * (a back-forward cache restore) may wait for a load event that never comes.
   */
  reset(): void {
    const b = this.#browser;
    this.#browser = undefined;
    this.#tab = undefined;
    void b?.then((c) => c.close(), () => {});
    if (this.#page) this.#stalePages.push(this.#page);
    this.#page = undefined;
  }

  async close(): Promise<void> {
    this.reset();
    await this.#closeStalePages();
  }

  async #closeStalePages(): Promise<void> {
    const pages = this.#stalePages.splice(0);
    await Promise.all(pages.map((p) => p.close()));
  }

  #connection(): Promise<BoxBrowser> {
    if (!this.#browser) {
      const opening = this.client.cdpUrl(this.box.id, {}).then((url) => BoxBrowser.open(url));
      this.#browser = opening;
      // A connection that failed to open is not kept: the next look tries again.
      opening.catch(() => {
        if (this.#browser === opening) this.#browser = undefined;
      });
    }
    return this.#browser;
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
}

async function activeTarget(browser: BoxBrowser, tabId: string | undefined): Promise<string> {
  const tabs = await browser.tabs();
  if (!tabs.length) throw new BoxflowError('GEOMETRY_UNAVAILABLE', 'the box\'s browser has no open tab');
  // The tab the flow opened last is the box's active tab (the server makes an opened tab active).
  if (tabId && tabs.some((t) => t.targetId === tabId)) return tabId;
  if (tabs.length === 1) return tabs[0]!.targetId;
  // Otherwise the one whose document has focus; the newest tab as a last resort.
  for (const t of [...tabs].reverse()) {
    const tab = await browser.attach(t.targetId).catch(() => undefined);
    const focused = await tab?.evaluate<boolean>("document.visibilityState === 'visible' && document.hasFocus()").catch(() => false);
    await browser.send('Target.detachFromTarget', { sessionId: tab?.sessionId }).catch(() => {});
    if (focused) return t.targetId;
  }
  return tabs.at(-1)!.targetId;
}

const kTreeSessions = new WeakMap<LayoutNode, CdpSession[]>(); // by tree root

const capture = (cdp: CdpSession) => cdp.send<DomSnapshot>('DOMSnapshot.captureSnapshot', { computedStyles: kSnapshotStyles, includeDOMRects: true });

async function snapshotTree(tab: BrowserTab): Promise<LayoutTree> {
  const [snapshot, metrics] = await Promise.all([capture(tab), tab.send<{ cssVisualViewport: { clientWidth: number; clientHeight: number; pageX: number; pageY: number } }>('Page.getLayoutMetrics')]);
  // Cross-origin iframes run in their own process: each is captured through its own session and
  // placed in its <iframe>, which the main frame's session names (frames nested in them are not).
  const sessions: CdpSession[] = [tab];
  const frames: FrameSnapshot[] = [];
  for (const { frameId, session } of await tab.browser.childFrames(tab)) {
    try {
      const { backendNodeId } = await tab.send<{ backendNodeId: number }>('DOM.getFrameOwner', { frameId });
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
