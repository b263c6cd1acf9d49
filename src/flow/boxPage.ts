// `box.page()` of a TS flow and of boxflow/test: a tab of a Linux box's browser as a Playwright Page,
// over the box's pre-signed CDP URL. Its own Playwright connection, opened when a flow first asks
// for the page; the runner's steps read the browser without Playwright.
import type { Browser, Page } from 'playwright-core';
import { BoxflowError } from '../errors.js';

export interface BoxPage {
  readonly page: Page;
  /** The tab's CDP target id. */
  readonly targetId: string;
  /** The connection is up and the tab still open. */
  usable(): boolean;
  close(): Promise<void>;
}

/** The tab `targetId` of the browser at `cdpUrl` as a Playwright Page. */
export async function openBoxPage(cdpUrl: string, targetId: string): Promise<BoxPage> {
  // Loaded on first use: loading playwright-core takes a quarter of a second a CLI start does not need.
  const { chromium } = await import('playwright-core');
  const browser = await chromium.connectOverCDP(cdpUrl, { timeout: 15_000 });
  try {
    const page = await tabPage(browser, targetId);
    return {
      page,
      targetId,
      usable: () => browser.isConnected() && !page.isClosed(),
      close: () => browser.close().catch(() => {}),
    };
  } catch (err) {
    await browser.close().catch(() => {});
    throw err;
  }
}

async function tabPage(browser: Browser, targetId: string): Promise<Page> {
  const pages = browser.contexts().flatMap((c) => c.pages());
  // One tab: the one asked for (it was listed a moment ago).
  if (pages.length === 1) return pages[0]!;
  for (const page of pages) {
    const session = await page.context().newCDPSession(page);
    try {
      if ((await session.send('Target.getTargetInfo')).targetInfo.targetId === targetId) return page;
    } finally {
      await session.detach().catch(() => {});
    }
  }
  throw new BoxflowError('BROWSER_ERROR', `the box's browser has no tab ${targetId} any more`);
}
