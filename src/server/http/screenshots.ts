// Which screenshots an action takes (options.screenshot, else the deprecated fields), and how
// they come back: a data URI, or a stored object with a pre-signed URL.
import { setTimeout as sleep } from 'node:timers/promises';
import { parseDuration } from '../../api/duration.js';
import type { ActionResult, Phase, ScreenshotBody } from '../../api/schemas.js';
import { drawTrace, traceReady, type TraceOp } from './trace.js';
import type { ObjectStore } from './storage.js';

export interface ShotPlan {
  phases: ReadonlySet<Phase>;
  format: 'base64' | 'storageKey';
  expiresInMs: number;
  delayMs: number;
  /** boxflow's extension `settle: 'frames'`: the after-shot once the screen is still (the box's own `settle`, else two captures in a row agree), `delayMs` at most. */
  settleOnFrames: boolean;
}

interface ScreenshotFields {
  options?: { screenshot?: boolean | { outputFormat?: 'base64' | 'storageKey'; presignedExpiresIn?: string; delay?: string; phases?: Phase[]; settle?: unknown } };
  includeScreenshot?: boolean;
  outputFormat?: 'base64' | 'storageKey';
  presignedExpiresIn?: string;
  screenshotDelay?: string;
  screenshotRange?: Phase[];
}

const kAllPhases: Phase[] = ['before', 'after', 'trace'];
const kDefaultExpiresIn = '30m';
const kDefaultDelay = '500ms';

/** null: take no screenshot and return no `screenshot` object. */
export function screenshotPlan(body: ScreenshotFields): ShotPlan | null {
  const opt = body.options?.screenshot;
  if (opt !== undefined) {
    if (opt === false) return null;
    const o = opt === true ? {} : opt;
    const phases = o.phases ?? kAllPhases;
    if (!phases.length) return null;
    return {
      phases: new Set(phases),
      format: o.outputFormat ?? 'base64',
      expiresInMs: parseDuration(o.presignedExpiresIn ?? kDefaultExpiresIn),
      delayMs: parseDuration(o.delay ?? kDefaultDelay),
      settleOnFrames: o.settle === 'frames',
    };
  }
  if (body.includeScreenshot !== true) return null;
  const phases = body.screenshotRange ?? kAllPhases;
  if (!phases.length) return null;
  return {
    phases: new Set(phases),
    format: body.outputFormat ?? 'base64',
    expiresInMs: parseDuration(body.presignedExpiresIn ?? kDefaultExpiresIn),
    delayMs: parseDuration(body.screenshotDelay ?? kDefaultDelay),
    settleOnFrames: false,
  };
}

export interface ShotContext {
  plan: ShotPlan;
  capture: () => Promise<Buffer>;
  /** The screen as it is, when the box knows it without a capture (else `capture`). */
  screen?: () => Promise<Buffer>;
  /** The box's own `settle: 'frames'`, when it has one (else, or when it answers undefined: captures until two in a row agree). */
  settle?: (maxMs: number, signal: AbortSignal | undefined) => Promise<Buffer | undefined>;
  store: ObjectStore;
  /** Where URLs point, e.g. http://127.0.0.1:28080. */
  origin: string;
  /** Storage key prefix for this action, e.g. boxes/<id>/actions/<actionId>. */
  keyPrefix: string;
  /** Ends the wait before the after-shot when the client went away. */
  signal?: AbortSignal;
}

type Shots = NonNullable<ActionResult['screenshot']>;

/**
 * Runs `act` between the before and after captures; `act` returns what the trace draws. The trace is
 * drawn on the before-image, where the action happened (a tap that closes a dialog shows what it
 * tapped), while the after-shot settles. The answer waits for the images it carries: a stored trace
 * is drawn after it, under a URL that works at once. Where traces cannot be drawn (no
 * @napi-rs/canvas), the action still acts and answers without a trace: an optional package never
 * fails an action.
 */
export async function withScreenshots<T>(ctx: ShotContext | null, act: () => Promise<{ value: T; trace: TraceOp }>): Promise<{ value: T; screenshot?: Shots }> {
  if (!ctx) return { value: (await act()).value };
  const { plan } = ctx;
  const drawable = plan.phases.has('trace') && (await traceReady().then(() => true, () => false));
  const expiresAt = Date.now() + plan.expiresInMs;
  const stored = (phase: Phase) => {
    const key = `${ctx.keyPrefix}/${phase}.png`;
    return { key, entry: { uri: key, presignedUrl: ctx.store.url(ctx.origin, key, expiresAt) } };
  };
  const encode = async (png: Buffer, phase: Phase) => {
    if (plan.format === 'base64') return { uri: `data:image/png;base64,${png.toString('base64')}` };
    const { key, entry } = stored(phase);
    if (ctx.store.artifactsDir) return { ...entry, artifact: ctx.store.putArtifact(key, png, expiresAt) };
    await ctx.store.put(key, png, expiresAt);
    return entry;
  };
  // The before-image is stored while the action runs.
  const beforePng = plan.phases.has('before') || drawable ? await (ctx.screen ?? ctx.capture)() : undefined;
  const before = plan.phases.has('before') ? encode(beforePng!, 'before') : undefined;
  before?.catch(() => {});
  const { value, trace } = await act();
  const traced = drawable ? drawTrace(beforePng!, trace) : undefined;
  traced?.catch(() => {});
  const screenshot: Shots = {};
  if (before) screenshot.before = await before;
  // A trace the answer carries (as data, or as a file of the run's output folder) is drawn while the
  // after-shot settles; a stored one is drawn after the answer, under a URL that works at once.
  let traceEntry: Promise<Shots['trace']> | undefined;
  if (traced) {
    if (plan.format === 'base64' || ctx.store.artifactsDir) {
      traceEntry = traced.then((png) => encode(png, 'trace'));
      traceEntry.catch(() => {});
    } else {
      const { key, entry } = stored('trace');
      ctx.store.putWhenReady(key, traced, expiresAt);
      screenshot.trace = entry;
    }
  }
  if (!plan.phases.has('after')) {
    if (traceEntry) screenshot.trace = await traceEntry;
    return { value, screenshot };
  }
  let after: Buffer;
  if (plan.settleOnFrames) {
    after = (await ctx.settle?.(plan.delayMs, ctx.signal)) ?? (await stillFrame(ctx.capture, plan.delayMs, ctx.signal));
  } else {
    if (plan.delayMs > 0) await sleep(plan.delayMs, undefined, { signal: ctx.signal });
    after = await ctx.capture();
  }
  screenshot.after = await encode(after, 'after');
  if (traceEntry) screenshot.trace = await traceEntry;
  return { value, screenshot };
}

/**
 * Captures until two frames in a row are the same (the screen is still) or `maxMs` went by; the
 * last frame. Each frame is handed to `onFrame` as it comes (the trace is drawn on it while the
 * next is taken).
 */
async function stillFrame(capture: () => Promise<Buffer>, maxMs: number, signal: AbortSignal | undefined, onFrame?: (png: Buffer) => unknown): Promise<Buffer> {
  const until = performance.now() + maxMs;
  let frame = await capture();
  while (performance.now() < until) {
    onFrame?.(frame);
    signal?.throwIfAborted();
    const next = await capture();
    if (next.equals(frame)) return next;
    frame = next;
  }
  return frame;
}

/** The answer of `POST /actions/screenshot`: the PNG as a data URI, or stored behind a pre-signed URL. */
export async function screenshotAnswer(png: Buffer, body: ScreenshotBody, to: { store: ObjectStore; origin: string; boxId: string; actionId: string | undefined }): Promise<{ status: number; body: unknown }> {
  if ((body.outputFormat ?? 'base64') === 'base64') return { status: 200, body: { uri: `data:image/png;base64,${png.toString('base64')}`, actionId: to.actionId } };
  const expiresAt = Date.now() + parseDuration(body.presignedExpiresIn ?? '30m', '/presignedExpiresIn');
  const key = `boxes/${to.boxId}/actions/${to.actionId}/screenshot.png`;
  await to.store.put(key, png, expiresAt);
  return { status: 200, body: { uri: key, presignedUrl: to.store.url(to.origin, key, expiresAt), actionId: to.actionId } };
}
