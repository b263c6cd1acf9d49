// A video's chapters line up with what the steps did, on a real boxflow serve and Chromium: a tap that
// turns the page green shows green in the video frame at its chapter's end, and the frame just before
// its chapter's start is still white. The chapters count from the video's first frame as the box saw
// it (the stop's `startedAt`), not from when the start's answer reached the runner, so they line up
// as well when that answer comes back late (a service far away, or one that answers well after its
// video began).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BoxClient } from '../../src/api/client.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { VideoChapter } from '../../src/runner/types.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0 && spawnSync('ffprobe', ['-version']).status === 0;
const skip = hasFfmpeg ? false : "no ffmpeg/ffprobe on PATH (scripts/setup.mjs installs Debian's ffmpeg as root)";
const local = useLocalServer('chapters');

// A white page that a tap anywhere turns lime green.
const page = `data:text/html,<body style="margin:0"><button id=go style="width:100vw;height:100vh;background:white;border:0" onclick="document.body.innerHTML='';document.body.style.background='lime'">Go</button></body>`;

interface Frame {
  /** The frame's time in the video. */
  ms: number;
  /** The colour a quarter in from the top left (away from the button's label). */
  rgb: [number, number, number];
}

/** Every frame of the video with its own time (ffprobe) and its pixel (ffmpeg decodes them in the same order). */
function framesOf(file: string): Frame[] {
  const times = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v', '-show_entries', 'frame=best_effort_timestamp_time', '-of', 'csv=p=0', file], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((s) => Math.round(Number(s) * 1000));
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-fps_mode', 'passthrough', '-vf', 'crop=2:2:iw/4:ih/4,scale=1:1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-']);
  assert.equal(raw.length, times.length * 3, 'one pixel per frame');
  return times.map((ms, i) => ({ ms, rgb: [raw[i * 3]!, raw[i * 3 + 1]!, raw[i * 3 + 2]!] }));
}

/** The frame on screen at `ms` (a frame shows until the next one), or just before it with `before`. */
function shownAt(frames: Frame[], ms: number, before = false): Frame {
  const shown = frames.filter((f) => (before ? f.ms < ms : f.ms <= ms)).at(-1);
  assert.ok(shown, `a frame is on screen ${before ? 'before' : 'at'} ${ms} ms: ${frames.map((f) => f.ms).join(', ')}`);
  return shown;
}

const isWhite = ([r, g, b]: number[]) => r! > 200 && g! > 200 && b! > 200;
const isLime = ([r, g, b]: number[]) => g! > 200 && r! < 80 && b! < 80;

/** Runs open → tap with video on, and answers the tap's chapter and the video's frames. */
async function tapChapter(client: BoxClient, name: string): Promise<{ chapter: VideoChapter; frames: Frame[] }> {
  const dir = join(local.dir, name);
  // The after-shot: the tap's step ends once the screen it changed has been captured.
  const options = testRunOptions(dir, { video: 'on', screenshots: { phases: ['after'], delay: '0ms' } });
  const flow = parseFlowYaml(`name: ${name}\nsteps:\n  - openTab: ${JSON.stringify(page)}\n  - tap: { id: go }\n`, join(dir, `${name}.flow.yaml`));
  const result = await runFlows([flow], options, { client, reporter: new ReporterHost([]), secrets: [] });
  const attempt = result.flows[0]!.attempts[0]!;
  assert.equal(attempt.status, 'passed', JSON.stringify(attempt.error));
  const video = attempt.video!;
  assert.ok(video, 'the attempt has its video');
  const chapter = video.chapters.find((c) => c.stepId === '2')!;
  assert.equal(chapter.label, attempt.steps[1]!.label);
  return { chapter, frames: framesOf(join(options.outputDir, video.path)) };
}

function assertLinedUp({ chapter, frames }: { chapter: VideoChapter; frames: Frame[] }): void {
  const start = chapter.startMs;
  const end = chapter.startMs + chapter.durationMs!;
  const seen = frames.map((f) => `${f.ms} ms ${isLime(f.rgb) ? 'green' : isWhite(f.rgb) ? 'white' : f.rgb.join('/')}`).join(', ');
  const before = shownAt(frames, start, true);
  assert.ok(isWhite(before.rgb), `the frame just before the tap's chapter (${start}–${end} ms) is still white; frames: ${seen}`);
  const atEnd = shownAt(frames, end);
  assert.ok(isLime(atEnd.rgb), `the frame at the end of the tap's chapter (${start}–${end} ms) shows the green it made; frames: ${seen}`);
}

test("a step's change shows in the video at its chapter's end, and not yet just before its start", { skip, timeout: 120_000 }, async () => {
  assertLinedUp(await tapChapter(local.client, 'loopback'));
});

test("the chapters line up as well when the start's answer reaches the runner late", { skip, timeout: 120_000 }, async () => {
  const client = local.client;
  const original = client.startRecording.bind(client);
  // The service's video begins when it gets the start; its answer takes a second to come back.
  client.startRecording = async (...args: Parameters<BoxClient['startRecording']>) => {
    await original(...args);
    await sleep(1_000);
  };
  try {
    assertLinedUp(await tapChapter(client, 'late'));
  } finally {
    client.startRecording = original;
  }
});
