// Runs one attempt of one flow on one box: onStart, the steps (or a TS flow's function),
// onFinish (always), each step recorded. Step behaviour lives in runner/steps/, one handler
// per kind; this file only sequences, times and records.
import { BoxflowError, type ErrorCode } from '../errors.js';
import type { FlowBox, FlowExpect, SourceLocation, Step } from '../flow/types.js';
import type { Masker } from '../mask.js';
import { codeFrame, interpolate } from '../flow/index.js';
import { flowApi } from '../flow/tsApi.js';
import { imageTransport, storeActionImages, type ImageTransport } from './artifacts.js';
import type { RunOptions } from './options.js';
import { handlers } from './steps/index.js';
import { resolveFields, type FlowRuntime, type StepHandler, type StepRun } from './steps/types.js';
import { captureOnce } from './steps/visual.js';
import type { FloatingCalls } from './floating.js';
import { evaluatePoints } from './steps/target.js';
import { stepLabel } from './label.js';
import { scriptHostFor } from './script.js';
import type { ErrorInfo, StepRecord } from './types.js';
import { relativeSource } from './sourcePath.js';

export { relativeSource };

// boxflow/test builds a FlowRuntime for its Executor.
export type { FlowRuntime } from './steps/types.js';

export class StepFailure extends Error {
  constructor(readonly record: StepRecord) {
    super(record.error?.message ?? 'step failed');
  }
}

/** A box call of a TS flow that has started and not yet ended. */
interface InFlight {
  step: Step;
  done: Promise<unknown>;
}

export class Executor {
  readonly records: StepRecord[] = [];
  #counter = 0;
  readonly #inFlight = new Set<InFlight>();
  #lastCall: Step | undefined;

  constructor(
    private readonly rt: FlowRuntime,
    private readonly signal: AbortSignal,
  ) {}

  /** Runs a list of steps; stops at the first failure (optional steps only warn) and skips the rest. */
  async runList(steps: Step[], parentId: string, vars: Record<string, string>, flowFile: string, attempt?: number): Promise<StepRecord[]> {
    const out: StepRecord[] = [];
    let failed = false;
    for (const [i, step] of steps.entries()) {
      // Each round of a repeat/retry has ids of its own: 5.2.1 is step 1 of round 2 of step 5.
      const id = parentId ? (attempt !== undefined ? `${parentId}.${attempt}.${i + 1}` : `${parentId}.${i + 1}`) : String(++this.#counter);
      if (failed) {
        out.push(this.#skipped(step, id, i));
        continue;
      }
      const record = await this.runStep(step, id, i, vars, flowFile);
      if (attempt !== undefined) record.attempt = attempt;
      out.push(record);
      if (record.status === 'failed') failed = true;
    }
    return out;
  }

  /** Runs one step; every step in progress is known (waitingOn, settled) until it has ended. */
  runStep(step: Step, id: string, index: number, vars: Record<string, string>, flowFile: string): Promise<StepRecord> {
    const call: InFlight = { step, done: Promise.resolve() };
    this.#lastCall = step;
    const done = this.#runStep(step, id, index, vars, flowFile);
    call.done = done.finally(() => this.#inFlight.delete(call)).catch(() => {});
    this.#inFlight.add(call);
    return done;
  }

  async #runStep(step: Step, id: string, index: number, vars: Record<string, string>, flowFile: string): Promise<StepRecord> {
    const { rt } = this;
    const command = step.kind;
    const label = rt.masker.text(step.label ?? defaultLabel(step, rt.masker));
    rt.hooks.stepBegin({ id, label, command });
    // The start and the duration are taken at one moment: a video chapter starts where the step did.
    const started = performance.now();
    const startedAt = new Date().toISOString();
    const record: StepRecord = {
      id,
      index,
      label,
      command,
      args: stepArgs(step),
      source: relativeSource(step.source, this.rt.options.rootDir),
      status: 'passed',
      attempts: 1,
      startedAt,
      durationMs: 0,
    };
    // A step's own timeout, else its flow's stepTimeout, else the config's.
    const timeoutMs = step.timeout ?? rt.flow.stepTimeout ?? rt.options.stepTimeout;
    const stepSignal = AbortSignal.any([this.signal, AbortSignal.timeout(Math.max(timeoutMs, rt.options.actionTimeout) + 5_000)]);
    const run: StepRun = {
      rt,
      record,
      vars,
      deadline: started + timeoutMs,
      timeoutMs,
      signal: stepSignal,
      flowFile,
      written: step,
      resolve: (value) => interpolate(value, vars, process.env, (expr) => scriptHostFor(rt.state).run(expr, { vars, platform: rt.box.type === 'linux' ? 'web' : 'android' }, `\${${expr}}`)),
      actionOptions: (s) => screenshotOptions(s, rt.options, imageTransport(rt.client, rt.box.type)),
      recordAction: async (result) => {
        record.actionId = result.actionId;
        record.message = result.message;
        if (result.screenshot) record.screenshots = await storeActionImages(rt.artifacts, rt.client, result.screenshot, stepSignal);
      },
      runChildren: (steps, childVars, file, attempt) => this.runList(steps, id, childVars, file, attempt),
    };
    try {
      const handler = handlers[step.kind] as StepHandler;
      // Before the handler sees the step: a point given as ${...} is evaluated now and its form
      // checked, then every field the handler declares is resolved (steps/types.ts, StepHandler).
      await handler(resolveFields(evaluatePoints(step, run), handler.resolves, run.resolve), run);
    } catch (err) {
      const info = toErrorInfo(err, this.signal, rt.masker);
      if (!record.actionId && err && typeof err === 'object' && typeof (err as { actionId?: unknown }).actionId === 'string') record.actionId = (err as { actionId: string }).actionId;
      if (step.source) info.snippet = await snippet(step.source);
      record.error = info;
      record.status = step.optional ? 'warned' : 'failed';
      await failureScreenshot(run, step, err, this.signal);
      if (record.children?.some((c) => c.status === 'failed') && !record.message) record.message = info.message;
    }
    record.durationMs = Math.round(performance.now() - started);
    maskRecord(record, rt.masker);
    rt.hooks.stepEnd(record);
    return record;
  }

  /**
   * A TS function flow: each `box.*` call becomes one recorded top-level step. Once the flow's signal
   * has fired (its timeout, the test's end), a call fails at once and never reaches the box. With
   * `floating`, every box call and expect is tracked until the flow awaits it (floating.ts).
   */
  flowBox(vars: Record<string, string>, floating?: FloatingCalls): { box: FlowBox; expect: FlowExpect } {
    const api = flowApi({
      runStep: async (step) => {
        if (this.signal.aborted) throw abortReason(this.signal);
        const record = await this.runStep(step, String(++this.#counter), this.records.length, vars, this.rt.flow.file);
        this.records.push(record);
        if (record.status === 'failed') throw new StepFailure(record);
      },
      info: { id: this.rt.box.id, type: this.rt.box.type },
      page: () => this.rt.layout.page(),
    });
    if (!floating) return api;
    const box = floating.wrapAll(api.box, 'box');
    box.browser = floating.wrapAll(api.box.browser, 'box.browser');
    const expect = ((target: unknown) => {
      const { not, ...matchers } = (api.expect as unknown as (t: unknown) => Record<string, object> & { not: object })(target);
      return { ...floating.wrapAll(matchers, 'expect(box)'), not: floating.wrapAll(not, 'expect(box).not') };
    }) as unknown as FlowExpect;
    return { box, expect };
  }

  /** The step a flow is waiting on (the outermost still running), else the last one it ran. */
  get waitingOn(): { step: Step; running: boolean } | undefined {
    const first = this.#inFlight.values().next().value;
    if (first) return { step: first.step, running: true };
    return this.#lastCall ? { step: this.#lastCall, running: false } : undefined;
  }

  /** Steps that have started and not ended, outermost first (for a TS flow: its box calls). */
  get pendingCalls(): Step[] {
    return [...this.#inFlight].map((c) => c.step);
  }

  /** Resolves true once every box call has ended, or false when `limitMs` passed first. */
  async settled(limitMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), limitMs)));
    try {
      for (;;) {
        const pending = [...this.#inFlight].map((c) => c.done);
        if (!pending.length) return true;
        if ((await Promise.race([Promise.all(pending).then(() => true as const), late])) === false) return false;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  #skipped(step: Step, id: string, index: number): StepRecord {
    const record: StepRecord = {
      id,
      index,
      label: step.label ?? defaultLabel(step, this.rt.masker),
      command: step.kind,
      args: stepArgs(step),
      source: relativeSource(step.source, this.rt.options.rootDir),
      status: 'skipped',
      attempts: 0,
      startedAt: new Date().toISOString(),
      durationMs: 0,
    };
    maskRecord(record, this.rt.masker);
    this.rt.hooks.stepEnd(record);
    return record;
  }
}

// ---------------------------------------------------------------------------- helpers

function abortReason(signal: AbortSignal): Error {
  const reason = signal.reason as unknown;
  return reason instanceof Error ? reason : new BoxflowError('FLOW_TIMEOUT', 'the flow was stopped');
}

function screenshotOptions(step: Step, options: RunOptions, transport: ImageTransport) {
  const phases = step.screenshots === undefined ? options.screenshots.phases : step.screenshots === true ? (['before', 'after', 'trace'] as const) : step.screenshots === false ? [] : step.screenshots;
  if (!phases.length) return { screenshot: false as const };
  return { screenshot: { phases: [...phases], delay: options.screenshots.delay, ...transport } };
}


const kContainers = new Set(['runFlow', 'repeat', 'retry']);

/** The screen at the moment a step failed, kept on its record; best effort, never a second error. */
async function failureScreenshot(run: StepRun, step: Step, err: unknown, flowSignal: AbortSignal): Promise<void> {
  // Containers show their failing child's screenshot; a dead box or a run being stopped has none.
  if (kContainers.has(step.kind) || err instanceof StepFailure || flowSignal.aborted) return;
  if (BoxflowError.is(err) && ['BOX_UNAVAILABLE', 'BOX_NOT_FOUND', 'BOX_NOT_RUNNING', 'BOX_CRASHED', 'UNAUTHORIZED'].includes(err.code)) return;
  const signal = AbortSignal.any([flowSignal, AbortSignal.timeout(15_000)]);
  try {
    const png = await captureOnce({ ...run, signal });
    run.record.screenshots = { ...run.record.screenshots, failure: await run.rt.artifacts.put(png, 'png') };
  } catch {
    // The step's own error is what the report must show.
  }
}

export function stepArgs(step: Step): unknown {
  const { kind: _k, source: _s, label: _l, optional: _o, timeout: _t, screenshots: _sc, ...args } = step as Step & Record<string, unknown>;
  if ('steps' in args) return { ...args, steps: `${(args.steps as unknown[]).length} steps` };
  return args;
}

/** The step's label, its values masked before anything is cut short (a cut secret would show its start). */
function defaultLabel(step: Step, masker: Masker): string {
  return stepLabel(step, { mask: (t) => masker.text(t) });
}

/**
 * Everything a step record says in words goes through the masker before anyone sees it: label,
 * args, message, error and code frame, the layout evidence's selector and candidates, and the
 * URL of a webTerminal/cdpUrl step (its signature dropped). Paths to artifacts stay as they are.
 */
export function maskRecord(record: StepRecord, masker: Masker): void {
  record.label = masker.text(record.label);
  record.args = masker.deep(record.args);
  if (record.message !== undefined) record.message = masker.text(record.message);
  if (record.error) record.error = maskError(record.error, masker);
  if (record.layout) record.layout = { ...record.layout, selector: masker.text(record.layout.selector), candidates: masker.deep(record.layout.candidates) };
  if (record.url !== undefined) record.url = masker.text(record.url);
  if (record.visual) record.visual = { ...record.visual, name: masker.text(record.visual.name) };
  if (record.attachments) record.attachments = record.attachments.map((a) => ({ ...a, name: masker.text(a.name) }));
}

export function maskError(error: ErrorInfo, masker: Masker): ErrorInfo {
  const out: ErrorInfo = { ...error, message: masker.text(error.message) };
  if (error.snippet !== undefined) out.snippet = masker.text(error.snippet);
  return out;
}

export function toErrorInfo(err: unknown, flowSignal: AbortSignal | undefined, masker: Masker): ErrorInfo {
  if (err instanceof StepFailure) return { ...err.record.error! };
  if (flowSignal?.aborted && !(BoxflowError.is(err) && err.code === 'FLOW_TIMEOUT')) {
    const reason = flowSignal.reason as unknown;
    if (BoxflowError.is(reason)) return { code: reason.code, message: masker.text(reason.message) };
  }
  if (BoxflowError.is(err)) return { code: err.code, message: masker.text(err.message) };
  const e = err as Error;
  const code: ErrorCode = e?.name === 'TimeoutError' ? 'STEP_TIMEOUT' : 'FLOW_ERROR';
  return { code, message: masker.text(e?.message ?? String(err)) };
}

async function snippet(source: SourceLocation): Promise<string | undefined> {
  try {
    const { readFile } = await import('node:fs/promises');
    return codeFrame(await readFile(source.file, 'utf8'), source.line, source.column);
  } catch {
    return undefined;
  }
}
