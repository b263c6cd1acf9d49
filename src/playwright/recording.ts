// Playwright's own recording options (`use.video`, `use.trace`) as they apply to a test's box.
// The box records its own screen (boxflow's video, runner/video.ts), so Playwright's `video` is
// turned into the box's recording mode for each attempt with Playwright's own rules of when it
// records and what it keeps. Playwright's trace holds box steps as test steps, their images as
// the steps' attachments: what the box adds to a trace is boxflow.config's `screenshots`.
import type { PlaywrightWorkerOptions } from '@playwright/test';
import type { VideoMode } from '../runner/options.js';

export type PlaywrightVideo = PlaywrightWorkerOptions['video'];
export type PlaywrightTrace = PlaywrightWorkerOptions['trace'];

const modeOf = (option: string | { mode: string } | undefined): string => (typeof option === 'string' ? option : (option?.mode ?? 'off'));

/**
 * The box's recording mode for this attempt under Playwright's `video` (retry: Playwright's
 * `testInfo.retry`), or undefined when Playwright's `video` is off and boxflow.config's `video`
 * decides. As Playwright: `on-first-retry` records the first retry only, `on-all-retries` every
 * retry, `retain-on-first-failure` the first run and keeps it if it failed, and
 * `retain-on-failure-and-retries` keeps a failed run and every retry.
 */
export function boxVideoMode(video: PlaywrightVideo | undefined, retry: number): VideoMode | undefined {
  switch (modeOf(video)) {
    case 'on':
      return 'on';
    case 'retain-on-failure':
      return 'retain-on-failure';
    case 'on-first-retry':
    case 'retry-with-video':
      return retry === 1 ? 'on' : 'off';
    case 'on-all-retries':
      return retry > 0 ? 'on' : 'off';
    case 'retain-on-first-failure':
      return retry === 0 ? 'retain-on-failure' : 'off';
    case 'retain-on-failure-and-retries':
      return retry > 0 ? 'on' : 'retain-on-failure';
    default:
      return undefined;
  }
}

/**
 * One-line warnings for the parts of Playwright's `video` and `trace` that cannot reach the box,
 * each saying what to set instead.
 */
export function recordingWarnings(video: PlaywrightVideo | undefined, trace: PlaywrightTrace | undefined, boxPhases: readonly string[]): string[] {
  const out: string[] = [];
  if (typeof video === 'object' && video && boxVideoMode(video, 0) !== undefined) {
    const extra = Object.keys(video).filter((k) => k !== 'mode');
    const names = extra.map((k) => `video.${k}`).join(' and ');
    if (extra.length) out.push(`video: ${names} ${extra.length === 1 ? 'applies' : 'apply'} to Playwright's own pages only; the box's video has the box's own screen size and rate (size the screen with box.setResolution())`);
  }
  if (modeOf(trace) !== 'off' && !boxPhases.length) {
    out.push("trace: box steps reach Playwright's trace without images, as boxflow.config turns `screenshots` off; set `screenshots: ['trace']` (or true) there to see each box step's image in the trace");
  }
  return out;
}
