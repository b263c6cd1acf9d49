// What one client can hold of boxflow serve, tried as an attacker would, on real servers on loopback:
// live-view and command websocket slots (taken only by a handshake that succeeded, and shared out
// per tenant), the API key checked before a request's body is read, the headers and request
// timeouts, and the connections one address may hold. The command websocket runs on a real Linux
// box (Chromium, a real shell); the live view and the per-tenant shares on Android boxes of the fake
// adb server (a TEST DOUBLE of the adb protocol, test/support/fakeAdbServer.ts). Each server is
// started with the limits its tests need; `main` keeps the defaults.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket, type RawData } from 'ws';
import { BoxClient } from '../../src/api/client.js';
import type { Box } from '../../src/api/schemas.js';
import { createApiKey, startServer, type RunningServer, type ServerOptions } from '../../src/server/index.js';
import { kMaxClientsPerBox, kMaxClientsPerTenant } from '../../src/server/http/liveView.js';
import { kMaxSocketsPerBox, kMaxSocketsPerTenant } from '../../src/server/http/endpoints/commandSocket.js';
import { FakeAdbServer, packagesFromFixture } from '../support/fakeAdbServer.js';
import { waitFor } from '../support/waitFor.js';

const kSecret = randomBytes(16).toString('hex');
const dir = mkdtempSync(join(tmpdir(), 'boxflow-slots-'));
chmodSync(dir, 0o755); // box users (the server runs each box as its own user when root) reach their dirs
/** Android boxes of tenant a: enough to fill its command websocket share and one more box. */
const kBoxesA = kMaxSocketsPerTenant / kMaxSocketsPerBox + 1;
const serialsA = Array.from({ length: kBoxesA }, (_, i) => `emulator-${5600 + 2 * i}`);
const kSerialB = 'emulator-5700';
const kSerialTimed = 'emulator-5702';

let fake: FakeAdbServer;
const servers: RunningServer[] = [];
const clients: BoxClient[] = [];
let main: RunningServer;
let keyA: string;
let keyB: string;
let a: BoxClient;
let b: BoxClient;
let boxesA: Box[];
let androidB: Box;
let linuxB: Box;

async function serve(name: string, extra: Partial<ServerOptions> = {}): Promise<RunningServer> {
  const server = await startServer({ port: 0, dataDir: join(dir, name), secret: kSecret, log: () => {}, adb: fake.socketSpec, ...extra });
  servers.push(server);
  return server;
}

function clientOf(server: RunningServer, key: string): BoxClient {
  const client = new BoxClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0 });
  clients.push(client);
  return client;
}

before(async () => {
  fake = await FakeAdbServer.start();
  for (const serial of [...serialsA, kSerialB, kSerialTimed]) fake.addDevice(serial, (d) => void (d.packages = packagesFromFixture()));
  main = await serve('main');
  [keyA, keyB] = await Promise.all([createApiKey(kSecret, 'slots-a'), createApiKey(kSecret, 'slots-b')]);
  a = clientOf(main, keyA);
  b = clientOf(main, keyB);
  [linuxB, androidB, ...boxesA] = await Promise.all([
    b.createLinuxBox(),
    b.createAndroidBox({ config: { deviceSerial: kSerialB } }),
    ...serialsA.map((deviceSerial) => a.createAndroidBox({ config: { deviceSerial } })),
  ]);
});

after(async () => {
  for (const client of clients) await client.close();
  for (const server of servers) await server.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------- helpers

/** What came back on a bare socket until the server closed it. */
interface Exchange {
  socket: Socket;
  /** Everything received so far. */
  text: () => string;
  closed: Promise<string>;
}

/** A bare connection (from `localAddress` when given) that sends `head` and, if `trickle`, a byte every 50 ms after it. */
function exchange(baseUrl: string, head: string, opts: { trickle?: boolean; localAddress?: string } = {}): Promise<Exchange> {
  const url = new URL(baseUrl);
  const socket = netConnect({ port: Number(url.port), host: url.hostname, ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) });
  const chunks: Buffer[] = [];
  let drip: NodeJS.Timeout | undefined;
  socket.on('data', (d: Buffer) => chunks.push(d));
  socket.on('error', () => {}); // a reset after the answer: what came is what counts
  const text = () => Buffer.concat(chunks).toString('latin1');
  const closed = new Promise<string>((resolve) =>
    socket.once('close', () => {
      clearInterval(drip);
      resolve(text());
    }),
  );
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => {
      if (head) socket.write(head);
      if (opts.trickle) drip = setInterval(() => socket.writable && socket.write('{'), 50);
      resolve({ socket, text, closed });
    });
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { code: string; message: string };

/** A request head as a client writes it; `body` only announces a content-length (the body is trickled or never sent). */
function head(method: string, path: string, headers: Record<string, string | number> = {}): string {
  return `${method} ${path} HTTP/1.1\r\nhost: boxflow\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}

/** Opens a websocket: the socket once open, or the refused upgrade's status and body. */
function openWs(url: string, headers: Record<string, string> = {}): Promise<{ ws: WebSocket } | { status: number; body: { code: string; message: string } }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    // Collected from the start: the server's first message may come with the handshake's answer.
    const messages: Record<string, unknown>[] = [];
    received.set(ws, messages);
    ws.on('message', (raw: RawData, isBinary: boolean) => {
      if (!isBinary) messages.push(JSON.parse(raw.toString()) as Record<string, unknown>);
      ws.emit('text');
    });
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { code: string; message: string } }));
    });
    ws.once('error', reject);
  });
}

async function opened(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  const r = await openWs(url, headers);
  if ('ws' in r) return r.ws;
  throw new Error(`upgrade refused: ${r.status} ${JSON.stringify(r.body)}`);
}

async function refused(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: { code: string; message: string } }> {
  const r = await openWs(url, headers);
  if ('ws' in r) {
    r.ws.close();
    throw new Error(`the upgrade of ${url} was accepted`);
  }
  return r;
}

const received = new WeakMap<WebSocket, Record<string, unknown>[]>();

/** The first text message (since the socket was made) that `ok` accepts. */
function nextMessage(ws: WebSocket, ok: (m: Record<string, unknown>) => boolean = () => true): Promise<Record<string, unknown>> {
  const messages = received.get(ws)!;
  return new Promise((resolve) => {
    const check = () => {
      const found = messages.find(ok);
      if (!found) return;
      ws.off('text', check);
      resolve(found);
    };
    ws.on('text', check);
    check();
  });
}

function closeAll(sockets: WebSocket[]): Promise<void> {
  return Promise.all(sockets.map((ws) => (ws.readyState === WebSocket.CLOSED ? undefined : new Promise((r) => (ws.once('close', r), ws.close()))))).then(() => {});
}

/**
 * Handshakes the websocket server refuses, on a path whose checks (signature, key, box) all pass:
 * each one answered 4xx by ws itself.
 */
function badHandshakes(path: string, auth: Record<string, string>): string[] {
  const good = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': 13, 'sec-websocket-key': randomBytes(16).toString('base64'), ...auth };
  return [
    head('GET', path, { ...good, 'sec-websocket-key': 'not-a-key' }),
    head('GET', path, { ...good, 'sec-websocket-version': 99 }),
    head('GET', path, { ...good, upgrade: 'not-websocket' }),
    head('POST', path, { ...good, 'content-length': 0 }),
    head('GET', path, { ...good, 'sec-websocket-key': '' }),
  ];
}

/** Sends each handshake on its own connection; each must be refused 4xx and closed. */
async function refuseAll(baseUrl: string, heads: string[]): Promise<void> {
  for (const h of heads) {
    const answer = await (await exchange(baseUrl, h)).closed;
    assert.ok(statusOf(answer) >= 400 && statusOf(answer) < 500, `a bad handshake is refused, got ${JSON.stringify(answer.slice(0, 200))}`);
  }
}

// ---------------------------------------------------------------- websocket slots

test('live view: 70 refused handshakes (bad Sec-WebSocket-Key, version, upgrade, method) hold no viewer slot; a viewer still connects after them', { timeout: 30_000 }, async () => {
  const { websocketUrl } = await b.liveViewUrl(androidB.id);
  const url = new URL(websocketUrl!);
  const bad = badHandshakes(`${url.pathname}${url.search}`, {});
  await refuseAll(main.baseUrl, Array.from({ length: 70 }, (_, i) => bad[i % bad.length]!));
  const ws = await opened(websocketUrl!);
  try {
    const hello = await nextMessage(ws, (m) => m.type === 'hello');
    assert.equal(hello.boxId, androidB.id);
  } finally {
    await closeAll([ws]);
  }
});

test(`live view: one tenant's viewers hold at most its share (${kMaxClientsPerTenant}); the next is 429, another tenant still watches, and a closed viewer frees its slot`, { timeout: 30_000 }, async () => {
  assert.equal(kMaxClientsPerTenant % kMaxClientsPerBox, 0);
  const full = boxesA.slice(0, kMaxClientsPerTenant / kMaxClientsPerBox);
  const spare = boxesA[full.length]!;
  const urls = await Promise.all([...full, spare].map(async (box) => (await a.liveViewUrl(box.id)).websocketUrl!));
  const viewers: WebSocket[] = [];
  try {
    for (const url of urls.slice(0, -1)) for (let i = 0; i < kMaxClientsPerBox; i++) viewers.push(await opened(url));
    const r = await refused(urls.at(-1)!);
    assert.equal(r.status, 429);
    assert.equal(r.body.code, 'RATE_LIMITED');
    assert.match(r.body.message, /this tenant's boxes already have 16 live viewers/);

    const other = await opened((await b.liveViewUrl(androidB.id)).websocketUrl!);
    viewers.push(other);
    assert.equal((await nextMessage(other, (m) => m.type === 'hello')).boxId, androidB.id);

    await closeAll([viewers.shift()!]);
    const again = await waitFor(
      async () => {
        const attempt = await openWs(urls.at(-1)!);
        return 'ws' in attempt ? attempt.ws : undefined;
      },
      { what: 'a viewer once one of the tenant closed', intervalMs: 50 },
    );
    viewers.push(again);
    assert.equal((await nextMessage(again, (m) => m.type === 'hello')).boxId, spare.id);
  } finally {
    await closeAll(viewers);
  }
});

test(`command websocket: refused handshakes (bad Sec-WebSocket-Key, version, upgrade, method) hold none of the box's ${kMaxSocketsPerBox} slots; a command runs after them`, { timeout: 30_000 }, async () => {
  const { command } = await b.websocketUrl(linuxB.id);
  const auth = { authorization: `Bearer ${keyB}` };
  const bad = badHandshakes(new URL(command).pathname, auth);
  await refuseAll(main.baseUrl, Array.from({ length: 3 * kMaxSocketsPerBox }, (_, i) => bad[i % bad.length]!));
  const ws = await opened(command, auth);
  ws.send(JSON.stringify({ command: { command: 'echo slot-free' } }));
  assert.deepEqual(await nextMessage(ws, (m) => m.event === 'end' || m.event === 'error'), { event: 'end', exitCode: 0 });
  const stdout = received.get(ws)!.filter((m) => m.event === 'stdout').map((m) => m.data);
  assert.equal(stdout.join(''), 'slot-free\n');
  await closeAll([ws]);
});

test(`command websocket: one tenant's sockets hold at most its share (${kMaxSocketsPerTenant}); the next is 429 and another tenant's still opens`, { timeout: 30_000 }, async () => {
  const auth = { authorization: `Bearer ${keyA}` };
  const urls = await Promise.all(boxesA.map(async (box) => (await a.websocketUrl(box.id)).command));
  const sockets: WebSocket[] = [];
  try {
    // Each waits for its request frame (kFirstFrameMs, 10 s): all of these are open at once well within it.
    sockets.push(...(await Promise.all(urls.slice(0, -1).flatMap((url) => Array.from({ length: kMaxSocketsPerBox }, () => opened(url, auth))))));
    const r = await refused(urls.at(-1)!, auth);
    assert.equal(r.status, 429);
    assert.equal(r.body.code, 'RATE_LIMITED');
    assert.match(r.body.message, /this tenant already has 64 command websockets open/);
    sockets.push(await opened((await b.websocketUrl(linuxB.id)).command, { authorization: `Bearer ${keyB}` }));
  } finally {
    await closeAll(sockets);
  }
});

// ---------------------------------------------------------------- the key before the body, timeouts, connections per peer

test('a request without a good key is answered before its body is read (401, then its connection closed): 100 clients trickling bodies hold nothing, and a tenant is answered meanwhile', { timeout: 30_000 }, async () => {
  const api = new URL(main.baseUrl).pathname;
  const json = { 'content-type': 'application/json', 'content-length': 10_000_000 };
  const heads = [
    head('POST', `${api}/boxes/linux`, json),
    head('POST', `${api}/boxes/linux`, { ...json, authorization: 'Bearer not.a.key' }),
    head('POST', `${api}/boxes/${boxesA[0]!.id}/actions/type`, { ...json, authorization: `Bearer ${await createApiKey('another-secret-another-secret-xx', 'slots-a')}` }),
    head('POST', `${api}/boxes/${boxesA[0]!.id}/fs/write`, { 'content-type': 'multipart/form-data; boundary=x', 'content-length': 10_000_000 }),
  ];
  const clients = await Promise.all(Array.from({ length: 100 }, (_, i) => exchange(main.baseUrl, heads[i % heads.length]!, { trickle: true })));
  assert.equal((await a.listBoxes()).total, kBoxesA, 'a tenant is answered while they trickle');
  for (const answer of await Promise.all(clients.map((c) => c.closed))) {
    assert.equal(statusOf(answer), 401, answer.slice(0, 200));
    assert.equal(bodyOf(answer).code, 'UNAUTHORIZED');
  }
  // Neither an unknown route nor a GET waits for a body either.
  const unknown = await (await exchange(main.baseUrl, head('POST', `${api}/no-such-route`, json), { trickle: true })).closed;
  assert.equal(statusOf(unknown), 404);
  assert.equal(bodyOf(unknown).code, 'NOT_FOUND');
  const get = await (await exchange(main.baseUrl, head('GET', `${api}/boxes`, { 'content-length': 10_000_000, authorization: `Bearer ${keyA}` }), { trickle: true })).closed;
  assert.equal(statusOf(get), 400);
});

test('timeouts: a body that trickles is cut at the request timeout (408), headers that trickle and a connection that sends nothing at the headers timeout; a live websocket outlasts both and tenants are answered', { timeout: 30_000 }, async () => {
  const timed = await serve('timed', { headersTimeoutMs: 300, requestTimeoutMs: 1_000 });
  const api = new URL(timed.baseUrl).pathname;
  const tenant = clientOf(timed, keyA);
  const box = await tenant.createAndroidBox({ config: { deviceSerial: kSerialTimed } });
  const viewer = await opened((await tenant.liveViewUrl(box.id)).websocketUrl!);
  try {
    await nextMessage(viewer, (m) => m.type === 'hello');
    const [body, headers, silent] = await Promise.all([
      exchange(timed.baseUrl, head('POST', `${api}/boxes/${box.id}/actions/type`, { 'content-type': 'application/json', 'content-length': 10_000, authorization: `Bearer ${keyA}` }), { trickle: true }),
      exchange(timed.baseUrl, `POST ${api}/boxes/linux HTTP/1.1\r\nx-slow: `, { trickle: true }),
      exchange(timed.baseUrl, ''),
    ]);
    assert.equal((await tenant.listBoxes()).total, 1, 'a tenant is answered while they hang on');
    for (const answer of await Promise.all([body.closed, headers.closed, silent.closed])) {
      assert.equal(statusOf(answer), 408, answer.slice(0, 200));
      assert.equal(bodyOf(answer).code, 'INVALID_REQUEST');
    }
    // The request timeout is past: the websocket (no longer a request) still answers.
    const pong = new Promise((r) => viewer.once('pong', r));
    viewer.ping();
    await pong;
    assert.equal(viewer.readyState, WebSocket.OPEN);
  } finally {
    await closeAll([viewer]);
  }
});

test('connections per peer: past the cap a peer\'s new connection is closed unanswered; its open ones still work, other peers are answered, and a closed one frees its place', { timeout: 30_000 }, async () => {
  const capped = await serve('capped', { maxConnectionsPerPeer: 8 });
  const api = new URL(capped.baseUrl).pathname;
  const ask = head('GET', `${api}/boxes`);
  const answered = (c: Exchange, n: number) => waitFor(() => c.text().split('HTTP/1.1 401').length - 1 >= n, { what: `answer ${n}` });
  // Eight kept-alive connections from 127.0.0.2, each answered once (so the server has them all).
  const held = await Promise.all(Array.from({ length: 8 }, () => exchange(capped.baseUrl, ask, { localAddress: '127.0.0.2' })));
  await Promise.all(held.map((c) => answered(c, 1)));

  const askOnce = head('GET', `${api}/boxes`, { connection: 'close' });
  const ninth = await exchange(capped.baseUrl, askOnce, { localAddress: '127.0.0.2' });
  assert.equal(await ninth.closed, '', 'the ninth connection is closed without an answer');

  held[0]!.socket.write(ask);
  await answered(held[0]!, 2);
  assert.equal((await clientOf(capped, keyB).listBoxes()).total, 0, 'another address is answered');

  held[1]!.socket.destroy();
  await waitFor(async () => statusOf(await (await exchange(capped.baseUrl, askOnce, { localAddress: '127.0.0.2' })).closed) === 401, { what: 'a new connection once one closed', intervalMs: 50 });
  for (const c of held) c.socket.destroy();
});
