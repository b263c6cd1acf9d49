// The runner's Android steps and selectors on real device dumps, against the Android replay
// TEST DOUBLE (test/support/androidReplayServer.ts): no device exists on this machine.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { RunOptions } from '../../src/runner/options.js';
import type { RunResult, StepRecord } from '../../src/runner/types.js';
import { startAndroidReplay } from '../support/androidReplayServer.js';
import { testRunOptions } from '../support/runOptions.js';
import { tempDir } from '../support/tmp.js';

let replay: Awaited<ReturnType<typeof startAndroidReplay>>;
let client: BoxClient;
const dir = tempDir('boxflow-android-');

before(async () => {
  replay = await startAndroidReplay({ layout: 'android_open-with-resolver-dialog_samsung.xml' });
  client = new BoxClient({ baseUrl: replay.baseUrl, apiKey: 'replay-key-0001', maxRetries: 0 });
});
after(async () => {
  await client.close();
  await replay.close();
});

function options(): RunOptions {
  return testRunOptions(dir, { stepTimeout: 1_000, actionTimeout: 10_000, boxes: { ids: [replay.boxId], createLinux: 0, createAndroid: 0 } });
}

async function run(yaml: string): Promise<RunResult> {
  const file = join(dir, `f${Math.random().toString(36).slice(2)}.flow.yaml`);
  writeFileSync(file, yaml);
  const flow = parseFlowYaml(yaml, file);
  return runFlows([flow], options(), { client, reporter: new ReporterHost([]), secrets: ['replay-key-0001'] });
}

const steps = (r: RunResult): StepRecord[] => r.flows[0]!.attempts.at(-1)!.steps;
const drags = () => replay.requests.filter((q) => q.path.endsWith('/actions/drag')).map((q) => JSON.parse(q.body.toString()) as { start: { x: number; y: number }; end: { x: number; y: number }; duration: string });

test('tap on a real dump aims at the centre of the element, in the box\'s action scale', async () => {
  replay.requests.length = 0;
  const r = await run('box: android\nsteps:\n  - tap: { id: button_always }\n  - setScale: 0.5\n  - tap: { desc: "Use selected app just once" }\n  - longPress: { text: Just once }\n');
  assert.equal(r.flows[0]!.status, 'passed', JSON.stringify(r.flows[0]!.error));
  const [always, once, long] = drags();
  // button_always bounds come from the dump; [72,2124][538,2178] is "Just once".
  assert.deepEqual(once!.start, { x: (72 + 538) / 2 / 2, y: (2124 + 2178) / 2 / 2 });
  assert.deepEqual(once!.start, once!.end, 'a tap is a drag whose start equals its end');
  assert.equal(long!.duration, '1s');
  assert.ok(always!.start.x > once!.start.x * 2, 'Always sits right of Just once');
  assert.equal(steps(r)[0]!.actionId?.startsWith('act_replay_'), true);
});

test('selectors find real nodes: Turkish text, index, relative keys; a missing one fails with candidates', async () => {
  replay.setLayout('hyperos-launcher_app-drawer_turkish_1200x2670.xml');
  const r = await run('box: android\nsteps:\n  - assertVisible: Ayarlar\n  - assertLayout: { textContains: "Eğlence", count: 1 }\n  - assertVisible: { text: Ayarlr }\n');
  const s = steps(r);
  assert.equal(s[0]!.status, 'passed');
  assert.equal(s[1]!.status, 'passed');
  assert.equal(s[2]!.status, 'failed');
  assert.equal(s[2]!.error?.code, 'ASSERT_LAYOUT');
  assert.ok(s[2]!.layout?.candidates.some((c) => c.text === 'Ayarlar'), 'the near match is offered');
  replay.setLayout('android_open-with-resolver-dialog_samsung.xml');
});

test('assertPackage reads real `pm list packages -f` data; installApp uploads; closeAllApps and media deletes', async () => {
  replay.requests.length = 0;
  const apk = join(dir, 'demo.apk');
  writeFileSync(apk, Buffer.alloc(1024, 7));
  const r = await run(
    [
      'box: android',
      'steps:',
      '  - assertPackage: { package: com.google.android.youtube, installed: true, type: thirdParty, launcher: true, running: false }',
      '  - assertPackage: { package: com.android.cts.priv.ctsshim, type: system }',
      '  - assertPackage: { package: com.not.there, installed: false }',
      `  - installApp: { apk: ${apk}, open: true }`,
      '  - closeAllApps',
      '  - deleteMedia: { album: "Holiday 2024", media: "IMG 001.jpg" }',
      '  - deleteAlbum: "Holiday 2024/Ü"',
      '  - assertPackage: { package: com.google.android.youtube, type: system }',
    ].join('\n') + '\n',
  );
  const s = steps(r);
  assert.deepEqual(s.map((x) => x.status), ['passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'failed']);
  assert.equal(s[7]!.error?.code, 'ASSERT_PACKAGE');
  const install = replay.requests.find((q) => q.method === 'POST' && q.path.endsWith('/android/packages'))!;
  assert.match(install.contentType, /^multipart\/form-data/);
  assert.match(install.body.toString('latin1'), /name="apk"; filename="demo.apk"/);
  assert.match(install.body.toString('latin1'), /name="open"\r\n\r\ntrue/);
  assert.ok(replay.requests.some((q) => q.path === `/boxes/${replay.boxId}/media/albums/Holiday%202024/media/IMG%20001.jpg`));
  assert.ok(replay.requests.some((q) => q.path === `/boxes/${replay.boxId}/media/albums/Holiday%202024%2F%C3%9C` && q.method === 'DELETE'));
});

test('assertScreenshot falls back to the after-phase of an empty type when the box has no screenshot endpoint', async () => {
  replay.requests.length = 0;
  const r = await runFlows(
    [parseFlowYaml('box: android\nsteps:\n  - assertScreenshot: drawer\n', join(dir, 'shot.flow.yaml'))],
    testRunOptions(dir, { stepTimeout: 3_000, baselines: { pathTemplate: '{flowDir}/shots/{name}-{boxType}.png', update: 'missing' }, boxes: { ids: [replay.boxId], createLinux: 0, createAndroid: 0 } }),
    { client, reporter: new ReporterHost([]), secrets: [] },
  );
  const step = steps(r)[0]!;
  assert.equal(step.status, 'passed', JSON.stringify(step.error));
  assert.equal(step.visual?.capture, 'type', 'the record says which capture was used');
  assert.equal(step.visual?.written, 'missing');
  assert.ok(replay.requests.some((q) => q.path.endsWith('/actions/screenshot')), 'the screenshot endpoint was tried first');
  const types = replay.requests.filter((q) => q.path.endsWith('/actions/type')).map((q) => JSON.parse(q.body.toString()) as { text: string });
  assert.ok(types.length >= 2 && types.every((t) => t.text === ''), 'frames came from empty type actions');
});
