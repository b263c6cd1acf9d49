// Android errors say what is wrong in the user's words (issue 22 item 8): no internal path
// (adbkit's refused connection surfaced as `spawn /nonexistent/boxflow-never-starts-adb ENOENT`),
// and when the adb client is not installed (or BOXFLOW_ADB names a missing file), they say so. The
// web terminal's box is on the fake adb server (a TEST DOUBLE speaking the real adb protocol).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { BoxClient } from '../../src/api/client.js';
import { AdbBackend } from '../../src/server/devices/android/backend.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { FakeAdbServer } from '../support/fakeAdbServer.js';

const kMissing = 'the adb client is not installed (apt-get install adb) or BOXFLOW_ADB names a missing file';
const savedAdb = process.env.BOXFLOW_ADB;
after(() => {
  if (savedAdb === undefined) delete process.env.BOXFLOW_ADB;
  else process.env.BOXFLOW_ADB = savedAdb;
});

async function noServerMessage(): Promise<string> {
  const dead = new AdbBackend({ address: { host: '127.0.0.1', port: 1 } });
  try {
    const err = await dead.claim('x', {}, () => {}).then(
      () => assert.fail('claimed a device with no adb server'),
      (e: Error & { code?: string }) => e,
    );
    assert.equal(err.code, 'ANDROID_UNAVAILABLE');
    return err.message;
  } finally {
    dead.close();
  }
}

test('no adb server: the message names the refused connection, not a path inside boxflow', async () => {
  process.env.BOXFLOW_ADB = process.execPath; // an adb client is there
  const message = await noServerMessage();
  assert.match(message, /^no adb server answers at 127\.0\.0\.1:1 \(connect ECONNREFUSED\)\. Start one with `adb start-server`/);
  assert.doesNotMatch(message, /spawn|nonexistent|\//);
  assert.ok(!message.includes(kMissing), message);
});

test('no adb server and no adb client: the message says the client is not installed', async () => {
  process.env.BOXFLOW_ADB = join(tmpdir(), 'boxflow-no-such-adb');
  const message = await noServerMessage();
  assert.ok(message.endsWith(`. Note: ${kMissing}`), message);
  assert.doesNotMatch(message, /spawn|nonexistent|boxflow-no-such-adb/);
});

test('the web terminal of an Android box without an adb client closes saying so', async () => {
  const secret = 'android-adb-client-secret-0123456789abcdef';
  const dataDir = mkdtempSync(join(tmpdir(), 'boxflow-adb-client-'));
  const fake = await FakeAdbServer.start();
  fake.addDevice('emulator-5554');
  const server = await startServer({ port: 0, dataDir, secret, log: () => {}, adb: fake.socketSpec });
  const client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'tenant-a'), maxRetries: 0 });
  try {
    const box = await client.createAndroidBox();
    process.env.BOXFLOW_ADB = join(dataDir, 'no-such-adb');
    const { url } = await client.webTerminalUrl(box.id);
    const ws = new WebSocket(url.replace(/^http/, 'ws'));
    let out = '';
    ws.on('message', (d) => (out += d.toString()));
    const [code, reason] = (await once(ws, 'close')) as [number, Buffer];
    assert.equal(reason.toString(), `adb shell: ${kMissing}`);
    assert.equal(code, 1011);
    assert.equal(out, '', 'no execvp error on the terminal');
    await client.terminateBox(box.id);
  } finally {
    await client.close();
    await server.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
