// Maestro flow files on an Android box: the embedded server (`boxflow serve` in-process) with the
// fake adb server (a TEST DOUBLE speaking the real adb protocol: test/support/fakeAdbServer.ts).
// Launch arguments, repeated taps, swipes by points and platform conditions reach the device as
// the commands Maestro would send.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { parseFlowYaml, parseMaestroYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { FlowResult } from '../../src/runner/types.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { FakeAdbServer, packagesFromFixture, type FakeDevice } from '../support/fakeAdbServer.js';
import { testRunOptions } from '../support/runOptions.js';

const kSecret = 'maestro-android-secret-0123456789abcdef';
const kApp = 'io.selendroid.testapp';
const dir = mkdtempSync(join(tmpdir(), 'boxflow-maestro-android-'));
const kApk = join(import.meta.dirname, '../fixtures/android/split-apk/base.apk');

let fake: FakeAdbServer;
let server: { baseUrl: string; close(): Promise<void> };
let client: BoxClient;
let key: string;
let device: FakeDevice;

before(async () => {
  fake = await FakeAdbServer.start();
  fake.addDevice('emulator-5554', (d) => {
    d.packages = packagesFromFixture();
  });
  device = fake.device('emulator-5554');
  server = await startServer({ port: 0, dataDir: join(dir, 'server'), secret: kSecret, log: () => {}, adb: fake.socketSpec });
  key = await createApiKey(kSecret, 'runner');
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0 });
});
after(async () => {
  await client.close();
  await server.close();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(name: string, text: string, env: Record<string, string> = {}): Promise<FlowResult> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  const flow = text.includes('\n---\n') ? parseMaestroYaml(text, file) : parseFlowYaml(text, file);
  const r = await runFlows([flow], testRunOptions(dir, { env, boxes: { ids: [], createLinux: 0, createAndroid: 1 } }), { client, reporter: new ReporterHost([]), secrets: [key] });
  return r.flows[0]!;
}
const why = (f: FlowResult) => JSON.stringify(f.error ?? f.attempts.at(-1)!.steps.find((s) => s.status !== 'passed')?.error);

test('launchApp arguments are string extras of the launch intent; env values read -e; taps repeat; swipes go point to point; platform picks Android', async () => {
  const setup = await run('install', `box: android\nsteps:\n  - installApp: ${kApk}\n`);
  assert.equal(setup.status, 'passed', why(setup));
  const mark = device.shellCommands.length;
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
  const cmds = device.shellCommands.slice(mark);
  assert.ok(cmds.includes(`am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -n ${kApp}/${kApp}.HomeScreenActivity --es 'lang' 'fr' --es 'note' 'two words'`), JSON.stringify(cmds));
  assert.equal(cmds.filter((c) => c === 'input tap 100 200').length, 3, JSON.stringify(cmds));
  // 50%,80% → 50%,20% of the screen: one x, the start four times as low as the end.
  const [, x1, y1, x2, y2] = (cmds.map((c) => /^input swipe (\d+) (\d+) (\d+) (\d+) 300$/.exec(c)).find(Boolean) ?? []).map(Number);
  assert.ok(x1 === x2 && y1 === 4 * y2! && y2! > 0, JSON.stringify(cmds));
  assert.ok(cmds.some((c) => /^input swipe 10 20 30 40 \d+$/.test(c)), JSON.stringify(cmds));
  assert.ok(!cmds.includes('input tap 1 1'), 'the iOS-only commands did not run');
});
