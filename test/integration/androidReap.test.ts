// A `boxflow serve` killed with SIGKILL while an Android box uploads an APK leaves the partial upload
// on the server and the box's working dir on the device; the next server's reaping removes both
// (the device dir through adb, a TEST DOUBLE here: test/support/fakeAdbServer.ts). An adb server
// that does not answer does not stop the reaping.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { createApiKey } from '../../src/server/index.js';
import { reapDataDir } from '../../src/server/boxes/reaper.js';
import { selfIdentity } from '../../src/server/host/processes.js';
import { FakeAdbServer } from '../support/fakeAdbServer.js';
import { waitFor } from '../support/waitFor.js';

const kMain = join(import.meta.dirname, '../../src/cli/main.ts');
const kSecret = 'android-reap-secret-0123456789abcdef';
let fake: FakeAdbServer;
let dir: string;

before(async () => {
  fake = await FakeAdbServer.start();
  fake.addDevice('emulator-5554');
  dir = mkdtempSync(join(tmpdir(), 'boxflow-android-reap-test-'));
});
after(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `boxflow serve` in a child process with its own TMPDIR (so no other server on this machine reaps what it leaves). */
async function serve(tmp: string): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', kMain, 'serve', '--port', '0', '--data-dir', join(dir, 'data'), '--adb', fake.socketSpec], {
    env: { ...process.env, BOXFLOW_SERVER_SECRET: kSecret, TMPDIR: tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.includes('\n'), { what: 'serve to print its address', timeoutMs: 30_000, intervalMs: 50 });
  return { child, baseUrl: (JSON.parse(out.split('\n')[0]!) as { baseUrl: string }).baseUrl };
}

/** Every file named `upload` under `root`. */
function uploads(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name === 'upload')
    .map((e) => join(e.parentPath, e.name));
}

test('after a SIGKILL mid-upload, the next server removes the partial upload and, through adb, the box\'s device dir', async () => {
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const dev = fake.device('emulator-5554');
  const first = await serve(tmp);
  let socket: Socket | undefined;
  let second: ChildProcess | undefined;
  try {
    const client = new BoxClient({ baseUrl: first.baseUrl, apiKey: await createApiKey(kSecret, 'reap'), maxRetries: 0 });
    const box = await client.createAndroidBox();
    await client.close();
    const deviceDir = `/data/local/tmp/boxflow/${box.id}`;
    assert.ok(dev.files.has(deviceDir));

    // An install upload that never ends: 2 MiB of a declared 64 MiB.
    const url = new URL(first.baseUrl);
    socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => {});
    await once(socket, 'connect');
    const head = `--X\r\nContent-Disposition: form-data; name="apk"; filename="big.apk"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    socket.write(
      `POST ${url.pathname}/boxes/${box.id}/android/packages HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${await createApiKey(kSecret, 'reap')}\r\n` +
        `content-type: multipart/form-data; boundary=X\r\ncontent-length: ${64 * 2 ** 20}\r\n\r\n${head}`,
    );
    socket.write(Buffer.alloc(2 * 2 ** 20, 7));
    await waitFor(() => uploads(tmp).some((f) => statSync(f).size > 0), { what: 'the upload is spooled on the server', timeoutMs: 15_000, intervalMs: 50 });

    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    socket.destroy();
    const left = uploads(tmp);
    assert.equal(left.length, 1, 'the killed server left its partial upload');
    assert.ok(dev.files.has(deviceDir), 'and the box\'s working dir on the device');

    const mark = dev.shellCommands.length;
    second = (await serve(tmp)).child;
    await waitFor(() => uploads(tmp).length === 0 && !dev.files.has(deviceDir), { what: 'the next server removed the upload and the device dir', timeoutMs: 15_000, intervalMs: 50 });
    assert.ok(dev.shellCommands.slice(mark).includes(`rm -rf '${deviceDir}'`), JSON.stringify(dev.shellCommands.slice(mark)));
    assert.deepEqual(readdirSync(tmp).filter((n) => n.startsWith('boxflow-android-') || n.startsWith('boxflow-install-')), [], 'nothing of the box is left in TMPDIR');
    assert.deepEqual(dev.unquotedLines, []);
  } finally {
    socket?.destroy();
    if (first.child.exitCode === null) first.child.kill('SIGKILL');
    if (second) {
      second.kill('SIGTERM');
      await once(second, 'exit');
    }
  }
});

test('reaping goes on when a dead box\'s adb server does not answer, and leaves a live server\'s box alone', async () => {
  const tmp = join(dir, 'tmp2');
  mkdirSync(tmp);
  const dev = fake.device('emulator-5554');
  dev.mkdirs('/data/local/tmp/boxflow/dead-reachable');
  // A server process that has exited: its pid names no live process with that start time.
  const gone = spawn(process.execPath, ['-e', '']);
  await once(gone, 'exit');
  const dead = { pid: gone.pid!, start: '1' };
  const scratch = (name: string, ledger: object) => {
    const d = join(tmp, `boxflow-android-${name}`);
    mkdirSync(join(d, 'install-abc'), { recursive: true });
    writeFileSync(join(d, 'install-abc', 'upload'), Buffer.alloc(1024));
    writeFileSync(join(d, 'ledger.json'), JSON.stringify(ledger));
    return d;
  };
  const unreachable = scratch('unreachable', { boxId: 'dead-unreachable', owner: dead, adb: { host: '127.0.0.1', port: 1 }, serial: 'emulator-5554', deviceDir: '/data/local/tmp/boxflow/dead-unreachable' });
  const reachable = scratch('reachable', { boxId: 'dead-reachable', owner: dead, adb: { host: '127.0.0.1', port: fake.port }, serial: 'emulator-5554', deviceDir: '/data/local/tmp/boxflow/dead-reachable' });
  const live = scratch('live', { boxId: 'live', owner: selfIdentity(), adb: { host: '127.0.0.1', port: fake.port }, serial: 'emulator-5554', deviceDir: '/data/local/tmp/boxflow/live' });
  // A ledger naming a directory outside the boxes' working dirs is never acted on, on the device.
  const hostile = scratch('hostile', { boxId: 'x', owner: dead, adb: { host: '127.0.0.1', port: fake.port }, serial: 'emulator-5554', deviceDir: '/sdcard' });
  const mark = dev.shellCommands.length;
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  const started = performance.now();
  try {
    const dataDir = join(dir, 'data2');
    mkdirSync(dataDir);
    assert.equal(await reapDataDir(dataDir), 0);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  assert.ok(performance.now() - started < 10_000);
  assert.ok(!existsSync(unreachable), 'removed although its adb server did not answer');
  assert.ok(!existsSync(reachable));
  assert.ok(!existsSync(hostile));
  assert.ok(existsSync(join(live, 'install-abc', 'upload')), 'a live server\'s box is left alone');
  assert.deepEqual(dev.shellCommands.slice(mark), ["rm -rf '/data/local/tmp/boxflow/dead-reachable'"]);
  assert.ok(!dev.files.has('/data/local/tmp/boxflow/dead-reachable'));
  assert.ok(dev.files.has('/sdcard'));
});
