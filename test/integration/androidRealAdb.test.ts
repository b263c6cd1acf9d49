// Android boxes of `boxflow serve` through a REAL adb server: Debian's `adb` binary runs as a server
// on a free port (`adb -P PORT nodaemon server`), `adb connect`s to a fake device daemon on TCP
// (a TEST DOUBLE speaking the device side of the adb transport protocol: test/support/fakeAdbDevice.ts)
// that replays the captures of test/fixtures/android. So the whole path runs: BoxClient → HTTP →
// boxflow serve → adbkit → real adb server → CNXN/OPEN/OKAY/WRTE/CLSE → device. Each test asserts
// the exact device command lines the device received. The faster host-protocol fake
// (fakeAdbServer.ts) stays for the other Android tests; this file is skipped only when there is no
// `adb` binary (npm run setup installs Debian's adb as root).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import yazl from 'yazl';
import { WebSocket } from 'ws';
import { BoxClient } from '../../src/api/client.js';
import type { Box } from '../../src/api/schemas.js';
import { Adb } from '../../src/server/devices/android/adbkit.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { FakeAdbDevice, RealAdbServer, findAdb } from '../support/fakeAdbDevice.js';
import { fixture, packagesFromFixture, type FakeDevice } from '../support/fakeDevice.js';
import { waitFor } from '../support/waitFor.js';

const kSecret = 'android-real-adb-secret-0123456789abcdef';
const kSplitDir = join(import.meta.dirname, '../fixtures/android/split-apk');
const adbBinary = findAdb();
const skip = adbBinary ? false : "no `adb` binary on PATH: install Debian's adb package (`apt-get install -y adb`; `npm run setup` does it when root)";

let dataDir: string;
let fake: FakeAdbDevice;
let adb: RealAdbServer;
let server: { baseUrl: string; close(): Promise<void> };
let client: BoxClient;
let dev: FakeDevice;
let box: Box;
const started = performance.now();

before(async () => {
  if (skip) return;
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-real-adb-'));
  fake = await FakeAdbDevice.start((d) => {
    d.packages = packagesFromFixture();
  });
  dev = fake.device;
  adb = await RealAdbServer.start(adbBinary!);
  await adb.connect(fake.address);
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {}, adb: adb.socketSpec });
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'tenant-real-adb'), maxRetries: 0 });
});

after(async () => {
  await client?.close();
  await server?.close();
  await adb?.close();
  await fake?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The shell command lines the device got since `mark`. */
const since = (mark: number) => dev.shellCommands.slice(mark);
const readAll = async (s: NodeJS.ReadableStream) => Buffer.from(await Adb.util.readAll(s as never));

test('adb connect: the real adb server completes the CNXN exchange and lists the device with the banner\'s product, model and device', { skip }, async () => {
  assert.match(fake.hostBanners[0]!, /^host::features=/);
  const long = await adb.run(['devices', '-l']);
  assert.match(long, new RegExp(`^${fake.address.replaceAll('.', '\\.')}\\s+device product:oriole model:Pixel_6 device:oriole transport_id:\\d+$`, 'm'));
  assert.deepEqual(fake.protocolErrors, []);
});

test('adbkit through the real adb server: shell replays a fixture, exec is binary-safe over many WRTEs, sync SEND/STAT/LIST/RECV, an unknown command is recorded', { skip }, async () => {
  const c = Adb.createClient({ host: '127.0.0.1', port: adb.port, bin: '/nonexistent/boxflow-never-starts-adb' });
  const d = c.getDevice(fake.address);
  // real: sharpadb_DumpScreen.txt, byte for byte
  assert.deepEqual(await readAll(await d.shell('uiautomator dump /dev/tty')), fixture('sharpadb_DumpScreen.txt'));
  // 1 MiB more than one WRTE holds: sent in maxdata pieces, each after the host's OKAY.
  const saved = dev.screen;
  dev.screen = Buffer.concat([saved, Buffer.from(Array.from({ length: 1 << 20 }, (_, i) => (i * 7) & 0xff))]);
  try {
    assert.deepEqual(await readAll(await d.openLocal('exec:screencap -p')), dev.screen);
  } finally {
    dev.screen = saved;
  }
  const data = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 13) & 0xff));
  const transfer = await d.push(Readable.from([data]), '/sdcard/Download/a.bin');
  await new Promise((r, j) => {
    transfer.on('end', r);
    transfer.on('error', j);
  });
  const st = await d.stat('/sdcard/Download/a.bin');
  assert.equal(Number(st.size), data.length);
  assert.deepEqual((await d.readdir('/sdcard/Download')).map((e: { name: string }) => e.name), ['a.bin']);
  assert.deepEqual(await readAll(await d.pull('/sdcard/Download/a.bin')), data);
  await assert.rejects(d.stat('/sdcard/nope'), /ENOENT/);
  assert.deepEqual(dev.syncRequests, ['SEND /sdcard/Download/a.bin,33188', 'STAT /sdcard/Download/a.bin', 'LIST /sdcard/Download', 'RECV /sdcard/Download/a.bin', 'STAT /sdcard/nope']);
  // A command line the fake does not know: the device's error text comes back, and it is recorded.
  assert.match((await readAll(await d.shell('reboot now'))).toString(), /unknown shell command: reboot now/);
  assert.deepEqual(fake.failures.splice(0), ['shell:reboot now: fake adb server: unknown shell command: reboot now']);
  assert.deepEqual(dev.services.splice(0), ['shell:uiautomator dump /dev/tty', 'exec:screencap -p', 'sync:', 'sync:', 'sync:', 'sync:', 'sync:', 'shell:reboot now']);
  dev.syncRequests.splice(0);
  assert.ok(fake.messages.some((m) => /^WRTE \d+ \d+ 262144$/.test(m)), 'the host sent full 256 KiB WRTEs (the push)');
});

test('POST /boxes/android claims the connected device: getprop, then the working dir', { skip }, async () => {
  box = await client.createAndroidBox({ config: { deviceSerial: fake.address } });
  assert.equal(box.type, 'android');
  assert.equal(box.status, 'running');
  assert.equal(box.config.labels['boxflow/serial'], fake.address);
  assert.equal(box.config.labels['boxflow/model'], 'Pixel 6');
  assert.equal(box.config.os.version, '13'); // constructed getprop
  assert.equal(box.config.deviceType, 'physical');
  assert.deepEqual(dev.shellCommands, ['getprop', `mkdir -p '/data/local/tmp/boxflow/${box.id}'`]);
});

test('screenshot: the screencap -p bytes arrive unchanged', { skip }, async () => {
  const m = dev.services.length;
  const shot = await client.screenshot(box.id);
  assert.deepEqual(Buffer.from(shot.uri.split(',')[1]!, 'base64'), dev.screen);
  assert.deepEqual(dev.services.slice(m), ['exec:screencap -p']);
});

test('screen-layout: the /dev/tty dump as clean XML; without a tty, the dump file comes back over sync', { skip }, async () => {
  let m = dev.shellCommands.length;
  // real: sharpadb_DumpScreen.txt (BOM and the glued trailer removed)
  const { content } = await client.screenLayout(box.id);
  assert.ok(content.startsWith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy keyboard=\"hidden\" rotation=\"0\">"));
  assert.ok(content.endsWith('</hierarchy>'));
  // The keyboard state is read alongside the dump, in no fixed order.
  assert.deepEqual(since(m).sort(), ['dumpsys input_method', 'uiautomator dump /dev/tty']);

  // constructed: the error of a shell with no terminal; the file holds a real dump (homee_…)
  dev.on(/^uiautomator dump \/dev\/tty$/, () => 'ERROR: could not open /dev/tty: No such device or address\n');
  try {
    m = dev.shellCommands.length;
    const s = dev.syncRequests.length;
    const file = `/data/local/tmp/boxflow/${box.id}/window_dump.xml`;
    const fallback = await client.screenLayout(box.id);
    assert.ok(fallback.content.includes('Log In'));
    const cmds = since(m);
    assert.deepEqual(cmds.filter((c) => c !== 'dumpsys input_method'), ['uiautomator dump /dev/tty', `uiautomator dump '${file}'`, `rm -f '${file}'`]);
    assert.equal(cmds.length, 4);
    assert.deepEqual(dev.syncRequests.slice(s), [`STAT ${file}`, `RECV ${file}`]);
  } finally {
    dev.overrides.shift();
  }
});

test('type, press-key, drag and tap: the exact input command lines', { skip }, async () => {
  dev.field = '';
  const m = dev.shellCommands.length;
  await client.type(box.id, { text: "it's 5 o'clock", pressEnter: true });
  await client.type(box.id, { text: 'new', mode: 'replace' });
  await client.pressKey(box.id, { keys: ['tab', 'enter', 'backspace'] });
  await client.pressKey(box.id, { keys: ['control', 'a'], combination: true });
  await client.drag(box.id, { start: { x: 100, y: 200 }, end: { x: 300, y: 400 }, duration: '300ms' });
  await client.drag(box.id, { path: [{ x: 10, y: 10 }, { x: 20, y: 30 }, { x: 40, y: 50 }], duration: '10ms' });
  const tap = await client.drag(box.id, { start: { x: 50, y: 60 }, end: { x: 50, y: 60 }, duration: '50ms' });
  assert.match(tap.message, /tapped \(50, 60\)/);
  assert.deepEqual(since(m), [
    "input text 'it'\\''s%s5%so'\\''clock'; input keyevent 66",
    "input keycombination 113 29; input keyevent 67; input text 'new'",
    'input keyevent 61 66 67',
    'input keycombination 113 29',
    'input swipe 100 200 300 400 300',
    'input motionevent DOWN 10 10',
    'input motionevent MOVE 20 30',
    'input motionevent MOVE 40 50',
    'input motionevent UP 40 50',
    'input tap 50 60',
  ]);
  assert.equal(dev.field, 'ne'); // backspace took the w; control+a then selected it all
});

test('install: the fixture APK streams to `cmd package install -S` as WRTEs; a ZIP of its splits is one session', { skip }, async () => {
  const apk = readFileSync(join(kSplitDir, 'base.apk'));
  let m = dev.services.length;
  const r = await client.installPackage(box.id, { apk: join(kSplitDir, 'base.apk') });
  assert.equal(r.packageName, 'io.selendroid.testapp');
  assert.deepEqual(dev.services.slice(m), [`exec:cmd package install -S ${apk.length}`, "shell:pm path 'io.selendroid.testapp'"]);
  assert.deepEqual(dev.installs.at(-1), { kind: 'single', names: ['base.apk'], bytes: [apk.length] });

  const zipPath = join(dataDir, 'splits.zip');
  const zip = new yazl.ZipFile();
  const names = ['base.apk', 'split_config.arm64_v8a.apk', 'split_config.xxhdpi.apk'];
  for (const n of names) zip.addFile(join(kSplitDir, n), n);
  zip.end();
  await once(zip.outputStream.pipe(createWriteStream(zipPath)), 'close');
  const sizes = names.map((n) => readFileSync(join(kSplitDir, n)).length);
  m = dev.services.length;
  assert.equal((await client.installPackage(box.id, { apk: zipPath })).packageName, 'io.selendroid.testapp');
  const session = [...dev.sessions.keys()].at(-1)!;
  assert.deepEqual(dev.services.slice(m), [
    `exec:cmd package install-create -S ${sizes.reduce((a, b) => a + b, 0)}`,
    ...names.map((n, i) => `exec:cmd package install-write -S ${sizes[i]} ${session} '${n}' -`),
    `exec:cmd package install-commit ${session}`,
    "shell:pm path 'io.selendroid.testapp'",
  ]);
  assert.deepEqual(dev.installs.at(-1), { kind: 'session', names, bytes: sizes });
});

test('app open and close: the launcher activity is looked up and started, then force-stopped', { skip }, async () => {
  const m = dev.shellCommands.length;
  await client.openApp(box.id, 'io.selendroid.testapp');
  assert.ok(dev.running.has('io.selendroid.testapp'));
  await client.closeApp(box.id, 'io.selendroid.testapp');
  assert.ok(!dev.running.has('io.selendroid.testapp'));
  assert.deepEqual(since(m), [
    'cmd package query-activities --components -a android.intent.action.MAIN -c android.intent.category.LAUNCHER',
    "am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -n 'io.selendroid.testapp/io.selendroid.testapp.HomeScreenActivity'",
    "pm path 'io.selendroid.testapp'",
    "am force-stop 'io.selendroid.testapp'",
  ]);
});

test('web terminal: the real adb client (`adb -H -P -s SERIAL shell`) opens the legacy interactive shell: on the device', { skip }, async () => {
  const { url } = await client.webTerminalUrl(box.id);
  const ws = new WebSocket(url.replace(/^http/, 'ws'));
  let out = '';
  ws.on('message', (d: Buffer) => (out += d.toString()));
  await once(ws, 'open');
  const until = (re: RegExp) => waitFor(() => re.test(out), { what: `the terminal to show ${re}` });
  const m = dev.services.length;
  await until(new RegExp(`${fake.address.replaceAll('.', '\\.')}:/ \\$ `));
  ws.send(JSON.stringify({ type: 'input', data: 'getprop\r' }));
  await until(/\[ro\.product\.model\]: \[Pixel 6\]/); // constructed getprop
  ws.close();
  await once(ws, 'close');
  // No shell_v2 in the device's features: the client asks for the legacy service, a bare `shell:`.
  assert.deepEqual(dev.services.slice(m), ['shell:', 'pty:getprop']);
});

test('terminate releases the device: the opened app closed, the working dir removed', { skip }, async () => {
  await client.openApp(box.id, 'io.selendroid.testapp');
  const m = dev.shellCommands.length;
  await client.terminateBox(box.id);
  assert.deepEqual(since(m), ["am force-stop 'io.selendroid.testapp'", `rm -rf '/data/local/tmp/boxflow/${box.id}'`]);
  assert.equal((await client.getBox(box.id)).status, 'terminated');
  assert.ok(![...dev.files.keys()].some((k) => k.startsWith(`/data/local/tmp/boxflow/${box.id}`)));
  // Nothing the device was sent was unknown to it, and the transport never saw a malformed message.
  assert.deepEqual(fake.failures, []);
  assert.deepEqual(fake.protocolErrors, []);
  assert.ok(performance.now() - started < 60_000, `the file ran in ${Math.round(performance.now() - started)} ms`);
});
