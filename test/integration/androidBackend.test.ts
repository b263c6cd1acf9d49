// The Android backend (src/server/adb) driven directly against the fake adb server (a TEST DOUBLE
// speaking the real adb protocol; see test/support/fakeAdbServer.ts). Each test names the fixture
// a device reply comes from and asserts the exact command lines the device received.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AdbBackend, adbAddress } from '../../src/server/devices/android/backend.js';
import { kTypeBudgetMs, type AndroidBox } from '../../src/server/devices/android/androidBox.js';
import { extractHierarchy, resolveTargetInLayout } from '../../src/server/devices/android/layout.js';
import { keyCode } from '../../src/server/devices/android/keys.js';
import { kKeyNames } from '../../src/api/schemas.js';
import { FakeAdbServer, fixture, packagesFromFixture, type FakeDevice } from '../support/fakeAdbServer.js';
import { waitFor } from '../support/waitFor.js';

let fake: FakeAdbServer;
let backend: AdbBackend;
let dev: FakeDevice;
let box: AndroidBox;
const gone: string[] = [];

before(async () => {
  fake = await FakeAdbServer.start();
  dev = fake.addDevice('emulator-5554', (d) => {
    d.packages = packagesFromFixture();
  });
  backend = new AdbBackend({ address: adbAddress(fake.socketSpec, {}) });
  box = await backend.claim('box-1', {}, (r) => gone.push(r));
});
after(async () => {
  // Releasing removes the box's scratch dir (its ledger) on this machine even when the device is gone.
  await backend.release(box);
  backend.close();
  await fake.close();
});

/** The shell command lines the device got since `mark`. */
const since = (d: FakeDevice, mark: number) => d.shellCommands.slice(mark);

test('adbAddress: --adb beats ADB_SERVER_SOCKET beats 127.0.0.1:5037; bad forms are refused', () => {
  assert.deepEqual(adbAddress(undefined, {}), { host: '127.0.0.1', port: 5037 });
  assert.deepEqual(adbAddress(undefined, { ADB_SERVER_SOCKET: 'tcp:farm.local:5555' }), { host: 'farm.local', port: 5555 });
  assert.deepEqual(adbAddress('tcp:[::1]:6000', { ADB_SERVER_SOCKET: 'tcp:farm.local:5555' }), { host: '::1', port: 6000 });
  assert.throws(() => adbAddress('localhost:5037', {}), /--adb: "localhost:5037" is not tcp:HOST:PORT/);
});

test('claim reads getprop (constructed), prepares the working dir and records the device', () => {
  assert.equal(box.info.sdk, 33);
  assert.equal(box.info.model, 'Pixel 6');
  assert.equal(box.info.virtual, true);
  assert.deepEqual(dev.shellCommands.slice(0, 2), ['getprop', "mkdir -p '/data/local/tmp/boxflow/box-1'"]);
  assert.ok(dev.files.has('/data/local/tmp/boxflow/box-1'));
});

test('drag: a path is DOWN/MOVE/UP motion events; two points one swipe; zero length a tap, or a long press when held', async () => {
  const m = dev.shellCommands.length;
  await box.drag([{ x: 10, y: 20 }, { x: 30.4, y: 40 }, { x: 50, y: 60 }], [5, 5]);
  await box.drag([{ x: 1, y: 2 }, { x: 300, y: 400 }], [500]);
  await box.drag([{ x: 7, y: 8 }, { x: 7, y: 8 }], [50]);
  await box.drag([{ x: 7, y: 8 }, { x: 7, y: 8 }], [400]);
  assert.deepEqual(since(dev, m), [
    'input motionevent DOWN 10 20',
    'input motionevent MOVE 30 40',
    'input motionevent MOVE 50 60',
    'input motionevent UP 50 60',
    'input swipe 1 2 300 400 500',
    'input tap 7 8',
    'input swipe 7 8 7 8 400',
  ]);
});

test('drag: a request that goes away stops the path where the finger is and lifts it (as on a Linux box)', async () => {
  const m = dev.shellCommands.length;
  const ac = new AbortController();
  // Each leg takes a minute: only the abort can end this drag in the test's time.
  const dragging = box.drag([{ x: 10, y: 20 }, { x: 30, y: 40 }, { x: 50, y: 60 }], [60_000, 60_000], ac.signal);
  await waitFor(() => since(dev, m).includes('input motionevent DOWN 10 20'));
  ac.abort();
  await assert.rejects(dragging, (e: Error) => e.name === 'AbortError');
  assert.deepEqual(since(dev, m), ['input motionevent DOWN 10 20', 'input motionevent UP 10 20']);
  // Already gone before it starts: nothing reaches the device.
  await assert.rejects(box.drag([{ x: 1, y: 2 }, { x: 3, y: 4 }], [10], ac.signal), (e: Error) => e.name === 'AbortError');
  assert.equal(dev.shellCommands.length, m + 2);
});

test('press-key: names map to KEYCODEs (tab 61); combinations use input keycombination', async () => {
  const m = dev.shellCommands.length;
  await box.pressKeys(['tab', 'a', 'enter', 'arrowDown', 'volumeUp', '0', 'numpad5'], false);
  await box.pressKeys(['control', 'c'], true);
  assert.deepEqual(since(dev, m), ['input keyevent 61 29 66 20 24 7 149', 'input keycombination 113 31']);
  await assert.rejects(box.pressKeys(['hyper'], false), (e: Error & { code?: string }) => e.code === 'INVALID_REQUEST' && /"hyper"/.test(e.message));
});

test('every one of the spec\'s 110 key names has a KEYCODE (KeyEvent.java values)', () => {
  assert.equal(kKeyNames.length, 110);
  assert.deepEqual(kKeyNames.filter((k) => keyCode(k) === undefined), []);
  const sample = Object.fromEntries(['a', 'z', '0', '9', 'f1', 'f12', 'tab', 'space', 'delete', 'home', 'numpad0', 'numpadEnter', 'volumeMute', 'mediaPlayPause', '`', "'"].map((k) => [k, keyCode(k)]));
  assert.deepEqual(sample, { a: 29, z: 54, 0: 7, 9: 16, f1: 131, f12: 142, tab: 61, space: 62, delete: 112, home: 122, numpad0: 144, numpadEnter: 160, volumeMute: 164, mediaPlayPause: 85, '`': 68, "'": 75 });
});

test('type: ASCII via input text (quoted, spaces as %s); Unicode arrives exactly through ADBKeyBoard; replace clears first', async () => {
  dev.field = '';
  dev.enterPresses = 0;
  const m = dev.shellCommands.length;
  await box.type("it's 5 o'clock", false, false);
  assert.equal(dev.field, "it's 5 o'clock");
  assert.deepEqual(since(dev, m), [`input text 'it'\\''s%s5%so'\\''clock'`]);

  // Without ADBKeyBoard installed a non-ASCII text is refused with what to install, never mangled.
  await assert.rejects(box.type('你好', false, false), /install ADBKeyBoard/);
  dev.imes.push('com.android.adbkeyboard/.AdbIME');
  const m2 = dev.shellCommands.length;
  const text = '你好, мир 👋🏽 ok';
  await box.type(text, true, true);
  assert.equal(dev.field, text);
  assert.equal(dev.enterPresses, 1);
  // ADBKeyBoard is checked (and selected) before the field is cleared: a refusal leaves the field alone.
  assert.deepEqual(since(dev, m2), [
    'ime list -a -s',
    'settings get secure default_input_method',
    "ime enable 'com.android.adbkeyboard/.AdbIME'",
    "ime set 'com.android.adbkeyboard/.AdbIME'",
    'input keycombination 113 29; input keyevent 67',
    `am broadcast -a ADB_INPUT_B64 --es msg '${Buffer.from(text).toString('base64')}'`,
    'input keyevent 66',
  ]);
});

test('type: one request\'s device time is bounded; past the bound nothing more is sent and it is DEVICE_TIMEOUT', async () => {
  // Here each `input text` takes 5 ms: one command line of ~100 of them outlasts a bound of 300 ms.
  dev.on(/^input text /, () => new Promise((r) => setTimeout(() => r(''), 5)));
  box.typeBudgetMs = 300;
  const m = dev.shellCommands.length;
  try {
    await assert.rejects(box.type('a\n'.repeat(2_000), false, false), (e: Error & { code?: string }) => e.code === 'DEVICE_TIMEOUT' && /one request may use device emulator-5554 for 0\.3 s; 0 of \d+ command lines ran, the rest was not sent/.test(e.message));
  } finally {
    box.typeBudgetMs = kTypeBudgetMs;
    dev.overrides.shift();
  }
  // The next request on the device goes through: by its answer, the line under way was cut off and
  // nothing more of the typing was sent, before it or after it.
  await box.pressKeys(['a'], false);
  const sent = since(dev, m);
  assert.equal(sent.length, 2, `the cut line, then the key: ${sent.map((c) => c.slice(0, 40)).join(' | ')}`);
  assert.match(sent[0]!, /^input text /);
  assert.doesNotMatch(sent[1]!, /^input text /);
  assert.equal(kTypeBudgetMs, 60_000);
});

test('screen-layout: the BOM, glued trailer and MIUI noise are stripped; an error dump is a DEVICE_ERROR with its text', async () => {
  // real: sharpadb_DumpScreen.txt (BOM + `UI hierchary dumped to: /dev/tty` glued to </hierarchy>)
  const xml = await box.layout();
  assert.ok(xml.startsWith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy"));
  assert.ok(xml.endsWith('</hierarchy>'));
  // real: sharpadb_DumpScreen.MIUI.txt (Java stack trace before the XML): the same document
  dev.layoutFixture = 'sharpadb_DumpScreen.MIUI.txt';
  assert.equal(await box.layout(), xml);
  // real: sharpadb_DumpScreen.Error.txt (no XML at all)
  dev.layoutFixture = 'sharpadb_DumpScreen.Error.txt';
  await assert.rejects(box.layout(), (e: Error & { code?: string }) => e.code === 'DEVICE_ERROR' && /java\.io\.FileNotFoundException: \/data\/system\/theme_config/.test(e.message));
  dev.layoutFixture = 'sharpadb_DumpScreen.txt';
});

test('screen-layout falls back to a dump file pulled over sync when the shell has no /dev/tty', async () => {
  // constructed: the error a shell without a terminal gives; the file holds a real dump (homee_…)
  dev.on(/^uiautomator dump \/dev\/tty$/, () => 'ERROR: could not open /dev/tty: No such device or address\n');
  const m = dev.shellCommands.length;
  const xml = await box.layout();
  assert.ok(xml.includes('Log In'));
  assert.ok(xml.endsWith('</hierarchy>'));
  // `dumpsys input_method` (the keyboard state) runs alongside, in no fixed order.
  const cmds = since(dev, m);
  assert.deepEqual(cmds.filter((c) => c !== 'dumpsys input_method'), ['uiautomator dump /dev/tty', "uiautomator dump '/data/local/tmp/boxflow/box-1/window_dump.xml'", "rm -f '/data/local/tmp/boxflow/box-1/window_dump.xml'"]);
  assert.equal(cmds.filter((c) => c === 'dumpsys input_method').length, 1);
  assert.ok(dev.syncRequests.includes('RECV /data/local/tmp/boxflow/box-1/window_dump.xml'));
  dev.overrides.shift();
});

test('text targets resolve against uiautomator layouts like on Linux (exact, contains, ambiguous, none)', () => {
  // real: nora_compose-chat_cjk-text.xml has one "Send" button
  const nora = extractHierarchy(fixture('nora_compose-chat_cjk-text.xml'));
  const send = resolveTargetInLayout(nora, 'send');
  assert.ok('found' in send, JSON.stringify(send).slice(0, 300));
  // real: homee_welcome-login_two-windows_systemui.xml: "Log In"
  const homee = extractHierarchy(fixture('homee_welcome-login_two-windows_systemui.xml'));
  const login = resolveTargetInLayout(homee, 'Log In');
  assert.ok('found' in login && login.how === 'exact');
  const none = resolveTargetInLayout(homee, 'zzz-not-there');
  assert.ok('candidates' in none && none.candidates.length > 0);
});

test('screenshot: screencap -p over exec: arrives byte for byte; scale and clip resize it', async () => {
  const png = await box.screenshot(1);
  assert.deepEqual(png, dev.screen);
  const half = await box.screenshot(0.5);
  assert.equal(half.readUInt32BE(16), Math.round(dev.screen.readUInt32BE(16) * 0.5));
  const clip = await box.screenshot(1, { x: 0, y: 0, width: 100, height: 50 });
  assert.deepEqual([clip.readUInt32BE(16), clip.readUInt32BE(20)], [100, 50]);
  assert.ok(dev.services.includes('exec:screencap -p'));
});

test('packages: pkgType and runningFilter over the real `pm list packages -f` (paths with ==)', async () => {
  dev.running.add('com.google.android.youtube');
  const m = dev.shellCommands.length;
  const third = await box.listPackages(['thirdParty'], undefined);
  const expected = packagesFromFixture().filter((p) => !p.system);
  assert.deepEqual(third.map((p) => p.packageName).sort(), expected.map((p) => p.packageName).sort());
  const yt = third.find((p) => p.packageName === 'com.google.android.youtube')!;
  assert.equal(yt.apkPath, expected.find((p) => p.packageName === 'com.google.android.youtube')!.apkPath);
  assert.match(yt.apkPath, /==\/com\.google\.android\.youtube-.*==\/base\.apk$/);
  assert.equal(yt.isRunning, true);
  assert.deepEqual(since(dev, m).slice(0, 3).sort(), ['pm list packages -3', 'pm list packages -f', 'ps -A -o NAME']);
  const running = await box.listPackages(['system', 'thirdParty'], ['running']);
  assert.deepEqual(running.map((p) => p.packageName), ['com.google.android.youtube']);
});

test('one package: versionName with spaces intact from the real dumpsys capture; unknown → PACKAGE_NOT_FOUND', async () => {
  // real: sharpadb_DumpSys.Package.txt (dumpsys package com.lufthansa.android.lufthansa)
  dev.packages.push({ packageName: 'com.lufthansa.android.lufthansa', apkPath: '/data/app/com.lufthansa.android.lufthansa-1.apk', system: false, versionName: 'x' });
  const p = await box.getPackage('com.lufthansa.android.lufthansa');
  const want = /versionName=(.*)/.exec(fixture('sharpadb_DumpSys.Package.txt').toString())![1]!.trim();
  assert.equal(p.version, want);
  assert.equal(p.pkgType, 'thirdParty');
  await assert.rejects(box.getPackage('no.such.pkg'), (e: Error & { code?: string }) => e.code === 'PACKAGE_NOT_FOUND');
});

test('install: a single APK streams over exec: cmd package install -S; open launches its launcher activity', async () => {
  const apk = join(import.meta.dirname, '../fixtures/android/split-apk/base.apk');
  const size = readFileSync(apk).length;
  const r = await box.install(apk, true);
  assert.equal(r.packageName, 'io.selendroid.testapp');
  assert.match(r.apkPath, /^\/data\/app\/.*io\.selendroid\.testapp-.*\/base\.apk$/);
  const launcher = r.activities.find((a) => a.isLauncher)!;
  assert.equal(launcher.className, 'io.selendroid.testapp.HomeScreenActivity');
  assert.ok(dev.services.includes(`exec:cmd package install -S ${size}`));
  assert.ok(dev.shellCommands.includes("am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -n 'io.selendroid.testapp/io.selendroid.testapp.HomeScreenActivity'"));
  assert.ok(dev.running.has('io.selendroid.testapp'));
});

test('rename inside the working dir over sync STAT + mv; missing source 404, existing target 409, outside 403', async () => {
  dev.writeFile('/data/local/tmp/boxflow/box-1/a.txt', 'hello');
  dev.writeFile('/data/local/tmp/boxflow/box-1/c.txt', 'x');
  const r = await box.rename('a.txt', 'b.txt', undefined);
  assert.deepEqual({ type: r.type, name: r.name, path: r.path, size: (r as { size: string }).size, mode: r.mode }, { type: 'file', name: 'b.txt', path: '/data/local/tmp/boxflow/box-1/b.txt', size: '5 B', mode: '-rw-r--r--' });
  assert.ok(dev.shellCommands.includes("mv '/data/local/tmp/boxflow/box-1/a.txt' '/data/local/tmp/boxflow/box-1/b.txt'"));
  await assert.rejects(box.rename('a.txt', 'z.txt', undefined), (e: Error & { code?: string }) => e.code === 'FILE_NOT_FOUND');
  await assert.rejects(box.rename('b.txt', 'c.txt', undefined), (e: Error & { code?: string }) => e.code === 'FILE_EXISTS');
  await assert.rejects(box.rename('b.txt', '../../x', undefined), (e: Error & { code?: string }) => e.code === 'FORBIDDEN');
});

test('media: delete a file and an album, each followed by a media scan so the gallery forgets them', async () => {
  dev.writeFile('/sdcard/DCIM/Camera/IMG_001.jpg', 'jpg1');
  dev.writeFile('/sdcard/DCIM/Camera/IMG_002.jpg', 'jpg2');
  dev.writeFile('/sdcard/Pictures/Trip/a.png', 'png');
  const m = dev.shellCommands.length;
  await box.deleteMedia('Camera', 'IMG_001.jpg');
  assert.ok(!dev.files.has('/sdcard/DCIM/Camera/IMG_001.jpg'));
  await box.deleteAlbum('Trip');
  assert.ok(!dev.files.has('/sdcard/Pictures/Trip'));
  assert.deepEqual(since(dev, m), [
    "rm -f '/sdcard/DCIM/Camera/IMG_001.jpg'",
    "am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d 'file:///sdcard/DCIM/Camera/IMG_001.jpg'",
    "rm -rf '/sdcard/Pictures/Trip'",
    "am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d 'file:///sdcard/Pictures/Trip/a.png'",
  ]);
  await assert.rejects(box.deleteMedia('Camera', 'IMG_001.jpg'), (e: Error & { code?: string }) => e.code === 'FILE_NOT_FOUND');
  await assert.rejects(box.deleteAlbum('Nope'), (e: Error & { code?: string }) => e.code === 'FILE_NOT_FOUND');
});

test('a device command that never answers is a DEVICE_ERROR after its timeout, not a hung box', async () => {
  dev.on(/^sleep forever$/, () => new Promise(() => {}));
  await assert.rejects(box.shell('sleep forever', 100), (e: Error & { code?: string }) => e.code === 'DEVICE_ERROR' && /gave no answer within 0\.1 s/.test(e.message));
  await box.pressKeys(['a'], false);
});

test('a second claim gets NO_DEVICE_AVAILABLE while the only device is held; a serial filter picks a device', async () => {
  await assert.rejects(backend.claim('box-2', {}, () => {}), (e: Error & { code?: string }) => e.code === 'NO_DEVICE_AVAILABLE' && /1 claimed/.test(e.message));
  fake.addDevice('R58M40ABCDE', (d) => (d.props['ro.kernel.qemu'] = '0'));
  await waitFor(async () => (await backend.devices()).some((d) => d.serial === 'R58M40ABCDE'), { what: 'the backend to track the added device', timeoutMs: 5_000, intervalMs: 10 });
  await assert.rejects(backend.claim('box-2', { deviceLabels: { model: 'Galaxy' } }, () => {}), (e: Error & { code?: string }) => e.code === 'NO_DEVICE_AVAILABLE');
  const second = await backend.claim('box-2', { deviceSerial: 'R58M40ABCDE' }, () => {});
  assert.equal(second.info.serial, 'R58M40ABCDE');
  assert.equal(second.info.virtual, false);
  await backend.release(second);
});

test('release closes opened apps, resets wm size and the keyboard, removes the working dir; the device is free again', async () => {
  await box.setResolution({ width: 720, height: 1280 });
  assert.deepEqual(dev.overrideSize, { width: 720, height: 1280 });
  const m = dev.shellCommands.length;
  await backend.release(box);
  assert.deepEqual(since(dev, m), ["am force-stop 'io.selendroid.testapp'", 'wm size reset', "ime set 'com.android.inputmethod.latin/.LatinIME'", "rm -rf '/data/local/tmp/boxflow/box-1'"]);
  assert.equal(dev.overrideSize, undefined);
  assert.equal(dev.ime, 'com.android.inputmethod.latin/.LatinIME');
  assert.ok(!dev.running.has('io.selendroid.testapp'));
  box = await backend.claim('box-3', { deviceSerial: 'emulator-5554' }, (r) => gone.push(r));
});

test('a device going offline marks its claim gone; its next command is DEVICE_OFFLINE', async () => {
  fake.setState('emulator-5554', 'offline');
  await waitFor(() => gone.length > 0, { what: 'the claim to be marked gone', timeoutMs: 5_000, intervalMs: 10 });
  assert.deepEqual(gone, ['device emulator-5554 went offline']);
  await assert.rejects(box.pressKeys(['a'], false), (e: Error & { code?: string }) => e.code === 'DEVICE_OFFLINE');
});

test('no adb server: ANDROID_UNAVAILABLE says how to start one', async () => {
  const dead = new AdbBackend({ address: { host: '127.0.0.1', port: 1 } });
  await assert.rejects(dead.claim('x', {}, () => {}), (e: Error & { code?: string }) => e.code === 'ANDROID_UNAVAILABLE' && /adb start-server/.test(e.message) && /--adb tcp:HOST:PORT/.test(e.message));
  dead.close();
});


test('the adb server going away marks every claimed device gone; the next claim says how to start one', async () => {
  const other = await FakeAdbServer.start();
  other.addDevice('emulator-5560');
  const b = new AdbBackend({ address: adbAddress(other.socketSpec, {}) });
  const reasons: string[] = [];
  const held = await b.claim('box-x', {}, (r) => reasons.push(r));
  await other.close();
  await waitFor(() => reasons.length > 0, { what: 'the claim to be marked gone', timeoutMs: 5_000, intervalMs: 10 });
  assert.deepEqual(reasons, [`device emulator-5560 is unreachable: the adb server at 127.0.0.1:${other.port} went away`]);
  await assert.rejects(held.pressKeys(['a'], false), (e: Error & { code?: string }) => e.code === 'DEVICE_OFFLINE');
  await assert.rejects(b.claim('box-y', {}, () => {}), (e: Error & { code?: string }) => e.code === 'ANDROID_UNAVAILABLE');
  await b.release(held);
  b.close();
});

test('a ZIP whose .apk is not an APK is refused as bad input, without the server\'s temporary path', async () => {
  const { tmpdir } = await import('node:os');
  const { createWriteStream } = await import('node:fs');
  const { readApk } = await import('../../src/server/devices/android/apk.js');
  const yazl = (await import('yazl')).default;
  const zipPath = join(tmpdir(), `boxflow-bad-${process.pid}.zip`);
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from('not an apk at all'), 'base.apk');
  zip.end();
  await once(zip.outputStream.pipe(createWriteStream(zipPath)), 'close');
  try {
    await assert.rejects(readApk(zipPath), (e: Error & { code?: string }) => e.code === 'INVALID_REQUEST' && /base\.apk is not a readable APK/.test(e.message) && !e.message.includes(tmpdir()));
  } finally {
    (await import('node:fs')).rmSync(zipPath, { force: true });
  }
});
