// Android boxes of `boxflow serve` through the project's BoxClient, over real HTTP, against the
// fake adb server (a TEST DOUBLE speaking the real adb protocol: test/support/fakeAdbServer.ts).
// Each test asserts the exact device command lines sent and names the fixture a reply comes from.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { PNG } from 'pngjs';
import yazl from 'yazl';
import { BoxClient, BoxApiError } from '../../src/api/client.js';
import type { Box } from '../../src/api/schemas.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { WebSocket } from 'ws';
import { FakeAdbServer, fixture, packagesFromFixture, writeFakeAdbClient, type FakeDevice } from '../support/fakeAdbServer.js';
import { waitFor } from '../support/waitFor.js';

const kSecret = 'android-integration-secret-0123456789abcdef';
const kSplitDir = join(import.meta.dirname, '../fixtures/android/split-apk');

let dataDir: string;
let fake: FakeAdbServer;
let server: { baseUrl: string; close(): Promise<void> };
let client: BoxClient;
let dev: FakeDevice;
let box: Box;
let site: Server;
let siteUrl: string;
const logs: Array<Record<string, unknown>> = [];

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-android-test-'));
  // The web terminal runs the adb client; here a TEST DOUBLE of it that talks to the fake adb server.
  process.env.BOXFLOW_ADB = writeFakeAdbClient(dataDir);
  fake = await FakeAdbServer.start();
  dev = fake.addDevice('emulator-5554', (d) => {
    d.packages = packagesFromFixture();
  });
  // Serves the base APK for the install-from-URL test.
  site = createServer((req, res) => {
    if (req.url === '/app.apk') return void res.writeHead(200, { 'content-type': 'application/vnd.android.package-archive' }).end(readFileSync(join(kSplitDir, 'base.apk')));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  // The APK for the install-from-URL test is served on loopback, which tenants may not reach by default.
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: (e) => logs.push(e), adb: fake.socketSpec, allowInnerDownloads: true });
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'tenant-a'), maxRetries: 0 });
  box = await client.createAndroidBox({ config: { labels: { suite: 'android' } } });
});

after(async () => {
  await client?.close();
  await server?.close();
  await fake?.close();
  await new Promise((r) => site?.close(r));
  rmSync(dataDir, { recursive: true, force: true });
});

const since = (d: FakeDevice, mark: number) => d.shellCommands.slice(mark);

/** The server learns of a device added to the fake through track-devices: claim once it has. */
async function createWhenTracked(body: Parameters<BoxClient['createAndroidBox']>[0]): Promise<Box> {
  return waitFor(
    () =>
      client.createAndroidBox(body).catch((e: unknown) => {
        if (e instanceof BoxApiError && e.serverCode === 'NO_DEVICE_AVAILABLE') return undefined;
        throw e;
      }),
    { what: 'the server to track the added device', timeoutMs: 5_000, intervalMs: 10 },
  );
}
const code = (c: string, status: number) => (e: unknown) => e instanceof BoxApiError && e.serverCode === c && e.httpStatus === status;

test('POST /boxes/android claims the online device: an android box record with its device facts', async () => {
  assert.equal(box.type, 'android');
  assert.equal(box.status, 'running');
  assert.equal(box.config.os.version, '13'); // constructed getprop
  assert.equal(box.config.deviceType, 'virtual');
  assert.equal(box.config.labels.suite, 'android');
  assert.equal(box.config.labels['boxflow/serial'], 'emulator-5554');
  const listed = await client.listBoxes({ type: ['android'] });
  assert.deepEqual(listed.data.map((b) => b.id), [box.id]);
});

test('drag: a path becomes motion events, a simple drag one swipe, a zero-length drag a tap (a long press when held); scale divides coordinates; the whole move is bounded', async () => {
  const m = dev.shellCommands.length;
  const r = await client.drag(box.id, { path: [{ x: 10, y: 10 }, { x: 20, y: 30 }, { x: 40, y: 50 }], duration: '10ms' });
  assert.deepEqual(r.actual, { start: { x: 10, y: 10 }, end: { x: 40, y: 50 }, duration: '10ms' });
  await client.drag(box.id, { start: { x: 100, y: 200 }, end: { x: 300, y: 400 }, duration: '300ms' });
  await client.updateSettings(box.id, { scale: 0.5 });
  const tap = await client.drag(box.id, { start: { x: 50, y: 60 }, end: { x: 50, y: 60 }, duration: '50ms' });
  assert.match(tap.message, /tapped \(50, 60\)/);
  // A hold of Android's long-press timeout or more is a long press: a swipe that stays put.
  await client.drag(box.id, { start: { x: 50, y: 60 }, end: { x: 50, y: 60 }, duration: '1s' });
  await client.resetSettings(box.id);
  // The whole move is bounded (60s), as on Linux: 3 intervals of 40s never reach the device.
  await assert.rejects(client.drag(box.id, { path: [{ x: 1, y: 1 }, { x: 2, y: 2 }, { x: 3, y: 3 }, { x: 4, y: 4 }], duration: '40s' }), code('INVALID_DURATION', 400));
  assert.deepEqual(since(dev, m), [
    'input motionevent DOWN 10 10',
    'input motionevent MOVE 20 30',
    'input motionevent MOVE 40 50',
    'input motionevent UP 40 50',
    'input swipe 100 200 300 400 300',
    'input tap 100 120',
    'input swipe 100 120 100 120 1000',
  ]);
});

test('drag: a request that goes away stops the path where the finger is and lifts it; the box serves the next request', async () => {
  const m = dev.shellCommands.length;
  const ac = new AbortController();
  // Two legs of 25 s each: only the abort ends this drag in the test's time.
  const dragging = client.drag(box.id, { path: [{ x: 10, y: 10 }, { x: 20, y: 30 }, { x: 40, y: 50 }], duration: '25s' }, { signal: ac.signal });
  dragging.catch(() => {}); // awaited below, once aborted
  await waitFor(() => since(dev, m).includes('input motionevent DOWN 10 10'));
  ac.abort();
  await assert.rejects(dragging);
  await client.tap(box.id, { x: 5, y: 5 });
  assert.deepEqual(since(dev, m), ['input motionevent DOWN 10 10', 'input motionevent UP 10 10', 'input tap 5 5']);
});

test('drag to a text target resolves it in the uiautomator layout; an unknown target is 422 with candidates', async () => {
  // real: nora_compose-chat_cjk-text.xml (re-served as a `uiautomator dump /dev/tty` reply)
  dev.layoutFixture = 'nora_compose-chat_cjk-text.xml';
  try {
    const m = dev.shellCommands.length;
    const r = await client.drag(box.id, { start: 'Send', end: 'Send', duration: '50ms' });
    const cmds = since(dev, m);
    assert.deepEqual(cmds.slice(0, 2), ['uiautomator dump /dev/tty', 'uiautomator dump /dev/tty']);
    assert.equal(cmds[2], `input tap ${Math.round(r.actual.start.x)} ${Math.round(r.actual.start.y)}`);
    await assert.rejects(client.drag(box.id, { start: 'Nothing like this here', end: { x: 1, y: 1 } }), code('TARGET_NOT_FOUND', 422));
  } finally {
    dev.layoutFixture = 'sharpadb_DumpScreen.txt';
  }
});

test('press-key: spec names become KEYCODEs (tab is 61); combination is input keycombination; unknown names are 400', async () => {
  const m = dev.shellCommands.length;
  await client.pressKey(box.id, { keys: ['tab', 'enter', 'backspace', 'escape', 'f5'] });
  await client.pressKey(box.id, { keys: ['control', 'shift', 'z'], combination: true });
  assert.deepEqual(since(dev, m), ['input keyevent 61 66 67 111 135', 'input keycombination 113 59 54']);
  await assert.rejects(client.pressKey(box.id, { keys: ['hyper' as never] }), code('INVALID_REQUEST', 400));
});

test('type: ASCII through input text, CJK and emoji arrive exactly through ADBKeyBoard, replace clears, pressEnter presses 66', async () => {
  dev.field = 'old text';
  dev.enterPresses = 0;
  const m = dev.shellCommands.length;
  await client.type(box.id, { text: 'hi there', mode: 'replace' });
  assert.equal(dev.field, 'hi there');
  assert.deepEqual(since(dev, m), ["input keycombination 113 29; input keyevent 67; input text 'hi%sthere'"]);
  // The device has no ADBKeyBoard yet: refused with what to install, not typed wrong.
  await assert.rejects(client.type(box.id, { text: '日本語' }), (e) => e instanceof BoxApiError && e.httpStatus === 422 && /ADBKeyBoard/.test(e.message));
  assert.equal(dev.field, 'hi there');
  dev.imes.push('com.android.adbkeyboard/.AdbIME');
  const text = ' 日本語テキスト 🎉👩‍💻 ñ';
  await client.type(box.id, { text, pressEnter: true });
  assert.equal(dev.field, `hi there${text}`);
  assert.equal(dev.enterPresses, 1);
  assert.ok(dev.shellCommands.includes(`am broadcast -a ADB_INPUT_B64 --es msg '${Buffer.from(text).toString('base64')}'`));
});

test('screen-layout: the real dumps come back as clean XML with the keyboard state on the root; the error dump is a 502 with the device text', async () => {
  // real: sharpadb_DumpScreen.txt — BOM and the glued `UI hierchary dumped to: /dev/tty` trailer removed
  const { content } = await client.screenLayout(box.id);
  const raw = fixture('sharpadb_DumpScreen.txt').toString('utf8').replace(/^\uFEFF/, '');
  const clean = raw.slice(0, raw.lastIndexOf('</hierarchy>') + '</hierarchy>'.length);
  assert.equal(content, clean.replace('<hierarchy rotation=', '<hierarchy keyboard="hidden" rotation='));
  dev.keyboardShown = true;
  assert.ok((await client.screenLayout(box.id)).content.includes('<hierarchy keyboard="shown" rotation="0">'));
  dev.keyboardShown = false;
  // A dump of input_method that does not say (another ROM's format): no attribute, not a guess.
  dev.on(/^dumpsys input_method$/, () => 'Current Input Method Manager state:\n  mCurMethodId=null\n');
  assert.equal((await client.screenLayout(box.id)).content, clean);
  dev.overrides.shift();
  // real: sharpadb_DumpScreen.MIUI.txt — the same XML found inside the MIUI noise
  dev.layoutFixture = 'sharpadb_DumpScreen.MIUI.txt';
  assert.ok((await client.screenLayout(box.id)).content.startsWith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy keyboard=\"hidden\" rotation=\"0\">"));
  // real: sharpadb_DumpScreen.Error.txt — no XML at all
  dev.layoutFixture = 'sharpadb_DumpScreen.Error.txt';
  await assert.rejects(client.screenLayout(box.id), (e) => e instanceof BoxApiError && e.serverCode === 'DEVICE_ERROR' && e.httpStatus === 502 && /FileNotFoundException/.test(e.message));
  dev.layoutFixture = 'sharpadb_DumpScreen.txt';
});

test('screenshots: screencap -p bytes unchanged, scaled by settings, clipped, stored behind a pre-signed URL; action phases and trace', async () => {
  const full = await client.screenshot(box.id);
  assert.deepEqual(Buffer.from(full.uri.split(',')[1]!, 'base64'), dev.screen);
  const w = PNG.sync.read(dev.screen).width;
  await client.updateSettings(box.id, { scale: 0.5 });
  const stored = await client.screenshot(box.id, { outputFormat: 'storageKey' });
  const half = PNG.sync.read(await client.fetchObject(stored.presignedUrl!));
  assert.equal(half.width, Math.round(w * 0.5));
  await client.resetSettings(box.id);
  const clip = PNG.sync.read(Buffer.from((await client.screenshot(box.id, { clip: { x: 10, y: 10, width: 64, height: 32 } })).uri.split(',')[1]!, 'base64'));
  assert.deepEqual([clip.width, clip.height], [64, 32]);
  const r = await client.pressKey(box.id, { keys: ['a'], options: { screenshot: { phases: ['before', 'after', 'trace'], delay: '0ms' } } });
  for (const phase of ['before', 'after', 'trace'] as const) assert.match(r.screenshot![phase]!.uri, /^data:image\/png;base64,/);
  assert.ok(dev.services.filter((s) => s === 'exec:screencap -p').length >= 5);
});

test('resolution: wm size WxH; terminate resets it', async () => {
  const m = dev.shellCommands.length;
  assert.deepEqual(await client.setResolution(box.id, { width: 720, height: 1600 }), { width: 720, height: 1600 });
  assert.deepEqual(since(dev, m), ['wm size 720x1600']);
  assert.deepEqual(dev.overrideSize, { width: 720, height: 1600 });
});

test('packages: default thirdParty from the real `pm list packages -f`; both filters; one package with its version', async () => {
  dev.running.add('com.google.android.youtube');
  const third = await client.listPackages(box.id);
  const expected = packagesFromFixture().filter((p) => !p.system);
  assert.deepEqual(third.data.map((p) => p.packageName).sort(), expected.map((p) => p.packageName).sort());
  const yt = third.data.find((p) => p.packageName === 'com.google.android.youtube')!;
  assert.equal(yt.apkPath, expected.find((p) => p.packageName === 'com.google.android.youtube')!.apkPath);
  assert.equal(yt.isRunning, true);
  const running = await client.listPackages(box.id, { pkgType: ['system', 'thirdParty'], runningFilter: ['running'] });
  assert.deepEqual(running.data.map((p) => p.packageName), ['com.google.android.youtube']);
  const notRunningSystem = await client.listPackages(box.id, { pkgType: ['system'], runningFilter: ['notRunning'] });
  assert.equal(notRunningSystem.data.length, packagesFromFixture().filter((p) => p.system).length);
  // real: sharpadb_DumpSys.Package.txt — versionName kept whole
  dev.packages.push({ packageName: 'com.lufthansa.android.lufthansa', apkPath: '/data/app/com.lufthansa.android.lufthansa-1/base.apk', system: false, versionName: '' });
  const one = await client.getPackage(box.id, 'com.lufthansa.android.lufthansa');
  assert.equal(one.version, /versionName=(.*)/.exec(fixture('sharpadb_DumpSys.Package.txt').toString())![1]!.trim());
  assert.deepEqual({ name: one.name, pkgType: one.pkgType, isRunning: one.isRunning, apkPath: one.apkPath }, { name: 'com.lufthansa.android.lufthansa', pkgType: 'thirdParty', isRunning: false, apkPath: '/data/app/com.lufthansa.android.lufthansa-1/base.apk' });
  await assert.rejects(client.getPackage(box.id, 'no.such.app'), code('PACKAGE_NOT_FOUND', 404));
});

test('install: an uploaded APK streams to `cmd package install -S`, and open launches it', async () => {
  const size = readFileSync(join(kSplitDir, 'base.apk')).length;
  const r = await client.installPackage(box.id, { apk: join(kSplitDir, 'base.apk'), open: true });
  assert.equal(r.packageName, 'io.selendroid.testapp');
  assert.equal(r.pkgType, 'thirdParty');
  assert.match(r.apkPath, /io\.selendroid\.testapp-.*\/base\.apk$/);
  assert.deepEqual(r.activities.filter((a) => a.isLauncher).map((a) => a.className), ['io.selendroid.testapp.HomeScreenActivity']);
  assert.ok(dev.services.includes(`exec:cmd package install -S ${size}`));
  assert.equal(dev.installs.at(-1)!.bytes[0], size);
  assert.ok(dev.running.has('io.selendroid.testapp'));
});

test('install: a ZIP of the real split APKs is one session (install-create, one install-write per APK, install-commit)', async () => {
  const zipPath = join(dataDir, 'splits.zip');
  const zip = new yazl.ZipFile();
  const names = ['base.apk', 'split_config.arm64_v8a.apk', 'split_config.xxhdpi.apk'];
  for (const n of names) zip.addFile(join(kSplitDir, n), n);
  zip.end();
  await once(zip.outputStream.pipe(createWriteStream(zipPath)), 'close');
  const sizes = names.map((n) => readFileSync(join(kSplitDir, n)).length);
  const r = await client.installPackage(box.id, { apk: zipPath });
  assert.equal(r.packageName, 'io.selendroid.testapp');
  const sessionId = [...dev.sessions.keys()].at(-1)!;
  const services = dev.services.filter((s) => s.startsWith('exec:cmd package install'));
  assert.deepEqual(services.slice(-5), [
    `exec:cmd package install-create -S ${sizes.reduce((a, b) => a + b, 0)}`,
    ...names.map((n, i) => `exec:cmd package install-write -S ${sizes[i]} ${sessionId} '${n}' -`),
    `exec:cmd package install-commit ${sessionId}`,
  ]);
  assert.deepEqual(dev.installs.at(-1), { kind: 'session', names, bytes: sizes });
});

test('install: from a URL the server downloads; a non-APK upload is 400', async () => {
  const before = dev.installs.length;
  const r = await client.installPackage(box.id, { apk: `${siteUrl}/app.apk` });
  assert.equal(r.packageName, 'io.selendroid.testapp');
  assert.equal(dev.installs.length, before + 1);
  await assert.rejects(client.installPackage(box.id, { apk: `${siteUrl}/missing.apk` }), code('URL_UNREACHABLE', 422));
  const junk = join(dataDir, 'junk.apk');
  writeFileSync(junk, 'not a zip');
  await assert.rejects(client.installPackage(box.id, { apk: junk }), code('INVALID_REQUEST', 400));
});

test('apps and close-all: launcher activities listed; close-all force-stops the running apps the launcher shows', async () => {
  const apps = await client.listApps(box.id);
  assert.deepEqual(apps.data.find((a) => a.packageName === 'io.selendroid.testapp'), { packageName: 'io.selendroid.testapp', activityName: '.HomeScreenActivity', activityClassName: 'io.selendroid.testapp.HomeScreenActivity' });
  dev.running.add('io.selendroid.testapp');
  dev.packages.find((p) => p.packageName === 'com.google.android.youtube')!.launcher ??= 'com.google.android.youtube.app.honeycomb.Shell$HomeActivity';
  const m = dev.shellCommands.length;
  await client.closeAllApps(box.id);
  const stops = since(dev, m).flatMap((c) => c.split('; ')).filter((c) => c.startsWith('am force-stop'));
  assert.deepEqual(stops.sort(), ["am force-stop 'com.google.android.youtube'", "am force-stop 'io.selendroid.testapp'"]);
  assert.ok(!dev.running.has('io.selendroid.testapp'));
});

test('fs rename inside the working dir; the spec\'s two error cases', async () => {
  const wd = box.config.workingDir!;
  dev.writeFile(`${wd}/notes.txt`, 'abc');
  const r = await client.renameFile(box.id, { oldPath: 'notes.txt', newPath: 'renamed.txt' });
  assert.equal(r.path, `${wd}/renamed.txt`);
  assert.ok(dev.shellCommands.includes(`mv '${wd}/notes.txt' '${wd}/renamed.txt'`));
  await assert.rejects(client.renameFile(box.id, { oldPath: 'notes.txt', newPath: 'x.txt' }), code('FILE_NOT_FOUND', 404));
  dev.writeFile(`${wd}/other.txt`, 'x');
  await assert.rejects(client.renameFile(box.id, { oldPath: 'renamed.txt', newPath: 'other.txt' }), code('FILE_EXISTS', 409));
});

test('media: deleting a photo and an album removes them and rescans so the gallery forgets them', async () => {
  dev.writeFile('/sdcard/DCIM/Camera/IMG_001.jpg', 'a');
  dev.writeFile('/sdcard/Pictures/Holiday/IMG_9.jpg', 'b');
  await client.deleteMedia(box.id, 'Camera', 'IMG_001.jpg');
  await client.deleteAlbum(box.id, 'Holiday');
  assert.ok(!dev.files.has('/sdcard/DCIM/Camera/IMG_001.jpg'));
  assert.ok(!dev.files.has('/sdcard/Pictures/Holiday'));
  assert.ok(dev.shellCommands.includes("am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d 'file:///sdcard/Pictures/Holiday/IMG_9.jpg'"));
  await assert.rejects(client.deleteAlbum(box.id, 'Holiday'), code('FILE_NOT_FOUND', 404));
});

test('app endpoints: open (launcher or named activity), restart, close, clear data; buttons are KEYCODEs', async () => {
  const m = dev.shellCommands.length;
  await client.openApp(box.id, 'io.selendroid.testapp');
  await client.openApp(box.id, 'io.selendroid.testapp', { activityName: '.WebViewActivity' });
  await client.restartApp(box.id, 'io.selendroid.testapp');
  await client.closeApp(box.id, 'io.selendroid.testapp');
  await client.clearAppData(box.id, 'io.selendroid.testapp');
  const r = await client.pressButton(box.id, { buttons: ['back', 'home', 'appSwitch', 'volumeUp', 'power'] });
  assert.match(r.message, /pressed back, home, appSwitch, volumeUp, power/);
  const start = (cls: string) => `am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -n 'io.selendroid.testapp/io.selendroid.testapp.${cls}'`;
  const query = 'cmd package query-activities --components -a android.intent.action.MAIN -c android.intent.category.LAUNCHER';
  assert.deepEqual(since(dev, m), [
    query, start('HomeScreenActivity'),
    start('WebViewActivity'),
    "pm path 'io.selendroid.testapp'", "am force-stop 'io.selendroid.testapp'", query, start('HomeScreenActivity'),
    "pm path 'io.selendroid.testapp'", "am force-stop 'io.selendroid.testapp'",
    "pm path 'io.selendroid.testapp'", "pm clear 'io.selendroid.testapp'",
    'input keyevent 4 3 187 24 26',
  ]);
  assert.deepEqual(dev.cleared, ['io.selendroid.testapp']);
  assert.ok(!dev.running.has('io.selendroid.testapp'));
  await assert.rejects(client.closeApp(box.id, 'no.such.app'), code('PACKAGE_NOT_FOUND', 404));
  await assert.rejects(client.openApp(box.id, 'no.such.app'), code('PACKAGE_NOT_FOUND', 404));
});

test('open a tab on an Android box is a VIEW intent: the claiming activity answers; unresolvable links are 422, non-URLs 400', async () => {
  const m = dev.shellCommands.length;
  const tab = await client.openTab(box.id, { url: "https://example.com/a b?q='x'&y=1" });
  assert.deepEqual(tab, { id: 'com.android.chrome/com.google.android.apps.chrome.Main', title: 'com.android.chrome/com.google.android.apps.chrome.Main', url: "https://example.com/a b?q='x'&y=1", favicon: '', active: true, loading: false });
  dev.linkHandlers.push({ url: /^duck:\/\//, activity: 'com.duckduckgo.mobile.android/com.duckduckgo.app.dispatchers.IntentDispatcherActivity' });
  assert.equal((await client.openTab(box.id, { url: 'duck://https://duckduckgo.com?q=why%20use%20duckduckgo' })).id.split('/')[0], 'com.duckduckgo.mobile.android');
  assert.deepEqual(since(dev, m), [
    `am start -W -a android.intent.action.VIEW -d 'https://example.com/a b?q='\\''x'\\''&y=1'`,
    "am start -W -a android.intent.action.VIEW -d 'duck://https://duckduckgo.com?q=why%20use%20duckduckgo'",
  ]);
  assert.deepEqual(dev.openedLinks.slice(-2), ["https://example.com/a b?q='x'&y=1", 'duck://https://duckduckgo.com?q=why%20use%20duckduckgo']);
  await assert.rejects(client.openTab(box.id, { url: 'nothing://takes/this' }), (e) => e instanceof BoxApiError && e.serverCode === 'UNPROCESSABLE' && e.httpStatus === 422 && /no app on device emulator-5554 opens nothing:\/\/takes\/this/.test(e.message));
  const n = dev.shellCommands.length;
  await assert.rejects(client.openTab(box.id, { url: 'example.com/no-scheme' }), code('INVALID_URL', 400));
  await assert.rejects(client.openTab(box.id, { url: `https://example.com/${'x'.repeat(3000)}` }), code('INVALID_URL', 400));
  assert.equal(dev.shellCommands.length, n, 'a refused link never reaches the device');
});

test('two boxes on two devices at once; a third is 409 NO_DEVICE_AVAILABLE; terminate frees and resets the device', async () => {
  const dev2 = fake.addDevice('R58M40ABCDE', (d) => (d.props['ro.kernel.qemu'] = '0'));
  const second = await createWhenTracked({ config: { deviceType: 'physical' } });
  assert.equal(second.config.labels['boxflow/serial'], 'R58M40ABCDE');
  await assert.rejects(client.createAndroidBox(), code('NO_DEVICE_AVAILABLE', 409));
  await Promise.all([client.pressKey(box.id, { keys: ['a'] }), client.pressKey(second.id, { keys: ['b'] })]);
  assert.equal(dev2.shellCommands.at(-1), 'input keyevent 30');
  await client.terminateBox(second.id);
  assert.equal(dev2.shellCommands.at(-1), `rm -rf '/data/local/tmp/boxflow/${second.id}'`);
  const third = await client.createAndroidBox({ config: { deviceSerial: 'R58M40ABCDE' } });
  assert.equal(third.config.labels['boxflow/serial'], 'R58M40ABCDE');
  await client.terminateBox(third.id);
});

test('a device going offline marks its box error with a reason; its requests are 503; the other box goes on', async () => {
  const dev3 = fake.addDevice('offline-me', (d) => (d.props['ro.kernel.qemu'] = '0'));
  const doomed = await createWhenTracked({ config: { deviceSerial: 'offline-me' } });
  fake.setState('offline-me', 'offline');
  const record = await waitFor(
    async () => {
      const b = await client.getBox(doomed.id);
      return b.status === 'error' && b;
    },
    { what: 'the box of the offline device to turn error', timeoutMs: 5_000, intervalMs: 10 },
  );
  assert.equal(record.reason, 'device offline-me went offline');
  await assert.rejects(client.pressKey(doomed.id, { keys: ['a'] }), code('DEVICE_OFFLINE', 503));
  await client.pressKey(box.id, { keys: ['c'] });
  assert.equal(dev.shellCommands.at(-1), 'input keyevent 31');
  assert.ok(!dev3.shellCommands.includes('input keyevent 29'));
  await client.terminateBox(doomed.id);
});

test('web terminal: the pre-signed page\'s websocket runs `adb -H -P -s SERIAL shell` on a pty', async () => {
  const { url } = await client.webTerminalUrl(box.id);
  const ws = new WebSocket(url.replace(/^http/, 'ws'));
  let out = '';
  ws.on('message', (d) => (out += d.toString()));
  await once(ws, 'open');
  const until = (re: RegExp) => waitFor(() => re.test(out), { what: `the terminal to show ${re}` });
  await until(/emulator-5554:\/ \$ /);
  ws.send(JSON.stringify({ type: 'input', data: 'getprop\r' }));
  await until(/\[ro\.product\.model\]: \[Pixel 6\]/); // constructed getprop of the fake device
  assert.ok(dev.services.includes('shell:'), 'an interactive shell: service');
  assert.ok(dev.services.includes('pty:getprop'));
  ws.close();
  await once(ws, 'close');
});

test('terminate releases the device: opened apps closed, size and keyboard reset, working dir removed', async () => {
  await client.installPackage(box.id, { apk: join(kSplitDir, 'base.apk'), open: true });
  const m = dev.shellCommands.length;
  await client.terminateBox(box.id);
  // The browser a link opened is closed too (the open-a-tab test opened it).
  assert.deepEqual(since(dev, m), ["am force-stop 'io.selendroid.testapp'", "am force-stop 'com.android.chrome'", "am force-stop 'com.duckduckgo.mobile.android'", 'wm size reset', "ime set 'com.android.inputmethod.latin/.LatinIME'", `rm -rf '/data/local/tmp/boxflow/${box.id}'`]);
  assert.equal(dev.overrideSize, undefined);
  assert.equal((await client.getBox(box.id)).status, 'terminated');
  box = await client.createAndroidBox({ config: { deviceSerial: 'emulator-5554' } });
});

test('on a Linux box, back is the tab\'s history back; other buttons and the app endpoints are 400 UNSUPPORTED_BOX_TYPE', async () => {
  const linux = await client.createLinuxBox();
  try {
    // The first tab reuses the blank one, so its history is about:blank → the page.
    await client.openTab(linux.id, { url: 'data:text/html,<title>one</title><p>page one</p>' });
    assert.match((await client.screenLayout(linux.id)).content, /page one/);
    const r = await client.pressButton(linux.id, { buttons: ['back'] });
    assert.match(r.message, /pressed back/);
    assert.doesNotMatch((await client.screenLayout(linux.id)).content, /page one/);
    assert.doesNotMatch(r.message, /no history/);
    // Back at the start of the tab's history goes nowhere, and the answer says so.
    assert.match((await client.pressButton(linux.id, { buttons: ['back'] })).message, /pressed back \(the tab had no history to go back to\)/);
    await assert.rejects(client.pressButton(linux.id, { buttons: ['home'] }), code('UNSUPPORTED_BOX_TYPE', 400));
    await assert.rejects(client.openApp(linux.id, 'com.example.app'), code('UNSUPPORTED_BOX_TYPE', 400));
  } finally {
    await client.terminateBox(linux.id);
  }
});

test('with no adb server, POST /boxes/android is a 4xx that says how to start one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxflow-android-noadb-'));
  const lonely = await startServer({ port: 0, dataDir: dir, secret: kSecret, log: () => {}, adb: 'tcp:127.0.0.1:1' });
  const c = new BoxClient({ baseUrl: lonely.baseUrl, apiKey: await createApiKey(kSecret, 'tenant-a'), maxRetries: 0 });
  try {
    await assert.rejects(c.createAndroidBox(), (e) => e instanceof BoxApiError && e.serverCode === 'ANDROID_UNAVAILABLE' && e.httpStatus === 422 && /adb start-server/.test(e.message));
  } finally {
    await c.close();
    await lonely.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
