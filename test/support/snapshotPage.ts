// A page of a real Chromium (Debian's, as the runner's boxes use) for one test file, and the
// layout the runner would read from it: DOMSnapshot.captureSnapshot, as src/runner/layoutSource.ts
// captures it. Launched before the file's tests, closed after them.
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { fromDomSnapshot, kSnapshotStyles, type DomSnapshot, type LayoutTree } from '../../src/layout/index.js';

export interface SnapshotPage {
  /** Set once the file's `before` hook ran. */
  readonly page: Page;
  /** The page's layout as the runner reads it. */
  snapshot(): Promise<LayoutTree>;
}

export function useSnapshotPage(prefix: string, viewport = { width: 800, height: 2000 }): SnapshotPage {
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  let profile = '';
  before(async () => {
    profile = mkdtempSync(join(tmpdir(), prefix));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.BOXFLOW_CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      viewport,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = context.pages()[0] ?? (await context.newPage());
  });
  after(async () => {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
  });
  return {
    get page() {
      if (!page) throw new Error('the page opens in a before hook: use it inside tests');
      return page;
    },
    async snapshot() {
      const cdp = await context!.newCDPSession(page!);
      try {
        const snap = (await cdp.send('DOMSnapshot.captureSnapshot', { computedStyles: kSnapshotStyles, includeDOMRects: true })) as unknown as DomSnapshot;
        return fromDomSnapshot(snap, viewport);
      } finally {
        await cdp.detach();
      }
    },
  };
}
