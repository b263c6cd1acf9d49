// GBOX's Android app endpoints (apps/{pkg}, packages/simple, activities,
// uninstall, connect-address) on Android boxes of a real `boxflow serve`, whose devices are the fake
// adb server's (a TEST DOUBLE speaking the real adb protocol, test/support/fakeAdbServer.ts, with the
// real `pm list packages -f` capture): the exact wire shapes, the exact device command lines, and each
// endpoint tried as an attacker would: another tenant's box, shell metacharacters and `..` in names,
// huge values.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import { fixture, type FakeDevice } from '../support/fakeAdbServer.js';
import { connectAddress } from '../../src/server/http/endpoints/androidApps.js';
import type { Box } from '../../src/api/schemas.js';

const kEmulator = 'emulator-5560';
const kNetwork = '192.168.1.23:5555';
const kUsb = 'R58M12ABCDE';
const srv = useGboxServer('gbox-apps', [kEmulator, kNetwork, kUsb]);
const client = () => srv.client('a');

const kApp = 'com.example.app';
const kSelendroid = 'io.selendroid.testapp';
const kSelendroidApk = `/data/app/~~c2VsZW5kcm9pZA==/${kSelendroid}-dGVzdGFwcA==/base.apk`;
const kYoutube = {
  apkPath: '/data/app/~~wsYP5Ri_1KiD_nwQbIGm1A==/com.google.android.youtube-9Dbhc0xSFa5QH05Q_-IBjg==/base.apk',
  packageName: 'com.google.android.youtube',
  pkgType: 'thirdParty',
};

let box: Box;
let dev: FakeDevice;

before(async () => {
  await srv.ready();
  dev = srv.fake.device(kEmulator);
  dev.packages.push({ packageName: kApp, apkPath: `/data/app/~~YWJj==/${kApp}-eHl6==/base.apk`, system: false, versionName: '1.0', launcher: '.Main' });
  // A real APK (SOURCES.md: split-apk/base.apk, selendroid's test app) where `pm path` says it is.
  dev.packages.push({ packageName: kSelendroid, apkPath: kSelendroidApk, system: false, versionName: '0.17.0', launcher: '.HomeScreenActivity' });
  dev.writeFile(kSelendroidApk, fixture('split-apk/base.apk'));
  box = await client().createAndroidBox({ config: { deviceSerial: kEmulator } });
});

/** The shell lines and sync requests `act` sent to the device. */
async function sent(act: () => Promise<unknown>): Promise<{ shell: string[]; sync: string[] }> {
  const [s, y] = [dev.shellCommands.length, dev.syncRequests.length];
  await act();
  return { shell: dev.shellCommands.slice(s), sync: dev.syncRequests.slice(y) };
}

const kLauncherQuery = 'cmd package query-activities --components -a android.intent.action.MAIN -c android.intent.category.LAUNCHER';

test('GET android/apps/{pkg}: the launcher entry of the app; a package that is no launcher app, or none, is 404', async () => {
  let app: unknown;
  assert.deepEqual((await sent(async () => (app = await client().getApp(box.id, kApp)))).shell, [kLauncherQuery]);
  assert.deepEqual(app, { packageName: kApp, activityName: '.Main', activityClassName: `${kApp}.Main` });
  const raw = await srv.raw('a', 'GET', `/boxes/${box.id}/android/apps/${kApp}`);
  assert.equal(raw.status, 200);
  assert.match(raw.contentType, /^application\/json/);
  assert.deepEqual(JSON.parse(raw.text), app);

  // A system package of the capture, installed but without a launcher activity.
  const { shell } = await sent(async () => {
    const err = await rejects(client().getApp(box.id, 'com.android.providers.telephony'), 404, 'PACKAGE_NOT_FOUND');
    assert.match(err.message, /is installed .* but is no launcher app/);
  });
  assert.deepEqual(shell, [kLauncherQuery, "pm path 'com.android.providers.telephony'"]);
  await rejects(client().getApp(box.id, 'no.such.app'), 404, 'PACKAGE_NOT_FOUND');
});

test('GET android/packages/simple: `pm list packages -f -3` (the default, thirdParty), `-f -s` for system; paths with == split on the last =', async () => {
  let r: Awaited<ReturnType<ReturnType<typeof client>['listPackagesSimple']>> | undefined;
  assert.deepEqual((await sent(async () => (r = await client().listPackagesSimple(box.id)))).shell, ['pm list packages -f -3']);
  const third = dev.packages.filter((p) => !p.system);
  assert.equal(r!.data.length, third.length);
  assert.deepEqual(r!.data.find((p) => p.packageName === kYoutube.packageName), kYoutube);
  assert.ok(r!.data.every((p) => p.pkgType === 'thirdParty' && p.apkPath.startsWith('/data/app/')));

  const both = await sent(async () => (r = await client().listPackagesSimple(box.id, { pkgType: ['system', 'thirdParty'] })));
  assert.deepEqual(both.shell.sort(), ['pm list packages -f -3', 'pm list packages -f -s']);
  assert.equal(r!.data.length, dev.packages.length);
  assert.deepEqual(r!.data.find((p) => p.packageName === 'android'), { apkPath: '/system/framework/framework-res.apk', packageName: 'android', pkgType: 'system' });
  // The wire: the query as the SDK sends it, and the exact answer shape.
  const raw = await srv.raw('a', 'GET', `/boxes/${box.id}/android/packages/simple?pkgType=system`);
  assert.equal(raw.status, 200);
  const body = JSON.parse(raw.text) as { data: Array<Record<string, unknown>> };
  assert.deepEqual(Object.keys(body), ['data']);
  assert.deepEqual(Object.keys(body.data[0]!).sort(), ['apkPath', 'packageName', 'pkgType']);
  assert.ok(body.data.every((p) => p.pkgType === 'system'));

  for (const q of ['pkgType=x', `pkgType=${Array(17).fill('system').join(',')}`, 'pkgType=system%3Bid']) {
    const bad = await srv.raw('a', 'GET', `/boxes/${box.id}/android/packages/simple?${q}`);
    assert.equal(bad.status, 400, q);
    assert.equal(JSON.parse(bad.text).code, 'INVALID_REQUEST');
  }
});

test('GET android/packages/{pkg}/activities: read from the base APK `pm path` names, pulled over sync; read once per APK', async () => {
  let r: Awaited<ReturnType<ReturnType<typeof client>['listActivities']>> | undefined;
  const first = await sent(async () => (r = await client().listActivities(box.id, kSelendroid)));
  assert.deepEqual(first.shell, [`pm path '${kSelendroid}'`]);
  assert.deepEqual(first.sync, [`STAT ${kSelendroidApk}`, `RECV ${kSelendroidApk}`]);
  const act = (name: string, isExported: boolean, main = false) => ({ name, className: `${kSelendroid}${name}`, packageName: kSelendroid, isExported, isMain: main, isLauncher: main });
  assert.deepEqual(r!.data, [
    act('.HomeScreenActivity', true, true),
    act('.WebViewActivity', false),
    act('.MultipleWebViewsActivity', false),
    act('.RegisterUserActivity', false),
    act('.VerifyUserActivity', false),
    act('.SearchUsersActivity', true),
  ]);
  const again = await sent(() => client().listActivities(box.id, kSelendroid));
  assert.deepEqual(again.sync, [`STAT ${kSelendroidApk}`], 'the same APK (path, size, time) is not pulled again');

  await rejects(client().listActivities(box.id, 'no.such.app'), 404, 'PACKAGE_NOT_FOUND');
  // An APK that is no ZIP: the device's file is not an APK boxflow can read.
  dev.writeFile(`/data/app/~~YWJj==/${kApp}-eHl6==/base.apk`, 'not a zip');
  const err = await rejects(client().listActivities(box.id, kApp), 422, 'UNPROCESSABLE');
  assert.doesNotMatch(err.message, /boxflow-android-|\/tmp\//, 'no path of the server in the message');
});

test('DELETE android/packages/{pkg}: `pm uninstall` (-k with keepData), the body `{}` as the SDK sends it; unknown 404, a system package 422', async () => {
  dev.packages.push({ packageName: 'com.example.gone', apkPath: '/data/app/com.example.gone-1/base.apk', system: false, versionName: '1' });
  dev.packages.push({ packageName: 'com.example.kept', apkPath: '/data/app/com.example.kept-1/base.apk', system: false, versionName: '1' });
  const raw = await sent(async () => {
    const r = await srv.raw('a', 'DELETE', `/boxes/${box.id}/android/packages/com.example.gone`, {});
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
  });
  assert.deepEqual(raw.shell, ["pm path 'com.example.gone'", "pm uninstall 'com.example.gone'"]);
  const kept = await sent(() => client().uninstallPackage(box.id, 'com.example.kept', { keepData: true }));
  assert.deepEqual(kept.shell, ["pm path 'com.example.kept'", "pm uninstall -k 'com.example.kept'"]);
  assert.deepEqual(dev.uninstalled, [{ packageName: 'com.example.gone', keepData: false }, { packageName: 'com.example.kept', keepData: true }]);
  // No body at all is `{}` too.
  dev.packages.push({ packageName: 'com.example.bare', apkPath: '/data/app/com.example.bare-1/base.apk', system: false, versionName: '1' });
  assert.equal((await srv.raw('a', 'DELETE', `/boxes/${box.id}/android/packages/com.example.bare`)).status, 204);

  const gone = await sent(() => rejects(client().uninstallPackage(box.id, 'com.example.gone'), 404, 'PACKAGE_NOT_FOUND'));
  assert.deepEqual(gone.shell, ["pm path 'com.example.gone'"], 'nothing is uninstalled that is not there');
  const err = await rejects(client().uninstallPackage(box.id, 'com.android.providers.telephony'), 422, 'UNPROCESSABLE');
  assert.match(err.message, /DELETE_FAILED_INTERNAL_ERROR/);
  for (const body of [{ keepData: 'yes' }, { keepData: 1 }]) {
    const r = await srv.raw('a', 'DELETE', `/boxes/${box.id}/android/packages/${kApp}`, body);
    assert.equal(r.status, 400);
    assert.match(JSON.parse(r.text).message, /^\/keepData/);
  }
});

test('GET android/connect-address: an emulator\'s adb port (console + 1) and a network device\'s serial; a USB device has none: 501', async () => {
  assert.deepEqual(await client().getConnectAddress(box.id), { adb: '127.0.0.1:5561' });
  const net = await client().createAndroidBox({ config: { deviceSerial: kNetwork } });
  const usb = await client().createAndroidBox({ config: { deviceSerial: kUsb } });
  try {
    const r = await srv.raw('a', 'GET', `/boxes/${net.id}/android/connect-address`);
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.text), { adb: kNetwork });
    const err = await rejects(client().getConnectAddress(usb.id), 501, 'NOT_OFFERED_LOCALLY');
    assert.match(err.message, /R58M12ABCDE is attached to the adb server .* without a network address/);
  } finally {
    await client().terminateBox(net.id);
    await client().terminateBox(usb.id);
  }
  // An adb server on another machine: its emulators' and loopback devices' ports are that machine's.
  const remote = { host: '10.0.0.7', port: 5037 };
  assert.deepEqual(connectAddress('emulator-5554', { host: '127.0.0.1', port: 5037 }), { adb: '127.0.0.1:5555' });
  assert.match((connectAddress('emulator-5554', remote) as { why: string }).why, /emulator of the adb server at 10\.0\.0\.7:5037, another machine/);
  assert.match((connectAddress('127.0.0.1:7401', remote) as { why: string }).why, /loopback of the adb server at 10\.0\.0\.7:5037/);
  assert.deepEqual(connectAddress('10.0.0.8:7401', remote), { adb: '10.0.0.8:7401' });
  assert.deepEqual(connectAddress('[::1]:5555', { host: '::1', port: 5037 }), { adb: '[::1]:5555' });
});

test('app backups (backup, backup-all, restore) and the Appium URL: 501 NOT_OFFERED_LOCALLY after the key and the box; nothing reaches the device', async () => {
  const mark = dev.services.length;
  for (const [path, json] of [[`/android/packages/${kApp}/backup`, undefined], ['/android/packages/backup-all', undefined], ['/android/packages/restore', { backup: {} }], ['/android/connect-url/appium', {}]] as const) {
    const mine = await srv.raw('a', 'POST', `/boxes/${box.id}${path}`, json);
    assert.equal(mine.status, 501, `${path}: ${mine.text}`);
    const body = JSON.parse(mine.text) as { code: string; message: string };
    assert.equal(body.code, 'NOT_OFFERED_LOCALLY');
    assert.match(body.message, /boxflow serve does not offer it/);
    assert.equal((await srv.raw('b', 'POST', `/boxes/${box.id}${path}`, json)).status, 404, `${path} for another tenant`);
  }
  assert.deepEqual(dev.services.slice(mark), []);
});

test('tried as an attacker: another tenant\'s box is 404, names with metacharacters or `..` are 400 before any device command, huge ones 414/431', async () => {
  const other = srv.client('b');
  await rejects(other.getApp(box.id, kApp), 404, 'BOX_NOT_FOUND');
  await rejects(other.listPackagesSimple(box.id), 404, 'BOX_NOT_FOUND');
  await rejects(other.listActivities(box.id, kSelendroid), 404, 'BOX_NOT_FOUND');
  await rejects(other.uninstallPackage(box.id, kApp), 404, 'BOX_NOT_FOUND');
  await rejects(other.getConnectAddress(box.id), 404, 'BOX_NOT_FOUND');
  assert.ok(dev.packages.some((p) => p.packageName === kApp), 'another tenant uninstalled nothing');

  const names = ["x;id #", 'com.example.app$(id)', 'com.example.app`id`', "com.example.app'x", 'com.example.app;reboot', '..', 'a..b', 'com.example.app\nid', 'com.example.app%00', 'com.example.app/../..'];
  const mark = dev.services.length;
  for (const name of names) {
    const p = encodeURIComponent(name);
    for (const [method, path] of [['GET', `/android/apps/${p}`], ['GET', `/android/packages/${p}/activities`], ['DELETE', `/android/packages/${p}`]] as const) {
      const r = await srv.raw('a', method, `/boxes/${box.id}${path}`);
      assert.ok(r.status === 400 || r.status === 404, `${method} ${path}: ${r.status} ${r.text}`);
      if (r.status === 400) assert.equal(JSON.parse(r.text).code, 'INVALID_REQUEST');
    }
  }
  assert.deepEqual(dev.services.slice(mark), [], 'a refused name never reaches the device');
  assert.equal((await srv.raw('a', 'GET', `/boxes/${box.id}/android/apps/${'a.'.repeat(60)}b`)).status, 414);
  assert.equal((await srv.raw('a', 'GET', `/boxes/${box.id}/android/packages/simple?pkgType=${'system,'.repeat(3000)}`)).status, 431);
  assert.equal((await srv.raw('a', 'DELETE', `/boxes/${box.id}/android/packages/${kApp}`, { keepData: true, pad: 'x'.repeat(3 * 2 ** 20) })).status, 413);
  assert.deepEqual(dev.unquotedLines, [], 'no command line carried a metacharacter outside quotes');
});
