// The mobile-flow steps on an Android box: the embedded server (`boxflow serve` in-process) with
// the fake adb server (a TEST DOUBLE speaking the real adb protocol: test/support/fakeAdbServer.ts).
// Each step must reach the device as the command a user would expect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFlowYaml, parseMaestroYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { FlowResult, RunResult, StepRecord } from '../../src/runner/types.js';
import type { FakeDevice } from '../support/fakeAdbServer.js';
import { useAndroidServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const kSerial = 'emulator-5554';
const kApp = 'io.selendroid.testapp';
const local = useAndroidServer('runner', [kSerial]);
const { dir } = local;
const kApk = join(import.meta.dirname, '../fixtures/android/split-apk/base.apk');
/** The box's device (the fake adb server starts in a before hook). */
const device = (): FakeDevice => local.fake.device(kSerial);

/** Runs a boxflow flow, or a Maestro flow file (a config, `---`, commands); `env` as `-e` gives it. */
async function run(name: string, yaml: string, env: Record<string, string> = {}): Promise<FlowResult> {
  const file = join(dir, `${name}.flow.yaml`);
  writeFileSync(file, yaml);
  const flow = yaml.includes('\n---\n') ? parseMaestroYaml(yaml, file) : parseFlowYaml(yaml, file);
  const r: RunResult = await runFlows([flow], testRunOptions(dir, { workers: 1, env, boxes: { ids: [], createLinux: 0, createAndroid: 1 } }), {
    client: local.client,
    reporter: new ReporterHost([]),
    secrets: [local.key],
  });
  return r.flows[0]!;
}

const steps = (f: FlowResult): StepRecord[] => f.attempts.at(-1)!.steps;
const why = (f: FlowResult) => JSON.stringify(f.error ?? steps(f).find((s) => s.status !== 'passed')?.error);
const since = (n: number) => device().shellCommands.slice(n);

test('launchApp (flow appId, clearState, stopApp), stopApp, clearState, back and home become device commands', async () => {
  const setup = await run('install', ['box: android', 'steps:', `  - installApp: ${kApk}`].join('\n') + '\n');
  assert.equal(setup.status, 'passed', why(setup));
  const mark = device().shellCommands.length;
  const flow = await run(
    'app',
    [
      'box: android',
      `appId: ${kApp}`,
      'steps:',
      '  - launchApp: { clearState: true }',
      '  - back',
      '  - home',
      '  - stopApp',
      '  - launchApp: { stopApp: false }',
      '  - clearState',
    ].join('\n') + '\n',
  );
  assert.equal(flow.status, 'passed', why(flow));
  const cmds = since(mark);
  const start = `am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -n '${kApp}/${kApp}.HomeScreenActivity'`;
  const order = [`pm clear '${kApp}'`, `am force-stop '${kApp}'`, start, 'input keyevent 4', 'input keyevent 3', `am force-stop '${kApp}'`, start, `pm clear '${kApp}'`];
  let at = 0;
  for (const want of order) {
    const i = cmds.indexOf(want, at);
    assert.ok(i >= 0, `"${want}" after command ${at} in ${JSON.stringify(cmds)}`);
    at = i + 1;
  }
  // launchApp without stopApp only opens: one force-stop (the stopApp step) between the two starts.
  const starts = cmds.flatMap((c, i) => (c === start ? [i] : []));
  assert.equal(cmds.slice(starts[0]!, starts[1]!).filter((c) => c === `am force-stop '${kApp}'`).length, 1);
  assert.deepEqual(steps(flow).map((s) => s.label), ['launchApp', 'back', 'home', 'stopApp', 'launchApp', 'clearState']);
  assert.ok(steps(flow)[1]!.actionId, 'back is an action with an id');
});

test('launchApp with no appId anywhere fails before touching the device, saying what to set', async () => {
  const mark = device().shellCommands.length;
  const flow = await run('no-app', ['box: android', 'steps:', '  - launchApp'].join('\n') + '\n');
  assert.equal(flow.status, 'failed');
  assert.match(steps(flow)[0]!.error!.message, /launchApp needs an app: give it appId, or set appId: at the top of the flow/);
  assert.ok(!since(mark).some((c) => c.startsWith('am ') || c.startsWith('pm clear')), JSON.stringify(since(mark)));
});

test('eraseText: a count presses backspace that many times, bare empties the field; inputRandom types', async () => {
  device().field = 'hello world';
  const first = await run('erase3', ['box: android', 'steps:', '  - eraseText: 3'].join('\n') + '\n');
  assert.equal(first.status, 'passed', why(first));
  assert.equal(device().field, 'hello wo');
  const flow = await run('erase', ['box: android', 'steps:', '  - eraseText', '  - inputRandom: { type: number, length: 6 }'].join('\n') + '\n');
  assert.equal(flow.status, 'passed', why(flow));
  assert.match(device().field, /^[1-9]\d{5}$/, `the field holds ${JSON.stringify(device().field)}`);
});

test('a script step and assertTrue share output across the flow and its runFlow; a false condition fails the step', async () => {
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  writeFileSync(join(dir, 'scripts/count.js'), 'output.count = (output.count || 0) + Number(STEP); console.log("count", output.count)\n');
  writeFileSync(join(dir, 'sub.yaml'), ['steps:', '  - runScript: { file: scripts/count.js, env: { STEP: 5 } }'].join('\n') + '\n');
  const flow = await run(
    'script',
    [
      'box: android',
      'env: { STEP: "2" }',
      'steps:',
      '  - runScript: scripts/count.js',
      '  - runFlow: sub.yaml',
      '  - assertTrue: ${output.count === 7}',
      '  - evalScript: ${output.name = "n" + output.count}',
      '  - assertTrue: ${output.name == "n7" && typeof NOT_DEFINED === "undefined"}',
      '  - assertTrue: ${output.count > 100}',
    ].join('\n') + '\n',
  );
  assert.equal(flow.status, 'failed');
  const s = steps(flow);
  assert.equal(s[2]!.status, 'passed', JSON.stringify([s[1]!.children, s[2]!.error]));
  assert.deepEqual(s.map((x) => x.status), ['passed', 'passed', 'passed', 'passed', 'passed', 'failed']);
  assert.equal(s[0]!.message, 'count 2');
  assert.equal(s[1]!.children![0]!.message, 'count 7');
  assert.match(s[5]!.error!.message, /assertTrue: \$\{output.count > 100\} is "false", not true/);
});

test('hideKeyboard presses back only while the keyboard is shown; openLink sends a VIEW intent and names the app that took it', async () => {
  device().keyboardShown = true;
  device().backPresses = 0;
  const mark = device().shellCommands.length;
  const flow = await run(
    'keyboard-link',
    ['box: android', 'env: { Q: "why use duckduckgo" }', 'steps:', '  - hideKeyboard', '  - hideKeyboard', '  - openLink: https://example.com/welcome?q=${Q}'].join('\n') + '\n',
  );
  assert.equal(flow.status, 'passed', why(flow));
  assert.equal(device().keyboardShown, false);
  assert.equal(device().backPresses, 0, 'the second hideKeyboard did not press back: the keyboard was already closed');
  const cmds = since(mark);
  assert.equal(cmds.filter((c) => c === 'input keyevent 4').length, 1, JSON.stringify(cmds));
  assert.ok(cmds.includes("am start -W -a android.intent.action.VIEW -d 'https://example.com/welcome?q=why use duckduckgo'"), JSON.stringify(cmds));
  assert.deepEqual(steps(flow).map((s) => s.message), ['keyboard closed (back)', 'the keyboard was not shown', 'opened https://example.com/welcome?q=why use duckduckgo in com.android.chrome/com.google.android.apps.chrome.Main']);
  assert.ok(steps(flow)[0]!.actionId, 'the back press is an action with an id');
});

test('openLink to a link no app on the device takes fails the step with the device\'s reason', async () => {
  const flow = await run('dead-link', ['box: android', 'steps:', '  - openLink: nothing://takes/this'].join('\n') + '\n');
  assert.equal(flow.status, 'failed');
  assert.match(steps(flow)[0]!.error!.message, /no app on device emulator-5554 opens nothing:\/\/takes\/this/);
});

// Maestro flow files: launch arguments, repeated taps, swipes by points and platform conditions reach the
// device as the commands Maestro would send.
test('launchApp arguments are string extras of the launch intent; env values read -e; taps repeat; swipes go point to point; platform picks Android', async () => {
  const setup = await run('install', `box: android\nsteps:\n  - installApp: ${kApk}\n`);
  assert.equal(setup.status, 'passed', why(setup));
  const mark = device().shellCommands.length;
  const flow = await run(
    'maestro',
    [
      `appId: ${kApp}`,
      'env:',
      "  LANG: ${LANG_FROM_CLI || 'en'}",
      '---',
      '- launchApp:',
      '    arguments:',
      '      lang: ${LANG}',
      '      note: two words',
      '- tapOn: { point: "100, 200", repeat: 3, delay: 10 }',
      '- swipe: { start: "50%, 80%", end: "50%, 20%", duration: 300 }',
      '- swipe: { start: "10, 20", end: "30, 40" }',
      '- runFlow:',
      '    when: { platform: iOS }',
      '    commands:',
      '      - tapOn: { point: "1, 1" }',
      '- runFlow:',
      '    when: { platform: Android }',
      '    commands:',
      '      - evalScript: ${output.ran = maestro.platform}',
      "- assertTrue: ${output.ran == 'android'}",
    ].join('\n') + '\n',
    { LANG_FROM_CLI: 'fr' },
  );
  assert.equal(flow.status, 'passed', why(flow));
  const cmds = device().shellCommands.slice(mark);
  assert.ok(cmds.includes(`am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -n '${kApp}/${kApp}.HomeScreenActivity' --es 'lang' 'fr' --es 'note' 'two words'`), JSON.stringify(cmds));
  assert.equal(cmds.filter((c) => c === 'input tap 100 200').length, 3, JSON.stringify(cmds));
  // 50%,80% → 50%,20% of the screen: one x, the start four times as low as the end.
  const [, x1, y1, x2, y2] = (cmds.map((c) => /^input swipe (\d+) (\d+) (\d+) (\d+) 300$/.exec(c)).find(Boolean) ?? []).map(Number);
  assert.ok(x1 === x2 && y1 === 4 * y2! && y2! > 0, JSON.stringify(cmds));
  assert.ok(cmds.some((c) => /^input swipe 10 20 30 40 \d+$/.test(c)), JSON.stringify(cmds));
  assert.ok(!cmds.includes('input tap 1 1'), 'the iOS-only commands did not run');
});
