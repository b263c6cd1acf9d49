// Video of runs without a box: the `video` option (config, --video, schema), the chapters of an
// attempt (a step's offset from the recording's start; skipped steps have none) and their WebVTT, and
// the JUnit attachment of a kept video (valid against the JUnit XSD).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateXML } from 'xmllint-wasm';
import { junitXml } from '../../reporters/junit.js';
import { resolveConfig } from '../../src/cli/config.js';
import { checkConfig } from '../../src/cli/configSchema.js';
import { buildProgram } from '../../src/cli/main.js';
import type { RunResult, StepRecord } from '../../src/runner/types.js';
import { chaptersVtt, videoChapters } from '../../src/runner/video.js';

const step = (id: string, startedAt: string, durationMs: number, extra: Partial<StepRecord> = {}): StepRecord => ({
  id, index: 0, label: `step ${id}`, command: 'tap', args: {}, status: 'passed', attempts: 1, startedAt, durationMs, ...extra,
});

test("video: the config's mode, --video over it, off by default; anything else is CONFIG_INVALID", () => {
  assert.equal(resolveConfig({}, {}, undefined, '/p', {}).options.video, undefined);
  assert.equal(resolveConfig({}, { video: 'retain-on-failure' }, undefined, '/p', {}).options.video, 'retain-on-failure');
  assert.equal(resolveConfig({ video: 'on' }, { video: 'retain-on-failure' }, undefined, '/p', {}).options.video, 'on');
  assert.equal(resolveConfig({ video: 'off' }, { video: 'on' }, undefined, '/p', {}).options.video, undefined);
  assert.throws(() => resolveConfig({ video: 'sometimes' }, {}, undefined, '/p', {}), /--video must be one of off, on, retain-on-failure, got "sometimes"/);
  assert.throws(() => checkConfig({ video: 'retain-on-failures' }, 'boxflow.config.json'), (err: Error & { code?: string }) => err.code === 'CONFIG_INVALID' && /video/.test(err.message));
  checkConfig({ video: 'on' }, 'boxflow.config.json');
});

test('--video is an option of boxflow test with the three modes', () => {
  const program = buildProgram(() => {});
  const cmd = program.commands.find((c) => c.name() === 'test')!;
  const opt = cmd.options.find((o) => o.long === '--video')!;
  assert.deepEqual(opt.argChoices, ['off', 'on', 'retain-on-failure']);
});

test('chapters: every step that ran, nested ones too, at its offset from the recording start', () => {
  const t0 = Date.parse('2026-01-01T10:00:00.000Z');
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const steps = [
    step('1', at(-40), 500),  // started just before the recording answered: at 0
    step('2', at(1_250), 2_000, { actionId: 'act_x', children: [step('2.1', at(1_300), 300), step('2.2', at(1_700), 0, { status: 'skipped', attempts: 0 })] }),
    step('3', at(9_000), 100, { status: 'failed' }),
  ];
  const chapters = videoChapters(steps, t0, 5_000);
  assert.deepEqual(chapters, [
    { stepId: '1', label: 'step 1', startMs: 0, durationMs: 500 },
    { stepId: '2', label: 'step 2', actionId: 'act_x', startMs: 1_250, durationMs: 2_000 },
    { stepId: '2.1', label: 'step 2.1', startMs: 1_300, durationMs: 300 },
    { stepId: '3', label: 'step 3', startMs: 5_000, durationMs: 100 }, // past the video's end: at its end
  ]);
  const vtt = chaptersVtt(chapters, 5_000);
  assert.equal(vtt, [
    'WEBVTT', '',
    'step-1', '00:00:00.000 --> 00:00:00.500', '1 step 1', '',
    'step-2', '00:00:01.250 --> 00:00:03.250', '2 step 2', 'actionId act_x', '',
    'step-2.1', '00:00:01.300 --> 00:00:01.600', '2.1 step 2.1', '',
    'step-3', '00:00:05.000 --> 00:00:05.001', '3 step 3', '',
  ].join('\n'));
  // A label cannot break the WebVTT: no "-->" and no blank line in a cue.
  assert.match(chaptersVtt([{ stepId: '1', label: 'a --> b\n\nc', startMs: 0 }]), /\n1 a -> b\nc\n/);
});

test("JUnit attaches a kept video to its testcase's system-out, and stays valid", async () => {
  const chapters = [{ stepId: '1', label: 'tap Buy', actionId: 'act_1', startMs: 0 }];
  const attempt = { attempt: 1, status: 'failed' as const, startedAt: '2026-01-01T10:00:00.000Z', durationMs: 1200, box: { id: 'b1', type: 'linux' as const }, steps: [step('1', '2026-01-01T10:00:00.100Z', 900, { status: 'failed', error: { code: 'ELEMENT_NOT_FOUND', message: 'no Buy' } })], error: { code: 'ELEMENT_NOT_FOUND' as const, message: 'no Buy' }, video: { path: 'data/abc.webm', vtt: 'data/abc.vtt', contentType: 'video/webm', chapters } };
  const result: RunResult = {
    version: 1, startedAt: attempt.startedAt, durationMs: 1500, status: 'failed', boxes: [attempt.box],
    flows: [{ id: 'f1', name: 'Buy', file: 'flows/buy.flow.yaml', tags: [], status: 'failed', durationMs: 1200, box: attempt.box, attempts: [attempt], error: attempt.error }],
    stats: { total: 1, passed: 0, failed: 1, flaky: 0, skipped: 0 }, baselines: [], errors: [],
  };
  const xml = junitXml(result, { outputDir: '/proj/out', rootDir: '/proj' });
  assert.match(xml, /video: out\/data\/abc\.webm \(chapters: out\/data\/abc\.vtt\)\n\[\[ATTACHMENT\|out\/data\/abc\.webm\]\]<\/system-out>/);
  const xsd = readFileSync(fileURLToPath(new URL('../fixtures/junit/junit.xsd', import.meta.url)), 'utf8');
  const checked = await validateXML({ xml: { fileName: 'junit.xml', contents: xml }, schema: { fileName: 'junit.xsd', contents: xsd } });
  assert.equal(checked.valid, true, checked.rawOutput);
});
