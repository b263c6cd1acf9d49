// The HTML report's video player in a real Chromium, opened from file://: a flow attempt's video with a
// chapter per step; clicking a step (its line, or its ▶ button) jumps the video to the step's moment,
// and the frame then on screen is that moment's; while it plays, the step on screen is marked; a
// `#action=<actionId>` link opens the step and jumps there. The video is a real WebM made by ffmpeg:
// red for 2 s, blue for 2 s, green for 2 s, so a jump shows in its pixels.
import { test, expect, type Page } from '@playwright/test';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeHtmlReport } from '../../reporters/html/index.js';
import { chaptersVtt } from '../../src/runner/video.js';
import { decodePng } from '../../src/visual/index.js';
import type { RunResult, StepRecord, VideoChapter } from '../../src/runner/types.js';

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
let dir: string;

const step = (id: string, label: string, startedAt: string, durationMs: number, actionId?: string): StepRecord => ({
  id, index: Number(id) - 1, label, command: 'tap', args: {}, status: 'passed', attempts: 1, startedAt, durationMs, ...(actionId ? { actionId } : {}),
});

test.beforeAll(() => {
  test.skip(!hasFfmpeg, "no ffmpeg on PATH (scripts/setup.mjs installs Debian's ffmpeg as root)");
  dir = mkdtempSync(join(tmpdir(), 'bf-report-video-'));
  mkdirSync(join(dir, 'data'));
  const colour = (c: string) => ['-f', 'lavfi', '-i', `color=${c}:s=320x200:r=10:d=2`];
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...colour('red'), ...colour('blue'), ...colour('lime'), '-filter_complex', '[0][1][2]concat=n=3', '-c:v', 'libvpx', '-b:v', '200k', '-g', '5', join(dir, 'data', 'v.webm')]);
  const t0 = Date.parse('2026-01-01T10:00:00.000Z');
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const steps = [step('1', 'openTab /login', at(100), 900), step('2', 'tap "Sign in"', at(2_500), 600, 'act_blue'), step('3', 'assertVisible Welcome', at(4_200), 700, 'act_green')];
  const chapters: VideoChapter[] = steps.map((s) => ({ stepId: s.id, label: s.label, ...(s.actionId ? { actionId: s.actionId } : {}), startMs: Date.parse(s.startedAt) - t0, durationMs: s.durationMs }));
  writeFileSync(join(dir, 'data', 'v.vtt'), chaptersVtt(chapters, 6_000));
  const attempt = { attempt: 1, status: 'passed' as const, startedAt: at(0), durationMs: 6_000, box: { id: 'box-1', type: 'linux' as const }, steps, video: { path: 'data/v.webm', vtt: 'data/v.vtt', contentType: 'video/webm', durationMs: 6_000, chapters } };
  const result: RunResult = {
    version: 1, startedAt: at(0), durationMs: 6_500, status: 'passed', boxes: [{ id: 'box-1', type: 'linux' }],
    flows: [{ id: 'f1', name: 'Sign in', file: 'flows/sign-in.flow.yaml', tags: [], status: 'passed', durationMs: 6_000, box: { id: 'box-1', type: 'linux' }, attempts: [attempt] }],
    stats: { total: 1, passed: 1, failed: 0, flaky: 0, skipped: 0 }, baselines: [], errors: [],
  };
  writeHtmlReport(result, dir, { rootDir: dir });
});

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(page: Page, hash = ''): Promise<void> {
  await page.goto(pathToFileURL(join(dir, 'index.html')).href + hash);
  await expect(page.locator('html[data-ready=true]')).toHaveCount(1);
}

/** The video's time once the jump has landed, and the colour of the middle of the frame then on screen (a screenshot: a file:// video taints a canvas). */
async function shown(page: Page): Promise<{ time: number; rgb: number[] }> {
  const video = page.getByTestId('video');
  const time = await video.evaluate(async (v: HTMLVideoElement) => {
    if (v.seeking || v.readyState < 2) await new Promise((r) => v.addEventListener('seeked', r, { once: true }));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return v.currentTime;
  });
  const png = decodePng(await video.screenshot());
  const i = (Math.floor(png.height / 2) * png.width + Math.floor(png.width / 2)) * 4;
  return { time, rgb: Array.from(png.data.slice(i, i + 3)) };
}
const colourOf = ([r, g, b]: number[]) => (r! > 180 && g! < 90 && b! < 90 ? 'red' : b! > 180 && r! < 90 && g! < 90 ? 'blue' : g! > 180 && r! < 90 && b! < 90 ? 'green' : `rgb(${r},${g},${b})`);

test("clicking a step jumps the flow's video to the step's moment", async ({ page }) => {
  await open(page);
  await page.getByTestId('flow-head').click();
  const video = page.getByTestId('video');
  await expect(video).toBeVisible();
  await expect(video.locator('track[kind=chapters]')).toHaveAttribute('src', 'data/v.vtt');
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(1);
  expect(await video.evaluate((v: HTMLVideoElement) => v.duration)).toBeCloseTo(6, 0);

  // A click on the step's line (its label).
  const second = page.locator('[data-testid=step][data-step-id="2"]');
  await second.getByTestId('step-label').click();
  let now = await shown(page);
  expect(now.time).toBeCloseTo(2.5, 2);
  expect(colourOf(now.rgb)).toBe('blue');
  await expect(page.getByTestId('video-chapter')).toHaveText('step 2 · tap "Sign in" · act_blue');
  await expect(second).toHaveClass(/playing/);

  // Its ▶ button says where, and jumps there.
  const third = page.locator('[data-testid=step][data-step-id="3"]');
  await expect(third.getByTestId('step-seek')).toHaveText('▶ 0:04.2');
  await third.getByTestId('step-seek').click();
  now = await shown(page);
  expect(now.time).toBeCloseTo(4.2, 2);
  expect(colourOf(now.rgb)).toBe('green');
  await expect(third).toHaveClass(/playing/);
  await expect(second).not.toHaveClass(/playing/);

  // Back to the first step: the red part.
  await page.locator('[data-testid=step][data-step-id="1"]').getByTestId('step-seek').click();
  now = await shown(page);
  expect(now.time).toBeCloseTo(0.1, 2);
  expect(colourOf(now.rgb)).toBe('red');
});

test('playing marks the step on screen', async ({ page }) => {
  await open(page);
  await page.getByTestId('flow-head').click();
  await page.locator('[data-testid=step][data-step-id="2"]').getByTestId('step-seek').click();
  await shown(page);
  await page.getByTestId('video').evaluate((v: HTMLVideoElement) => { v.muted = true; return v.play(); });
  await expect(page.locator('[data-testid=step][data-step-id="3"]')).toHaveClass(/playing/, { timeout: 5_000 });
});

test('#action=<actionId> opens the step and shows its moment', async ({ page }) => {
  await open(page, '#action=act_green');
  const now = await shown(page);
  expect(now.time).toBeCloseTo(4.2, 2);
  expect(colourOf(now.rgb)).toBe('green');
  await expect(page.locator('[data-testid=step][data-step-id="3"]')).toHaveClass(/playing/);
});

test('a jump from further down shows the whole video, below the sticky filter bar', async ({ page }) => {
  await page.setViewportSize({ width: 900, height: 320 });
  await open(page);
  await page.getByTestId('flow-head').click();
  const video = page.getByTestId('video');
  await expect(video).toBeVisible();
  // Scrolled so that the video's top has gone up under the bar, its steps on screen.
  const third = page.locator('[data-testid=step][data-step-id="3"]');
  await video.evaluate((v) => window.scrollBy(0, v.getBoundingClientRect().top + 60));
  await third.getByTestId('step-seek').click();
  const gap = () => page.evaluate(() => {
    const bar = document.querySelector('.filters')!.getBoundingClientRect();
    return document.querySelector('[data-testid=video]')!.getBoundingClientRect().top - bar.bottom;
  });
  await expect.poll(gap, { timeout: 5_000 }).toBeGreaterThanOrEqual(0);
  expect(colourOf((await shown(page)).rgb)).toBe('green');
});
