// boxflow serve's live view (POST /boxes/{id}/live-view-url): the pre-signed pages and their
// websocket on a real Linux box (Chromium's screencast), on an Android box of the fake adb server
// (screencap after screencap), and its security: a bad or expired signature is 403, another tenant
// gets no URL for a box not theirs (404), and a URL names one box only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { WebSocket } from 'ws';
import { BoxClient, BoxApiError } from '../../src/api/client.js';
import type { Box } from '../../src/api/schemas.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { presign } from '../../src/server/http/secret.js';
import { kMaxClientsPerBox, kMaxFps } from '../../src/server/http/liveView.js';
import { waitFor } from '../support/waitFor.js';
import { FakeAdbServer, packagesFromFixture } from '../support/fakeAdbServer.js';
import { fixture } from '../support/fakeDevice.js';

const kSecret = randomBytes(16).toString('hex');
const kSerial = 'emulator-5554';
let dataDir: string;
let server: { baseUrl: string; close(): Promise<void> };
let fake: FakeAdbServer;
let client: BoxClient;
let other: BoxClient;
let box: Box;
let origin: string;

// A page that changes by itself: its text and colour every 250 ms, with no input.
const kTimerPage = `data:text/html,${encodeURIComponent(`<!doctype html><body style="margin:0;font:40px sans-serif">
<p id="t">tick 0</p><button id="b" style="font-size:30px" onclick="document.getElementById('c').textContent='clicked'">Press</button>
<p id="c">not clicked</p><input id="i" style="font-size:30px">
<script>let n=0;setInterval(()=>{n++;document.getElementById('t').textContent='tick '+n;document.body.style.background=n%2?'#fff':'#eef';},250)</script></body>`)}`;
// A page that changes on every animation frame: far more screens than the live view may send.
const kEveryFramePage = `data:text/html,${encodeURIComponent('<!doctype html><body style="font:40px sans-serif"><p id="n">0</p><script>let n=0;const f=()=>{document.getElementById("n").textContent=++n;requestAnimationFrame(f)};f()</script></body>')}`;
const kStillPage = `data:text/html,${encodeURIComponent('<!doctype html><body><h1>Still</h1><button onclick="this.textContent=\'done\'">Go</button></body>')}`;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-live-view-'));
  fake = await FakeAdbServer.start();
  fake.addDevice(kSerial, (d) => void (d.packages = packagesFromFixture()));
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {}, adb: fake.socketSpec });
  origin = new URL(server.baseUrl).origin;
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'tenant-live'), maxRetries: 0 });
  other = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'tenant-other'), maxRetries: 0 });
  box = await client.createLinuxBox({ config: { resolution: { width: 800, height: 600 } } });
});

after(async () => {
  await client?.close();
  await other?.close();
  await server?.close();
  await fake?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface FrameMeta { format: string; width: number; height: number; seq: number; at: number }
interface Viewer {
  ws: WebSocket;
  hello: Promise<Record<string, unknown>>;
  frames: { meta: FrameMeta; image: Buffer; hash: string }[];
  messages: Record<string, unknown>[];
  /** Resolves with the first frame (after `after` frames) that satisfies `ok`. */
  frame(ok: (f: { meta: FrameMeta; image: Buffer; hash: string }) => boolean, timeoutMs?: number): Promise<{ meta: FrameMeta; image: Buffer; hash: string }>;
  message(ok: (m: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  send(msg: Record<string, unknown>): void;
}

function connect(url: string): Promise<Viewer> {
  const ws = new WebSocket(url);
  const frames: Viewer['frames'] = [];
  const messages: Viewer['messages'] = [];
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((w) => w());
  const until = <T>(find: () => T | undefined, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found === undefined && ws.readyState !== WebSocket.CLOSED) return;
        waiters.delete(check);
        clearTimeout(timer);
        if (found === undefined) reject(new Error(`the socket closed before a ${what} came`));
        else resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${what} within ${timeoutMs} ms (frames: ${frames.length}, messages: ${JSON.stringify(messages).slice(0, 400)})`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) {
      const n = data.readUInt32BE(0);
      const meta = JSON.parse(data.subarray(4, 4 + n).toString()) as FrameMeta;
      const image = data.subarray(4 + n);
      frames.push({ meta, image, hash: createHash('sha1').update(image).digest('hex') });
    } else messages.push(JSON.parse(data.toString()) as Record<string, unknown>);
    wake();
  });
  // A closed socket brings nothing more: what is still awaited fails now instead of at its timeout.
  ws.on('close', wake);
  const viewer: Viewer = {
    ws,
    frames,
    messages,
    hello: until(() => messages.find((m) => m.type === 'hello'), 10_000, 'hello'),
    frame: (ok, timeoutMs = 10_000) => until(() => frames.find(ok), timeoutMs, 'matching frame'),
    message: (ok, timeoutMs = 15_000) => until(() => messages.find(ok), timeoutMs, 'matching message'),
    send: (msg) => ws.send(JSON.stringify(msg)),
  };
  // A test that closes a viewer without reading its hello has no use for it.
  viewer.hello.catch(() => {});
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(viewer));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })));
  });
}

/** The status and body of a refused upgrade. */
function refusedUpgrade(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', () => {});
  });
}

test('live-view-url answers 201 {url, rawUrl, websocketUrl}, each pre-signed for its own path; the pages are served with a strict CSP', async () => {
  const urls = await client.liveViewUrl(box.id);
  const page = new URL(urls.url);
  const raw = new URL(urls.rawUrl);
  assert.equal(page.pathname, `/live-view/${box.id}`);
  assert.equal(raw.pathname, `/live-view/${box.id}/raw`);
  assert.ok(page.searchParams.get('sig') && page.searchParams.get('exp'));
  assert.notEqual(page.searchParams.get('sig'), raw.searchParams.get('sig'));
  assert.equal(urls.websocketUrl, urls.rawUrl.replace(/^http/, 'ws'));
  // 180 minutes by default; expiresIn shortens it.
  const exp = Number(page.searchParams.get('exp')) * 1000;
  assert.ok(Math.abs(exp - (Date.now() + 180 * 60_000)) < 10_000);
  const short = new URL((await client.liveViewUrl(box.id, { expiresIn: '2m' })).url);
  assert.ok(Number(short.searchParams.get('exp')) * 1000 < Date.now() + 3 * 60_000);

  for (const u of [urls.url, urls.rawUrl]) {
    const res = await request(u);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
    assert.equal(res.headers['cache-control'], 'no-store');
    const html = await res.body.text();
    assert.ok(html.includes(box.id));
    assert.ok(!html.includes(page.searchParams.get('sig')!), 'the page does not repeat its signature');
  }
  const script = await request(`${origin}/live-view-static/live.js`);
  assert.equal(script.statusCode, 200);
  assert.match(await script.body.text(), /WebSocket/);
});

test('a tampered or expired signature is 403 for the page and the websocket; a URL signed for one box does not open another', async () => {
  const urls = await client.liveViewUrl(box.id);
  const tampered = urls.url.replace(/sig=([^&])/, (_m, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`);
  const res = await request(tampered);
  assert.equal(res.statusCode, 403);
  assert.equal(((await res.body.json()) as { code: string }).code, 'PRESIGN_INVALID');
  const ws = await refusedUpgrade(tampered.replace(/^http/, 'ws'));
  assert.equal(ws.status, 403);
  assert.match(ws.body, /PRESIGN_INVALID/);

  const path = `/live-view/${box.id}`;
  const expired = `${origin}${path}?${presign(kSecret, path, Date.now() - 1000)}`;
  const res2 = await request(expired);
  assert.equal(res2.statusCode, 403);
  assert.equal(((await res2.body.json()) as { code: string }).code, 'PRESIGN_EXPIRED');
  assert.equal((await refusedUpgrade(expired.replace(/^http/, 'ws'))).status, 403);

  // No signature at all.
  assert.equal((await request(`${origin}${path}`)).statusCode, 403);
  // Box A's query on box B's path.
  const second = await client.createLinuxBox({});
  try {
    const query = new URL(urls.url).search;
    const res3 = await request(`${origin}/live-view/${second.id}${query}`);
    assert.equal(res3.statusCode, 403);
    await res3.body.dump();
  } finally {
    await client.terminateBox(second.id);
  }
});

test("another tenant cannot get a live view URL for a box not theirs (404 BOX_NOT_FOUND); a terminated box's URL is refused", async () => {
  await assert.rejects(other.liveViewUrl(box.id), (err: unknown) => err instanceof BoxApiError && err.status === 404 && err.serverCode === 'BOX_NOT_FOUND');
  await assert.rejects(other.liveViewUrl('no-such-box'), (err: unknown) => err instanceof BoxApiError && err.status === 404);

  const gone = await client.createLinuxBox({});
  const urls = await client.liveViewUrl(gone.id);
  await client.terminateBox(gone.id);
  const res = await request(urls.url);
  assert.ok(res.statusCode === 404 || res.statusCode === 409, `status ${res.statusCode}`);
  await res.body.dump();
  const ws = await refusedUpgrade(urls.websocketUrl!);
  assert.ok(ws.status === 404 || ws.status === 409, `status ${ws.status}`);
});

test('the live view shows a change the box makes by itself: a page with a timer sends new frames with no input, at most kMaxFps a second', async () => {
  await client.openTab(box.id, { url: kTimerPage });
  const viewer = await connect((await client.liveViewUrl(box.id)).websocketUrl!);
  try {
    const hello = await viewer.hello;
    assert.equal(hello.boxId, box.id);
    assert.equal(hello.source, 'screencast');
    const first = await viewer.frame(() => true);
    assert.equal(first.meta.format, 'jpeg');
    assert.equal(first.image[0], 0xff);
    assert.equal(first.image[1], 0xd8, 'a JPEG');
    assert.deepEqual([first.meta.width, first.meta.height], [800, 600]);
    // Frames keep coming and differ, while nothing is sent to the box.
    const changed = await viewer.frame((f) => f.hash !== first.hash && f.meta.seq > first.meta.seq);
    const third = await viewer.frame((f) => f.hash !== changed.hash && f.meta.seq > changed.meta.seq);
    assert.ok(third.meta.at > first.meta.at);
    // The bound, on a page that draws a new screen every animation frame: the server stamps each frame
    // with when it sent it, and no two are closer than a kMaxFps share of a second (1 ms for rounding).
    await client.openTab(box.id, { url: kEveryFramePage });
    const start = viewer.frames.length;
    await viewer.frame((f) => viewer.frames.indexOf(f) >= start + kMaxFps);
    const sent = viewer.frames.slice(start).map((f) => f.meta.at);
    const gaps = sent.slice(1).map((at, k) => at - sent[k]!);
    assert.ok(Math.min(...gaps) >= Math.floor(1000 / kMaxFps) - 1, `gaps between frames (ms): ${gaps.join(', ')}`);
  } finally {
    viewer.ws.close();
  }
});

test('a still page shows at once (a new viewer gets a frame without waiting for a redraw); clicks and typing are actions with actionIds', async () => {
  await client.openTab(box.id, { url: kStillPage });
  const viewer = await connect((await client.liveViewUrl(box.id)).websocketUrl!);
  try {
    await viewer.frame(() => true, 5_000);
    // The button is near the top left: find it in the layout and click it through the viewer.
    viewer.send({ type: 'click', x: 30, y: 90, id: 1 });
    const clicked = await viewer.message((m) => m.type === 'action' && m.id === 1);
    assert.equal(clicked.ok, true, JSON.stringify(clicked));
    assert.match(String(clicked.actionId), /^act_/);
    viewer.send({ type: 'type', text: 'hello', id: 2 });
    const typed = await viewer.message((m) => m.type === 'action' && m.id === 2);
    assert.equal(typed.ok, true, JSON.stringify(typed));
    assert.match(String(typed.actionId), /^act_/);
    viewer.send({ type: 'key', keys: ['enter'], id: 3 });
    assert.equal((await viewer.message((m) => m.type === 'action' && m.id === 3)).ok, true);
    // A message the API would refuse is answered, not sent.
    viewer.send({ type: 'key', keys: ['notAKey'], id: 4 });
    const bad = await viewer.message((m) => m.type === 'action' && m.id === 4);
    assert.equal(bad.ok, false);
    assert.equal(bad.code, 'INVALID_REQUEST');
    viewer.send({ type: 'click', x: 'a', y: 2, id: 5 });
    assert.equal((await viewer.message((m) => m.type === 'action' && m.id === 5)).ok, false);
  } finally {
    viewer.ws.close();
  }
});

test('clicks, drags and typing reach the page: the click changes the page, typed text is in the field', async () => {
  await client.openTab(box.id, { url: kTimerPage });
  const layout = async () => (await client.screenLayout(box.id)).content;
  const viewer = await connect((await client.liveViewUrl(box.id)).websocketUrl!);
  try {
    await viewer.frame(() => true);
    // Where the button and the field are, from the page itself.
    const page = await (await import('playwright-core')).chromium.connectOverCDP(await client.cdpUrl(box.id, {}));
    // The box's tab showing the page (other tests of this file left tabs of their own).
    const pages = page.contexts()[0]!.pages();
    let tab = pages.at(-1)!;
    for (const p of pages) if ((await p.locator('#b').count()) > 0) tab = p;
    const b = (await tab.locator('#b').boundingBox())!;
    const i = (await tab.locator('#i').boundingBox())!;
    await page.close();
    viewer.send({ type: 'click', x: b.x + b.width / 2, y: b.y + b.height / 2, id: 1 });
    assert.equal((await viewer.message((m) => m.id === 1)).ok, true);
    assert.match(await layout(), /clicked/);
    viewer.send({ type: 'click', x: i.x + 10, y: i.y + i.height / 2, id: 2 });
    await viewer.message((m) => m.id === 2);
    viewer.send({ type: 'type', text: 'typed in live', id: 3 });
    assert.equal((await viewer.message((m) => m.id === 3)).ok, true);
    assert.match(await layout(), /typed in live/);
    viewer.send({ type: 'drag', path: [{ x: 400, y: 500 }, { x: 420, y: 480 }, { x: 450, y: 450 }], durationMs: 200, id: 4 });
    const drag = await viewer.message((m) => m.id === 4);
    assert.equal(drag.ok, true, JSON.stringify(drag));
    assert.match(String(drag.actionId), /^act_/);
  } finally {
    viewer.ws.close();
  }
});

test('a new screen size restarts the screencast at that size: frames say the size input coordinates refer to', async () => {
  await client.openTab(box.id, { url: kTimerPage });
  const viewer = await connect((await client.liveViewUrl(box.id)).websocketUrl!);
  try {
    await viewer.frame((f) => f.meta.width === 800);
    await client.setResolution(box.id, { width: 640, height: 480 });
    const resized = await viewer.frame((f) => f.meta.width === 640);
    assert.equal(resized.meta.height, 480);
  } finally {
    viewer.ws.close();
    await client.setResolution(box.id, { width: 800, height: 600 });
  }
});

test(`at most ${kMaxClientsPerBox} viewers per box: one more is refused with 429`, async () => {
  const url = (await client.liveViewUrl(box.id)).websocketUrl!;
  const viewers = await Promise.all(Array.from({ length: kMaxClientsPerBox }, () => connect(url)));
  try {
    const refused = await refusedUpgrade(url);
    assert.equal(refused.status, 429);
    assert.match(refused.body, /RATE_LIMITED/);
  } finally {
    for (const v of viewers) v.ws.close();
  }
  // Once they have gone, a viewer is welcome again (the server counts a viewer out when it sees it close).
  const again = await waitFor(() => connect(url).catch(() => undefined), { what: 'a viewer welcome again' });
  again.ws.close();
});

test('an Android box: PNG captures one after another; a changed screen is a new frame, an unchanged one is not sent again; a click is a tap', async () => {
  const android = await client.createAndroidBox({});
  const device = fake.device(kSerial);
  const viewer = await connect((await client.liveViewUrl(android.id)).websocketUrl!);
  try {
    const hello = await viewer.hello;
    assert.equal(hello.source, 'screencap');
    assert.equal(hello.boxType, 'android');
    const first = await viewer.frame(() => true);
    assert.equal(first.meta.format, 'png');
    assert.ok(first.image.subarray(1, 4).equals(Buffer.from('PNG')));
    assert.ok(first.image.equals(device.screen));
    // Captures run one after another: once a third starts after this frame, two have given the same screen.
    const captures = () => device.services.filter((l) => l.includes('screencap')).length;
    const mark = captures();
    await waitFor(() => captures() >= mark + 3, { what: 'three more screencaps' });
    assert.equal(viewer.frames.length, 1, 'the same screen is not sent twice');
    device.screen = fixture('../visual/settle-1.png');
    const changed = await viewer.frame((f) => f.hash !== first.hash);
    assert.ok(changed.image.equals(device.screen));
    viewer.send({ type: 'click', x: 100, y: 200, id: 1 });
    const tap = await viewer.message((m) => m.id === 1);
    assert.equal(tap.ok, true, JSON.stringify(tap));
    assert.match(String(tap.actionId), /^act_/);
    assert.ok(device.services.some((l) => /input (tap|swipe) 100 200/.test(l)), device.services.slice(-5).join('\n'));
  } finally {
    viewer.ws.close();
    await client.terminateBox(android.id);
  }
});
