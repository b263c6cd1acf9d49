// Devices past one machine: `boxflow serve --adb A --adb B` pools the devices of several adb servers
// (a device farm's hosts), against two fake adb servers (TEST DOUBLES speaking the real adb protocol:
// test/support/fakeAdbServer.ts). The same serial on two servers is two devices; a DeviceFarmer/STF
// remote-connect device is an `adb connect`ed HOST:PORT serial on one of them; with every device
// claimed the answer is 409 NO_DEVICE_AVAILABLE, and a server that goes away takes only its own boxes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient, type BoxApiError } from '../../src/api/client.js';
import { adbAddresses } from '../../src/server/devices/android/backend.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { FakeAdbServer } from '../support/fakeAdbServer.js';
import { waitFor } from '../support/waitFor.js';

const kStf = '10.1.2.3:7401'; // how an STF remote-connect device is listed by the adb server that `adb connect`ed it
const dir = mkdtempSync(join(tmpdir(), 'boxflow-farm-'));
let a: FakeAdbServer;
let b: FakeAdbServer;
let server: Awaited<ReturnType<typeof startServer>>;
let client: BoxClient;

before(async () => {
  a = await FakeAdbServer.start();
  b = await FakeAdbServer.start();
  a.addDevice('emulator-5554');
  b.addDevice('emulator-5554');
  b.addDevice(kStf, (d) => void (d.props = { ...d.props, 'ro.product.model': 'SM-G991B', 'ro.product.manufacturer': 'samsung' }));
  const secret = randomBytes(16).toString('hex');
  server = await startServer({ port: 0, dataDir: join(dir, 'srv'), secret, log: () => {}, adb: [a.socketSpec, b.socketSpec] });
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'farm'), maxRetries: 0 });
});
after(async () => {
  await client.close();
  await server.close();
  await a.close().catch(() => {});
  await b.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

async function failure(work: Promise<unknown>): Promise<BoxApiError> {
  try {
    await work;
  } catch (err) {
    return err as BoxApiError;
  }
  assert.fail('expected the request to fail');
}

/** Which fake server prepared the box (its working dir was made on that server's device). */
function holder(boxId: string): string[] {
  const on = (f: FakeAdbServer, name: string) => [...['emulator-5554', kStf]].flatMap((serial) => {
    try {
      return f.device(serial).shellCommands.some((c) => c.includes(`/data/local/tmp/boxflow/${boxId}`)) ? [`${name}/${serial}`] : [];
    } catch {
      return [];
    }
  });
  return [...on(a, 'a'), ...on(b, 'b')];
}

test('adbAddresses: --adb is repeatable (duplicates dropped); none falls back to ADB_SERVER_SOCKET, then 127.0.0.1:5037', () => {
  assert.deepEqual(adbAddresses(['tcp:farm1:5037', 'tcp:[::1]:5038', 'tcp:farm1:5037'], {}), [{ host: 'farm1', port: 5037 }, { host: '::1', port: 5038 }]);
  assert.deepEqual(adbAddresses([], { ADB_SERVER_SOCKET: 'tcp:farm.local:5555' }), [{ host: 'farm.local', port: 5555 }]);
  assert.deepEqual(adbAddresses(undefined, {}), [{ host: '127.0.0.1', port: 5037 }]);
  assert.throws(() => adbAddresses(['tcp:ok:1', 'farm:5037'], {}), /--adb: "farm:5037" is not tcp:HOST:PORT/);
});

test('the devices of two adb servers are one pool, spread over the servers; the same serial on both is two devices; then 409', async () => {
  const boxes = [];
  for (let i = 0; i < 3; i++) boxes.push(await client.createAndroidBox());
  try {
    const held = boxes.map((box) => holder(box.id));
    for (const h of held) assert.equal(h.length, 1, 'each box is on exactly one device');
    assert.deepEqual(held.flat().sort(), ['a/emulator-5554', 'b/10.1.2.3:7401', 'b/emulator-5554']);
    assert.notEqual(held[0]![0]!.slice(0, 1), held[1]![0]!.slice(0, 1), 'the second box goes to the server holding fewer');
    const stf = boxes.find((box) => box.config.labels['boxflow/serial'] === kStf)!;
    assert.equal(stf.config.labels['boxflow/model'], 'SM-G991B');
    const err = await failure(client.createAndroidBox());
    assert.equal(err.httpStatus, 409);
    assert.equal(err.serverCode, 'NO_DEVICE_AVAILABLE');
    assert.match(err.message, new RegExp(`at adb 127\\.0\\.0\\.1:${a.port}, 127\\.0\\.0\\.1:${b.port}: 3 online, 3 claimed by other boxes`));
    // A terminated box gives its device back to the pool.
    await client.terminateBox(boxes.shift()!.id);
    boxes.push(await client.createAndroidBox());
  } finally {
    for (const box of boxes) await client.terminateBox(box.id);
  }
});

test('a serial filter finds the device on whichever server lists it; one no server lists is named per server', async () => {
  const box = await client.createAndroidBox({ config: { deviceSerial: kStf } });
  try {
    assert.deepEqual(holder(box.id), [`b/${kStf}`]);
    const err = await failure(client.createAndroidBox({ config: { deviceSerial: 'R58M00000' } }));
    assert.equal(err.serverCode, 'NO_DEVICE_AVAILABLE');
    assert.match(err.message, new RegExp(`lists no device R58M00000; it lists 127\\.0\\.0\\.1:${a.port}: emulator-5554; 127\\.0\\.0\\.1:${b.port}: emulator-5554, 10\\.1\\.2\\.3:7401`));
  } finally {
    await client.terminateBox(box.id);
  }
});

test('an adb server that goes away takes only its own boxes; the other server still serves', async () => {
  const onA = await client.createAndroidBox();
  const onB = await client.createAndroidBox();
  assert.match(holder(onA.id)[0]!, /^a\//);
  assert.match(holder(onB.id)[0]!, /^b\//);
  await a.close();
  await waitFor(async () => (await client.getBox(onA.id)).status === 'error', { what: "the box on the gone server to turn error", timeoutMs: 5_000, intervalMs: 50 });
  assert.equal((await client.getBox(onB.id)).status, 'running');
  const next = await client.createAndroidBox();
  assert.deepEqual(holder(next.id), [`b/${kStf}`], 'the answering server serves the next box');
  const full = await failure(client.createAndroidBox());
  assert.equal(full.serverCode, 'NO_DEVICE_AVAILABLE');
  assert.match(full.message, new RegExp(`\\(1 adb server not answering: 127\\.0\\.0\\.1:${a.port}\\)`));
  for (const box of [onA, onB, next]) await client.terminateBox(box.id);
});

test('boxflow serve takes --adb more than once', async () => {
  const secret = randomBytes(16).toString('hex');
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../src/cli/main.ts'), 'serve', '--port', '0', '--data-dir', join(dir, 'cli'), '--adb', b.socketSpec, '--adb', 'tcp:127.0.0.1:1'], {
    env: { ...process.env, BOXFLOW_SERVER_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('\n'), { what: 'serve to print its address', timeoutMs: 30_000, intervalMs: 50 });
    const { baseUrl } = JSON.parse(out.split('\n')[0]!) as { baseUrl: string };
    const cli = new BoxClient({ baseUrl, apiKey: await createApiKey(secret, 'cli'), maxRetries: 0 });
    const box = await cli.createAndroidBox();
    assert.match(box.config.labels['boxflow/serial'] ?? '', /^(emulator-5554|10\.1\.2\.3:7401)$/);
    await cli.terminateBox(box.id);
    await cli.close();
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});
