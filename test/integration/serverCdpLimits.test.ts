// A tenant's pre-signed CDP URL and its box's pages against a real `boxflow serve` (real Chromium,
// real HTTP on loopback): nothing sent on the URL, and nothing a page does, ends the server or grows
// its memory without bound. Commands nested deeper than Chromium reads get an error answer; a page
// that logs a 600 MB string has its event dropped; frames are at most 16 MiB each way (over: 1009
// from the client, an error answer from the browser); a box has at most 16 CDP connections; and a
// client that floods a stopped Chromium is no longer read. After each, another tenant is served.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import type { Box } from '../../src/api/schemas.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { rawCdp, type CdpMessage } from '../support/rawCdpClient.js';
import { waitFor } from '../support/waitFor.js';

const kSecret = 'cdp-limits-secret-0123456789abcdef';
const MiB = 1024 * 1024;
const kMaxFrame = 16 * MiB;

let dataDir: string;
let server: Awaited<ReturnType<typeof startServer>>;
let tenant: BoxClient;
let other: BoxClient;
let box: Box;
let otherBox: Box;
/** What the server logged. */
const logged: Array<Record<string, unknown>> = [];

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-cdp-limits-'));
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: (entry) => void logged.push(entry) });
  tenant = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'cdp-attacker'), maxRetries: 0 });
  other = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'cdp-bystander'), maxRetries: 0 });
  [box, otherBox] = await Promise.all([tenant.createLinuxBox(), other.createLinuxBox()]);
  await Promise.all([
    tenant.openTab(box.id, { url: page('<p>attacker page</p>') }),
    other.openTab(otherBox.id, { url: page('<input autofocus><p>bystander page</p>') }),
  ]);
});

after(async () => {
  await tenant?.close();
  await other?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function page(html: string): string {
  return `data:text/html,${encodeURIComponent(html)}`;
}

/** The other tenant is served: its API, its box, and its own CDP URL all answer. */
async function otherTenantServed(): Promise<void> {
  assert.equal((await other.getBox(otherBox.id)).status, 'running');
  await other.type(otherBox.id, { text: 'x' });
  assert.match((await other.screenLayout(otherBox.id)).content, /bystander page/);
  const conn = await rawCdp(await other.cdpUrl(otherBox.id, {}));
  assert.match(String((await conn.call('Browser.getVersion')).result?.product), /Chrome/);
  conn.close();
}

/** A session of the tenant's page, on `conn`. */
async function pageSession(conn: Awaited<ReturnType<typeof rawCdp>>, url: RegExp): Promise<string> {
  const { result } = await conn.call('Target.getTargets');
  const target = (result!.targetInfos as Array<{ targetId: string; type: string; url: string }>).find((t) => t.type === 'page' && url.test(decodeURIComponent(t.url)));
  assert.ok(target, 'the page is a target');
  const attached = await conn.call('Target.attachToTarget', { targetId: target.targetId, flatten: true });
  return attached.result!.sessionId as string;
}

const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

test('commands nested 100,000 deep get an error answer, the connection goes on, and so does the server', { timeout: 60_000 }, async () => {
  const conn = await rawCdp(await tenant.cdpUrl(box.id, {}));
  const session = await pageSession(conn, /attacker page/);
  const sent: Array<[number, string]> = [
    [1, `{"id":1,"method":"Browser.getVersion","params":${deepObject(100_000)}}`],
    // Read by the proxy on its way (it gives "the browser's" new tabs the box's context).
    [2, `{"id":2,"method":"Target.createTarget","params":{"url":"about:blank","x":${deepObject(100_000)}}}`],
    // Another key order, as other clients write it, and arrays.
    [3, `{"method":"Browser.getVersion","params":{"a":${deepArray(100_000)}},"id":3}`],
    [4, `{"id":4,"method":"Runtime.evaluate","params":{"expression":"1","x":${deepArray(100_000)}},"sessionId":"${session}"}`],
  ];
  for (const [id, text] of sent) {
    conn.send(text);
    const answer = await conn.answerTo(id);
    assert.match(answer.error?.message ?? '', /nested more than 300 levels deep/, `answer to ${id}: ${JSON.stringify(answer).slice(0, 200)}`);
  }
  assert.equal((await conn.answerTo(4)).sessionId, session, "a session's command is answered on its session");
  const evaluated = await conn.call('Runtime.evaluate', { expression: '6 * 7', returnByValue: true }, session);
  assert.equal(evaluated.result?.result?.value, 42);
  assert.deepEqual(conn.unreadable, []);
  conn.close();
  await otherTenantServed();
});

test('a page that logs a 600 MB string does not end the server: the event is dropped, the box goes on', { timeout: 180_000 }, async () => {
  // '\x01' is written `\u0001` in JSON: the console event is 600 MB, past the longest string V8 builds.
  await tenant.openTab(box.id, { url: page("<p id=s>big log</p><script>setTimeout(() => { console.log('\\x01'.repeat(1e8)); document.getElementById('s').textContent = 'logged'; })</script>") });
  // The server's own session of the page reads the page's text after the event (a session's messages
  // keep their order): once it reads 'logged', it has read past the event. Chromium takes seconds to write it.
  await waitFor(async () => /logged/.test((await tenant.screenLayout(box.id)).content), { what: "the page's text after its log", timeoutMs: 150_000 });
  await tenant.type(box.id, { text: 'y' });
  await otherTenantServed();
});

test("a browser message over 16 MiB reaches a tenant's CDP URL as an error answer (an event: not at all), and the connection goes on", { timeout: 60_000 }, async () => {
  const conn = await rawCdp(await tenant.cdpUrl(box.id, {}));
  const session = await pageSession(conn, /attacker page/);
  const big = await conn.call('Runtime.evaluate', { expression: "'x'.repeat(17 * 1024 * 1024)", returnByValue: true }, session);
  assert.match(big.error?.message ?? '', /^the browser's answer is 17\.0 MiB, more than the 16 MiB one DevTools message may carry here$/, JSON.stringify(big).slice(0, 300));
  assert.equal(big.sessionId, session);
  const under = await conn.call('Runtime.evaluate', { expression: "'x'.repeat(15 * 1024 * 1024)", returnByValue: true }, session);
  assert.equal((under.result?.result?.value as string).length, 15 * MiB, 'an answer under the bound passes whole');
  // Events go in order: the marker logged after a 20 MB string comes, the string does not.
  await conn.call('Runtime.enable', {}, session);
  await conn.call('Runtime.evaluate', { expression: "console.log('y'.repeat(20e6)); console.log('marker')" }, session);
  const isMarker = (m: CdpMessage) => (m.params?.args as Array<{ value?: unknown }> | undefined)?.[0]?.value === 'marker';
  await conn.event('Runtime.consoleAPICalled', isMarker);
  const logged = conn.received.filter((m) => m.method === 'Runtime.consoleAPICalled').map((m) => String((m.params!.args as Array<{ value?: unknown }>)[0]?.value).length);
  assert.ok(!logged.includes(20e6), `the 20 MB console event was not passed on (got values of ${logged.join(', ')} characters)`);
  assert.equal((await conn.call('Runtime.evaluate', { expression: '1 + 1', returnByValue: true }, session)).result?.result?.value, 2);
  conn.close();
  await otherTenantServed();
});

test('a frame over 16 MiB from a tenant is refused with 1009 before it is read; one under it is served', { timeout: 60_000 }, async () => {
  const conn = await rawCdp(await tenant.cdpUrl(box.id, {}));
  const fits = await conn.call('Browser.getVersion', { pad: 'x'.repeat(kMaxFrame - 200) });
  assert.match(String(fits.result?.product), /Chrome/);
  conn.send(`{"id":1,"method":"Browser.getVersion","params":{"pad":"${'x'.repeat(kMaxFrame)}"}}`);
  const answered = await conn.call('Browser.getVersion').then(() => true, () => false);
  assert.equal(answered, false, 'the command after it is not answered: the connection is closed');
  assert.equal((await conn.closed).code, 1009);
  await otherTenantServed();
});

/** An upgrade request on `url` with this Sec-WebSocket-Key: the status and body it got (101: upgraded, then closed). */
function upgrade(url: string, key = randomBytes(16).toString('base64')): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(url.replace(/^ws/, 'http')), { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': key } });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve({ status: 101, body: '' });
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a connection once the server has taken back a slot (it sees a socket close a moment after the client). */
const openWhenFree = (url: string) => waitFor(() => rawCdp(url), { what: 'a free CDP connection slot' });

test('a box has at most 16 CDP connections: the 17th is refused 429 before the upgrade; slots come back on close, refused handshakes included', { timeout: 60_000 }, async () => {
  const url = await tenant.cdpUrl(box.id, {});
  const conns = await Promise.all(Array.from({ length: 16 }, () => rawCdp(url)));
  const refused = await upgrade(url);
  assert.equal(refused.status, 429);
  assert.deepEqual(Object.keys(JSON.parse(refused.body) as object).sort(), ['code', 'message']);
  assert.match(refused.body, /"code":"RATE_LIMITED".*already has 16 CDP connections open/);
  // Another box's connections are its own.
  const others = await rawCdp(await other.cdpUrl(otherBox.id, {}));
  others.close();
  // A closed connection gives its slot back.
  conns.pop()!.close();
  conns.push(await openWhenFree(url));
  for (const c of conns) c.close();
  // So does a handshake the server refuses (a bad Sec-WebSocket-Key), after the slot was taken.
  for (let i = 0; i < 40; i++) assert.equal((await upgrade(url, 'not a key')).status, 400);
  const again: Array<Awaited<ReturnType<typeof rawCdp>>> = [];
  for (let i = 0; i < 16; i++) again.push(await openWhenFree(url));
  assert.match(String((await again[15]!.call('Browser.getVersion')).result?.product), /Chrome/);
  for (const c of again) c.close();
  await otherTenantServed();
});

/** The pid of the box's Chromium browser process (not its renderers), a child of this process (the server runs here). */
function chromiumOf(boxId: string): number {
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (!cmdline.includes('--remote-debugging-pipe') || !cmdline.some((a) => a.includes(`/${boxId}/profile`))) continue;
      if (!/chromium$/.test(readlinkSync(`/proc/${pid}/exe`))) continue;
      if (Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) !== process.pid) continue;
      return Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no Chromium process for box ${boxId}`);
}

test('a tenant that floods commands while its Chromium is stopped is no longer read, then served in full once it goes on', { timeout: 120_000 }, async (t) => {
  const conn = await rawCdp(await tenant.cdpUrl(box.id, {}));
  await conn.call('Browser.getVersion');
  const pid = chromiumOf(box.id);
  const count = 160;
  const first = 5_000_000;
  const pad = 'p'.repeat(MiB);
  const paused = () => logged.find((e) => e.msg === "cdp client paused: its box's browser is not reading" && e.boxId === box.id);
  // One 1 MiB command after another, each once the last was handed to the kernel: `written` counts
  // what left this client (what the server read, and what the sockets between hold).
  let written = 0;
  const sendNext = () => {
    if (written === count) return;
    conn.ws.send(`{"id":${first + written},"method":"Browser.getVersion","params":{"pad":"${pad}"}}`, () => {
      written++;
      sendNext();
    });
  };
  process.kill(pid, 'SIGSTOP');
  try {
    sendNext();
    await waitFor(() => paused() ?? written === count, { what: 'the server to stop reading, or every command sent', timeoutMs: 60_000 });
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  assert.ok(paused(), `the server stopped reading the client (it read all ${written} MiB instead)`);
  t.diagnostic(`${written} MiB left the client before the server stopped reading it`);
  // A frame waiting for the pipe, one being read, and the kernel's socket buffers: not 160 MiB.
  assert.ok(written < 48, `${written} MiB had left the client when the server stopped reading it`);
  // Once Chromium goes on, the client is read again and every command is answered.
  const last = await conn.answerTo(first + count - 1);
  assert.match(String(last.result?.product), /Chrome/);
  assert.equal(conn.received.filter((m) => typeof m.id === 'number' && m.id >= first).length, count);
  conn.close();
  await otherTenantServed();
});

test("the server's own sessions still take answers over 16 MiB: a page's 20 MB layout, a screenshot of 2200×2200 pixels of noise", { timeout: 90_000 }, async () => {
  await tenant.openTab(box.id, { url: page("<p id=p style='display:none'>big</p><script>document.getElementById('p').textContent = 'z'.repeat(20e6)</script>") });
  const layout = await tenant.screenLayout(box.id);
  assert.ok(layout.content.includes('z'.repeat(20e6)), `the layout has the page's text (${Math.round(layout.content.length / MiB)} MiB)`);
  await tenant.setResolution(box.id, { width: 2200, height: 2200 });
  try {
    // Noise does not compress: the PNG is about 14 MB, its base64 over 19 MiB.
    await tenant.openTab(box.id, { url: page('<body style="margin:0"><canvas id=c width=2200 height=2200></canvas><script>const c = document.getElementById("c").getContext("2d"); const d = c.createImageData(2200, 2200); const u = new Uint32Array(d.data.buffer); for (let i = 0; i < u.length; i++) u[i] = (Math.random() * 0x1000000) | 0xff000000; c.putImageData(d, 0, 0);</script>') });
    const shot = await tenant.screenshot(box.id, { outputFormat: 'base64' });
    const base64 = shot.uri.replace(/^data:image\/png;base64,/, '');
    assert.ok(base64.length > kMaxFrame, `the screenshot is ${Math.round(base64.length / MiB)} MiB of base64`);
    assert.equal(Buffer.from(base64, 'base64').readUInt32BE(16), 2200, 'the PNG is 2200 wide');
  } finally {
    await tenant.setResolution(box.id, { width: 1280, height: 800 });
  }
  await otherTenantServed();
});
