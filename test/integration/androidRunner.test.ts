// The runner's Android steps end to end on the embedded server (`boxflow serve` in-process) with
// the fake adb server (a TEST DOUBLE speaking the real adb protocol, replaying real device captures:
// test/support/fakeAdbServer.ts): boxes are created by the runner, steps become device commands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exitClassOf } from '../../src/errors.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { RunResult } from '../../src/runner/types.js';
import { useAndroidServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useAndroidServer('runner', ['emulator-5554', 'emulator-5556']);
const { dir } = local;
const kApk = join(import.meta.dirname, '../fixtures/android/split-apk/base.apk');

function run(flows: Array<[string, string]>, workers = 1): Promise<RunResult> {
  const parsed = flows.map(([name, yaml]) => {
    const file = join(dir, `${name}.flow.yaml`);
    writeFileSync(file, yaml);
    return parseFlowYaml(yaml, file);
  });
  return runFlows(parsed, testRunOptions(dir, { workers, boxes: { ids: [], createLinux: 0, createAndroid: workers } }), { client: local.client, reporter: new ReporterHost([]), secrets: [local.key] });
}

test('installApp, assertPackage and closeAllApps run as device commands on a box the runner claims', async () => {
  const r = await run([
    [
      'packages',
      [
        'box: android',
        'steps:',
        '  - assertPackage: { package: com.google.android.youtube, installed: true, type: thirdParty }',
        '  - assertPackage: { package: com.not.there, installed: false }',
        `  - installApp: { apk: ${kApk}, open: true }`,
        '  - assertPackage: { package: io.selendroid.testapp, installed: true, running: true }',
        '  - closeAllApps',
        '  - assertPackage: { package: io.selendroid.testapp, running: false }',
      ].join('\n') + '\n',
    ],
  ]);
  const flow = r.flows[0]!;
  assert.equal(flow.status, 'passed', JSON.stringify(flow.error ?? flow.attempts.at(-1)!.steps.find((s) => s.status !== 'passed')?.error));
  const used = ['emulator-5554', 'emulator-5556'].map((s) => local.fake.device(s)).find((d) => d.installs.length)!;
  assert.equal(used.installs.length, 1);
  assert.ok(used.shellCommands.includes("am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -n 'io.selendroid.testapp/io.selendroid.testapp.HomeScreenActivity'"));
  assert.ok(used.shellCommands.includes("am force-stop 'io.selendroid.testapp'"));
});

test('a device going offline mid-flow fails that flow as infrastructure (exit 3); the flow on the other device passes', async () => {
  // The first device to see keyevent 29 ("a") drops off adb right after answering it.
  for (const serial of ['emulator-5554', 'emulator-5556']) {
    local.fake.device(serial).on(/^input keyevent 29$/, () => {
      setImmediate(() => local.fake.setState(serial, 'offline'));
      return '';
    });
  }
  const doomed = 'box: android\nsteps:\n  - pressKey: a\n  - pressKey: b\n  - pressKey: c\n';
  const fine = 'box: android\nsteps:\n  - pressKey: b\n  - pressKey: c\n';
  const r = await run([['doomed', doomed], ['fine', fine]], 2);
  const byName = Object.fromEntries(r.flows.map((f) => [f.file.slice(f.file.lastIndexOf('/') + 1), f]));
  const failed = byName['doomed.flow.yaml']!;
  assert.equal(failed.status, 'failed');
  const code = failed.error?.code ?? failed.attempts.at(-1)!.steps.find((s) => s.status === 'failed')?.error?.code;
  assert.equal(exitClassOf(code!), 3, `code ${code}`);
  assert.equal(byName['fine.flow.yaml']!.status, 'passed');
});
