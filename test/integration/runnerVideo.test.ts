// `video` in runs, against a real boxflow serve and Chromium: `retain-on-failure` keeps the video of
// the failing flow only; the kept video decodes, lasts as long as the attempt, and has a chapter per
// step (label, actionId, offset) in results.json and as WebVTT next to it. A service that does not
// record (404 on recording/start) is warned about once, and the run goes on without video.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BoxApiError } from '../../src/api/client.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0 && spawnSync('ffprobe', ['-version']).status === 0;
const skip = hasFfmpeg ? false : "no ffmpeg/ffprobe on PATH (scripts/setup.mjs installs Debian's ffmpeg as root)";
const local = useLocalServer('runvideo');

const page = 'data:text/html,<h1 id=t>Hello</h1><input id=i autofocus>';
const flows = (dir: string) => [
  parseFlowYaml(`name: passes\nsteps:\n  - openTab: "${page}"\n  - assertVisible: Hello\n`, join(dir, 'passes.flow.yaml')),
  parseFlowYaml(`name: fails\nsteps:\n  - openTab: "${page}"\n  - type: typed\n  - assertVisible: { text: Goodbye, timeout: 1500ms }\n`, join(dir, 'fails.flow.yaml')),
];

function duration(file: string): number {
  return Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], { encoding: 'utf8' }).trim());
}

test("video: 'retain-on-failure' keeps only the failing flow's video, with a chapter per step", { skip, timeout: 120_000 }, async () => {
  const dir = join(local.dir, 'retain');
  const options = testRunOptions(dir, { video: 'retain-on-failure', screenshots: { phases: ['after'], delay: '0ms' } });
  const result = await runFlows(flows(dir), options, { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  const [passes, fails] = result.flows;
  assert.equal(passes!.status, 'passed');
  assert.equal(fails!.status, 'failed');
  assert.equal(passes!.attempts[0]!.video, undefined, 'a passed attempt keeps no video');
  const attempt = fails!.attempts[0]!;
  const video = attempt.video!;
  assert.ok(video, 'the failed attempt has its video');
  assert.equal(video.contentType, 'video/webm');
  assert.match(video.path, /^data\/[0-9a-f]{40}\.webm$/);
  assert.match(video.vtt, /^data\/[0-9a-f]{40}\.vtt$/);
  const file = join(options.outputDir, video.path);
  assert.equal(spawnSync('ffmpeg', ['-v', 'error', '-xerror', '-i', file, '-f', 'null', '-']).status, 0, 'the video decodes');
  const seconds = duration(file);
  assert.ok(Math.abs(seconds * 1000 - attempt.durationMs) < 500, `the video lasts ${seconds} s, the attempt ${attempt.durationMs} ms`);

  // A chapter per step that ran, in order, each at its moment of the video.
  assert.deepEqual(video.chapters.map((c) => [c.stepId, c.label]), attempt.steps.map((s) => [s.id, s.label]));
  const typed = video.chapters.find((c) => c.stepId === '2')!;
  assert.equal(typed.actionId, attempt.steps[1]!.actionId);
  assert.match(typed.actionId!, /^act_/);
  let last = -1;
  for (const c of video.chapters) {
    assert.ok(c.startMs >= last && c.startMs <= seconds * 1000, `chapter ${c.stepId} at ${c.startMs} ms`);
    last = c.startMs;
  }
  const vtt = readFileSync(join(options.outputDir, video.vtt), 'utf8');
  assert.match(vtt, /^WEBVTT\n/);
  assert.match(vtt, new RegExp(`step-2\\n\\d\\d:\\d\\d:\\d\\d\\.\\d{3} --> \\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\n2 ${typed.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\nactionId ${typed.actionId}\\n`));
  // Nothing of the passed flow was downloaded: the output holds one video.
  assert.deepEqual(readdirSync(join(options.outputDir, 'data')).filter((n) => /\.(webm|mp4)$/.test(n)), [video.path.slice('data/'.length)]);
});

test('a service that does not record gets one warning, and the run goes on without video', { timeout: 120_000 }, async () => {
  const dir = join(local.dir, 'norecord');
  const client = local.client;
  const original = client.startRecording.bind(client);
  let asked = 0;
  client.startRecording = async () => {
    asked++;
    throw new BoxApiError('NOT_FOUND', 'POST /boxes/b/actions/recording/start: 404 NOT_FOUND: no route', { method: 'POST', path: '/boxes/b/actions/recording/start', httpStatus: 404, serverCode: 'NOT_FOUND' });
  };
  const warnings: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (String(chunk).startsWith('warning: video')) warnings.push(String(chunk));
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    const options = testRunOptions(dir, { video: 'on' });
    const result = await runFlows(flows(dir), options, { client, reporter: new ReporterHost([]), secrets: [] });
    assert.deepEqual(result.flows.map((f) => f.status), ['passed', 'failed']);
    assert.ok(result.flows.every((f) => f.attempts.every((a) => a.video === undefined)));
  } finally {
    process.stderr.write = write;
    client.startRecording = original;
  }
  assert.equal(asked, 1, 'after the 404 the run asks no more');
  assert.equal(warnings.length, 1, warnings.join(''));
  assert.match(warnings[0]!, /does not record boxes \(404 on POST \/boxes\/\{id\}\/actions\/recording\/start\); running without video/);
  const data = join(dir, 'out', 'data');
  assert.deepEqual(existsSync(data) ? readdirSync(data).filter((n) => /\.(webm|mp4|vtt)$/.test(n)) : [], []);
});
