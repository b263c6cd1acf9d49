// Maestro flows (issue 23) on an Android box: the embedded server with the fake adb server (a TEST
// DOUBLE speaking the real adb protocol, test/support/fakeAdbServer.ts). Device state runs through
// the box's commands endpoint (POST /boxes/{id}/commands): each command reaches the device as one
// quoted word of `sh -c`; the exact device command lines are asserted. What the device cannot do
// fails when the step runs, with a code and the reason. What a flow sets up is put back before the next
// flow on the box (and at the end of the run on a box the user named): the exact lines, what the next
// flow finds, and a restore that fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadFlowFile, parseMaestroYaml } from '../../src/flow/index.js';
import type { Flow } from '../../src/flow/types.js';
import type { RunOptions } from '../../src/runner/options.js';
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
const state = {
  airplane: false,
  night: 'no',
  granted: new Set<string>(),
  kills: [] as string[],
  /** The shell's own mock_location app op mode; undefined: no entry (the op's default, deny). */
  mockLocation: undefined as string | undefined,
  locationOn: true,
  providers: new Set<string>(),
  /** What the device was like each time a flow read airplane or night mode. */
  seen: [] as Array<Record<string, unknown>>,
};
/** The parts of the device state a flow can change, as one value (the rotation from the fake device's settings table). */
const snapshot = () => ({
  airplane: state.airplane,
  night: state.night,
  granted: [...state.granted].sort(),
  mockLocation: state.mockLocation,
  locationOn: state.locationOn,
  providers: [...state.providers].sort(),
  rotation: [device().systemSettings.get('accelerometer_rotation'), device().systemSettings.get('user_rotation')],
});
/** Device commands made to fail (`Exception occurred` as a SecurityException prints) while a test wants them to. */
const failing = new Set<string>();
let hooked = false;
function hook(): void {
  if (hooked) return;
  hooked = true;
  const d = device();
  d.packages.push({ packageName: kApp, apkPath: `/data/app/${kApp}-1/base.apk`, versionName: '1.0', launcher: `${kApp}.Main` } as never);
  const fails = (cmd: string) => (failing.has(cmd) ? `Exception occurred while executing '${cmd.split(' ')[1]}':\njava.lang.SecurityException: not allowed for the test\n` : undefined);
  // ConnectivityService's shell command: bare, the state; enable/disable, nothing.
  d.on(/^cmd connectivity airplane-mode$/, () => (state.seen.push(snapshot()), `${state.airplane ? 'enabled' : 'disabled'}\n`));
  d.on(/^cmd connectivity airplane-mode (enable|disable)$/, (m) => fails(m[0]) ?? ((state.airplane = m[1] === 'enable'), ''));
  // `dumpsys package` of the app: its requested permissions (a runtime one, a normal one), and user 0's runtime permission states.
  d.on(new RegExp(`^dumpsys package '${kApp.replaceAll('.', '\\.')}'$`), () =>
    `Packages:\n  Package [${kApp}] (1a2b3c):\n    userId=10200\n    requested permissions:\n      android.permission.ACCESS_FINE_LOCATION\n      android.permission.INTERNET\n    install permissions:\n      android.permission.INTERNET: granted=true\n` +
    `    User 0: ceDataInode=8123 installed=true hidden=false suspended=false stopped=false notLaunched=false enabled=0 instant=false virtual=false\n      gids=[3003]\n      runtime permissions:\n` +
    `        android.permission.ACCESS_FINE_LOCATION: granted=${state.granted.has('android.permission.ACCESS_FINE_LOCATION')}, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]\n`);
  // PermissionManager: a normal permission is not a runtime one, so pm refuses to change it.
  d.on(/^pm (grant|revoke) (\S+) (\S+)$/, (m) => {
    const perm = shellWords(m[3]!)[0]!;
    if (perm === 'android.permission.INTERNET') return `Exception occurred while executing '${m[1]}':\njava.lang.SecurityException: Permission ${perm} requested by ${kApp} is not a changeable permission type\n`;
    if (m[1] === 'grant') state.granted.add(perm);
    else state.granted.delete(perm);
    return '';
  });
  // AppOpsService's shell command (Android 13 layout): the package's own entry, else "No operations." and the op's default.
  d.on(/^appops get com\.android\.shell android:mock_location$/, () => (state.mockLocation === undefined ? 'No operations.\nDefault mode: deny\n' : `MOCK_LOCATION: ${state.mockLocation}; time=+1s203ms ago\n`));
  d.on(/^appops set com\.android\.shell android:mock_location (allow|ignore|deny|default)$/, (m) => ((state.mockLocation = m[1] === 'deny' ? undefined : m[1]), ''));
  // LocationShellCommand: is-location-enabled prints true/false; the providers' commands print nothing (remove of a provider that is not a test one: an exception).
  d.on(/^cmd location is-location-enabled$/, () => `${state.locationOn}\n`);
  d.on(/^cmd location set-location-enabled (true|false)$/, (m) => fails(m[0]) ?? ((state.locationOn = m[1] === 'true'), ''));
  d.on(/^cmd location providers add-test-provider (gps|network)$/, (m) => (state.providers.add(m[1]!), ''));
  d.on(/^cmd location providers remove-test-provider (gps|network)$/, (m) =>
    state.providers.delete(m[1]!) ? '' : `Exception occurred while executing 'providers':\njava.lang.IllegalArgumentException: provider "${m[1]}" is not a test provider\n`);
  for (const re of [/^cmd location providers set-test-provider-enabled (?:gps|network) true$/, /^cmd location providers set-test-provider-location (?:gps|network) --location '-?[\d.]+,-?[\d.]+'$/]) d.on(re, () => '');
  // UiModeManagerService: bare, the mode; with one, the mode it now has.
  d.on(/^cmd uimode night$/, () => (state.seen.push(snapshot()), `Night mode: ${state.night}\n`));
  d.on(/^cmd uimode night (yes|no|auto)$/, (m) => ((state.night = m[1]!), `Night mode: ${m[1]}\n`));
  d.on(/^am kill (\S+)$/, (m) => (state.kills.push(shellWords(m[1]!)[0]!), ''));
}

/** The device commands since `mark`, without the box's own set-up and tear-down: each commands-endpoint line as the command it wraps. */
function commandsSince(mark: number, end?: number): string[] {
  return device()
    .shellCommands.slice(mark, end)
    .filter((line) => !/^(?:getprop|mkdir -p '\/data\/local\/tmp\/boxflow\/[\w-]+'|rm -rf '\/data\/local\/tmp\/boxflow\/[\w-]+'|rm -f '\/data\/local\/tmp\/boxflow\/[\w-]+\/\.boxflow-stderr-[\d-]+')$/.test(line))
    .map((line) => {
      // The command, without the `cd` into the box's dir that each one starts with.
      const m = /^sh -c (.+); echo boxflow-exit:\$\?$/s.exec(line);
      return m ? shellWords(m[1]!)[0]!.replace(/^cd '\/data\/local\/tmp\/boxflow\/[\w-]+' \|\| exit 1; /, '') : line;
    });
}

async function run(name: string, commands: string): Promise<{ flow: FlowResult; steps: StepRecord[]; cmds: string[] }> {
  hook();
  const file = join(local.dir, `${name}.yaml`);
  const text = `appId: ${kApp}\n---\n${commands}`;
  writeFileSync(file, text);
  const mark = device().shellCommands.length;
  // The flow's own lines: the device is put back after it, before its box is terminated.
  let end: number | undefined;
  const r = await runFlows([parseMaestroYaml(text, file)], testRunOptions(local.dir, { outputDir: join(local.dir, `out-${name}`), boxes: { ids: [], createLinux: 0, createAndroid: 1 } }), {
    client: local.client,
    reporter: new ReporterHost([{ name: 'end', reporter: { onFlowEnd: () => void (end = device().shellCommands.length) } }]),
    secrets: [local.key],
  });
  const flow = r.flows[0]!;
  return { flow, steps: flow.attempts.at(-1)!.steps, cmds: commandsSince(mark, end) };
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
  assert.deepEqual(cmds.slice(0, 13), [
    'getprop ro.build.version.sdk',
    // As they were, read before the first change (the pool puts them back before another flow gets the box).
    'appops get com.android.shell android:mock_location',
    'cmd location is-location-enabled',
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
  const travelled = cmds.slice(11).filter((c) => c.includes(' gps '));
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
  const rotationBefore = device().systemSettings.get('user_rotation');
  const { flow, steps, cmds } = await run(
    'misc',
    '- clearKeychain\n- killApp\n- pressKey: Remote Dpad Center\n- pressKey: Remote Dpad Down\n- setOrientation: LANDSCAPE_LEFT\n- toggleDarkMode\n- assertDarkMode\n- setDarkMode: disabled\n- assertLightMode\n',
  );
  assert.equal(flow.status, 'passed', why(flow, steps));
  assert.equal(steps[0]!.message, 'clearKeychain: iOS-only, nothing to clear on an Android box (Maestro ignores it there too)');
  assert.deepEqual(state.kills, [kApp]);
  assert.deepEqual(cmds.filter((c) => /^(?:am kill|input keyevent|settings (?:get|put)|cmd uimode)/.test(c)), [
    `am kill ${q(kApp)}`,
    'input keyevent 23',
    'input keyevent 20',
    'settings get system accelerometer_rotation',
    'settings get system user_rotation',
    'settings put system accelerometer_rotation 0',
    'settings put system user_rotation 1',
    'cmd uimode night', 'cmd uimode night yes',
    'cmd uimode night',
    'cmd uimode night', 'cmd uimode night no',
    'cmd uimode night',
  ]);
  assert.equal(device().systemSettings.get('user_rotation'), rotationBefore, 'the rotation is put back after the run, before the box goes');
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

// ------------------------------------------------------------------ device state between flows (issue 23)

/** The state a flow sets up below, the device as the run finds it, and the lines that put it back (in the order the pool sends them). */
const kSetUp = `appId: ${kApp}\n---\n- setAirplaneMode: enabled\n- setLocation: { latitude: 52.52, longitude: 13.405 }\n- setPermissions: { permissions: { location: deny } }\n- setOrientation: LANDSCAPE_LEFT\n- toggleDarkMode\n`;
const kFound = { airplane: false, night: 'no', granted: ['android.permission.ACCESS_FINE_LOCATION'], mockLocation: undefined, locationOn: false, providers: [], rotation: ['1', undefined] };
const kPutBack = [
  `pm grant ${q(kApp)} ${q('android.permission.ACCESS_FINE_LOCATION')}`,
  'cmd location providers remove-test-provider gps',
  'cmd location providers remove-test-provider network',
  'cmd location set-location-enabled false',
  'appops set com.android.shell android:mock_location deny',
  'cmd connectivity airplane-mode disable',
  'settings delete system user_rotation',
  'settings put system accelerometer_rotation 1',
  'cmd uimode night no',
];

/** The device as kFound says: nothing set up, FINE_LOCATION granted, location off, auto-rotate on with no user_rotation. */
function setFound(): void {
  hook();
  Object.assign(state, { airplane: false, night: 'no', mockLocation: undefined, locationOn: false });
  state.granted = new Set(['android.permission.ACCESS_FINE_LOCATION']);
  state.providers.clear();
  state.seen.length = 0;
  device().systemSettings.set('accelerometer_rotation', '1');
  device().systemSettings.delete('user_rotation');
  failing.clear();
}

/** Flows on one box: the device commands of each flow and between them (marks taken when a flow begins and ends). */
async function runOnBox(name: string, flows: Flow[], boxes: RunOptions['boxes'], onFlowEnd?: () => void) {
  const marks: Array<{ at: 'begin' | 'end'; n: number }> = [];
  const warnings: string[] = [];
  const reporter = new ReporterHost([{ name: 'marks', reporter: {
    onFlowBegin: () => void marks.push({ at: 'begin', n: device().shellCommands.length }),
    onFlowEnd: () => {
      marks.push({ at: 'end', n: device().shellCommands.length });
      onFlowEnd?.();
    },
  } }]);
  const start = device().shellCommands.length;
  const result = await runFlows(flows, testRunOptions(local.dir, { outputDir: join(local.dir, `out-${name}`), boxes }), { client: local.client, reporter, secrets: [local.key], warn: (m) => void warnings.push(m) });
  const between = (a: number, b?: number) => commandsSince(a, b);
  return { result, marks, warnings, start, between, all: () => between(start) };
}

async function stateFlows(name: string): Promise<Flow[]> {
  const first = join(local.dir, `${name}-first.yaml`);
  writeFileSync(first, kSetUp);
  // The next flow reads the device (a boxflow flow, on an Android box): it must find it as the run did.
  const second = join(local.dir, `${name}-second.flow.yaml`);
  writeFileSync(second, 'name: reads the device\nbox: android\nsteps:\n  - assertDevice: { darkMode: false, airplaneMode: false }\n');
  return [parseMaestroYaml(kSetUp, first), await loadFlowFile(second)];
}

test('device state a flow sets up is put back before the next flow on the box: the exact lines, and the next flow finds the device as the run did', async () => {
  setFound();
  const flows = await stateFlows('between');
  const { result, marks, warnings, between } = await runOnBox('between', flows, { ids: [], createLinux: 0, createAndroid: 1 });
  const [first, second] = result.flows;
  assert.equal(first!.status, 'passed', why(first!, first!.attempts.at(-1)!.steps));
  assert.equal(second!.status, 'passed', why(second!, second!.attempts.at(-1)!.steps));
  assert.equal(first!.box?.id, second!.box?.id, 'one box');
  // Before its first change of each thing, the flow read it.
  assert.deepEqual(between(marks[0]!.n, marks[1]!.n), [
    'cmd connectivity airplane-mode', 'cmd connectivity airplane-mode enable',
    'getprop ro.build.version.sdk',
    'appops get com.android.shell android:mock_location', 'cmd location is-location-enabled',
    'appops set com.android.shell android:mock_location allow', 'cmd location set-location-enabled true',
    'cmd location providers add-test-provider gps', 'cmd location providers set-test-provider-enabled gps true',
    'cmd location providers add-test-provider network', 'cmd location providers set-test-provider-enabled network true',
    `cmd location providers set-test-provider-location gps --location ${q('52.52,13.405')}`, `cmd location providers set-test-provider-location network --location ${q('52.52,13.405')}`,
    // COARSE_LOCATION was not granted: revoking it changes nothing, so nothing is put back for it.
    `dumpsys package ${q(kApp)}`, `pm revoke ${q(kApp)} ${q('android.permission.ACCESS_FINE_LOCATION')}`, `pm revoke ${q(kApp)} ${q('android.permission.ACCESS_COARSE_LOCATION')}`,
    'settings get system accelerometer_rotation', 'settings get system user_rotation', 'settings put system accelerometer_rotation 0', 'settings put system user_rotation 1',
    'cmd uimode night', 'cmd uimode night yes',
  ]);
  assert.deepEqual(between(marks[1]!.n, marks[2]!.n), kPutBack, 'between the flows: exactly the lines that put the device back');
  assert.deepEqual(state.seen.at(-1), kFound, 'the second flow reads the device as the run found it');
  assert.deepEqual(snapshot(), kFound);
  assert.deepEqual(warnings, []);
  assert.equal(result.warnings, undefined);
  assert.deepEqual(device().unquotedLines.filter((l) => !/; echo boxflow-exit:\$\?$/.test(l)), [], 'every value quoted');
});

test('a box the user named is put back at the end of the run; the device of a box the run created is put back before the box is terminated', async () => {
  setFound();
  const [first] = await stateFlows('named');
  const box = await local.client.createAndroidBox({ wait: true });
  try {
    const { result, marks, between } = await runOnBox('named', [first!], { ids: [box.id], createLinux: 0, createAndroid: 0 });
    assert.equal(result.flows[0]!.status, 'passed', why(result.flows[0]!, result.flows[0]!.attempts.at(-1)!.steps));
    assert.deepEqual(between(marks[1]!.n), kPutBack, 'after the last flow: the lines that put the device back, and nothing else');
    assert.deepEqual(snapshot(), kFound);
  } finally {
    await local.client.terminateBox(box.id, {});
  }

  setFound();
  const created = await runOnBox('created', [first!], { ids: [], createLinux: 0, createAndroid: 1 });
  assert.equal(created.result.flows[0]!.status, 'passed');
  // The box goes, the device stays (the next box of the service gets it): it is put back first.
  assert.deepEqual(created.between(created.marks[1]!.n).filter((c) => kPutBack.includes(c)), kPutBack, 'a created box\'s device is put back before the box is terminated');
  assert.deepEqual(snapshot(), kFound);
});

test('a restore that fails is a warning, and the box is not used again: a box the run created is replaced, a named one leaves the flows that need it failed with the reason', async () => {
  setFound();
  const flows = await stateFlows('fails');
  // After the first flow, airplane mode cannot be turned off again (the rest is still put back).
  const spare = 'emulator-5558';
  local.fake.addDevice(spare, (d) => {
    d.packages.push({ packageName: kApp, apkPath: `/data/app/${kApp}-1/base.apk`, versionName: '1.0', launcher: `${kApp}.Main` } as never);
    d.on(/^cmd connectivity airplane-mode$/, () => 'disabled\n');
    d.on(/^cmd uimode night$/, () => 'Night mode: no\n');
  });
  try {
    const { result, marks, warnings, between } = await runOnBox('fails', flows, { ids: [], createLinux: 0, createAndroid: 1 }, () => failing.add('cmd connectivity airplane-mode disable'));
    const [first, second] = result.flows;
    assert.equal(first!.status, 'passed');
    assert.equal(second!.status, 'passed', `a new box takes the retired one's place: ${why(second!, second!.attempts.at(-1)!.steps)}`);
    assert.notEqual(second!.box?.id, first!.box?.id);
    assert.deepEqual(between(marks[1]!.n, marks[2]!.n), kPutBack, 'every line is tried');
    assert.deepEqual(snapshot(), { ...kFound, airplane: true }, 'all but the failed one put back');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, new RegExp(`^box ${first!.box!.id} is not used again: could not put back airplane mode \\(\`cmd connectivity airplane-mode disable\` failed: Exception occurred while executing 'connectivity': java\\.lang\\.SecurityException: not allowed for the test\\); a new box takes its place$`));
    assert.deepEqual(result.warnings, [{ code: 'DEVICE_ERROR', message: warnings[0] }]);
    assert.equal(result.status, 'passed', 'a warning does not fail the run');
  } finally {
    local.fake.removeDevice(spare);
  }

  // A box the user named: the flows still to run fail, saying why.
  setFound();
  const box = await local.client.createAndroidBox({ wait: true });
  try {
    const named = await runOnBox('fails-named', flows, { ids: [box.id], createLinux: 0, createAndroid: 0 }, () => failing.add('cmd connectivity airplane-mode disable'));
    const [, second] = named.result.flows;
    assert.equal(second!.status, 'failed');
    assert.equal(second!.error?.code, 'BOX_UNAVAILABLE');
    assert.match(second!.error!.message, new RegExp(`box ${box.id} was retired: could not put back airplane mode`));
    assert.match(named.warnings[0]!, /the flows still to run need another of the boxes named$/);
    assert.equal(named.between(named.marks.at(-1)!.n).filter((c) => kPutBack.includes(c)).length, 0, 'a retired box is not tried again at the end');
  } finally {
    await local.client.terminateBox(box.id, {});
  }
});
