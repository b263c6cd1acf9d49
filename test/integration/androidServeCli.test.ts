// `boxflow serve --adb tcp:HOST:PORT` as a user starts it (the CLI entry in a child process), with
// the fake adb server (a TEST DOUBLE speaking the real adb protocol: test/support/fakeAdbServer.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { BoxClient } from '../../src/api/client.js';
import { createApiKey } from '../../src/server/index.js';
import { FakeAdbServer } from '../support/fakeAdbServer.js';
import { waitFor } from '../support/waitFor.js';

const kMain = join(import.meta.dirname, '../../src/cli/main.ts');
const kSecret = 'android-cli-secret-0123456789abcdef';
let fake: FakeAdbServer;
let dir: string;

before(async () => {
  fake = await FakeAdbServer.start();
  fake.addDevice('emulator-5554');
  dir = mkdtempSync(join(tmpdir(), 'boxflow-android-cli-'));
});
after(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function serve(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', kMain, 'serve', '--port', '0', '--data-dir', join(dir, 'data'), ...args], {
    env: { ...process.env, BOXFLOW_SERVER_SECRET: kSecret, ADB_SERVER_SOCKET: 'tcp:127.0.0.1:1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

test('--adb overrides ADB_SERVER_SOCKET: POST /boxes/android claims the fake server\'s device', async () => {
  const child = serve(['--adb', fake.socketSpec]);
  try {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('\n'), { what: 'serve to print its address', timeoutMs: 30_000, intervalMs: 50 });
    const { baseUrl } = JSON.parse(out.split('\n')[0]!) as { baseUrl: string };
    const client = new BoxClient({ baseUrl, apiKey: await createApiKey(kSecret, 'cli'), maxRetries: 0 });
    const box = await client.createAndroidBox();
    assert.equal(box.config.labels['boxflow/serial'], 'emulator-5554');
    assert.ok(fake.hostRequests.includes('host:track-devices'));
    await client.terminateBox(box.id);
    await client.close();
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});

test('a malformed --adb is bad input: exit 2 naming the expected form', async () => {
  const child = serve(['--adb', 'localhost:5037']);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  assert.equal(code, 2);
  assert.match(err, /--adb: "localhost:5037" is not tcp:HOST:PORT/);
});
