// GET /boxes/{id}/websocket-url and its two websockets (docs/api.md) on a real `boxflow
// serve`: a Linux box's command and run-code output streamed as it comes (as root here, as in CI:
// the box's own user), an Android box's through the fake adb server (a TEST DOUBLE of the adb
// protocol, test/support/fakeAdbServer.ts). The wire exactly as the GBOX SDK's wrapper reads it,
// and tried as an attacker would: no key or another tenant's, a first frame that is not the request,
// one that never comes, a client that reads nothing, the box terminated under a running command.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket, type RawData } from 'ws';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import type { FakeDevice } from '../support/fakeAdbServer.js';
import { splitShellLine } from '../support/fakeDevice.js';
import { liveProcesses } from '../support/procs.js';
import { waitFor } from '../support/waitFor.js';
import { kCommandOutputMax, type Box } from '../../src/api/schemas.js';
import { createApiKey } from '../../src/server/index.js';
import { kFirstFrameMs, kMaxSocketsPerBox } from '../../src/server/http/endpoints/commandSocket.js';

const kSerial = 'emulator-5570';
const kSerialGone = 'emulator-5572';
const srv = useGboxServer('gbox-ws', [kSerial, kSerialGone]);
const a = () => srv.client('a');

let box: Box;
let android: Box;
let dev: FakeDevice;
let urls: { command: string; runCode: string };

before(async () => {
  await srv.ready();
  dev = srv.fake.device(kSerial);
  [box, android] = await Promise.all([a().createLinuxBox(), a().createAndroidBox({ config: { deviceSerial: kSerial } })]);
  urls = await a().websocketUrl(box.id);
});

interface Frame {
  event: string;
  data?: string;
  exitCode?: number;
  code?: string;
  message?: string;
}

interface Session {
  frames: Frame[];
  /** ms after the request frame went out, per frame. */
  at: number[];
  closeCode: number;
  closeReason: string;
  stdout: string;
  stderr: string;
}

/** Opens a websocket as the SDK's wrapper does (the key in the Authorization header). */
/**
 * The pid, as this machine sees it, of the process whose command line is `argv` (a box's command
 * runs in a pid namespace of its own, where its `$$` is 1).
 */
async function hostPid(...argv: string[]): Promise<number> {
  const want = `${argv.join('\0')}\0`;
  return Number(await waitFor(() => liveProcesses().find((p) => p.cmdline === want)?.pid, { what: `a process running ${argv.join(' ')}` }));
}

function open(url: string, key: string | undefined = srv.key('a')): Promise<WebSocket> {
  const ws = new WebSocket(url, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Everything the server sends until it closes. */
function collect(ws: WebSocket): Promise<Session> {
  const started = performance.now();
  const frames: Frame[] = [];
  const at: number[] = [];
  ws.on('message', (raw: RawData, isBinary: boolean) => {
    assert.equal(isBinary, false, 'every frame is text');
    frames.push(JSON.parse(raw.toString()) as Frame);
    at.push(performance.now() - started);
  });
  return new Promise((resolve) =>
    ws.once('close', (closeCode, reason) => {
      const of = (event: string) => frames.filter((f) => f.event === event).map((f) => f.data).join('');
      resolve({ frames, at, closeCode, closeReason: reason.toString(), stdout: of('stdout'), stderr: of('stderr') });
    }),
  );
}

/** Sends one first frame (an object is JSON) and reads the session to its close. */
async function run(url: string, first: unknown): Promise<Session> {
  const ws = await open(url);
  const done = collect(ws);
  ws.send(typeof first === 'string' || Buffer.isBuffer(first) ? first : JSON.stringify(first), { binary: Buffer.isBuffer(first) });
  return done;
}

/** Every frame is one of the four shapes, with exactly its keys. */
function assertShapes(s: Session): void {
  for (const f of s.frames) {
    const keys = Object.keys(f).sort().join(',');
    if (f.event === 'stdout' || f.event === 'stderr') assert.equal(keys, 'data,event', JSON.stringify(f));
    else if (f.event === 'end') assert.equal(keys, 'event,exitCode', JSON.stringify(f));
    else if (f.event === 'error') assert.equal(keys, 'code,event,message', JSON.stringify(f));
    else assert.fail(`unknown frame ${JSON.stringify(f)}`);
    if (f.event === 'stdout' || f.event === 'stderr') assert.equal(typeof f.data, 'string');
  }
}

/** The answer to an upgrade the server refuses before accepting it. */
function refusedUpgrade(url: string, headers: Record<string, string>): Promise<{ status: number; body: { code: string; message: string } }> {
  const ws = new WebSocket(url, { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { code: string; message: string } }));
    });
    ws.once('error', () => {});
  });
}

/** The error frame and the close that follows it. */
function assertRefused(s: Session, code: string, status: number, message?: RegExp): void {
  assertShapes(s);
  assert.equal(s.frames.length, 1, JSON.stringify(s.frames));
  assert.equal(s.frames[0]!.event, 'error');
  assert.equal(s.frames[0]!.code, code);
  if (message) assert.match(s.frames[0]!.message!, message);
  assert.equal(s.closeCode, 4000 + status);
  assert.equal(s.closeReason, code);
}

test('websocket-url: {command, runCode}, two ws:// URLs of this server that carry no key; another tenant\'s box is 404', async () => {
  const raw = await srv.raw('a', 'GET', `/boxes/${box.id}/websocket-url`);
  assert.equal(raw.status, 200);
  assert.match(raw.contentType, /^application\/json/);
  const body = JSON.parse(raw.text) as Record<string, string>;
  const origin = new URL(srv.baseUrl).host;
  assert.deepEqual(body, { command: `ws://${origin}/api/v1/boxes/${box.id}/ws/command`, runCode: `ws://${origin}/api/v1/boxes/${box.id}/ws/run-code` });
  for (const u of Object.values(body)) assert.ok(!u.includes('?') && !u.includes(srv.key('a')), u);
  await rejects(srv.client('b').websocketUrl(box.id), 404, 'BOX_NOT_FOUND');
  assert.deepEqual(await a().websocketUrl(android.id), { command: `ws://${origin}/api/v1/boxes/${android.id}/ws/command`, runCode: `ws://${origin}/api/v1/boxes/${android.id}/ws/run-code` });
  // A plain GET of a websocket URL is told to upgrade.
  const plain = await srv.raw('a', 'GET', `/boxes/${box.id}/ws/command`);
  assert.equal(plain.status, 426);
});

test('a command: stdout and stderr frames as they come, then {event: end, exitCode}, then close 1000', async () => {
  const s = await run(urls.command, { command: { command: 'echo "first $GREETING"; echo oops >&2; sleep 1; printf second; exit 3', envs: { GREETING: 'hi' } } });
  assertShapes(s);
  assert.equal(s.stdout, 'first hi\nsecond');
  assert.equal(s.stderr, 'oops\n');
  assert.deepEqual(s.frames.at(-1), { event: 'end', exitCode: 3 });
  assert.equal(s.closeCode, 1000);
  const first = s.frames.findIndex((f) => f.event === 'stdout');
  assert.ok(s.at.at(-1)! - s.at[first]! > 700, `the first line came ${Math.round(s.at.at(-1)! - s.at[first]!)} ms before the end: streamed, not at the end`);
  // The same request as POST /commands, in its working dir.
  await a().runCommand(box.id, { command: 'mkdir -p sub' });
  const pwd = await run(urls.command, { command: { command: 'pwd', workingDir: 'sub' } });
  assert.equal(pwd.stdout, (await a().runCommand(box.id, { command: 'pwd', workingDir: 'sub' })).stdout);
  assert.deepEqual(pwd.frames.at(-1), { event: 'end', exitCode: 0 });
});

test('run-code streams the same way; a language the box cannot run is an error frame, as POST answers 422', async () => {
  const s = await run(urls.runCode, { runCode: { code: 'import sys, time\nprint("hi", flush=True)\nprint("e", file=sys.stderr, flush=True)\ntime.sleep(0.8)\nprint(sys.argv[1])\nsys.exit(2)', argv: ['arg one'], language: 'python' } });
  assertShapes(s);
  assert.equal(s.stdout, 'hi\narg one\n');
  assert.equal(s.stderr, 'e\n');
  assert.deepEqual(s.frames.at(-1), { event: 'end', exitCode: 2 });
  const bad = await run(urls.runCode, { runCode: { code: 'print(1)', language: 'python', envs: { PATH: '/nowhere' } } });
  assertRefused(bad, 'UNPROCESSABLE', 422, /cannot run python/);
});

test('the limits of POST /commands: exit 124 at the timeout, each stream cut at 1 MiB and said so, loader variables refused', async () => {
  const started = performance.now();
  const slow = await run(urls.command, { command: { command: 'echo started; sleep 30', timeout: '1s' } });
  assert.ok(performance.now() - started < 6000);
  assert.equal(slow.stdout, 'started\n');
  assert.match(slow.stderr, /^\[boxflow: timed out after 1000 ms; the command's processes were killed\]$/);
  assert.deepEqual(slow.frames.at(-1), { event: 'end', exitCode: 124 });
  const command = "head -c 3000000 /dev/zero | tr '\\0' a; head -c 1500005 /dev/zero | tr '\\0' b >&2";
  const huge = await run(urls.command, { command: { command } });
  assert.equal(huge.stdout.length, kCommandOutputMax + '\n[boxflow: output cut at 1048576 bytes; the command wrote 3000000]'.length);
  assert.match(huge.stdout.slice(kCommandOutputMax), /^\n\[boxflow: output cut at 1048576 bytes; the command wrote 3000000\]$/);
  assert.match(huge.stderr.slice(kCommandOutputMax), /^\n\[boxflow: output cut at 1048576 bytes; the command wrote 1500005\]$/);
  const post = await a().runCommand(box.id, { command });
  assert.equal(huge.stdout, post.stdout, 'the same text as POST answers');
  assert.equal(huge.stderr, post.stderr);
  assertRefused(await run(urls.command, { command: { command: 'id', envs: { LD_PRELOAD: '/work/x.so' } } }), 'INVALID_REQUEST', 400, /LD_PRELOAD/);
  assertRefused(await run(urls.command, { command: { command: 'id', timeout: '11m' } }), 'INVALID_DURATION', 400, /timeout/);
});

test('streams do not hold the box\'s queue: the box answers while 4 run; a 5th is 429 as POST would be; a missing workingDir 404', async () => {
  const running = await Promise.all(Array.from({ length: 4 }, () => open(urls.command)));
  const sessions = running.map(collect);
  await Promise.all(running.map((ws) => {
    const started = new Promise((resolve) => ws.once('message', resolve));
    ws.send(JSON.stringify({ command: { command: 'echo started; exec sleep 60' } }));
    return started;
  }));
  const t0 = performance.now();
  assert.equal((await a().getDisplay(box.id)).resolution.width, 1280);
  assert.ok(performance.now() - t0 < 3000, 'the box answered while its streams ran');
  assertRefused(await run(urls.command, { command: { command: 'echo fifth' } }), 'RATE_LIMITED', 429, /already runs 4 commands/);
  for (const ws of running) ws.close();
  for (const s of await Promise.all(sessions)) assert.equal(s.stdout, 'started\n');
  // Their commands are killed and their places free again (once their processes are gone).
  await waitFor(() => a().runCommand(box.id, { command: 'echo free' }), { what: "the closed streams' commands to end and free their places", timeoutMs: 5_000, intervalMs: 50 });
  assertRefused(await run(urls.command, { command: { command: 'pwd', workingDir: 'nowhere' } }), 'FILE_NOT_FOUND', 404, /nowhere/);
});

test('refused before the upgrade: no key, a malformed or foreign key, a key in the URL, another tenant\'s box, a box that is not there', async () => {
  const none = await refusedUpgrade(urls.command, {});
  assert.equal(none.status, 401);
  assert.equal(none.body.code, 'UNAUTHORIZED');
  assert.equal((await refusedUpgrade(urls.command, { authorization: 'Bearer nonsense' })).status, 401);
  const foreign = await createApiKey('another-servers-secret', 'gbox-ws-a');
  assert.equal((await refusedUpgrade(urls.command, { authorization: `Bearer ${foreign}` })).status, 401);
  assert.equal((await refusedUpgrade(`${urls.command}?apiKey=${srv.key('a')}&token=${srv.key('a')}`, {})).status, 401, 'a key in the URL is not read');
  const other = await refusedUpgrade(urls.runCode, { authorization: `Bearer ${srv.key('b')}` });
  assert.deepEqual([other.status, other.body.code], [404, 'BOX_NOT_FOUND']);
  const missing = await refusedUpgrade(urls.command.replace(box.id, 'no-such-box'), { authorization: `Bearer ${srv.key('a')}` });
  assert.deepEqual([missing.status, missing.body.code], [404, 'BOX_NOT_FOUND']);
  assert.equal((await refusedUpgrade(urls.command.replace('/ws/command', '/ws/shell'), { authorization: `Bearer ${srv.key('a')}` })).status, 404);
});

test('a first frame that is not the request: one error frame saying why, then a close with 4000 + its status', async () => {
  assertRefused(await run(urls.command, 'ls -la'), 'INVALID_REQUEST', 400, /not JSON/);
  assertRefused(await run(urls.command, Buffer.from('{"command":{"command":"id"}}')), 'INVALID_REQUEST', 400, /JSON text frame/);
  assertRefused(await run(urls.command, [1, 2]), 'INVALID_REQUEST', 400, /JSON object/);
  assertRefused(await run(urls.command, { runCode: { code: 'id' } }), 'INVALID_REQUEST', 400, /command websocket.*runCode URL/);
  assertRefused(await run(urls.runCode, { command: { command: 'id' } }), 'INVALID_REQUEST', 400, /runCode websocket/);
  assertRefused(await run(urls.command, { command: 'id' }), 'INVALID_REQUEST', 400, /\/command must be an object/);
  assertRefused(await run(urls.command, { command: { command: 5 } }), 'INVALID_REQUEST', 400);
  assertRefused(await run(urls.command, { command: { command: 'x'.repeat(2_200_000) } }), 'BODY_TOO_LARGE', 413);
  const enormous = await run(urls.command, 'x'.repeat(5 * 1024 * 1024));
  assert.deepEqual([enormous.frames.length, enormous.closeCode], [0, 1009], 'past 4 MiB the frame is not read at all');
  // Frames after the first are not stdin: they are ignored.
  const ws = await open(urls.command);
  const done = collect(ws);
  ws.send(JSON.stringify({ command: { command: 'sleep 0.3; echo done' } }));
  ws.send('garbage');
  ws.send(JSON.stringify({ command: { command: 'echo twice' } }));
  const s = await done;
  assert.equal(s.stdout, 'done\n');
  assert.deepEqual(s.frames.at(-1), { event: 'end', exitCode: 0 });
});

test(`a client that never sends its request is closed after ${kFirstFrameMs / 1000} s; a box takes ${kMaxSocketsPerBox} sockets at once`, async () => {
  const idleBox = await a().createLinuxBox();
  const { command } = await a().websocketUrl(idleBox.id);
  const started = performance.now();
  const idle = await Promise.all(Array.from({ length: kMaxSocketsPerBox }, () => open(command)));
  const sessions = idle.map(collect);
  const ninth = await refusedUpgrade(command, { authorization: `Bearer ${srv.key('a')}` });
  assert.deepEqual([ninth.status, ninth.body.code], [429, 'RATE_LIMITED']);
  for (const s of await Promise.all(sessions)) assertRefused(s, 'INVALID_REQUEST', 400, /no request frame came within 10 s/);
  const took = performance.now() - started;
  assert.ok(took > kFirstFrameMs - 500 && took < kFirstFrameMs + 4000, `closed after ${Math.round(took)} ms`);
  // Their places are free again.
  assert.deepEqual((await run(command, { command: { command: 'echo again' } })).stdout, 'again\n');
});

/**
 * A process of `uid` that sleeps in the kernel writing to a full pipe: its wait channel is the pipe's
 * or, for the socketpair libuv gives a child as its stdout, the socket's send-buffer wait.
 */
function pipeBlocked(uid: number): boolean {
  return liveProcesses().some((p) => p.uid === uid && /pipe_write|sock_alloc_send/.test(p.wchan));
}

test('a client that reads nothing: the command waits on its pipe (the server reads no more), and gets all of it once read', async () => {
  const uid = Number((await a().runCommand(box.id, { command: 'id -u' })).stdout.trim());
  // 2 × 1,000,000 bytes of \x01: each becomes "\u0001" in a frame, some 12 MB on the wire.
  const command = "i=0; while [ $i -lt 250 ]; do head -c 4000 /dev/zero | tr '\\0' '\\001'; head -c 4000 /dev/zero | tr '\\0' '\\001' >&2; i=$((i+1)); echo $i > progress; done";
  const ws = await open(urls.command);
  ws.send(JSON.stringify({ command: { command, timeout: '2m' } }));
  ws.pause();
  const read = async () => Number((await a().runCommand(box.id, { command: 'cat progress 2>/dev/null || echo 0' })).stdout.trim());
  // The event: a writer of the command sleeps in the kernel's pipe write, its pipe full, because the
  // server reads no more of it.
  await waitFor(() => pipeBlocked(uid), { what: "the command to wait on its full pipe", timeoutMs: 60_000, intervalMs: 50 });
  const last = await read();
  assert.ok(last < 250, `the command wrote on while its client read nothing (${last} of 250 rounds)`);
  const done = collect(ws);
  ws.resume();
  const s = await done;
  assert.equal(s.stdout, '\x01'.repeat(1_000_000));
  assert.equal(s.stderr, '\x01'.repeat(1_000_000));
  assert.deepEqual(s.frames.at(-1), { event: 'end', exitCode: 0 });
  assert.equal(await read(), 250);
});

test('a client that goes away kills its command', async () => {
  const ws = await open(urls.command);
  ws.send(JSON.stringify({ command: { command: 'exec sleep 600286' } }));
  const n = await hostPid('sleep', '600286');
  assert.ok(existsSync(`/proc/${n}`));
  ws.close();
  await waitFor(() => !existsSync(`/proc/${n}`), { what: 'the command to be killed', timeoutMs: 5_000, intervalMs: 50 });
});

test('terminating the box ends the stream: an error frame BOX_NOT_RUNNING, the command killed; a waiting socket closes too', async () => {
  const doomed = await a().createLinuxBox();
  const { command } = await a().websocketUrl(doomed.id);
  const ws = await open(command);
  const waiting = collect(await open(command));
  const done = collect(ws);
  ws.send(JSON.stringify({ command: { command: 'echo started; exec sleep 600297', timeout: '5m' } }));
  const n = await hostPid('sleep', '600297');
  const started = performance.now();
  await a().terminateBox(doomed.id);
  const s = await done;
  assert.ok(performance.now() - started < 5000);
  assert.deepEqual(s.frames.slice(1).map((f) => [f.event, f.code]), [['error', 'BOX_NOT_RUNNING']]);
  assert.deepEqual([s.closeCode, s.closeReason], [4409, 'BOX_NOT_RUNNING']);
  // Killed by the time the box is gone; its /proc entry goes once the namespace's teardown has reaped it.
  await waitFor(() => !existsSync(`/proc/${n}`), { what: 'the command to be killed and reaped', timeoutMs: 5000 });
  assertRefused(await waiting, 'BOX_NOT_RUNNING', 409);
  const after = await refusedUpgrade(command, { authorization: `Bearer ${srv.key('a')}` });
  assert.deepEqual([after.status, after.body.code], [409, 'BOX_NOT_RUNNING']);
});

test('Android: one `adb shell` line, its output streamed as the device sends it (one stream, as stdout), the exit code after it', async () => {
  const { command, runCode } = await a().websocketUrl(android.id);
  dev.on(/^slow-print$/, () => ({
    stream: (async function* () {
      yield 'one\n';
      await sleep(800);
      yield 'two\n';
    })(),
  }));
  const mark = dev.shellCommands.length;
  const s = await run(command, { command: { command: 'slow-print; exit 7', envs: { NAME: "it's $(reboot)" } } });
  assertShapes(s);
  assert.equal(s.stdout, 'one\ntwo\n');
  assert.equal(s.stderr, '');
  assert.deepEqual(s.frames.at(-1), { event: 'end', exitCode: 7 });
  assert.ok(s.at.at(-1)! - s.at[0]! > 500, 'the first line came before the rest: streamed');
  // A device without shell_v2: stderr goes to a file in the box's dir (androidCommands.ts), removed after.
  const dir = `/data/local/tmp/boxflow/${android.id}`;
  const file = /2>'([^']+)'/.exec(dev.shellCommands[mark] ?? '')?.[1] ?? 'none';
  assert.deepEqual(dev.shellCommands.slice(mark), [`sh -c 'cd '\\''${dir}'\\'' || exit 1; export NAME='\\''it'\\''\\'\\'''\\''s $(reboot)'\\''; slow-print; exit 7' 2>'${file}'; echo boxflow-exit:$?`, `rm -f '${file}'`]);
  const code = await run(runCode, { runCode: { code: 'echo hi' } });
  assert.equal(code.stdout, 'hi\n');
  assert.deepEqual(code.frames.at(-1), { event: 'end', exitCode: 0 });
  assertRefused(await run(runCode, { runCode: { code: 'print(1)', language: 'python' } }), 'UNPROCESSABLE', 422, /cannot run python/);
  // The tenant's command, env values and working dir stay inside the quotes: the only bare characters
  // are the stderr redirection's `>` and the marker's `$?` (the file's rm has none).
  for (const line of dev.shellCommands.slice(mark)) assert.deepEqual(splitShellLine(line).unquoted, line.startsWith('sh -c ') ? ['>', '$', '?'] : [], line);
});

test('Android: 124 at the timeout with what came before it; the box terminated under a running command ends its stream', async () => {
  const hang = () => ({
    stream: (async function* () {
      yield 'partial\n';
      await new Promise(() => {});
    })(),
  });
  dev.on(/^hang$/, hang);
  const slow = await run((await a().websocketUrl(android.id)).command, { command: { command: 'hang', timeout: '1s' } });
  assert.equal(slow.stdout, 'partial\n');
  assert.match(slow.stderr, /^\[boxflow: timed out after 1000 ms; the command's shell stream to the device was closed\]$/);
  assert.deepEqual(slow.frames.at(-1), { event: 'end', exitCode: 124 });
  // POST /commands answers the same.
  assert.deepEqual(await a().runCommand(android.id, { command: 'hang', timeout: '1s' }), { exitCode: 124, stdout: 'partial\n', stderr: slow.stderr });

  srv.fake.device(kSerialGone).on(/^hang$/, hang);
  const doomed = await a().createAndroidBox({ config: { deviceSerial: kSerialGone } });
  const ws = await open((await a().websocketUrl(doomed.id)).command);
  const done = collect(ws);
  const first = new Promise((resolve) => ws.once('message', resolve));
  ws.send(JSON.stringify({ command: { command: 'hang', timeout: '5m' } }));
  await first;
  const started = performance.now();
  await a().terminateBox(doomed.id);
  const s = await done;
  assert.ok(performance.now() - started < 5000);
  assert.deepEqual(s.frames.map((f) => [f.event, f.code]), [['stdout', undefined], ['error', 'BOX_NOT_RUNNING']]);
  assert.equal(s.closeCode, 4409);
});
