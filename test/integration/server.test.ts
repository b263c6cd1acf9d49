// boxflow serve over real HTTP: the project's BoxClient against a real server and a real Chromium.
// One server and one box for the whole file (Chromium start is the slow part).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { request } from 'undici';
import { SignJWT } from 'jose';
import { WebSocket } from 'ws';
import { chromium, type Browser, type Page } from 'playwright-core';
import { BoxClient } from '../../src/api/client.js';
import { rejects } from '../support/apiErrors.js';
import { kKeyNames, type Box } from '../../src/api/schemas.js';
import { createApiKey, resolveSecret, startServer } from '../../src/server/index.js';
import { presign } from '../../src/server/http/secret.js';
import { waitFor } from '../support/waitFor.js';

const kSecret = 'integration-test-secret-0123456789abcdef';
const pageHtml = readFileSync(new URL('../fixtures/pages/box.html', import.meta.url), 'utf8');

let dataDir: string;
let server: { baseUrl: string; close(): Promise<void> };
let site: Server;
let siteUrl: string;
let key: string;
let client: BoxClient;
let box: Box;
let browser: Browser;
const logs: Array<Record<string, unknown>> = [];

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-server-test-'));
  site = createServer((req, res) => {
    if (req.url === '/redirect') return void res.writeHead(302, { location: '/box.html' }).end();
    if (req.url === '/box.html') return void res.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: (e) => logs.push(e) });
  key = await createApiKey(kSecret, 'tenant-a');
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0 });
  box = await client.createLinuxBox({ config: { labels: { suite: 'server' }, envs: { FOO: 'bar' } } });
  const cdp = await client.cdpUrl(box.id);
  browser = await chromium.connectOverCDP(cdp);
});

after(async () => {
  await browser?.close().catch(() => {});
  await client?.close();
  await server?.close();
  await new Promise((r) => site?.close(r));
  rmSync(dataDir, { recursive: true, force: true });
});

/** config.workingDir is a box path; the box's directory is its root. */
const realWorkDir = (b: Box) => join(dataDir, 'boxes', b.id, b.config.workingDir!);

async function openPage(): Promise<Page> {
  const tab = await client.openTab(box.id, { url: `${siteUrl}/box.html` });
  return findPage(browser, tab.id);
}

/** The page of the tab with this id (a CDP target id), as the suite's Playwright sees it. */
async function findPage(b: Browser, tabId: string): Promise<Page> {
  const targetOf = async (page: Page) => {
    const s = await page.context().newCDPSession(page);
    const info = (await s.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
    await s.detach();
    return info.targetInfo.targetId;
  };
  return waitFor(
    async () => {
      for (const page of b.contexts()[0]?.pages() ?? []) if ((await targetOf(page)) === tabId) return page;
      return undefined;
    },
    { what: `a page for tab ${tabId}`, timeoutMs: 5_000, intervalMs: 50 },
  );
}

function png(uri: string): PNG {
  assert.match(uri, /^data:image\/png;base64,/);
  return PNG.sync.read(Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64'));
}

async function raw(method: string, path: string, opts: { body?: string; headers?: Record<string, string>; auth?: string | null } = {}) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.auth !== null) headers.authorization = opts.auth ?? `Bearer ${key}`;
  const res = await request(server.baseUrl + path, { method: method as 'GET', headers, body: opts.body });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? (JSON.parse(text) as { code: string; message: string; details?: unknown }) : undefined };
}

const log = (page: Page) => page.evaluate(() => (window as unknown as { __log: Record<string, unknown[] | number> }).__log) as Promise<{
  keys: Array<{ type: string; key: string; code: string; ctrl: boolean; shift: boolean; location: number }>;
  submits: number;
  inputs: Array<{ id: string; inputType: string; value: string }>;
  clicks: Array<{ x: number; y: number; target: string; text: string }>;
  paths: Array<Array<{ x: number; y: number; up?: boolean }>>;
  shortcuts: string[];
}>;

// ------------------------------------------------------------------ boxes

test('a created box has the record shape of the API and belongs to its tenant', async () => {
  assert.equal(box.type, 'linux');
  assert.equal(box.status, 'running');
  assert.equal(box.config.deviceType, 'container');
  assert.equal(box.config.publicIp, '127.0.0.1');
  assert.deepEqual(box.config.labels, { suite: 'server' });
  assert.deepEqual(box.config.envs, { FOO: 'bar' });
  assert.ok(box.config.cpu > 0 && box.config.memory > 0);
  assert.equal(box.config.workingDir, '/work');
  assert.ok(existsSync(realWorkDir(box)));
  assert.deepEqual(await client.getBox(box.id), box);
  const listed = await client.listBoxes({ type: ['linux', 'android'], status: ['running'] });
  assert.ok(listed.data.some((b) => b.id === box.id));
  assert.equal(listed.total, listed.data.length);
  // arrays arrive comma-joined and percent-encoded, as the reference SDK sends them
  const r = await raw('GET', '/boxes?type=linux%2Candroid&status=terminated');
  assert.equal(r.status, 200);
  assert.ok(!(r.json as unknown as { data: Box[] }).data.some((b) => b.id === box.id));
  assert.equal((await raw('GET', '/boxes?type=windows')).status, 400);
});

test('another tenant gets 404 on every route of the box and does not see it listed', async () => {
  const other = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'tenant-b'), maxRetries: 0 });
  try {
    await rejects(other.getBox(box.id), 404, 'BOX_NOT_FOUND');
    await rejects(other.type(box.id, { text: 'x' }), 404, 'BOX_NOT_FOUND');
    await rejects(other.screenLayout(box.id), 404, 'BOX_NOT_FOUND');
    await rejects(other.cdpUrl(box.id), 404, 'BOX_NOT_FOUND');
    await rejects(other.terminateBox(box.id), 404, 'BOX_NOT_FOUND');
    await rejects(other.listPackages(box.id), 404, 'BOX_NOT_FOUND');
    assert.equal((await other.listBoxes()).total, 0);
  } finally {
    await other.close();
  }
  assert.equal((await client.getBox(box.id)).status, 'running');
});

test('API keys: missing, malformed, badly signed and expired keys get 401 {code, message}', async () => {
  const path = `/boxes/${box.id}`;
  for (const auth of [null, 'Basic abc', 'Bearer not-a-jwt', `Bearer ${await createApiKey('another-secret-xxxxxxxxxxxxxxxxxxxx', 'tenant-a')}`]) {
    const r = await raw('GET', path, { auth });
    assert.equal(r.status, 401);
    assert.equal(r.json?.code, 'UNAUTHORIZED');
    assert.ok(r.json?.message);
  }
  const expired = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('tenant-a').setIssuedAt(1_600_000_000).setExpirationTime(1_600_000_060).sign(new TextEncoder().encode(kSecret));
  const r = await raw('GET', path, { auth: `Bearer ${expired}` });
  assert.equal(r.status, 401);
  assert.match(r.json!.message, /expired/);
});

test('resolveSecret prefers BOXFLOW_SERVER_SECRET, else keeps one generated secret in the data dir', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxflow-secret-'));
  try {
    assert.equal(await resolveSecret(dir, { BOXFLOW_SERVER_SECRET: 'from-env' }), 'from-env');
    const first = await resolveSecret(dir, {});
    assert.ok(first.length >= 32);
    assert.equal(await resolveSecret(dir, {}), first);
    assert.equal(readFileSync(join(dir, 'server-secret'), 'utf8').trim(), first);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('malformed requests get 400 INVALID_REQUEST naming the JSON path, never a 500', async () => {
  const p = `/boxes/${box.id}/actions/press-key`;
  const json = { 'content-type': 'application/json' };
  const cases: Array<[string, string, string | undefined, Record<string, string>, number, RegExp | undefined]> = [
    ['POST', p, '{"keys": [', json, 400, /JSON/],
    ['POST', p, '{"keys": ["nope"]}', json, 400, /\/keys\/0/],
    ['POST', p, '{}', json, 400, /\/keys/],
    ['POST', p, undefined, {}, 400, /\/keys/],
    ['POST', p, 'keys=a', { 'content-type': 'application/x-www-form-urlencoded' }, 400, /content-type/],
    ['POST', p, '[1,2]', json, 400, undefined],
    ['POST', p, 'null', json, 400, undefined],
    ['PUT', `/boxes/${box.id}/actions/settings`, '{"scale": "big"}', json, 400, /\/scale/],
    ['PUT', `/boxes/${box.id}/actions/settings`, '{"scale": 0.05}', json, 400, /\/scale/],
    ['POST', `/boxes/${box.id}/actions/drag`, '{"start": {"x": 1}, "end": {"x": 2, "y": 2}}', json, 400, /\/start/],
    ['POST', `/boxes/${box.id}/actions/type`, '{"text": "a", "options": {"screenshot": {"delay": "31s"}}}', json, 400, /delay/],
    ['POST', `/boxes/${box.id}/resolution`, '{"width": 50, "height": 600}', json, 400, /\/width/],
    ['POST', `/boxes/${box.id}/resolution`, '{"width": 100000, "height": 600}', json, 400, /\/width/],
    ['GET', '/boxes?page=abc', undefined, {}, 400, /page/],
    ['POST', `/boxes/${box.id}/browser/tabs`, '{"url": "not a url"}', json, 400, /url/],
  ];
  for (const [method, path, body, headers, status, message] of cases) {
    const r = await raw(method, path, { body, headers });
    assert.equal(r.status, status, `${method} ${path} ${body}: ${JSON.stringify(r.json)}`);
    assert.ok(['INVALID_REQUEST', 'INVALID_URL', 'INVALID_DURATION'].includes(r.json?.code ?? ''), `${body}: ${JSON.stringify(r.json)}`);
    if (message) assert.match(r.json!.message, message, `${body}`);
  }
  const unknown = await raw('GET', '/no/such/route');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json?.code, 'NOT_FOUND');
  const huge = await raw('POST', `/boxes/${box.id}/actions/type`, { body: JSON.stringify({ text: 'x'.repeat(33 * 2 ** 20) }), headers: json });
  assert.equal(huge.status, 413);
});

test('Android boxes and Android-only endpoints are refused with clear 4xx codes', async () => {
  await rejects(client.createAndroidBox(), 422, 'ANDROID_UNAVAILABLE');
  const e = await rejects(client.listPackages(box.id), 400, 'UNSUPPORTED_BOX_TYPE');
  assert.match(e.message, /linux/);
  await rejects(client.getPackage(box.id, 'com.example'), 400, 'UNSUPPORTED_BOX_TYPE');
  await rejects(client.listApps(box.id), 400, 'UNSUPPORTED_BOX_TYPE');
  await rejects(client.closeAllApps(box.id), 400, 'UNSUPPORTED_BOX_TYPE');
  await rejects(client.deleteAlbum(box.id, 'a'), 400, 'UNSUPPORTED_BOX_TYPE');
  await rejects(client.deleteMedia(box.id, 'a', 'b.jpg'), 400, 'UNSUPPORTED_BOX_TYPE');
  const install = await raw('POST', `/boxes/${box.id}/android/packages`, { body: '--x--', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
  assert.equal(install.status, 400);
  assert.equal(install.json?.code, 'UNSUPPORTED_BOX_TYPE');
});

// ------------------------------------------------------------------ browser

test('open tab: waits for the DOM, follows redirects and reports the tab', async () => {
  const tab = await client.openTab(box.id, { url: `${siteUrl}/redirect` });
  assert.equal(tab.url, `${siteUrl}/box.html`);
  assert.equal(tab.title, 'boxflow test page');
  assert.equal(tab.favicon, `${siteUrl}/favicon.png`);
  assert.equal(tab.active, true);
  assert.equal(typeof tab.loading, 'boolean');
  assert.ok(tab.id);
  await rejects(client.openTab(box.id, { url: 'http://127.0.0.1:1/' }), 422, 'URL_UNREACHABLE');
  await rejects(client.openTab(box.id, { url: 'ftp://example.com/' }), 400, 'INVALID_URL');
  // the failed opens left the good tab active
  const layout = await client.screenLayout(box.id);
  assert.match(layout.content, /boxflow test page/);
});

test('Playwright connects through the pre-signed CDP URL; tampered and expired URLs are refused before the upgrade', async () => {
  const url = await client.cdpUrl(box.id, { expiresIn: '5m' });
  assert.match(url, /^ws:\/\/127\.0\.0\.1:\d+\/cdp\//);
  assert.ok(!url.includes(key));
  const pw = await chromium.connectOverCDP(url);
  try {
    const tab = await client.openTab(box.id, { url: `${siteUrl}/box.html` });
    const page = await findPage(pw, tab.id);
    assert.equal(await page.title(), 'boxflow test page');
  } finally {
    await pw.close();
  }
  const status = (u: string) =>
    new Promise<number>((resolve) => {
      const ws = new WebSocket(u);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => {
        ws.close();
        resolve(101);
      });
      ws.on('error', () => resolve(-1));
    });
  const u = new URL(url);
  const tampered = new URL(url);
  const sig = u.searchParams.get('sig')!;
  // Another last two characters (a signature that ends in AA would otherwise stay the same).
  tampered.searchParams.set('sig', `${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`);
  assert.equal(await status(tampered.href), 403);
  const longer = new URL(url);
  longer.searchParams.set('exp', String(Number(u.searchParams.get('exp')) + 3600));
  assert.equal(await status(longer.href), 403);
  const expired = `${u.origin}${u.pathname}?${presign(kSecret, u.pathname, Date.now() - 60_000)}`;
  assert.equal(await status(expired), 403);
  assert.equal(await status(`${u.origin}${u.pathname}`), 403);
});

// ------------------------------------------------------------------ actions

test('type inserts text without key events; replace clears the field; pressEnter submits the form', async () => {
  const page = await openPage();
  const tap = await client.drag(box.id, { start: 'Full name', end: 'Full name', duration: '20ms' });
  assert.ok(tap.actionId.startsWith('act_'));
  assert.equal(tap.actual.duration, '20ms');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'name');
  const first = await client.type(box.id, { text: 'hello' });
  assert.equal(await page.inputValue('#name'), 'hello');
  await client.type(box.id, { text: ' world', mode: 'append' });
  assert.equal(await page.inputValue('#name'), 'hello world');
  let l = await log(page);
  assert.equal(l.keys.length, 0, 'type must not send key events');
  assert.ok(l.inputs.some((i) => i.inputType === 'insertText'));
  const second = await client.type(box.id, { text: 'Ada', mode: 'replace', pressEnter: true });
  assert.notEqual(first.actionId, second.actionId);
  assert.equal(await page.inputValue('#name'), 'Ada');
  l = await log(page);
  assert.equal(l.submits, 1);
  assert.deepEqual(l.keys.map((k) => `${k.type}:${k.key}`), ['keydown:Enter', 'keypress:Enter', 'keyup:Enter']);
  assert.equal(await page.textContent('#status'), 'submitted Ada');
  // the layout shows the live value of the field
  assert.match((await client.screenLayout(box.id)).content, /value="Ada"/);
  // replace into a contenteditable
  await page.focus('#editor');
  await client.type(box.id, { text: 'one' });
  await client.type(box.id, { text: 'two', mode: 'replace' });
  assert.equal(await page.textContent('#editor'), 'two');
});

test('press-key fires keydown/keypress/keyup; combination holds modifiers so shortcuts and Enter work', async () => {
  const page = await openPage();
  await page.focus('#name');
  await client.pressKey(box.id, { keys: ['h', 'i'] });
  assert.equal(await page.inputValue('#name'), 'hi');
  await client.pressKey(box.id, { keys: ['shift', 'a'], combination: true });
  assert.equal(await page.inputValue('#name'), 'hiA');
  await client.pressKey(box.id, { keys: ['control', 'k'], combination: true });
  let l = await log(page);
  assert.deepEqual(l.shortcuts, ['ctrl+k']);
  const k = l.keys.filter((e) => e.key === 'k' && e.type === 'keydown');
  assert.equal(k.length, 1);
  assert.equal(k[0]!.ctrl, true);
  await client.pressKey(box.id, { keys: ['control', 'a'], combination: true });
  await client.pressKey(box.id, { keys: ['backspace'] });
  assert.equal(await page.inputValue('#name'), '');
  await client.pressKey(box.id, { keys: ['enter'] });
  l = await log(page);
  assert.equal(l.submits, 1);
  const chain = l.keys.filter((e) => e.key === 'h').map((e) => e.type);
  assert.deepEqual(chain, ['keydown', 'keypress', 'keyup']);
  await rejects(client.pressKey(box.id, { keys: ['hyper' as 'a'] }), 400, 'INVALID_REQUEST');
});

test('every one of the 110 key names maps to a real key', async () => {
  assert.equal(kKeyNames.length, 110);
  const page = await openPage();
  await page.focus('#editor');
  await client.pressKey(box.id, { keys: [...kKeyNames] });
  const downs = (await log(page)).keys.filter((e) => e.type === 'keydown');
  assert.equal(downs.length, 110);
  const byIndex = (name: string) => downs[kKeyNames.indexOf(name as (typeof kKeyNames)[number])]!;
  assert.equal(byIndex('a').code, 'KeyA');
  assert.equal(byIndex('f12').key, 'F12');
  assert.equal(byIndex('cmd').key, 'Meta');
  assert.equal(byIndex('option').key, 'Alt');
  assert.equal(byIndex('numpad7').key, '7');
  assert.equal(byIndex('numpad7').location, 3);
  assert.equal(byIndex('numpadEqual').code, 'NumpadEqual');
  assert.equal(byIndex('mediaStop').key, 'MediaStop');
  assert.equal(byIndex('volumeUp').key, 'AudioVolumeUp');
  assert.equal(byIndex('`').code, 'Backquote');
  assert.equal(byIndex("'").code, 'Quote');
});

test('drag sends pointer down, spread moves and up; text targets resolve by label, exact before contains', async () => {
  const page = await openPage();
  const padBox = (await page.locator('#pad').boundingBox())!;
  const start = { x: padBox.x + 50, y: padBox.y + 50 };
  const end = { x: padBox.x + 250, y: padBox.y + 150 };
  const r = await client.drag(box.id, { start, end, duration: '200ms' });
  assert.deepEqual(r.actual, { start, end, duration: '200ms' });
  let l = await log(page);
  const path = l.paths.at(-1)!;
  assert.deepEqual([path[0]!.x, path[0]!.y], [50, 50]);
  assert.deepEqual([path.at(-1)!.x, path.at(-1)!.y], [250, 150]);
  assert.equal(path.at(-1)!.up, true);
  assert.ok(path.length > 4, `moves are spread over the duration (${path.length} points)`);

  const corner = [{ x: padBox.x + 10, y: padBox.y + 10 }, { x: padBox.x + 300, y: padBox.y + 10 }, { x: padBox.x + 300, y: padBox.y + 200 }];
  const adv = await client.drag(box.id, { path: corner, duration: '30ms' });
  assert.deepEqual(adv.actual, { start: corner[0], end: corner[2], duration: '30ms' });
  l = await log(page);
  const p2 = l.paths.at(-1)!;
  assert.ok(p2.some((p) => p.x === 300 && p.y === 10), 'the path passes through its middle point');
  assert.deepEqual([p2.at(-1)!.x, p2.at(-1)!.y], [300, 200]);

  const before = (await page.locator('#drag').boundingBox())!;
  await client.drag(box.id, { start: 'Drag me', end: { x: before.x + before.width / 2 + 200, y: before.y + before.height / 2 }, duration: '100ms' });
  const moved = (await page.locator('#drag').boundingBox())!;
  assert.equal(Math.round(moved.x - before.x), 200);

  const tap = await client.drag(box.id, { start: 'unique', end: 'unique', duration: '10ms' });
  l = await log(page);
  assert.equal(l.clicks.at(-1)!.text, 'Unique words');
  assert.deepEqual(tap.actual.start, tap.actual.end);
  const amb = await rejects(client.drag(box.id, { start: 'Delete', end: 'Delete' }), 422, 'TARGET_AMBIGUOUS');
  assert.equal((amb.details as { candidates: unknown[] }).candidates.length, 2);
  const missing = await rejects(client.drag(box.id, { start: 'Frobnicate', end: 'Send' }), 422, 'TARGET_NOT_FOUND');
  assert.ok((missing.details as { candidates: unknown[] }).candidates.length > 0);
});

test('scale: coordinates arrive scaled, screenshots come back scaled; settings read, update and reset', async () => {
  const page = await openPage();
  assert.deepEqual(await client.getSettings(box.id), { scale: 1 });
  assert.deepEqual(await client.updateSettings(box.id, { scale: 0.5 }), { scale: 0.5 });
  try {
    assert.deepEqual(await client.getSettings(box.id), { scale: 0.5 });
    const padBox = (await page.locator('#pad').boundingBox())!;
    await client.drag(box.id, { start: { x: (padBox.x + 100) / 2, y: (padBox.y + 60) / 2 }, end: { x: (padBox.x + 200) / 2, y: (padBox.y + 60) / 2 }, duration: '50ms' });
    const path = (await log(page)).paths.at(-1)!;
    assert.deepEqual([path[0]!.x, path[0]!.y, path.at(-1)!.x], [100, 60, 200]);
    const shot = await client.screenshot(box.id);
    const img = png(shot.uri);
    assert.deepEqual([img.width, img.height], [640, 400]);
    const r = await client.type(box.id, { text: 'x', options: { screenshot: { phases: ['after'], delay: '0ms' } } });
    const after = png(r.screenshot!.after!.uri);
    assert.deepEqual([after.width, after.height], [640, 400]);
    const target = await client.drag(box.id, { start: 'Unique words', end: 'Unique words', duration: '10ms' });
    const span = (await page.locator('#dupes span').boundingBox())!;
    assert.ok(Math.abs(target.actual.start.x - (span.x + span.width / 2) / 2) < 1, 'resolved targets come back in scaled space');
    assert.deepEqual(await client.updateSettings(box.id, { scale: 0.1 }), { scale: 0.1 });
  } finally {
    assert.deepEqual(await client.resetSettings(box.id), { scale: 1 });
  }
});

test('screenshots follow options.screenshot; trace images differ from after images; deprecated fields work', async () => {
  await openPage();
  const r = await client.drag(box.id, { start: { x: 700, y: 100 }, end: { x: 900, y: 250 }, duration: '30ms', options: { screenshot: { delay: '0ms' } } });
  const shots = r.screenshot!;
  const [b, a, t] = [png(shots.before!.uri), png(shots.after!.uri), png(shots.trace!.uri)];
  for (const img of [b, a, t]) assert.deepEqual([img.width, img.height], [1280, 800]);
  assert.notDeepEqual(b.data, t.data, 'the trace draws the path on the before image');
  assert.notDeepEqual(b.data, a.data, 'the canvas line shows in the after image');

  for (const body of [{ keys: ['escape'] as const }, { text: 'abc' }]) {
    const res = body.keys ? await client.pressKey(box.id, { keys: [...body.keys], options: { screenshot: { phases: ['after', 'trace'], delay: '0ms' } } }) : await client.type(box.id, { ...body, options: { screenshot: { phases: ['after', 'trace'], delay: '0ms' } } });
    assert.equal(res.screenshot!.before, undefined);
    assert.notDeepEqual(png(res.screenshot!.after!.uri).data, png(res.screenshot!.trace!.uri).data, 'the keys or text are drawn as a label');
  }
  assert.equal((await client.type(box.id, { text: 'a' })).screenshot, undefined, 'no screenshot unless asked');
  assert.equal((await client.type(box.id, { text: 'a', options: { screenshot: false }, includeScreenshot: true })).screenshot, undefined);
  assert.equal((await client.type(box.id, { text: 'a', options: { screenshot: { phases: [] } } })).screenshot, undefined);
  const dep = await client.type(box.id, { text: 'a', includeScreenshot: true, screenshotRange: ['after'], screenshotDelay: '0ms' });
  assert.deepEqual(Object.keys(dep.screenshot!), ['after']);
  // options.screenshot present: deprecated fields are ignored completely
  const mixed = await client.type(box.id, { text: 'a', includeScreenshot: true, screenshotRange: ['after'], outputFormat: 'storageKey', options: { screenshot: { phases: ['before'] } } });
  assert.deepEqual(Object.keys(mixed.screenshot!), ['before']);
  assert.match(mixed.screenshot!.before!.uri, /^data:image\/png;base64,/);
});

test('the trace is drawn where the action happened: a tap that closes a dialog shows the dialog it tapped', async () => {
  await client.openTab(box.id, { url: 'data:text/html,<body style="margin:0"><div style="position:fixed;inset:0;background:rgb(200,0,0)" onclick="this.remove()">dialog</div></body>' });
  const r = await client.drag(box.id, { start: { x: 640, y: 400 }, end: { x: 640, y: 400 }, duration: '10ms', options: { screenshot: { delay: '0ms' } } });
  const [b, a, t] = [png(r.screenshot!.before!.uri), png(r.screenshot!.after!.uri), png(r.screenshot!.trace!.uri)];
  const at = (img: { data: Uint8Array | Buffer; width: number }, x: number, y: number) => [...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3)];
  assert.deepEqual(at(b, 50, 50), [200, 0, 0], 'the dialog is on the before image');
  assert.deepEqual(at(a, 50, 50), [255, 255, 255], 'the tap closed it');
  assert.deepEqual(at(t, 50, 50), [200, 0, 0], 'the trace shows the dialog that was tapped');
  assert.notDeepEqual(at(t, 640, 400 - 12), at(b, 640, 400 - 12), 'with the tap drawn on it');
});

test('storageKey screenshots are served at pre-signed, expiring URLs; tampering and expiry get 403', async () => {
  const r = await client.pressKey(box.id, { keys: ['tab'], options: { screenshot: { outputFormat: 'storageKey', presignedExpiresIn: '10m', delay: '0ms' } } });
  const after = r.screenshot!.after!;
  assert.ok(!after.uri.startsWith('data:'));
  assert.ok(after.presignedUrl && !after.presignedUrl.includes(key));
  const ok = await request(after.presignedUrl!);
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.headers['content-type'], 'image/png');
  const img = PNG.sync.read(Buffer.from(await ok.body.arrayBuffer()));
  assert.equal(img.width, 1280);
  const u = new URL(after.presignedUrl!);
  const tampered = new URL(u);
  tampered.pathname = u.pathname.replace('after.png', 'before.png');
  const bad = await request(tampered);
  assert.equal(bad.statusCode, 403);
  assert.equal(((await bad.body.json()) as { code: string }).code, 'PRESIGN_INVALID');
  const old = await request(`${u.origin}${u.pathname}?${presign(kSecret, u.pathname, Date.now() - 1000)}`);
  assert.equal(old.statusCode, 403);
  assert.equal(((await old.body.json()) as { code: string }).code, 'PRESIGN_EXPIRED');

  const shot = await client.screenshot(box.id, { outputFormat: 'storageKey', clip: { x: 0, y: 0, width: 200, height: 100 } });
  const res = await request(shot.presignedUrl!);
  const clipped = PNG.sync.read(Buffer.from(await res.body.arrayBuffer()));
  assert.deepEqual([clipped.width, clipped.height], [200, 100]);
});

test('every action has a unique actionId, logged with the tenant and never the key', async () => {
  const ids = new Set<string>();
  for (let i = 0; i < 5; i++) ids.add((await client.pressKey(box.id, { keys: ['shift'] })).actionId);
  assert.equal(ids.size, 5);
  for (const id of ids) {
    const line = logs.find((l) => l.actionId === id);
    assert.ok(line, `a log line for ${id}`);
    assert.equal(line.tenant, 'tenant-a');
    assert.equal(line.boxId, box.id);
    assert.equal(line.status, 200);
  }
  assert.ok(!JSON.stringify(logs).includes(key));
});

test('resolution resizes the viewport and the screenshots', async () => {
  const page = await openPage();
  try {
    assert.deepEqual(await client.setResolution(box.id, { width: 800, height: 600 }), { width: 800, height: 600 });
    assert.deepEqual(await page.evaluate(() => [innerWidth, innerHeight]), [800, 600]);
    const img = png((await client.screenshot(box.id)).uri);
    assert.deepEqual([img.width, img.height], [800, 600]);
  } finally {
    await client.setResolution(box.id, { width: 1280, height: 800 });
  }
});

test('fs/rename renames inside the working dir; missing sources and existing targets fail', async () => {
  const dir = realWorkDir(box);
  writeFileSync(join(dir, 'a.txt'), 'hello');
  writeFileSync(join(dir, 'b.txt'), 'taken');
  const entry = await client.renameFile(box.id, { oldPath: 'a.txt', newPath: 'c.txt' });
  assert.equal(entry.type, 'file');
  assert.equal(entry.name, 'c.txt');
  assert.equal(entry.path, '/work/c.txt');
  assert.ok(existsSync(join(dir, 'c.txt')) && !existsSync(join(dir, 'a.txt')));
  await rejects(client.renameFile(box.id, { oldPath: 'nope.txt', newPath: 'd.txt' }), 404, 'FILE_NOT_FOUND');
  await rejects(client.renameFile(box.id, { oldPath: 'c.txt', newPath: 'b.txt' }), 409, 'FILE_EXISTS');
  // Box paths: "/" is the box's directory, so this names <box>/etc, which does not exist.
  await rejects(client.renameFile(box.id, { oldPath: 'c.txt', newPath: '/etc/boxflow-test' }), 404, 'FILE_NOT_FOUND');
  assert.ok(!existsSync('/etc/boxflow-test'));
});

test('browser close: the next open starts Chromium again and the CDP URL reaches the new one', async () => {
  const url = await client.cdpUrl(box.id);
  await client.closeBrowser(box.id);
  assert.equal((await client.getBox(box.id)).status, 'running');
  const tab = await client.openTab(box.id, { url: `${siteUrl}/box.html` });
  assert.equal(tab.title, 'boxflow test page');
  const pw = await chromium.connectOverCDP(url);
  try {
    assert.equal(await (await findPage(pw, tab.id)).title(), 'boxflow test page');
  } finally {
    await pw.close();
  }
  // the suite's own connection died with the old Chromium
  browser = await chromium.connectOverCDP(url);
});

test('terminate stops the box: terminated records stay listed, actions get 409, files are removed', async () => {
  const extra = await client.createLinuxBox({ config: { resolution: { width: 640, height: 480 } } });
  const shot = png((await client.screenshot(extra.id)).uri);
  assert.deepEqual([shot.width, shot.height], [640, 480]);
  const dir = realWorkDir(extra);
  assert.ok(existsSync(dir));
  await client.terminateBox(extra.id);
  const rec = await client.getBox(extra.id);
  assert.equal(rec.status, 'terminated');
  assert.ok(!existsSync(dir));
  await rejects(client.type(extra.id, { text: 'x' }), 409, 'BOX_NOT_RUNNING');
  const listed = await client.listBoxes({ status: ['terminated'] });
  assert.deepEqual(listed.data.map((b) => b.id), [extra.id]);
  assert.equal((await client.getBox(box.id)).status, 'running');
});
