// How BoxClient fails and retries against a real loopback service: status → code, safe retries
// only, Retry-After, timeouts, aborts, connection failures, the 512 MB upload limit, and the API
// key kept out of every error this file produces.
import { test, before, after, mock } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, buildConnector } from 'undici';
import { BoxClient, BoxApiError, type BoxClientOptions } from '../../src/api/client.js';
import type { ErrorCode } from '../../src/errors.js';
import { startFakeService, sendJson, sendEmpty, closedPort, type FakeService } from './clientFakeService.js';

const kKey = 'bf_live_S3CRET_0a1b2c3d4e5f';
let service: FakeService;
let dir: string;
const clients: BoxClient[] = [];
/** Every error any test here produced; the last test checks none of them carries the key. */
const produced: unknown[] = [];

before(async () => {
  service = await startFakeService();
  dir = await mkdtemp(join(tmpdir(), 'boxflow-client-errors-'));
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await service.close();
  await rm(dir, { recursive: true, force: true });
});

function newClient(options: BoxClientOptions = {}): BoxClient {
  const c = new BoxClient({ baseUrl: service.baseUrl, apiKey: kKey, retryBaseMs: 1, retryMaxMs: 5, ...options }, {});
  clients.push(c);
  return c;
}

async function failure(p: Promise<unknown>, code: ErrorCode): Promise<BoxApiError> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  produced.push(err);
  assert.ok(err instanceof BoxApiError, `expected a BoxApiError ${code}, got ${inspect(err)}`);
  assert.equal(err.code, code, err.message);
  return err;
}

function assertNames(err: BoxApiError, method: string, path: string, boxId: string) {
  assert.ok(err.message.startsWith(`${method} ${path} (box ${boxId}): `), err.message);
  assert.equal(err.method, method);
  assert.equal(err.path, path);
  assert.equal(err.boxId, boxId);
}

const ok = (res: Parameters<Parameters<FakeService['handle']>[0]>[1]) => sendJson(res, 200, { actionId: 'a1', message: 'ok' });

// ------------------------------------------------------------------ status → code

const kStatuses: Array<[number, ErrorCode]> = [
  [400, 'INVALID_REQUEST'],
  [401, 'UNAUTHORIZED'],
  [403, 'FORBIDDEN'],
  [404, 'NOT_FOUND'],
  [409, 'CONFLICT'],
  [422, 'UNPROCESSABLE'],
  [429, 'RATE_LIMITED'],
  [500, 'SERVER_ERROR'],
  [503, 'SERVER_ERROR'],
  [418, 'HTTP_ERROR'],
];

for (const [status, code] of kStatuses) {
  test(`${status} → ${code}, with the service's code and message, naming method, path and box`, async () => {
    const client = newClient({ maxRetries: 0 });
    service.reset();
    service.handle((_req, res) => sendJson(res, status, { code: `Svc${status}`, message: `refused with ${status}`, details: { field: 'keys' } }));
    const err = await failure(client.pressKey('box-7', { keys: ['enter'] }), code);
    assertNames(err, 'POST', '/boxes/box-7/actions/press-key', 'box-7');
    assert.equal(err.httpStatus, status);
    assert.equal(err.serverCode, `Svc${status}`);
    assert.match(err.message, new RegExp(`${status} Svc${status}: refused with ${status}$`));
    assert.deepEqual(err.details, { field: 'keys' });
    assert.equal(service.requests.length, 1);
  });
}

test('an error body that is not {code,message} still gives the status code and its text', async () => {
  const client = newClient({ maxRetries: 0 });
  service.handle((_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html>Bad gateway</html>');
  });
  const html = await failure(client.getBox('b1'), 'SERVER_ERROR');
  assert.equal(html.serverCode, undefined);
  assert.match(html.message, /^GET \/boxes\/b1 \(box b1\): 502: <html>Bad gateway<\/html>$/);
  service.handle((_req, res) => sendEmpty(res, 404));
  const empty = await failure(client.getBox('b1'), 'NOT_FOUND');
  assert.match(empty.message, /404: no body$/);
});

test('an error without a box names method and path', async () => {
  const client = newClient({ maxRetries: 0 });
  service.handle((_req, res) => sendJson(res, 403, { code: 'Forbidden', message: 'nope' }));
  const err = await failure(client.listBoxes({ status: ['running'] }), 'FORBIDDEN');
  assert.ok(err.message.startsWith('GET /boxes: 403 Forbidden: nope'), err.message);
});

// ------------------------------------------------------------------ which requests are retried

test('a GET is retried on 500 and succeeds on the next attempt', async () => {
  const client = newClient();
  service.reset();
  service.handle((_req, res, n) => (n === 0 ? sendJson(res, 500, { code: 'Internal', message: 'boom' }) : sendJson(res, 200, { content: '<x/>' })));
  assert.deepEqual(await client.screenLayout('b1'), { content: '<x/>' });
  assert.equal(service.requests.length, 2);
});

test('a GET that keeps failing with 500 is tried 1 + maxRetries times, then SERVER_ERROR', async () => {
  const client = newClient({ maxRetries: 2 });
  service.reset();
  service.handle((_req, res) => sendJson(res, 500, { code: 'Internal', message: 'boom' }));
  await failure(client.screenLayout('b1'), 'SERVER_ERROR');
  assert.equal(service.requests.length, 3);
  service.reset();
  await failure(client.screenLayout('b1', { maxRetries: 0 }), 'SERVER_ERROR');
  assert.equal(service.requests.length, 1, 'per-request maxRetries wins');
});

test('an action POST is NOT retried on 500: exactly one request arrives', async () => {
  const client = newClient({ maxRetries: 5 });
  service.reset();
  service.handle((_req, res) => sendJson(res, 500, { code: 'Internal', message: 'boom' }));
  const err = await failure(client.drag('b1', { start: { x: 1, y: 1 }, end: { x: 1, y: 1 } }), 'SERVER_ERROR');
  assertNames(err, 'POST', '/boxes/b1/actions/drag', 'b1');
  assert.equal(service.requests.length, 1);
});

test('an action POST is NOT retried on 503 without Retry-After, nor on 502/504', async () => {
  const client = newClient({ maxRetries: 5 });
  for (const status of [503, 502, 504]) {
    service.reset();
    service.handle((_req, res) => sendJson(res, status, { code: 'Unavailable', message: 'later' }));
    await failure(client.type('b1', { text: 'x' }), 'SERVER_ERROR');
    assert.equal(service.requests.length, 1, `status ${status}`);
  }
});

test('409 is NOT retried, not even for a GET (the reference SDK retries it)', async () => {
  const client = newClient({ maxRetries: 5 });
  for (const call of [() => client.getBox('b1'), () => client.pressKey('b1', { keys: ['a'] })]) {
    service.reset();
    service.handle((_req, res) => sendJson(res, 409, { code: 'Conflict', message: 'busy' }));
    await failure(call(), 'CONFLICT');
    assert.equal(service.requests.length, 1);
  }
});

test('other 4xx are not retried', async () => {
  const client = newClient({ maxRetries: 5 });
  for (const status of [400, 401, 403, 404, 422]) {
    service.reset();
    service.handle((_req, res) => sendJson(res, status, { code: 'X', message: 'no' }));
    await client.getBox('b1').catch((e: unknown) => produced.push(e));
    assert.equal(service.requests.length, 1, `status ${status}`);
  }
});

// ------------------------------------------------------------------ Retry-After

/**
 * Runs `call` while the fake clock moves 1 ms per turn of the event loop, and gives the fake time at
 * which each request reached the service: a client's wait between attempts is then measured exactly,
 * however loaded the machine is.
 */
async function onFakeClock<T>(call: () => Promise<T>): Promise<{ value: T; at: number[] }> {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let settled = false;
    const pending = call().finally(() => (settled = true));
    pending.catch(() => {});
    const at: number[] = [];
    for (let now = 0; !settled; now++) {
      assert.ok(now < 60_000, 'the call did not settle within 60 s of fake time');
      await new Promise((turn) => setImmediate(turn));
      while (at.length < service.requests.length) at.push(now);
      mock.timers.tick(1);
    }
    return { value: await pending, at };
  } finally {
    mock.timers.reset();
  }
}

test('503 + Retry-After (seconds) on a GET: retried once the header\'s time has passed', async () => {
  const client = newClient();
  service.reset();
  service.handle((_req, res, n) => (n === 0 ? sendJson(res, 503, { code: 'Unavailable', message: 'later' }, { 'retry-after': '1' }) : sendJson(res, 200, { content: 'ok' })));
  const { value, at } = await onFakeClock(() => client.screenLayout('b1'));
  assert.deepEqual(value, { content: 'ok' });
  assert.equal(at.length, 2);
  assert.ok(at[1]! - at[0]! >= 1000, `the second attempt came ${at[1]! - at[0]!} ms after the first`);
});

test('429 + retry-after-ms on an action POST: the action is sent again after the delay', async () => {
  const client = newClient();
  service.reset();
  service.handle((_req, res, n) => (n === 0 ? sendJson(res, 429, { code: 'RateLimited', message: 'slow down' }, { 'retry-after-ms': '2500' }) : ok(res)));
  const { value, at } = await onFakeClock(() => client.pressKey('b1', { keys: ['enter'] }));
  assert.deepEqual(value, { actionId: 'a1', message: 'ok' });
  assert.equal(at.length, 2);
  assert.ok(at[1]! - at[0]! >= 2500, `the second attempt came ${at[1]! - at[0]!} ms after the first`);
  assert.deepEqual(JSON.parse(service.requests[1]!.body.toString()), { keys: ['enter'] }, 'the same body is sent again');
});

test('429 + Retry-After (seconds) on an action POST, and 503 + retry-after-ms on an action POST', async () => {
  const client = newClient();
  service.reset();
  service.handle((_req, res, n) => (n === 0 ? sendJson(res, 429, { code: 'RateLimited', message: 'slow down' }, { 'retry-after': '1' }) : ok(res)));
  const slow = await onFakeClock(() => client.type('b1', { text: 'a' }));
  assert.equal(slow.at.length, 2);
  assert.ok(slow.at[1]! - slow.at[0]! >= 1000, `the second attempt came ${slow.at[1]! - slow.at[0]!} ms after the first`);

  service.reset();
  service.handle((_req, res, n) => (n === 0 ? sendJson(res, 503, { code: 'Unavailable', message: 'later' }, { 'retry-after-ms': '1500' }) : ok(res)));
  const ms = await onFakeClock(() => client.type('b1', { text: 'a' }));
  assert.equal(ms.at.length, 2);
  assert.ok(ms.at[1]! - ms.at[0]! >= 1500, `the second attempt came ${ms.at[1]! - ms.at[0]!} ms after the first`);
});

test('429 every time: RATE_LIMITED after 1 + maxRetries attempts', async () => {
  const client = newClient({ maxRetries: 2 });
  service.reset();
  service.handle((_req, res) => sendJson(res, 429, { code: 'RateLimited', message: 'slow down' }, { 'retry-after-ms': '5' }));
  const err = await failure(client.pressKey('b1', { keys: ['a'] }), 'RATE_LIMITED');
  assert.equal(err.httpStatus, 429);
  assert.equal(service.requests.length, 3);
});

// ------------------------------------------------------------------ connection failures

test('connection refused before sending is retried, even for an action POST (real sockets)', async () => {
  // The first TCP connect goes to a port nothing listens on (the kernel refuses it); later
  // connects go to the service. The request can only have been sent once.
  const dead = await closedPort();
  const real = buildConnector({});
  let connects = 0;
  const agent = new Agent({
    connect: (opts, cb) => {
      connects += 1;
      real(connects === 1 ? { ...opts, port: String(dead) } : opts, cb);
    },
  });
  const client = newClient({ dispatcher: agent });
  service.reset();
  service.handle((_req, res) => ok(res));
  try {
    assert.deepEqual(await client.pressKey('b1', { keys: ['enter'] }), { actionId: 'a1', message: 'ok' });
  } finally {
    await agent.close();
  }
  assert.equal(connects, 2);
  assert.equal(service.requests.length, 1);
});

test('connection refused on every attempt: NETWORK_ERROR naming the cause', async () => {
  const dead = await closedPort();
  const client = new BoxClient({ baseUrl: `http://127.0.0.1:${dead}/api/v1`, apiKey: kKey, retryBaseMs: 1, maxRetries: 1 }, {});
  clients.push(client);
  const err = await failure(client.pressKey('b1', { keys: ['enter'] }), 'NETWORK_ERROR');
  assertNames(err, 'POST', '/boxes/b1/actions/press-key', 'b1');
  assert.match(err.message, /ECONNREFUSED/);
  assert.ok(err.cause, 'the transport error is kept as the cause');
});

test('a connection dropped after the request was sent: an action POST fails once, a GET is retried', async () => {
  const client = newClient();
  service.reset();
  // The request arrives whole, then the service drops the connection without answering.
  service.handle((_req, res) => {
    res.socket?.destroy();
  });
  const err = await failure(client.drag('b1', { start: 'a', end: 'b' }), 'NETWORK_ERROR');
  assertNames(err, 'POST', '/boxes/b1/actions/drag', 'b1');
  assert.equal(service.requests.length, 1);

  service.reset();
  service.handle((_req, res, n) => {
    if (n === 0) res.socket?.destroy();
    else sendJson(res, 200, { content: 'ok' });
  });
  assert.deepEqual(await client.screenLayout('b1'), { content: 'ok' });
  assert.equal(service.requests.length, 2);
});

// ------------------------------------------------------------------ timeout and abort

test('the service never answers: TIMEOUT, and an action POST is sent once', async () => {
  const client = newClient({ timeoutMs: 150 });
  service.reset();
  service.handle(() => {});
  const err = await failure(client.pressKey('b1', { keys: ['enter'] }), 'TIMEOUT');
  assertNames(err, 'POST', '/boxes/b1/actions/press-key', 'b1');
  assert.match(err.message, /150 ms/);
  assert.equal(service.requests.length, 1);
});

test('a GET that times out is retried, then TIMEOUT; per-request timeoutMs wins', async () => {
  const client = newClient({ timeoutMs: 60_000 });
  service.reset();
  service.handle(() => {});
  const err = await failure(client.screenLayout('b1', { timeoutMs: 100, maxRetries: 1 }), 'TIMEOUT');
  assert.match(err.message, /100 ms/);
  assert.equal(service.requests.length, 2);
});

test('headers arrive but the body never ends: TIMEOUT', async () => {
  const client = newClient({ timeoutMs: 150, maxRetries: 0 });
  service.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"content":');
  });
  await failure(client.screenLayout('b1'), 'TIMEOUT');
});

test('the caller aborts while the request is in flight: ABORTED, not retried', async () => {
  const client = newClient();
  const ac = new AbortController();
  service.reset();
  service.handle(() => ac.abort());
  const err = await failure(client.screenLayout('b1', { signal: ac.signal }), 'ABORTED');
  assertNames(err, 'GET', '/boxes/b1/actions/screen-layout', 'b1');
  assert.equal(service.requests.length, 1);
});

test('an already aborted signal: ABORTED and nothing is sent', async () => {
  const client = newClient();
  service.reset();
  await failure(client.pressKey('b1', { keys: ['a'] }, { signal: AbortSignal.abort() }), 'ABORTED');
  assert.equal(service.requests.length, 0);
});

test('the caller aborts while the client waits to retry: ABORTED, no second attempt', async () => {
  const client = newClient();
  const ac = new AbortController();
  service.reset();
  service.handle((_req, res) => {
    sendJson(res, 503, { code: 'Unavailable', message: 'later' }, { 'retry-after': '30' });
    setTimeout(() => ac.abort(), 50);
  });
  const err = await failure(client.screenLayout('b1', { signal: ac.signal }), 'ABORTED');
  assert.match(err.message, /retry/);
  assert.equal(service.requests.length, 1);
});

test('fetchObject: a 403 is FORBIDDEN, a stalled body is TIMEOUT, both naming method and path', async () => {
  const client = newClient({ timeoutMs: 150 });
  const url = `http://127.0.0.1:${service.port}/objects/a.png?sig=${kKey}`;
  service.handle((_req, res) => sendJson(res, 403, { code: 'PresignExpired', message: 'expired' }));
  const denied = await failure(client.fetchObject(url), 'FORBIDDEN');
  assert.ok(denied.message.startsWith('GET /objects/a.png: 403 PresignExpired: expired'), denied.message);
  service.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': 1000 });
    res.write(Buffer.alloc(10));
  });
  const stalled = await failure(client.fetchObject(url), 'TIMEOUT');
  assert.ok(stalled.message.startsWith('GET /objects/a.png: '), stalled.message);
});

// ------------------------------------------------------------------ uploads

test('a 600 MB APK is refused with FILE_TOO_LARGE before any request reaches the service', async () => {
  const file = join(dir, 'huge.apk');
  await writeFile(file, '');
  await truncate(file, 600 * 1024 * 1024); // sparse: no disk used
  const client = newClient();
  service.reset();
  service.handle((_req, res) => sendJson(res, 200, {}));
  const err = await failure(client.installPackage('b1', { apk: file, open: true }), 'FILE_TOO_LARGE');
  assertNames(err, 'POST', '/boxes/b1/android/packages', 'b1');
  assert.match(err.message, /huge\.apk is 600 MB; the limit is 512 MB/);
  assert.equal(err.status, 413);
  assert.equal(service.requests.length, 0);
});

test('a missing APK file: INVALID_ARGUMENT, nothing sent', async () => {
  const client = newClient();
  service.reset();
  const err = await failure(client.installPackage('b1', { apk: join(dir, 'missing.apk') }), 'INVALID_ARGUMENT');
  assertNames(err, 'POST', '/boxes/b1/android/packages', 'b1');
  assert.match(err.message, /missing\.apk/);
  assert.equal(service.requests.length, 0);
});

// ------------------------------------------------------------------ the API key

test('the service echoes the key back (JSON message, details, plain text): the error has *** instead', async () => {
  const client = newClient({ maxRetries: 0 });
  service.handle((req, res) => sendJson(res, 401, { code: 'Unauthorized', message: `bad token ${String(req.headers.authorization)}`, details: { token: kKey } }));
  const json = await failure(client.getBox('b1'), 'UNAUTHORIZED');
  assert.match(json.message, /bad token Bearer \*\*\*/);
  assert.deepEqual(json.details, { token: '***' });
  service.handle((req, res) => {
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end(`forbidden for ${String(req.headers.authorization)}`);
  });
  const text = await failure(client.pressKey('b1', { keys: ['a'] }), 'FORBIDDEN');
  assert.match(text.message, /forbidden for Bearer \*\*\*/);
});

test('the key inside a cause (a file path that contains it) is scrubbed from the cause too', async () => {
  const client = newClient();
  const err = await failure(client.installPackage('b1', { apk: join(dir, `${kKey}.apk`) }), 'INVALID_ARGUMENT');
  assert.ok(err.cause instanceof Error, 'the fs error is the cause');
  assert.match(err.message, /\*\*\*\.apk/);
});

test('the key appears in no error this file produced (message, stack, cause, details)', () => {
  assert.ok(produced.length >= 40, `only ${produced.length} errors were collected`);
  for (const err of produced) {
    const e = err as Error & { cause?: unknown; details?: unknown };
    assert.ok(!e.message.includes(kKey), e.message);
    assert.ok(!String(e.stack).includes(kKey), String(e.stack));
    const shown = inspect(err, { depth: 8, showHidden: false });
    assert.ok(!shown.includes(kKey), `the key is in ${shown}`);
    assert.ok(!JSON.stringify(e.details ?? null).includes(kKey));
  }
});

test('every error this file produced names its method, path and box', () => {
  for (const err of produced) {
    assert.ok(err instanceof BoxApiError, String(err));
    assert.ok(err.message.startsWith(`${err.method} ${err.path}${err.boxId ? ` (box ${err.boxId})` : ''}: `), err.message);
    assert.match(err.method, /^(GET|POST|PUT|DELETE)$/);
    assert.match(err.path, /^\//);
  }
});
