// boxflow serve's four websockets (web terminal, live view, CDP proxy, command sockets) answer a
// handshake they refuse as every other refusal of the API: its HTTP status and a `{code, message}`
// body, then the connection closed; and each keeps its own bound on a message (one ws server takes
// them all). A real server on loopback with a real Linux box (Chromium, a real shell).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket, type RawData } from 'ws';
import { BoxClient } from '../../src/api/client.js';
import { createApiKey, startServer, type RunningServer } from '../../src/server/index.js';

const kSecret = randomBytes(16).toString('hex');
const dir = mkdtempSync(join(tmpdir(), 'boxflow-ws-refusals-'));
chmodSync(dir, 0o755); // box users (the server runs each box as its own user when root) reach their dirs

let server: RunningServer;
let client: BoxClient;
let key: string;
/** Each websocket's path (with its query) and the headers its upgrade needs. */
let sockets: Array<{ name: string; path: string; headers: Record<string, string> }>;

before(async () => {
  server = await startServer({ port: 0, dataDir: join(dir, 'data'), secret: kSecret, log: () => {} });
  key = await createApiKey(kSecret, 'ws-refusals');
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0 });
  const box = await client.createLinuxBox({});
  const pathOf = (url: string) => `${new URL(url).pathname}${new URL(url).search}`;
  sockets = [
    { name: 'web terminal', path: pathOf((await client.webTerminalUrl(box.id)).url), headers: {} },
    { name: 'live view', path: pathOf((await client.liveViewUrl(box.id)).websocketUrl!), headers: {} },
    { name: 'CDP proxy', path: pathOf(await client.cdpUrl(box.id, {})), headers: {} },
    { name: 'command socket', path: pathOf((await client.websocketUrl(box.id)).command), headers: { authorization: `Bearer ${key}` } },
  ];
});

after(async () => {
  await client?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends a request head on a connection of its own: what the server wrote before it closed that connection. */
function exchange(head: string): Promise<string> {
  const { hostname, port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

function upgradeHead(path: string, headers: Record<string, string>): string {
  const all = { host: 'boxflow', connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64'), ...headers };
  return `GET ${path} HTTP/1.1\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

test('a handshake ws refuses (a bad Sec-WebSocket-Key or version, an Upgrade that is not websocket) is 400 {code, message} on every websocket, then closed', async () => {
  const bad: Array<[string, Record<string, string>, RegExp]> = [
    ['a Sec-WebSocket-Key that is not one', { 'sec-websocket-key': 'not-a-key' }, /Sec-WebSocket-Key/],
    ['an unknown Sec-WebSocket-Version', { 'sec-websocket-version': '99' }, /Sec-WebSocket-Version/],
    ['an Upgrade to another protocol', { upgrade: 'not-websocket' }, /Upgrade/],
  ];
  for (const { name, path, headers } of sockets) {
    for (const [what, wrong, says] of bad) {
      const answer = await exchange(upgradeHead(path, { ...headers, ...wrong }));
      assert.equal(statusOf(answer), 400, `${name}, ${what}: ${answer.slice(0, 200)}`);
      assert.match(answer, /\r\ncontent-type: application\/json/i, `${name}, ${what}`);
      const body = bodyOf(answer);
      assert.deepEqual(Object.keys(body).sort(), ['code', 'message'], `${name}, ${what}`);
      assert.equal(body.code, 'INVALID_REQUEST', `${name}, ${what}`);
      assert.match(String(body.message), says, `${name}, ${what}`);
    }
  }
});

test('an upgrade of a path that is no websocket (an API route, with a good key; no route at all) is 404 {code, message}, then closed', async () => {
  for (const path of [new URL(`${server.baseUrl}/boxes`).pathname, '/no-such-path']) {
    const answer = await exchange(upgradeHead(path, { authorization: `Bearer ${key}` }));
    assert.equal(statusOf(answer), 404, `${path}: ${answer.slice(0, 200)}`);
    assert.deepEqual(bodyOf(answer), { code: 'NOT_FOUND', message: `no WebSocket endpoint at ${path}` });
  }
});

test('a plain GET of the CDP URL is told to upgrade (426 {code, message}), as the command socket URL is', async () => {
  const cdp = sockets.find((s) => s.name === 'CDP proxy')!;
  const command = sockets.find((s) => s.name === 'command socket')!;
  for (const { path } of [cdp, command]) {
    const res = await fetch(new URL(path, server.baseUrl));
    assert.equal(res.status, 426, path);
    assert.equal(res.headers.get('upgrade'), 'websocket');
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.code, 'INVALID_REQUEST');
    assert.match(String(body.message), /this is a websocket/);
  }
});

/** Opens a websocket; its text messages are collected in `texts`, and `closed` resolves with its close code. */
function open(url: string): Promise<{ ws: WebSocket; texts: string[]; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const texts: string[] = [];
    ws.on('message', (raw: RawData, isBinary: boolean) => void (isBinary || texts.push(raw.toString())));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.once('open', () => resolve({ ws, texts, closed }));
    ws.once('error', reject);
  });
}

/** Resolves once a text message matches `re` (or rejects when the socket closes first). */
function textMatching(conn: { ws: WebSocket; texts: string[] }, re: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const found = conn.texts.find((t) => re.test(t));
      if (!found) return;
      conn.ws.off('message', check);
      conn.ws.off('close', gone);
      resolve(found);
    };
    const gone = () => reject(new Error(`closed before a message matching ${re}: ${conn.texts.join('').slice(-300)}`));
    conn.ws.on('message', check);
    conn.ws.once('close', gone);
    check();
  });
}

test('each websocket keeps its own bound on a message: the live view reads 200 KiB and closes 1009 past 256 KiB; the terminal reads 3 MiB and closes 1009 past 4 MiB', { timeout: 60_000 }, async () => {
  const base = server.baseUrl.replace(/^http/, 'ws').replace(/\/api\/v1$/, '');
  const live = sockets.find((s) => s.name === 'live view')!;
  const viewer = await open(`${base}${live.path}`);
  viewer.ws.send(JSON.stringify({ type: 'no-such-input', id: 7, pad: 'x'.repeat(200 * 1024) }));
  assert.match(await textMatching(viewer, /"id":7/), /"ok":false.*unknown message type/);
  viewer.ws.send('x'.repeat(256 * 1024 + 1));
  assert.equal(await viewer.closed, 1009);

  const terminal = await open(`${base}${sockets.find((s) => s.name === 'web terminal')!.path}`);
  terminal.ws.send(JSON.stringify({ type: 'resize', cols: 100, rows: 30, pad: 'x'.repeat(3 * 1024 * 1024) }));
  terminal.ws.send(JSON.stringify({ type: 'input', data: 'echo read-$((6*7))\r' }));
  await textMatching(terminal, /read-42/);
  terminal.ws.send('x'.repeat(4 * 1024 * 1024 + 1));
  assert.equal(await terminal.closed, 1009);
});
