// Android commands over adb's shell protocol v2 through a REAL adb server (Debian's `adb` binary,
// `adb connect`ed to the fake device daemon of test/support/fakeAdbDevice.ts, a TEST DOUBLE whose
// banner names `shell_v2`): the server answers `host-serial:<serial>:features` from the device's
// banner and forwards `shell,v2,raw:` to it, so this checks boxflow's v2 client against what a real
// adb server does with it. Skipped only when there is no `adb` binary.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { FakeAdbDevice, RealAdbServer, findAdb } from '../support/fakeAdbDevice.js';

const kSecret = 'android-real-adb-v2-secret-0123456789abcdef';
const adbBinary = findAdb();
const skip = adbBinary ? false : "no `adb` binary on PATH: install Debian's adb package (`apt-get install -y adb`)";

let dataDir: string;
let fake: FakeAdbDevice;
let adb: RealAdbServer;
let server: { baseUrl: string; close(): Promise<void> };
let client: BoxClient;

before(async () => {
  if (skip) return;
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-real-adb-v2-'));
  fake = await FakeAdbDevice.start();
  fake.features.push('shell_v2');
  adb = await RealAdbServer.start(adbBinary!);
  await adb.connect(fake.address);
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {}, adb: adb.socketSpec });
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'tenant-real-adb-v2'), maxRetries: 0 });
});

after(async () => {
  await client?.close();
  await server?.close();
  await adb?.close();
  await fake?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('through a real adb server, a device with shell_v2 answers a command with stdout, stderr and the exit code apart', { skip }, async () => {
  const box = await client.createAndroidBox();
  const dev = fake.device;
  dev.writeFile('/sdcard/here.txt', 'x');
  const from = dev.services.length;
  const r = await client.runCommand(box.id, { command: 'ls /sdcard/here.txt /no/such/dir; exit 2' });
  assert.deepEqual(r, { exitCode: 2, stdout: '/sdcard/here.txt\n', stderr: 'ls: /no/such/dir: No such file or directory\n' });
  const dir = `/data/local/tmp/boxflow/${box.id}`;
  assert.deepEqual(dev.services.slice(from), [`shell,v2,raw:sh -c 'cd '\\''${dir}'\\'' || exit 1; ls /sdcard/here.txt /no/such/dir; exit 2'`]);
  assert.deepEqual(fake.failures, []);
  assert.deepEqual(fake.protocolErrors, []);
  await client.terminateBox(box.id);
});
