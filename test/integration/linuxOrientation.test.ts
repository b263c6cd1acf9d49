// Rotating a Linux box (POST /actions/screen-rotation) on a real `boxflow serve` with a real Chromium:
// the page sees a turned device, as on a phone: `screen.orientation` (its type, its angle, a change
// event), the `orientation` media feature and the screen's size, not only a viewport that swapped
// width and height. What the box's tabs see is read over the box's own CDP URL.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { Box } from '../../src/api/schemas.js';
import { useGboxServer } from '../support/gboxServer.js';
import { waitFor } from '../support/waitFor.js';

const srv = useGboxServer('linux-orientation');
const client = () => srv.client('a');

// Each page keeps the orientation types its screen changed to.
const kPage = `<!doctype html><title>turn</title><body>turn<script>
window.changes = [];
screen.orientation.addEventListener('change', () => changes.push(screen.orientation.type));
</script></body>`;

let site: string;
/** The same site under another host name: another site for Chromium, so a navigation there swaps the renderer. */
let otherSite: string;

before(async () => {
  await srv.ready();
  site = await srv.site((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(kPage));
  otherSite = site.replace('127.0.0.1', 'localhost');
});

interface Seen {
  type: string;
  angle: number;
  portrait: boolean;
  landscape: boolean;
  screen: [number, number];
  viewport: [number, number];
}

const kSeen = `({ type: screen.orientation.type, angle: screen.orientation.angle,
  portrait: matchMedia('(orientation: portrait)').matches, landscape: matchMedia('(orientation: landscape)').matches,
  screen: [screen.width, screen.height], viewport: [innerWidth, innerHeight] })`;

/** Runs `use` on the box's tab `tabId` (the active one when not given), over the box's CDP URL. */
async function onTab<T>(box: Box, use: (page: Page) => Promise<T>, tabId?: string): Promise<T> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.connectOverCDP(await client().cdpUrl(box.id));
  try {
    const id = tabId ?? (await client().listTabs(box.id)).data.find((t) => t.active)!.id;
    for (const page of browser.contexts()[0]!.pages()) {
      const s = await page.context().newCDPSession(page);
      const { targetInfo } = (await s.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
      await s.detach();
      if (targetInfo.targetId === id) return await use(page);
    }
    throw new Error(`no tab ${id}`);
  } finally {
    await browser.close();
  }
}

const seen = (box: Box, tabId?: string) => onTab(box, async (page) => (await page.evaluate(kSeen)) as Seen, tabId);

const landscapeLeft: Seen = { type: 'landscape-primary', angle: 90, portrait: false, landscape: true, screen: [1280, 800], viewport: [1280, 800] };
const portrait: Seen = { type: 'portrait-primary', angle: 0, portrait: true, landscape: false, screen: [800, 1280], viewport: [800, 1280] };

test('the page sees each rotation: screen.orientation (type, angle, a change event), the orientation media feature and the screen size; and back', async () => {
  const box = await client().createLinuxBox({ config: { resolution: { width: 1280, height: 800 } } });
  try {
    await client().openTab(box.id, { url: `${site}/a` });
    assert.deepEqual(await seen(box), landscapeLeft, 'a box never turned is in the orientation its display reports (landscapeLeft)');

    await client().screenRotation(box.id, { orientation: 'portrait' });
    assert.deepEqual(await seen(box), portrait);
    await client().screenRotation(box.id, { orientation: 'landscapeRight' });
    assert.deepEqual(await seen(box), { ...landscapeLeft, type: 'landscape-secondary', angle: 270 });
    await client().screenRotation(box.id, { orientation: 'portraitUpsideDown' });
    assert.deepEqual(await seen(box), { ...portrait, type: 'portrait-secondary', angle: 180 });
    await client().screenRotation(box.id, { orientation: 'landscapeLeft' });
    assert.deepEqual(await seen(box), landscapeLeft);
    assert.deepEqual(await client().getDisplay(box.id), { orientation: 'landscapeLeft', resolution: { width: 1280, height: 800 } });

    const changes = await onTab(box, async (page) => (await page.evaluate('changes')) as string[]);
    assert.deepEqual(changes, ['portrait-primary', 'landscape-secondary', 'portrait-secondary', 'landscape-primary'], 'the page was told of each turn');
  } finally {
    await client().terminateBox(box.id);
  }
});

test('a turned screen stays turned across navigations (a new renderer too), new tabs, popups and the next browser', async () => {
  const box = await client().createLinuxBox({ config: { resolution: { width: 1280, height: 800 } } });
  try {
    const first = await client().openTab(box.id, { url: `${site}/a` });
    await client().screenRotation(box.id, { orientation: 'portrait' });

    await client().updateTab(box.id, first.id, { url: `${otherSite}/b` });
    assert.deepEqual(await seen(box, first.id), portrait, 'after a navigation to another site');

    const second = await client().openTab(box.id, { url: `${site}/c` });
    assert.notEqual(second.id, first.id);
    assert.deepEqual(await seen(box, second.id), portrait, 'a new tab');

    // A tab the page opens itself: it is adopted as the active tab and given the box's screen.
    await onTab(box, (page) => page.evaluate(`window.open(${JSON.stringify(`${site}/d`)})`), second.id);
    let popup: string | undefined;
    await waitFor(async () => {
      popup = (await client().listTabs(box.id)).data.find((t) => t.url.endsWith('/d'))?.id;
      return popup !== undefined && (await seen(box, popup)).type === 'portrait-primary';
    }, { what: 'the popup to be given the turned screen', timeoutMs: 20_000, intervalMs: 100 });
    assert.deepEqual(await seen(box, popup), portrait, 'a popup');

    await client().closeBrowser(box.id);
    await client().openTab(box.id, { url: `${site}/e` });
    assert.deepEqual(await seen(box), portrait, "the box's next browser");
    assert.deepEqual(await client().getDisplay(box.id), { orientation: 'portrait', resolution: { width: 800, height: 1280 } });
  } finally {
    await client().terminateBox(box.id);
  }
});
