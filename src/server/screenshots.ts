// Which screenshots an action takes (options.screenshot, else the deprecated fields), and how
// they come back: a data URI, or a stored object with a pre-signed URL.
import { setTimeout as sleep } from 'node:timers/promises';
import { parseDuration } from '../api/duration.js';
import type { ActionResult, Phase, ScreenshotBody } from '../api/schemas.js';
import { drawTrace, traceReady, type TraceOp } from './trace.js';
import type { ObjectStore } from './storage.js';

export interface ShotPlan {
  phases: ReadonlySet<Phase>;
  format: 'base64' | 'storageKey';
  expiresInMs: number;
  delayMs: number;
}

interface ScreenshotFields {
  options?: { screenshot?: boolean | { outputFormat?: 'base64' | 'storageKey'; presignedExpiresIn?: string; delay?: string; phases?: Phase[] } };
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
    return { phases: new Set(phases), format: o.outputFormat ?? 'base64', expiresInMs: parseDuration(o.presignedExpiresIn ?? kDefaultExpiresIn), delayMs: parseDuration(o.delay ?? kDefaultDelay) };
  }
  if (body.includeScreenshot !== true) return null;
  const phases = body.screenshotRange ?? kAllPhases;
  if (!phases.length) return null;
  return {
    phases: new Set(phases),
    format: body.outputFormat ?? 'base64',
    expiresInMs: parseDuration(body.presignedExpiresIn ?? kDefaultExpiresIn),
    delayMs: parseDuration(body.screenshotDelay ?? kDefaultDelay),
  };
}

export interface ShotContext {
  plan: ShotPlan;
  capture: () => Promise<Buffer>;
  store: ObjectStore;
  /** Where URLs point, e.g. http://127.0.0.1:28080. */
  origin: string;
  /** Storage key prefix for this action, e.g. boxes/<id>/actions/<actionId>. */
  keyPrefix: string;
  /** Ends the wait before the after-shot when the client went away. */
  signal?: AbortSignal;
}

type Shots = NonNullable<ActionResult['screenshot']>;

/** Runs `act` between the before and after captures; `act` returns what the trace draws. */
export async function withScreenshots<T>(ctx: ShotContext | null, act: () => Promise<{ value: T; trace: TraceOp }>): Promise<{ value: T; screenshot?: Shots }> {
  if (!ctx) return { value: (await act()).value };
  const { plan } = ctx;
  // A trace that cannot be drawn must fail the request before the action acts, not after.
  if (plan.phases.has('trace')) await traceReady();
  const before = plan.phases.has('before') ? await ctx.capture() : undefined;
  const { value, trace } = await act();
  let after: Buffer | undefined;
  if (plan.phases.has('after') || plan.phases.has('trace')) {
    if (plan.delayMs > 0) await sleep(plan.delayMs, undefined, { signal: ctx.signal });
    after = await ctx.capture();
  }
  const traced = plan.phases.has('trace') && after ? await drawTrace(after, trace) : undefined;
  const screenshot: Shots = {};
  const expiresAt = Date.now() + plan.expiresInMs;
  const encode = async (png: Buffer, phase: Phase) => {
    if (plan.format === 'base64') return { uri: `data:image/png;base64,${png.toString('base64')}` };
    const key = `${ctx.keyPrefix}/${phase}.png`;
    await ctx.store.put(key, png, expiresAt);
    return { uri: key, presignedUrl: ctx.store.url(ctx.origin, key, expiresAt) };
  };
  if (before) screenshot.before = await encode(before, 'before');
  if (after && plan.phases.has('after')) screenshot.after = await encode(after, 'after');
  if (traced) screenshot.trace = await encode(traced, 'trace');
  return { value, screenshot };
}

/** The answer of `POST /actions/screenshot`: the PNG as a data URI, or stored behind a pre-signed URL. */
export async function screenshotAnswer(png: Buffer, body: ScreenshotBody, to: { store: ObjectStore; origin: string; boxId: string; actionId: string | undefined }): Promise<{ status: number; body: unknown }> {
  if ((body.outputFormat ?? 'base64') === 'base64') return { status: 200, body: { uri: `data:image/png;base64,${png.toString('base64')}`, actionId: to.actionId } };
  const expiresAt = Date.now() + parseDuration(body.presignedExpiresIn ?? '30m', '/presignedExpiresIn');
  const key = `boxes/${to.boxId}/actions/${to.actionId}/screenshot.png`;
  await to.store.put(key, png, expiresAt);
  return { status: 200, body: { uri: key, presignedUrl: to.store.url(to.origin, key, expiresAt), actionId: to.actionId } };
}
