// Codes as docs/errors.md documents them, seen where a user sees them: a step's record in a run on an
// Android box (the embedded server with the fake adb server, a TEST DOUBLE speaking the real adb
// protocol: test/support/fakeAdbServer.ts), and boxflow studio's answers over HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../../src/cli/config.js';
import { exitClassOf } from '../../src/errors.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { StepRecord } from '../../src/runner/types.js';
import { startStudioServer } from '../../src/studio/server.js';
import { useAndroidServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const kSerial = 'emulator-5560';
const local = useAndroidServer('codes', [kSerial]);

/** The steps of one run of a boxflow flow on an Android box. */
async function steps(name: string, body: string[]): Promise<StepRecord[]> {
  const file = join(local.dir, `${name}.flow.yaml`);
  const yaml = ['box: android', 'steps:', ...body].join('\n') + '\n';
  writeFileSync(file, yaml);
  const r = await runFlows([parseFlowYaml(yaml, file)], testRunOptions(local.dir, { outputDir: join(local.dir, `out-${name}`), boxes: { ids: [], createLinux: 0, createAndroid: 1 } }), {
    client: local.client,
    reporter: new ReporterHost([]),
    secrets: [local.key],
  });
  return r.flows[0]!.attempts.at(-1)!.steps;
}

test('an assertDevice mismatch fails ASSERT_DEVICE (a failed assertion, exit class 1), not FLOW_ERROR', async () => {
  local.fake.device(kSerial).on(/^cmd uimode night$/, () => 'Night mode: no\n');
  const [step] = await steps('dark', ['  - assertDevice: { darkMode: true }']);
  assert.equal(step!.status, 'failed');
  assert.deepEqual({ code: step!.error?.code, message: step!.error?.message }, { code: 'ASSERT_DEVICE', message: 'assertDevice: dark mode is off, expected on' });
  assert.equal(exitClassOf(step!.error!.code), 1);
});

test("a step's arguments found invalid when it runs fail STEP_INVALID (bad input, exit class 2), naming what it gave", async () => {
  const [repeat] = await steps('times', ['  - repeat: { times: "${\'many\'}", steps: [{ sleep: 1ms }] }']);
  assert.equal(repeat!.error?.code, 'STEP_INVALID');
  assert.match(repeat!.error!.message, /\$\{'many'\} is "many", not a whole number from 0 to \d+$/);
  const [paste] = await steps('paste', ['  - pasteText']);
  assert.deepEqual({ code: paste!.error?.code, message: paste!.error?.message }, { code: 'STEP_INVALID', message: 'pasteText: nothing was copied; a copyTextFrom step must run before' });
  assert.equal(exitClassOf('STEP_INVALID'), 2);
});

test("boxflow studio answers a BoxflowError with its code's own HTTP status: a box the service does not know is 404 NOT_FOUND, not 422", async () => {
  const r = resolveConfig({ paths: [] }, {}, undefined, local.dir);
  const studio = await startStudioServer({
    file: join(local.dir, 'studio.flow.yaml'),
    client: local.client,
    box: { id: 'box-that-is-not-there', type: 'android' },
    options: { ...r.options, outputDir: join(local.dir, 'out-studio') },
    secrets: [local.key],
  });
  try {
    const token = new URL(studio.url).searchParams.get('token')!;
    const res = await fetch(new URL('/api/screen', studio.url), { headers: { 'x-studio-token': token } });
    const body = (await res.json()) as { code?: string; message: string };
    assert.deepEqual({ status: res.status, code: body.code }, { status: 404, code: 'NOT_FOUND' });
  } finally {
    await studio.close();
  }
});
