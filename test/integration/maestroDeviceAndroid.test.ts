// Maestro flows (issue 23) on an Android box: the embedded server with the fake adb server (a TEST
// DOUBLE speaking the real adb protocol, test/support/fakeAdbServer.ts). Device state runs through
// the box's commands endpoint (POST /boxes/{id}/commands): each command reaches the device as one
// quoted word of `sh -c`; the exact device command lines are asserted. What the device cannot do
// fails when the step runs, with a code and the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMaestroYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { FlowResult, StepRecord } from '../../src/runner/types.js';
import { shellWords, type FakeDevice } from '../support/fakeAdbServer.js';
import { useAndroidServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const kSerial = 'emulator-5556';
const kApp = 'com.example.maps';
const local = useAndroidServer('maestro-android', [kSerial]);
const device = (): FakeDevice => local.fake.device(kSerial);

/** The device's state as these commands change it (constructed outputs, in the format of the AOSP shell commands). */
const state = { airplane: false, night: false, granted: new Set<string>(), rotation: 0, kills: [] as string[] };
let hooked = false;
function hook(): void {
  if (hooked) return;
  hooked = true;
  const d = device();
  d.packages.push({ packageName: kApp, apkPath: `/data/app/${kApp}-1/base.apk`, versionName: '1.0', launcher: `${kApp}.Main` } as never);
  // ConnectivityService's shell command: bare, the state; enable/disable, nothing.
  d.on(/^cmd connectivity airplane-mode$/, () => `${state.airplane ? 'enabled' : 'disabled'}\n`);
  d.on(/^cmd connectivity airplane-mode (enable|disable)$/, (m) => ((state.airplane = m[1] === 'enable'), ''));
  // `dumpsys package` of the app: its requested permissions (a runtime one, a normal one).
  d.on(new RegExp(`^dumpsys package '${kApp.replaceAll('.', '\\.')}'$`), () =>
    `Packages:\n  Package [${kApp}] (1a2b3c):\n    userId=10200\n    requested permissions:\n      android.permission.ACCESS_FINE_LOCATION\n      android.permission.INTERNET\n    install permissions:\n      android.permission.INTERNET: granted=true\n`);
  // PermissionManager: a normal permission is not a runtime one, so pm refuses to change it.
  d.on(/^pm (grant|revoke) (\S+) (\S+)$/, (m) => {
    const perm = shellWords(m[3]!)[0]!;
    if (perm === 'android.permission.INTERNET') return `Exception occurred while executing '${m[1]}':\njava.lang.SecurityException: Permission ${perm} requested by ${kApp} is not a changeable permission type\n`;
    if (m[1] === 'grant') state.granted.add(perm);
    else state.granted.delete(perm);
    return '';
  });
  for (const re of [/^appops set com\.android\.shell android:mock_location allow$/, /^cmd location set-location-enabled true$/, /^cmd location providers (?:add-test-provider|set-test-provider-enabled) (?:gps|network)(?: true)?$/, /^cmd location providers set-test-provider-location (?:gps|network) --location '-?[\d.]+,-?[\d.]+'$/]) d.on(re, () => '');
  d.on(/^settings put system accelerometer_rotation 0$/, () => '');
  d.on(/^settings put system user_rotation (\d)$/, (m) => ((state.rotation = Number(m[1])), ''));
  d.on(/^cmd uimode night$/, () => `Night mode: ${state.night ? 'yes' : 'no'}\n`);
  d.on(/^cmd uimode night (yes|no)$/, (m) => ((state.night = m[1] === 'yes'), `Night mode: ${m[1]}\n`));
  d.on(/^am kill (\S+)$/, (m) => (state.kills.push(shellWords(m[1]!)[0]!), ''));
}

/** The device commands since `mark`, without the box's own set-up and tear-down: each commands-endpoint line as the command it wraps. */
function commandsSince(mark: number): string[] {
  return device()
    .shellCommands.slice(mark)
    .filter((line) => !/^(?:getprop|mkdir -p '\/data\/local\/tmp\/boxflow\/[\w-]+'|rm -rf '\/data\/local\/tmp\/boxflow\/[\w-]+')$/.test(line))
    .map((line) => {
      const m = /^sh -c (.+); echo boxflow-exit:\$\?$/s.exec(line);
      return m ? shellWords(m[1]!)[0]! : line;
    });
}

async function run(name: string, commands: string): Promise<{ flow: FlowResult; steps: StepRecord[]; cmds: string[] }> {
  hook();
  const file = join(local.dir, `${name}.yaml`);
  const text = `appId: ${kApp}\n---\n${commands}`;
  writeFileSync(file, text);
  const mark = device().shellCommands.length;
  const r = await runFlows([parseMaestroYaml(text, file)], testRunOptions(local.dir, { outputDir: join(local.dir, `out-${name}`), boxes: { ids: [], createLinux: 0, createAndroid: 1 } }), {
    client: local.client,
    reporter: new ReporterHost([]),
    secrets: [local.key],
  });
  const flow = r.flows[0]!;
  return { flow, steps: flow.attempts.at(-1)!.steps, cmds: commandsSince(mark) };
}
const why = (f: FlowResult, steps: StepRecord[]) => JSON.stringify(f.error ?? steps.find((s) => s.status === 'failed')?.error);
const q = (s: string) => `'${s}'`;

test('setAirplaneMode and toggleAirplaneMode run `cmd connectivity airplane-mode`, reading the state first', async () => {
  const { flow, steps, cmds } = await run('airplane', '- setAirplaneMode: enabled\n- toggleAirplaneMode\n- setAirplaneMode:\n    value: disabled\n');
  assert.equal(flow.status, 'passed', why(flow, steps));
  assert.deepEqual(cmds, [
    'cmd connectivity airplane-mode', 'cmd connectivity airplane-mode enable',
    'cmd connectivity airplane-mode', 'cmd connectivity airplane-mode disable',
    'cmd connectivity airplane-mode', 'cmd connectivity airplane-mode disable',
  ]);
  assert.deepEqual(steps.map((s) => s.message), ['airplane mode on', 'airplane mode off', 'airplane mode off (it already was)']);
  assert.deepEqual(steps.map((s) => s.label), ['setAirplaneMode enabled', 'toggleAirplaneMode', 'setAirplaneMode value: disabled']);
  assert.deepEqual(device().unquotedLines.filter((l) => !/; echo boxflow-exit:\$\?$/.test(l)), [], 'every value quoted');
});

test('launchApp permissions: pm grant / revoke each Android permission before the app starts; Maestro\'s default {all: allow} grants what the app asks for', async () => {
  const { flow, steps, cmds } = await run('perms', '- launchApp:\n    permissions: { camera: deny, location: allow }\n- launchApp\n');
  assert.equal(flow.status, 'passed', why(flow, steps));
  const start = `am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -n '${kApp}/${kApp}.Main'`;
  const firstStart = cmds.indexOf(start);
  assert.deepEqual(cmds.slice(0, firstStart).filter((c) => /^pm (?:grant|revoke) /.test(c)), [
    `pm revoke ${q(kApp)} ${q('android.permission.CAMERA')}`,
    `pm grant ${q(kApp)} ${q('android.permission.ACCESS_FINE_LOCATION')}`,
    `pm grant ${q(kApp)} ${q('android.permission.ACCESS_COARSE_LOCATION')}`,
  ]);
  assert.ok(firstStart > 0 && cmds.indexOf(`am force-stop ${q(kApp)}`) > cmds.indexOf(`pm grant ${q(kApp)} ${q('android.permission.ACCESS_COARSE_LOCATION')}`), JSON.stringify(cmds));
  const second = cmds.slice(firstStart + 1);
  assert.deepEqual(second.filter((c) => c.startsWith('dumpsys') || /^pm (?:grant|revoke) /.test(c)), [
    `dumpsys package ${q(kApp)}`,
    `pm grant ${q(kApp)} ${q('android.permission.ACCESS_FINE_LOCATION')}`,
    `pm grant ${q(kApp)} ${q('android.permission.INTERNET')}`,
  ]);
  assert.match(steps[1]!.message ?? '', /^restarted com\.example\.maps; permissions of com\.example\.maps: \+ACCESS_FINE_LOCATION; left as they are: INTERNET \(Permission android\.permission\.INTERNET requested by com\.example\.maps is not a changeable permission type\)$/);
});

test('setLocation and travel set a test provider\'s location (Android 12+); an older device refuses when the step runs, saying why', async () => {
  const { flow, steps, cmds } = await run('location', '- setLocation: { latitude: 52.52, longitude: 13.405 }\n- travel:\n    points: ["52.52,13.405", "52.53,13.41"]\n    speed: 10000\n');
  assert.equal(flow.status, 'passed', why(flow, steps));
  assert.deepEqual(cmds.slice(0, 11), [
    'getprop ro.build.version.sdk',
    'appops set com.android.shell android:mock_location allow',
    'cmd location set-location-enabled true',
    'cmd location providers add-test-provider gps',
    'cmd location providers set-test-provider-enabled gps true',
    'cmd location providers add-test-provider network',
    'cmd location providers set-test-provider-enabled network true',
    `cmd location providers set-test-provider-location gps --location ${q('52.52,13.405')}`,
    `cmd location providers set-test-provider-location network --location ${q('52.52,13.405')}`,
    `cmd location providers set-test-provider-location gps --location ${q('52.52,13.405')}`,
    `cmd location providers set-test-provider-location network --location ${q('52.52,13.405')}`,
  ]);
  // travel: the first point, then 50 steps to the next (each on both providers), the last one the end point.
  const travelled = cmds.slice(9).filter((c) => c.includes(' gps '));
  assert.equal(travelled.length, 51);
  assert.equal(travelled.at(-1), `cmd location providers set-test-provider-location gps --location ${q('52.53,13.41')}`);

  device().props['ro.build.version.sdk'] = '30';
  try {
    const old = await run('location-old', '- setLocation: { latitude: 1, longitude: 2 }\n');
    assert.equal(old.flow.status, 'failed');
    assert.equal(old.steps[0]!.error?.code, 'UNPROCESSABLE');
    assert.match(old.steps[0]!.error!.message, /runs Android API 30; setting the location over adb needs Android 12 \(API 31\) or later \(`cmd location providers`\)\. An emulator's own `emu geo fix` is a console command/);
    assert.deepEqual(old.steps[0]!.source?.line, 3, 'at the Maestro command');
    assert.deepEqual(old.cmds, ['getprop ro.build.version.sdk']);
  } finally {
    device().props['ro.build.version.sdk'] = '33';
  }
});

test('clearKeychain is noted, not refused; killApp is process death; pressKey names Android keys; setOrientation and dark mode run device commands', async () => {
  const { flow, steps, cmds } = await run(
    'misc',
    '- clearKeychain\n- killApp\n- pressKey: Remote Dpad Center\n- pressKey: Remote Dpad Down\n- setOrientation: LANDSCAPE_LEFT\n- toggleDarkMode\n- assertDarkMode\n- setDarkMode: disabled\n- assertLightMode\n',
  );
  assert.equal(flow.status, 'passed', why(flow, steps));
  assert.equal(steps[0]!.message, 'clearKeychain: iOS-only, nothing to clear on an Android box (Maestro ignores it there too)');
  assert.deepEqual(state.kills, [kApp]);
  assert.deepEqual(cmds.filter((c) => /^(?:am kill|input keyevent|settings put|cmd uimode)/.test(c)), [
    `am kill ${q(kApp)}`,
    'input keyevent 23',
    'input keyevent 20',
    'settings put system accelerometer_rotation 0',
    'settings put system user_rotation 1',
    'cmd uimode night', 'cmd uimode night yes',
    'cmd uimode night',
    'cmd uimode night', 'cmd uimode night no',
    'cmd uimode night',
  ]);
  assert.equal(state.rotation, 1);
});

test('a point inside an element and a swipe from it: the device gets the point Maestro computes from the element\'s bounds', async () => {
  // The layout's `fans` is [667,575][787,646], `likes` [1203,575][1323,646] on a 1440×3060 screen.
  const { flow, steps, cmds } = await run('point', '- tapOn: { id: fans, point: "25%,50%" }\n- swipe:\n    from: { id: likes, point: "50%, 50%" }\n    direction: LEFT\n');
  assert.equal(flow.status, 'passed', why(flow, steps));
  const input = cmds.filter((c) => c.startsWith('input '));
  assert.match(input[0]!, /^input (?:tap 697 611|swipe 697 611 697 611 \d+)$/, input[0]);
  assert.match(input[1]!, /^input swipe 1263 611 144 611 \d+$/, input[1]);
});

test('openLink browser opens the link in Chrome (as Maestro: Chrome, else Firefox); autoVerify answers what shows, here nothing', async () => {
  hook();
  device().on(/^pm list packages$/, () => 'package:com.android.chrome\npackage:com.example.maps\n');
  device().on(/^am start -a android\.intent\.action\.VIEW -d ('[^']*') ('[^']*')$/, (m) => `Starting: Intent { act=android.intent.action.VIEW dat=${shellWords(m[1]!)[0]} pkg=${shellWords(m[2]!)[0]} }\n`);
  const { flow, steps, cmds } = await run('browser', '- openLink:\n    link: https://example.com/a b\n    browser: true\n    autoVerify: true\n');
  assert.equal(flow.status, 'passed', why(flow, steps));
  assert.deepEqual(cmds.filter((c) => c === 'pm list packages' || c.startsWith('am start')), ['pm list packages', `am start -a android.intent.action.VIEW -d ${q('https://example.com/a b')} ${q('com.android.chrome')}`]);
  assert.equal(steps[0]!.message, 'opened https://example.com/a b in com.android.chrome; auto-verify: no chooser or first-run screen showed');
});


test('addMedia puts the files in the gallery through the Box API\'s media album endpoints (the album made when missing)', async () => {
  hook();
  writeFileSync(join(local.dir, 'photo.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
  writeFileSync(join(local.dir, 'clip.mp4'), Buffer.from('not really a video'));
  const { flow, steps, cmds } = await run('media', '- addMedia:\n    - photo.png\n- addMedia:\n    files: [clip.mp4]\n');
  assert.equal(flow.status, 'passed', why(flow, steps));
  assert.ok(device().files.has('/sdcard/Pictures/boxflow/photo.png'), [...device().files.keys()].filter((k) => k.includes('boxflow')).join(', '));
  assert.ok(device().files.has('/sdcard/Pictures/boxflow/clip.mp4'));
  assert.deepEqual(steps.map((s) => s.label), ['addMedia [photo.png]', 'addMedia files: [clip.mp4]']);
  assert.match(steps[0]!.message ?? '', /^media photo\.png added to the album boxflow \(\/sdcard\/Pictures\/boxflow, 1 media\)$/);
  assert.ok(cmds.some((c) => c.includes('MEDIA_SCANNER_SCAN_FILE') && c.includes('/sdcard/Pictures/boxflow/photo.png')), 'the gallery is told');
});
