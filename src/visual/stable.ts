// Stable capture: a frame taken mid-animation makes a flaky baseline, so frames are retaken
// until two in a row agree, polling with backoff against a monotonic deadline.
import { setTimeout as sleep } from 'node:timers/promises';
import { BoxflowError } from '../errors.js';
import { compareImages } from './pool.js';
import type { CompareOptions } from './compare.js';

export interface StableCaptureOptions {
  /** Time for retakes; the first two frames are always taken, even past it. */
  timeoutMs: number;
  /** Per-pixel tolerance between consecutive frames. Default 0.2. */
  threshold?: number;
  /** Differing pixels allowed between consecutive frames. Default 0. */
  maxDiffPixels?: number;
  /** Regions (e.g. a clock) ignored when deciding whether two frames agree. */
  masks?: CompareOptions['masks'];
  clip?: CompareOptions['clip'];
  signal?: AbortSignal;
  /** Waits before each retake after the second frame; the last one repeats. */
  backoffMs?: number[];
}

export type StableCaptureResult =
  | { stable: true; png: Buffer; frames: number }
  | { stable: false; png: Buffer; previous: Buffer; frames: number };

/** Playwright's poll intervals; the runner's polling (src/runner/poll.ts) waits the same. */
export const kBackoffMs: readonly number[] = [0, 100, 250, 500, 1000];

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new BoxflowError('ABORTED', 'stable screenshot capture was aborted', { cause: signal.reason });
}

export async function stableCapture(capture: () => Promise<Buffer>, opts: StableCaptureOptions): Promise<StableCaptureResult> {
  const deadline = performance.now() + Math.max(0, opts.timeoutMs);
  const backoff = opts.backoffMs?.length ? opts.backoffMs : kBackoffMs;
  const compareOpts: CompareOptions = { threshold: opts.threshold, maxDiffPixels: opts.maxDiffPixels ?? 0 };
  if (opts.masks) compareOpts.masks = opts.masks;
  if (opts.clip) compareOpts.clip = opts.clip;
  const signal = opts.signal;
  checkAborted(signal);
  let previous = await capture();
  let frames = 1;
  for (let retake = 0; ; retake++) {
    const wait = Math.min(backoff[Math.min(retake, backoff.length - 1)]!, deadline - performance.now());
    if (wait > 0) await sleep(wait, undefined, signal ? { signal } : undefined).catch(() => checkAborted(signal));
    checkAborted(signal);
    const png = await capture();
    frames++;
    const r = await compareImages(previous, png, compareOpts);
    if (r.pass) return { stable: true, png, frames };
    if (performance.now() >= deadline) return { stable: false, png, previous, frames };
    previous = png;
  }
}
