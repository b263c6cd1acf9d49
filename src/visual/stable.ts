// Stable capture: a frame taken mid-animation makes a flaky baseline, so frames are retaken
// until two in a row agree, polling with backoff against a monotonic deadline.
import { setTimeout as sleep } from 'node:timers/promises';
import { BoxflowError } from '../errors.js';
import type { NamedMasks } from './baseline.js';
import { compareImages } from './pool.js';
import type { CompareOptions } from './compare.js';

/**
 * A frame with where its masked elements were when it was taken. A masked element that changes
 * size between two frames (a clock going from 9 to 10) is ignored where it was in either.
 */
export interface MaskedFrame {
  png: Buffer;
  masks: NamedMasks;
}

export interface StableCaptureOptions {
  /** Time for retakes; the first two frames are always taken, even past it. */
  timeoutMs: number;
  /** Per-pixel tolerance between consecutive frames. Default 0.2. */
  threshold?: number;
  /** Differing pixels allowed between consecutive frames. Default 0. */
  maxDiffPixels?: number;
  /** Regions ignored when deciding whether two frames agree; an element's, that may move or grow, come with each frame (MaskedFrame). */
  masks?: CompareOptions['masks'];
  clip?: CompareOptions['clip'];
  signal?: AbortSignal;
  /** Waits before each retake after the second frame; the last one repeats. */
  backoffMs?: number[];
}

/** `masks`: those of the last two frames (merged), when the capture gives its frames' masks. */
export type StableCaptureResult =
  | { stable: true; png: Buffer; frames: number; masks: NamedMasks }
  | { stable: false; png: Buffer; previous: Buffer; frames: number; masks: NamedMasks };

/** Playwright's poll intervals; the runner's polling (src/runner/poll.ts) waits the same. */
export const kBackoffMs: readonly number[] = [0, 100, 250, 500, 1000];

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new BoxflowError('ABORTED', 'stable screenshot capture was aborted', { cause: signal.reason });
}

/** Both frames' rectangles under each mask, each once. */
export function mergeMasks(a: NamedMasks, b: NamedMasks): NamedMasks {
  const out: NamedMasks = { ...a };
  for (const [k, rects] of Object.entries(b)) {
    const seen = new Set((out[k] ?? []).map((r) => JSON.stringify(r)));
    out[k] = [...(out[k] ?? []), ...rects.filter((r) => !seen.has(JSON.stringify(r)))];
  }
  return out;
}

const asFrame = (shot: Buffer | MaskedFrame): MaskedFrame => (Buffer.isBuffer(shot) ? { png: shot, masks: {} } : shot);

export async function stableCapture(capture: () => Promise<Buffer | MaskedFrame>, opts: StableCaptureOptions): Promise<StableCaptureResult> {
  const deadline = performance.now() + Math.max(0, opts.timeoutMs);
  const backoff = opts.backoffMs?.length ? opts.backoffMs : kBackoffMs;
  const compareOpts: CompareOptions = { threshold: opts.threshold, maxDiffPixels: opts.maxDiffPixels ?? 0 };
  if (opts.clip) compareOpts.clip = opts.clip;
  const signal = opts.signal;
  checkAborted(signal);
  let previous = asFrame(await capture());
  let frames = 1;
  for (let retake = 0; ; retake++) {
    const wait = Math.min(backoff[Math.min(retake, backoff.length - 1)]!, deadline - performance.now());
    if (wait > 0) await sleep(wait, undefined, signal ? { signal } : undefined).catch(() => checkAborted(signal));
    checkAborted(signal);
    const frame = asFrame(await capture());
    frames++;
    const masks = mergeMasks(previous.masks, frame.masks);
    const rects = [...(opts.masks ?? []), ...Object.values(masks).flat()];
    const r = await compareImages(previous.png, frame.png, rects.length ? { ...compareOpts, masks: rects } : compareOpts);
    if (r.pass) return { stable: true, png: frame.png, frames, masks };
    if (performance.now() >= deadline) return { stable: false, png: frame.png, previous: previous.png, frames, masks };
    previous = frame;
  }
}
