// Where a step's view of the screen comes from. Android boxes: the screen-layout XML (it has
// bounds). Linux boxes: the HTML has no geometry, so element boxes come from the box's own
// browser through the pre-signed CDP URL (one DOMSnapshot.captureSnapshot call per look).
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import type { BoxClient } from '../api/client.js';
import { BoxflowError } from '../errors.js';
import { fromDomSnapshot, parseLayout } from '../layout/index.js';
import type { LayoutTree } from '../layout/types.js';
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
      const session = await this.#cdp().catch((err: unknown) => {
        this.#cdpUnavailable = (err as Error).message;
        return undefined;
      });
      if (session) {
        try {
          return await snapshotTree(session.cdp);
        } catch {
          // The page went away (navigation, closed browser): look again once.
          this.#session = undefined;
          const again = await this.#cdp();
          return snapshotTree(again.cdp);
        }
      }
    }
    return parseLayout((await this.client.screenLayout(this.box.id, { signal })).content);
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
    void b?.close().catch(() => {});
  }

  async close(): Promise<void> {
    const b = this.#browser;
    this.#browser = undefined;
    this.#session = undefined;
    await b?.close().catch(() => {});
  }

  async #cdp(): Promise<{ page: Page; cdp: CDPSession }> {
    if (this.#browser && !this.#browser.isConnected()) this.reset();
    if (!this.#browser) {
      const url = await this.client.cdpUrl(this.box.id, {});
      this.#browser = await chromium.connectOverCDP(url, { timeout: 15_000 });
      // Playwright's connect takes over downloads; give them back to the box (its working dir).
      const session = await this.#browser.newBrowserCDPSession();
      await session.send('Browser.setDownloadBehavior', { behavior: 'default' }).catch(() => {});
      await session.detach().catch(() => {});
      this.#browser.on('disconnected', () => {
        this.#browser = undefined;
        this.#session = undefined;
      });
    }
    const page = await activePage(this.#browser, this.state.tabId);
    if (this.#session?.page !== page) {
      this.#session = { page, cdp: await page.context().newCDPSession(page) };
    }
    return this.#session;
  }
}

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

async function snapshotTree(cdp: CDPSession): Promise<LayoutTree> {
  const [snapshot, metrics] = await Promise.all([
    cdp.send('DOMSnapshot.captureSnapshot', { computedStyles: ['display', 'visibility', 'opacity', 'white-space'], includeDOMRects: true }),
    cdp.send('Page.getLayoutMetrics'),
  ]);
  const vp = metrics.cssVisualViewport;
  return fromDomSnapshot(snapshot, { width: vp.clientWidth, height: vp.clientHeight, scrollX: vp.pageX, scrollY: vp.pageY });
}
