// Where a video's chapters count from: the service's `startedAt` (its first frame, on the box's
// clock) when it sends one; the start's answer when it does not (a service other than boxflow serve,
// an Android box); and a `startedAt` the runner's clock cannot agree with is brought within the
// start's round trip, where the video's first frame must have been.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StepRecord } from '../../src/runner/types.js';
import { videoChapters, videoZero } from '../../src/runner/video.js';

const t0 = Date.parse('2026-01-01T10:00:00.000Z');
const iso = (ms: number) => new Date(t0 + ms).toISOString();
const step = (id: string, startMs: number, durationMs: number): StepRecord => ({
  id, index: 0, label: `step ${id}`, command: 'tap', args: {}, status: 'passed', attempts: 1, startedAt: iso(startMs), durationMs,
});
const steps = [step('1', 100, 400), step('2', 600, 300)];
// The start was asked at 0 and its answer arrived at 80 (runner's clock).
const asked = t0;
const answered = t0 + 80;

test("chapters count from the video's first frame when the service gives its time", () => {
  const chapters = videoChapters(steps, videoZero(iso(30), asked, answered));
  assert.deepEqual(chapters.map((c) => c.startMs), [70, 570]);
});

test('a service that gives no startedAt (or one that does not parse): chapters count from the start\'s answer, as before', () => {
  assert.deepEqual(videoChapters(steps, videoZero(undefined, asked, answered)).map((c) => c.startMs), [20, 520]);
  assert.deepEqual(videoChapters(steps, videoZero('soon', asked, answered)).map((c) => c.startMs), [20, 520]);
});

test("a startedAt outside the start's round trip (the box's clock is off) is brought within it", () => {
  assert.equal(videoZero(iso(-5_000), asked, answered), asked);
  assert.equal(videoZero(iso(60_000), asked, answered), answered);
});
