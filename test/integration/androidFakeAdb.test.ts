// The fake adb server (test double) against the real adbkit client: the protocol parts the
// Android backend relies on, so a backend test cannot pass on a double that adbkit would reject.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { Adb, type Client } from '../../src/server/devices/android/adbkit.js';
import { FakeAdbServer, fixture, shellWords } from '../support/fakeAdbServer.js';
import { waitFor } from '../support/waitFor.js';

let fake: FakeAdbServer;
let client: Client;

before(async () => {
  fake = await FakeAdbServer.start();
  fake.addDevice('emulator-5554');
  client = Adb.createClient({ host: '127.0.0.1', port: fake.port, bin: '/nonexistent/adb' });
});
after(() => fake.close());

const readAll = async (s: NodeJS.ReadableStream) => Buffer.from(await Adb.util.readAll(s as never));

test('host:version and host:devices(-l) parse in adbkit', async () => {
  assert.equal(await client.version(), 41);
  assert.deepEqual(await client.listDevices(), [{ id: 'emulator-5554', type: 'device' }]);
  const long = await client.listDevicesWithPaths();
  assert.equal(long[0]!.id, 'emulator-5554');
  assert.deepEqual(fake.hostRequests.slice(0, 3), ['host:version', 'host:devices', 'host:devices-l']);
});

test('track-devices reports added, offline and removed devices', async () => {
  const tracker = await client.trackDevices();
  const seen: string[] = [];
  tracker.on('add', (d: { id: string; type: string }) => seen.push(`add ${d.id} ${d.type}`));
  tracker.on('change', (d: { id: string; type: string }) => seen.push(`change ${d.id} ${d.type}`));
  tracker.on('remove', (d: { id: string }) => seen.push(`remove ${d.id}`));
  const until = (n: number) => waitFor(() => seen.length >= n, { what: `${n} device events`, intervalMs: 5 });
  // adbkit emits the initial list before trackDevices() resolves, so only later changes are seen here.
  fake.addDevice('R58M123');
  await until(1);
  fake.setState('R58M123', 'offline');
  await until(2);
  fake.removeDevice('R58M123');
  await until(3);
  tracker.end();
  assert.deepEqual(seen, ['add R58M123 device', 'change R58M123 offline', 'remove R58M123']);
});

test('shell replays fixtures and records the exact command line; unknown commands FAIL by name', async () => {
  const dev = client.getDevice('emulator-5554');
  const out = await readAll(await dev.shell('uiautomator dump /dev/tty'));
  assert.deepEqual(out, fixture('sharpadb_DumpScreen.txt'));
  await assert.rejects(dev.shell('reboot now please'), /unknown shell command: reboot now please/);
  assert.deepEqual(fake.device('emulator-5554').shellCommands.slice(-2), ['uiautomator dump /dev/tty', 'reboot now please']);
});

test('exec: is binary-safe (screencap -p bytes arrive unchanged)', async () => {
  const dev = client.getDevice('emulator-5554');
  const png = await readAll(await dev.openLocal('exec:screencap -p'));
  assert.deepEqual(png, fake.device('emulator-5554').screen);
});

test('sync: SEND, STAT, LIST and RECV round-trip; a missing path is ENOENT', async () => {
  const dev = client.getDevice('emulator-5554');
  const data = Buffer.from('hello \u00ff\u0000 world');
  const transfer = await dev.push(Readable.from([data]), '/sdcard/DCIM/Camera/a.bin');
  await new Promise((r, j) => { transfer.on('end', r); transfer.on('error', j); });
  const st = await dev.stat('/sdcard/DCIM/Camera/a.bin');
  assert.equal(Number(st.size), data.length);
  assert.ok(st.isFile());
  assert.deepEqual((await dev.readdir('/sdcard/DCIM/Camera')).map((e: { name: string }) => e.name), ['a.bin']);
  assert.deepEqual(await readAll(await dev.pull('/sdcard/DCIM/Camera/a.bin')), data);
  await assert.rejects(dev.stat('/sdcard/nope'), /ENOENT/);
});

test('an unknown or offline serial gets the adb server\'s FAIL text', async () => {
  await assert.rejects(client.getDevice('nope').shell('getprop'), /device 'nope' not found/);
  fake.addDevice('off-1');
  fake.setState('off-1', 'offline');
  await assert.rejects(client.getDevice('off-1').shell('getprop'), /device offline/);
});

test('shellWords follows sh quoting', () => {
  assert.deepEqual(shellWords(`'a b' "c\\"d" e\\ f 'it'\\''s'`), ['a b', 'c"d', 'e f', "it's"]);
});
