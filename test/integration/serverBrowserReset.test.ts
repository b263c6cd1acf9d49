// Closing a Linux box's browser disposes its browser context: the next browser (the next flow's on
// that box) is a new context in the same Chromium, with no cookies, storage, service workers or
// IndexedDB of the last one. A tenant's CDP connection works in the box's context. Real HTTP, real
// Chromium.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { BoxClient } from '../../src/api/client.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { waitFor } from '../support/waitFor.js';

const kSecret = 'browser-reset-secret-0123456789abcdef';
// The page shows what it found, then leaves a cookie, a localStorage entry, a service worker and
// an IndexedDB database behind.
const kPage = `<!doctype html><body><script>
  (async () => {
    const sw = (await navigator.serviceWorker.getRegistrations()).length;
    const idb = (await indexedDB.databases()).length;
    document.body.textContent = 'storage=' + (localStorage.getItem('k') ?? 'none') + ' cookie=' + (document.cookie || 'none') + ' sw=' + sw + ' idb=' + idb;
    localStorage.setItem('k', 'kept');
    document.cookie = 'c=kept; max-age=3600; path=/';
    await navigator.serviceWorker.register('/sw.js');
    await new Promise((resolve) => { indexedDB.open('db').onsuccess = resolve; });
    document.body.textContent += ' left';
  })();
</script></body>`;
// A link that fills the page and downloads a file.
const kDownloadPage = `<!doctype html><body style="margin:0"><a href="/file.txt" download style="display:block;width:100vw;height:100vh">get</a></body>`;

const dataDir = mkdtempSync(join(tmpdir(), 'boxflow-reset-srv-'));
chmodSync(dataDir, 0o755);
let site: Server;
let siteUrl: string;
let server: Awaited<ReturnType<typeof startServer>>;
let client: BoxClient;

before(async () => {
  site = createServer((req, res) => {
    if (req.url === '/sw.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end('self.addEventListener("fetch", () => {});');
    if (req.url === '/dl') return void res.writeHead(200, { 'content-type': 'text/html' }).end(kDownloadPage);
    if (req.url === '/file.txt') return void res.writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="file.txt"' }).end('downloaded');
    res.writeHead(200, { 'content-type': 'text/html' }).end(kPage);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {} });
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'reset'), maxRetries: 0, timeoutMs: 30_000 });
});
after(async () => {
  await client?.close();
  await server?.close();
  site?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** What the page found when it opened, once it has also left its own state behind. */
async function seen(boxId: string): Promise<string> {
  await client.openTab(boxId, { url: siteUrl });
  const m = await waitFor(async () => /(storage=\S+ cookie=\S+ sw=\d+ idb=\d+) left/.exec((await client.screenLayout(boxId)).content), { what: 'the page to show what it found', timeoutMs: 15_000, intervalMs: 100 });
  return m[1]!;
}

const kClean = 'storage=none cookie=none sw=0 idb=0';

test('a closed browser comes back without the cookies, storage, service workers and databases of the last one', async () => {
  const box = await client.createLinuxBox();
  try {
    assert.equal(await seen(box.id), kClean);
    assert.equal(await seen(box.id), 'storage=kept cookie=c=kept sw=1 idb=1', 'within one browser, state is kept');
    await client.closeBrowser(box.id);
    assert.equal(await seen(box.id), kClean);
    assert.equal((await client.getBox(box.id)).status, 'running');
  } finally {
    await client.terminateBox(box.id);
  }
});

/** Pids of the box's Chromium browser processes (not renderers). */
function browsersOf(boxId: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const dir = argv.find((a) => a.startsWith('--user-data-dir='));
      if (dir?.includes(boxId) && !argv.some((a) => a.startsWith('--type='))) found.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

test('a box keeps one Chromium through its closes, each browser clean; the box ending ends it', { skip: !existsSync('/proc/self/cmdline') && 'needs /proc' }, async () => {
  const box = await client.createLinuxBox();
  const [pid] = browsersOf(box.id);
  try {
    assert.ok(pid, "the box's Chromium runs");
    for (let round = 0; round < 3; round++) {
      assert.equal(await seen(box.id), kClean, `round ${round}: a clean browser`);
      assert.equal(await seen(box.id), 'storage=kept cookie=c=kept sw=1 idb=1');
      await client.closeBrowser(box.id);
      assert.deepEqual(browsersOf(box.id), [pid], `round ${round}: the same Chromium, and no other`);
      const tabs = await client.listTabs(box.id);
      assert.deepEqual(tabs.data.map((t) => t.url), ['about:blank'], `round ${round}: the next browser is one blank tab`);
    }
  } finally {
    await client.terminateBox(box.id);
  }
  assert.deepEqual(browsersOf(box.id), [], 'no browser of the box is left');
});

test("a tenant's CDP connection works in the box's browser: its cookies, its new tabs; the contexts it made go on a close", async () => {
  const box = await client.createLinuxBox();
  try {
    await client.openTab(box.id, { url: siteUrl });
    const browser = await chromium.connectOverCDP(await client.cdpUrl(box.id));
    const disconnected = new Promise<void>((resolve) => browser.on('disconnected', () => resolve()));
    const context = browser.contexts()[0]!;
    // As Playwright sends them for its default context: no browserContextId.
    await context.addCookies([{ name: 'fromCdp', value: 'yes', url: siteUrl }]);
    const page = await context.newPage();
    await page.goto(siteUrl);
    assert.match(await page.evaluate(() => document.cookie), /fromCdp=yes/, 'the new tab is in the box\'s browser, with the cookie');
    assert.ok((await context.cookies(siteUrl)).some((c) => c.name === 'c'), "the page's own cookie is read back");
    const tabs = (await client.listTabs(box.id)).data;
    assert.equal(tabs.length, 2, 'the box lists the tab the connection opened');
    const own = await browser.newContext();
    await own.newPage();
    await client.closeBrowser(box.id);
    await disconnected; // as when a browser process ends
    const again = await chromium.connectOverCDP(await client.cdpUrl(box.id));
    try {
      const cdp = await again.newBrowserCDPSession();
      const { browserContextIds } = await cdp.send('Target.getBrowserContexts');
      assert.equal(browserContextIds.length, 1, "only the box's new browser is left");
      assert.deepEqual(await again.contexts()[0]!.cookies(), [], 'no cookie came along');
    } finally {
      await again.close().catch(() => {});
    }
  } finally {
    await client.terminateBox(box.id);
  }
});

test("a download lands in the box's working dir, after a close too", async () => {
  const box = await client.createLinuxBox();
  try {
    for (const round of [0, 1]) {
      await client.openTab(box.id, { url: `${siteUrl}dl` });
      await client.tap(box.id, { x: 100, y: 100 });
      const got = await waitFor(async () => (await client.listFiles(box.id, box.config.workingDir!)).data.find((f) => f.name === 'file.txt'), { what: `round ${round}: the download in the working dir`, timeoutMs: 15_000, intervalMs: 100 });
      assert.equal((await client.readFile(box.id, got.path)).content, 'downloaded');
      await client.removeFile(box.id, got.path);
      await client.closeBrowser(box.id);
    }
  } finally {
    await client.terminateBox(box.id);
  }
});
