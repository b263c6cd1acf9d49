// boxflow serve under hostile requests, over real HTTP with real Chromium: sizes are capped and
// never echoed, drags and durations are bounded, a stuck page gives a 5xx instead of a hang,
// work whose client left is cancelled, and every refusal is a `{code, message}` 4xx.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import { request } from 'undici';
import { BoxApiError, BoxClient } from '../../src/api/client.js';
import type { Box } from '../../src/api/schemas.js';
import { exitClassOf } from '../../src/errors.js';
import { loadFlowFile } from '../../src/flow/index.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { rawRequest } from '../support/rawHttp.js';
import { waitFor } from '../support/waitFor.js';

const kSecret = 'limits-test-secret-0123456789abcdef';
/** Longest any single answer may take here before the test calls it a hang. */
const kHang = 30_000;

let dataDir: string;
let server: Awaited<ReturnType<typeof startServer>>;
let key: string;
let client: BoxClient;
let box: Box;
/** What the server logged (one entry per action it answered), and who waits for an entry. */
const logged: Record<string, unknown>[] = [];
const logWaiters = new Set<() => void>();
/** The box's browser, over its CDP URL: how a test sees what the page saw while the box is busy. */
let browser: Browser | undefined;

// Input value and pointer events show in the layout the server returns.
const kPage = `data:text/html,${encodeURIComponent(`<!DOCTYPE html><html><body style="margin:0">
<input id="t" autofocus><p id="ev">events:</p>
<script>
  const ev = document.getElementById('ev');
  for (const t of ['pointerdown', 'pointerup']) addEventListener(t, () => { ev.textContent += ' ' + t; });
</script></body></html>`)}`;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-limits-'));
  const log = (entry: Record<string, unknown>) => {
    logged.push(entry);
    for (const wake of logWaiters) wake();
  };
  server = await startServer({ port: 0, dataDir, secret: kSecret, log, cdpTimeoutMs: 3_000 });
  key = await createApiKey(kSecret, 'limits');
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0, timeoutMs: kHang });
  box = await client.createLinuxBox();
  await client.openTab(box.id, { url: kPage });
});

after(async () => {
  await browser?.close().catch(() => {});
  await client?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  json: { code: string; message: string } & Record<string, unknown>;
}

async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const r = await rawRequest(server.baseUrl, {
    method,
    path: new URL(server.baseUrl).pathname + path,
    headers: { authorization: `Bearer ${key}`, ...(text !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(text !== undefined ? { body: text } : {}),
    timeoutMs: kHang,
  });
  let json: Reply['json'];
  try {
    json = JSON.parse(r.text) as Reply['json'];
  } catch {
    assert.fail(`${method} ${path.slice(0, 80)}: ${r.status} with a body that is not JSON: ${r.text.slice(0, 200)}`);
  }
  return { status: r.status, json };
}

/** A refusal: this status and code, exactly `{code, message}`, a short message. */
function refused(r: Reply, status: number, code: string, what: string): void {
  assert.equal(r.status, status, `${what}: ${JSON.stringify(r.json).slice(0, 300)}`);
  assert.equal(r.json.code, code, what);
  assert.deepEqual(Object.keys(r.json).filter((k) => k !== 'details').sort(), ['code', 'message'], what);
  assert.ok(r.json.message.length < 400, `${what}: a ${r.json.message.length}-character message`);
  assert.ok(!r.json.message.includes(dataDir), `${what}: the message names the data dir: ${r.json.message}`);
}

const layout = async () => (await client.screenLayout(box.id)).content;

/** The server's log entry that `match` picks, once the server has logged it. */
async function serverLogged(what: string, match: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const deadline = performance.now() + kHang;
  for (;;) {
    const entry = logged.find(match);
    if (entry) return entry;
    if (performance.now() >= deadline) assert.fail(`the server never logged ${what}`);
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        logWaiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, deadline - performance.now());
      logWaiters.add(wake);
    });
  }
}

/**
 * Resolves once this process's HTTP server has read the whole of a request for `path` (its headers
 * and its body) and handed it on: from then on the request is the server's, queued or running.
 * Call it before sending the request.
 */
function serverReceives(method: string, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe('http.server.request.start', onStart);
      reject(new Error(`the server never received ${method} ${path}`));
    }, kHang);
    const onStart = (message: unknown) => {
      const req = (message as { request: IncomingMessage }).request;
      if (req.method !== method || req.url?.split('?')[0] !== path) return;
      unsubscribe('http.server.request.start', onStart);
      // Published before the server's own 'request' listeners run: ours on 'end' runs before the
      // server's, so wait one turn of the loop for the server to take the body and start the handler.
      const handedOn = () => {
        clearTimeout(timer);
        void nextTurn().then(() => resolve());
      };
      if (req.readableEnded) handedOn();
      else req.once('end', handedOn);
    };
    subscribe('http.server.request.start', onStart);
  });
}

/** The page of this tab (a CDP target id) as seen over the box's CDP URL, which no queued action holds up. */
async function pageOf(tabId: string): Promise<Page> {
  browser ??= await chromium.connectOverCDP(await client.cdpUrl(box.id));
  const targetOf = async (page: Page) => {
    const session = await page.context().newCDPSession(page);
    const { targetInfo } = (await session.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
    await session.detach();
    return targetInfo.targetId;
  };
  const pages = () => browser!.contexts()[0]?.pages() ?? [];
  return waitFor(
    async () => {
      for (const page of pages()) if ((await targetOf(page)) === tabId) return page;
      return undefined;
    },
    { what: `a page for tab ${tabId}`, timeoutMs: kHang, intervalMs: 50 },
  );
}

/** Until the page's event line shows a pointerdown: the box is inside the drag, holding the pointer. */
const pointerIsDown = (page: Page) => page.waitForFunction(() => /pointerdown/.test(document.getElementById('ev')!.textContent!), undefined, { timeout: kHang });

// ------------------------------------------------------------------ sizes

test('oversized lists and strings are refused with 400 naming the field, never echoing the value', async () => {
  const long = 'q'.repeat(1_500_000);
  const cases: Array<[string, string, unknown, RegExp]> = [
    ['one 1.5-million-character key', 'actions/press-key', { keys: [long] }, /\/keys\/0/],
    ['201 keys', 'actions/press-key', { keys: Array(201).fill('a') }, /\/keys/],
    ['a text of 100,001 characters', 'actions/type', { text: 'x'.repeat(100_001) }, /\/text/],
    ['a URL of 1,000,001 characters', 'browser/tabs', { url: `data:text/html,${'a'.repeat(1_000_001 - 'data:text/html,'.length)}` }, /\/url/],
    ['a drag path of 1,001 points', 'actions/drag', { path: Array.from({ length: 1_001 }, (_, i) => ({ x: i % 500, y: 10 })) }, /\/path/],
    ['a 1.5-million-character drag target', 'actions/drag', { start: long, end: { x: 1, y: 1 } }, /\/start/],
    ['a 5,000-character rename path', 'fs/rename', { oldPath: 'a'.repeat(5_000), newPath: 'b' }, /\/oldPath/],
  ];
  for (const [what, route, body, field] of cases) {
    const r = await send('POST', `/boxes/${box.id}/${route}`, body);
    refused(r, 400, 'INVALID_REQUEST', what);
    assert.match(r.json.message, field, what);
    assert.ok(!r.json.message.includes('q'.repeat(100)), `${what}: the value is echoed`);
  }
  const labels = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
  const before = readdirSync(join(dataDir, 'boxes')).length;
  refused(await send('POST', '/boxes/linux', { config: { labels } }), 400, 'INVALID_REQUEST', '65 labels');
  refused(await send('POST', '/boxes/linux', { config: { envs: { A: 'v'.repeat(5_000) } } }), 400, 'INVALID_REQUEST', 'a 5,000-character env value');
  assert.equal(readdirSync(join(dataDir, 'boxes')).length, before, 'no box directory was made');
  assert.equal((await client.listBoxes()).total, 1);
});

test('a JSON body over 2 MiB is refused with 413 BODY_TOO_LARGE; other requests are answered meanwhile', async () => {
  const big = JSON.stringify({ keys: Array(700_000).fill('a') }); // 2.8 MB
  const pending = Array.from({ length: 4 }, () => send('POST', `/boxes/${box.id}/actions/press-key`, big));
  const box_ = await client.getBox(box.id);
  assert.equal(box_.status, 'running');
  for (const r of await Promise.all(pending)) refused(r, 413, 'BODY_TOO_LARGE', '2.8 MB of keys');
});

// ------------------------------------------------------------------ drags and durations

test('drags with absurd coordinates or durations are refused at once, not run forever', async () => {
  const drag = (body: unknown) => send('POST', `/boxes/${box.id}/actions/drag`, body);
  refused(await drag({ start: { x: 1e308, y: 10 }, end: { x: 10, y: 10 } }), 400, 'INVALID_REQUEST', 'x = 1e308');
  refused(await drag('{"start": {"x": 1e999, "y": 10}, "end": {"x": 10, "y": 10}}'), 400, 'INVALID_REQUEST', 'x = 1e999 (Infinity)');
  refused(await drag({ start: { x: 10, y: 10 }, end: { x: 20, y: 10 }, duration: '99999h' }), 400, 'INVALID_DURATION', '99999h');
  refused(await drag({ start: { x: 10, y: 10 }, end: { x: 20, y: 10 }, duration: `${'9'.repeat(400)}ms` }), 400, 'INVALID_DURATION', 'a duration that parses to Infinity');
  refused(await drag({ start: { x: 10, y: 10 }, end: { x: 10, y: 10 }, duration: '61s' }), 400, 'INVALID_DURATION', 'a 61 s tap');
  refused(await drag({ path: [{ x: 1, y: 1 }, { x: 2, y: 2 }, { x: 3, y: 3 }], duration: '31s' }), 400, 'INVALID_DURATION', 'two 31 s intervals');
  refused(await send('POST', '/boxes/linux', { config: { expiresIn: '99999999999999999999h' } }), 400, 'INVALID_DURATION', 'a huge expiresIn');
  refused(await send('POST', `/boxes/${box.id}/actions/screenshot`, { outputFormat: 'storageKey', presignedExpiresIn: '597h' }), 400, 'INVALID_DURATION', 'presignedExpiresIn over 596h');
});

test('points off the screen are moved to its edge, and the answer says where the drag went', async () => {
  const r = await client.drag(box.id, { start: { x: -50, y: 10 }, end: { x: 5_000, y: 90_000 }, duration: '100ms' });
  assert.deepEqual(r.actual.start, { x: 0, y: 10 });
  assert.deepEqual(r.actual.end, { x: 1280, y: 800 });
});

test('sleep and hold durations beyond what a timer can wait are refused when the flow loads', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxflow-limits-flow-'));
  try {
    for (const [name, step, col] of [['sleep', 'sleep: 600h', 12], ['longPress', 'longPress: { x: 10, y: 10, duration: 99999999h }', 16]] as const) {
      const file = join(dir, `${name}.flow.yaml`);
      writeFileSync(file, `name: ${name}\nsteps:\n  - openTab: "about:blank"\n  - ${step}\n`);
      await assert.rejects(loadFlowFile(file), (err: { code?: string; message?: string }) => {
        assert.equal(err.code, 'FLOW_SCHEMA', err.message);
        assert.equal(exitClassOf(err.code), 2);
        assert.ok(err.message!.includes(`${file}:4:${col}`), err.message);
        assert.match(err.message!, /596h/);
        return true;
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ------------------------------------------------------------------ a stuck page

test('a page stuck in a loop gives 504 BROWSER_TIMEOUT, not a hang; the server goes on', async () => {
  const stuck = await client.createLinuxBox();
  try {
    await client.openTab(stuck.id, { url: `data:text/html,${encodeURIComponent('<input autofocus><script>addEventListener("keydown", () => { for (;;) {} });</script>')}` });
    const r = await send('POST', `/boxes/${stuck.id}/actions/press-key`, { keys: ['a'] });
    refused(r, 504, 'BROWSER_TIMEOUT', 'press-key into a looping page');
    refused(await send('GET', `/boxes/${stuck.id}/actions/screen-layout`), 504, 'BROWSER_TIMEOUT', 'layout of a looping page');
    assert.equal((await client.getBox(stuck.id)).status, 'running');
    assert.match(await layout(), /events:/, 'the other box still works');
  } finally {
    await client.terminateBox(stuck.id);
  }
  assert.equal((await client.getBox(stuck.id)).status, 'terminated');
});

// ------------------------------------------------------------------ cancellation

test('work queued behind a long action never starts when its client went away', async () => {
  const page = await pageOf((await client.openTab(box.id, { url: kPage })).id);
  const since = logged.length;
  // Held on the input, so that it keeps the focus.
  const hold = client.drag(box.id, { start: { x: 20, y: 12 }, end: { x: 20, y: 12 }, duration: '4s' });
  await pointerIsDown(page);
  // The box is busy with the hold: a request now waits behind it. Cancelled only once the server has it.
  const received = serverReceives('POST', `${new URL(server.baseUrl).pathname}/boxes/${box.id}/actions/type`);
  const gone = new AbortController();
  const late = request(`${server.baseUrl}/boxes/${box.id}/actions/type`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'LATE' }),
    signal: gone.signal,
  }).catch((err: unknown) => err);
  await received;
  gone.abort();
  await late;
  await hold;
  // The server had the request and answered it as cancelled (not ran it, not missed it).
  const entry = await serverLogged('the late type', (e) => logged.indexOf(e) >= since && e.route === 'POST /boxes/{boxId}/actions/type' && e.boxId === box.id);
  assert.equal(entry.code, 'REQUEST_CANCELLED', `the server's answer to the late type: ${JSON.stringify(entry)}`);
  const html = await layout();
  assert.ok(!html.includes('LATE'), 'the cancelled type ran after the drag');
  await client.type(box.id, { text: 'ON TIME' });
  assert.match(await layout(), /value="ON TIME"/, 'the box takes work again');
});

test('a long drag stops (and releases the pointer) when its client goes away', async () => {
  const page = await pageOf((await client.openTab(box.id, { url: kPage })).id);
  const gone = new AbortController();
  const long = client
    .drag(box.id, { path: [{ x: 100, y: 300 }, { x: 300, y: 300 }, { x: 500, y: 300 }], duration: '30s' }, { signal: gone.signal })
    .catch((err: unknown) => err);
  await pointerIsDown(page);
  gone.abort();
  assert.ok(((await long) as BoxApiError).code === 'ABORTED');
  // Answered long before the 60 s the drag would have taken.
  const html = await layout();
  assert.match(html, /events: pointerdown pointerup/);
});

// ------------------------------------------------------------------ errors

test('createBox with a huge expiresIn answers 400 and leaves nothing behind', async () => {
  const before = readdirSync(join(dataDir, 'boxes')).sort();
  const r = await send('POST', '/boxes/linux', { config: { expiresIn: '9999999999h', labels: { leak: 'check' } } });
  refused(r, 400, 'INVALID_DURATION', 'expiresIn 9999999999h');
  assert.deepEqual(readdirSync(join(dataDir, 'boxes')).sort(), before);
  const { data } = await client.listBoxes({ status: ['all'] });
  assert.ok(!data.some((b) => b.config.labels.leak === 'check'), 'no box record was made');
});

test('a screenshot clip outside the screen is a 400, not a 502', async () => {
  const shot = (clip: unknown) => send('POST', `/boxes/${box.id}/actions/screenshot`, { clip });
  refused(await shot({ x: 0, y: 0, width: 100_000, height: 100_000 }), 400, 'INVALID_REQUEST', 'a 100000×100000 clip');
  refused(await shot({ x: 1_270, y: 0, width: 20, height: 20 }), 400, 'INVALID_REQUEST', 'a clip over the right edge');
  refused(await shot({ x: 0, y: 0, width: 1e308, height: 10 }), 400, 'INVALID_REQUEST', 'a 1e308 clip');
  const ok = await client.screenshot(box.id, { clip: { x: 1_260, y: 780, width: 20, height: 20 } });
  assert.match(ok.uri, /^data:image\/png;base64,/);
});

test("fastify's and Node's own refusals are {code, message} 4xx answers too", async () => {
  const base = new URL(server.baseUrl).pathname;
  const auth = { authorization: `Bearer ${key}` };
  const cases: Array<[string, Parameters<typeof rawRequest>[1], number, string]> = [
    ['headers over 16 KiB', { method: 'GET', path: `${base}/boxes`, headers: { ...auth, 'x-big': 'a'.repeat(20_000) } }, 431, 'HEADERS_TOO_LARGE'],
    ['a 200-character box id', { method: 'GET', path: `${base}/boxes/${'b'.repeat(200)}`, headers: auth }, 414, 'URI_TOO_LONG'],
    ['a bad percent-encoding', { method: 'GET', path: `${base}/boxes/%zz`, headers: auth }, 400, 'INVALID_REQUEST'],
    ['a GET with a body', { method: 'GET', path: `${base}/boxes`, headers: { ...auth, 'content-type': 'application/json' }, body: '{"page":1}' }, 400, 'INVALID_REQUEST'],
    ['an empty content-type', { method: 'POST', path: `${base}/boxes/${box.id}/actions/type`, headers: { ...auth, 'content-type': '' }, body: '{"text":"x"}' }, 400, 'INVALID_REQUEST'],
    ['a latin1 charset', { method: 'POST', path: `${base}/boxes/${box.id}/actions/type`, headers: { ...auth, 'content-type': 'application/json; charset=latin1' }, body: Buffer.from('{"text":"\xe9"}', 'latin1') }, 400, 'INVALID_REQUEST'],
    ['a body that is not UTF-8', { method: 'POST', path: `${base}/boxes/${box.id}/actions/type`, headers: { ...auth, 'content-type': 'application/json' }, body: Buffer.from([0x7b, 0x22, 0x74, 0x65, 0x78, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }, 400, 'INVALID_REQUEST'],
    ['invalid JSON', { method: 'POST', path: `${base}/boxes/${box.id}/actions/type`, headers: { ...auth, 'content-type': 'application/json' }, body: '{"text":' }, 400, 'INVALID_REQUEST'],
    ['an unsupported method', { method: 'PATCH', path: `${base}/boxes`, headers: auth }, 404, 'NOT_FOUND'],
    ['a method HTTP does not know', { method: 'FROB', path: `${base}/boxes`, headers: auth }, 400, 'INVALID_REQUEST'],
    ['a header name with a space', { method: 'GET', path: `${base}/boxes`, headers: { ...auth, 'x y': 'z' } }, 400, 'INVALID_REQUEST'],
    ['a broken chunked body', { method: 'POST', path: `${base}/boxes/${box.id}/actions/type`, headers: { ...auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body: 'zz\r\n{}\r\n0\r\n\r\n' }, 400, 'INVALID_REQUEST'],
  ];
  for (const [what, req, status, code] of cases) {
    const r = await rawRequest(server.baseUrl, { ...req, timeoutMs: kHang });
    let json: Reply['json'];
    try {
      json = JSON.parse(r.text) as Reply['json'];
    } catch {
      assert.fail(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
    }
    refused({ status: r.status, json }, status, code, what);
  }
  assert.equal((await client.getBox(box.id)).status, 'running', 'the server is fine');
});

test('no error message names a path of the server', async () => {
  const nul = await send('POST', '/boxes/linux', { config: { workingDir: 'a\u0000b' } });
  assert.ok(nul.status >= 400 && nul.status < 500, JSON.stringify(nul.json));
  refused(nul, nul.status, nul.json.code, 'a workingDir with a NUL');
  const missing = await send('POST', `/boxes/${box.id}/fs/rename`, { oldPath: 'no-such-file', newPath: 'b' });
  refused(missing, 404, 'FILE_NOT_FOUND', 'renaming a missing file');
});
