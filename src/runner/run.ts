// The run: select flows (grep, tags, shard), schedule them over N workers (each on its own
// box), retry failed flows, stream events to reporters, and build the RunResult.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { BoxClient } from '../api/client.js';
import { BoxflowError, exitClassOf } from '../errors.js';
import { codeFrame, stackLocations } from '../flow/index.js';
import type { Flow, Step } from '../flow/types.js';
import type { BaselineWritten } from '../visual/index.js';
import { Masker } from '../mask.js';
import { ArtifactStore } from './artifacts.js';
import { BoxPool, type Lease } from './boxPool.js';
import { FloatingCalls } from './floating.js';
import { Executor, maskError, relativeSource, toErrorInfo, type FlowRuntime } from './executor.js';
import { stepLabel } from './label.js';
import { cachedFlowLoader, createFlowRuntime } from './runtime.js';
import { untilAborted } from './poll.js';
import { computeStats } from './stats.js';
import { defineVariables } from './script.js';
import { startAttemptVideo } from './video.js';
import { durationsFile, readDurations, saveDurations, slowestFirst } from './durations.js';
import type { RunOptions } from './options.js';
import type { ErrorInfo, FlowAttempt, FlowInfo, FlowResult, Reporter, RunResult, StepRecord } from './types.js';

export interface RunDeps {
  client: BoxClient;
  /**
   * Receives every event (reporters + results.jsonl); its hooks never reject (a ReporterHost isolates
   * each reporter's errors), and it keeps each reporter's events in order.
   */
  reporter: Required<Pick<Reporter, 'onBegin' | 'onFlowBegin' | 'onStepBegin' | 'onStepEnd' | 'onFlowEnd' | 'onError' | 'onEnd'>>;
  /** Values never to show (the API key). */
  secrets: string[];
  /** The service is this run's embedded server, writing its action images into the output folder itself. */
  serverWritesArtifacts?: boolean;
  /**
   * The run's masker, when the caller shares it (the CLI gives it to the reporters for the code
   * frames they read): it starts with `secrets` and learns every flow's secrets as flows run.
   */
  masker?: Masker;
  /** Where the run's warnings are said as they happen (a box that could not be put back); default: `warning:` lines on stderr. */
  warn?: (message: string) => void;
}

export function flowInfo(flow: Flow, rootDir: string): FlowInfo {
  const file = relative(rootDir, flow.file) || flow.file;
  const id = createHash('sha1').update(`${file}\0${flow.name}`).digest('hex').slice(0, 12);
  return { id, name: flow.name, file, tags: flow.tags };
}

/** grep/tag filter, then the shard's share: flows sorted by id, every n-th from i-1. */
export function selectFlows(flows: Flow[], options: Pick<RunOptions, 'grep' | 'tags' | 'shard' | 'rootDir'>): Flow[] {
  let out = flows.filter((f) => (!options.grep || options.grep.test(`${f.name} ${relative(options.rootDir, f.file)} ${f.tags.map((t) => `@${t}`).join(' ')}`)) && (!options.tags.length || options.tags.some((t) => f.tags.includes(t))));
  if (options.shard) {
    const { index, total } = options.shard;
    out = out
      .map((f) => ({ f, id: flowInfo(f, options.rootDir).id }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .filter((_, i) => i % total === index - 1)
      .map((x) => x.f);
  }
  return out;
}

export async function runFlows(flows: Flow[], options: RunOptions, deps: RunDeps): Promise<RunResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const artifacts = new ArtifactStore(options.outputDir, { serverWrites: deps.serverWritesArtifacts === true });
  const infos = new Map(flows.map((f) => [f, flowInfo(f, options.rootDir)]));
  const results: FlowResult[] = [];
  const baselines: RunResult['baselines'] = [];
  const errors: ErrorInfo[] = [];
  // Every flow hides every secret of the run (the API key, each flow's `secrets:`), known before
  // the first flow starts: what a flow's records show does not depend on which flows ran before.
  const masker = (deps.masker ?? new Masker()).add(deps.secrets).add(flows.flatMap(secretsOf));
  const warn = deps.warn ?? ((message: string) => void process.stderr.write(`warning: ${message}\n`));
  const pool = new BoxPool(deps.client, options, (message) => warn(masker.text(message)));
  const loadFlow = cachedFlowLoader();

  await deps.reporter.onBegin({ startedAt, shard: options.shard, workers: options.workers, flows: [...infos.values()], outputDir: options.outputDir });

  // 1. Boxes first: a run that cannot get a single box is an infrastructure failure.
  const workers = Math.max(1, Math.min(options.workers, flows.length || 1));
  try {
    await pool.start(workers);
  } catch (err) {
    const info = toErrorInfo(err, undefined, masker);
    errors.push(info);
    await deps.reporter.onError(info);
  }

  // 2. Workers take flows from one queue until it is empty; several workers take the slowest first
  // (src/runner/durations.ts).
  const durations = workers > 1 ? (durationsFile(options.rootDir) ?? durationsFile(process.cwd())) : undefined;
  const known = await readDurations(durations);
  const queue = slowestFirst(flows, (f) => infos.get(f)!.id, known);
  const runOne = async (flow: Flow) => {
    const info = infos.get(flow)!;
    const attempts: FlowAttempt[] = [];
    for (let attempt = 1; attempt <= options.retries + 1; attempt++) {
      const lease = errors.length && !pool.size ? undefined : await pool.acquire(flow).catch((err: unknown) => err as Error);
      if (!lease || lease instanceof Error) {
        const error = lease instanceof Error ? toErrorInfo(lease, undefined, masker) : errors[0] ?? { code: 'BOX_UNAVAILABLE', message: 'no box available' };
        await deps.reporter.onFlowBegin(info, attempt);
        attempts.push({ attempt, status: 'failed', startedAt: new Date().toISOString(), durationMs: 0, steps: [], error: { ...error, code: exitClassOf(error.code) === 3 ? error.code : 'BOX_UNAVAILABLE' } });
        break;
      }
      try {
        await deps.reporter.onFlowBegin(info, attempt, lease.box);
        const { boxBusy, ...result } = await runAttempt(flow, info, attempt, lease, { ...deps, masker, artifacts, options, loadFlow, onBaseline: (path, written) => baselines.push({ path, written }) });
        // A failure on a box that no longer runs is the box's fault, not the flow's.
        const dead = result.error !== undefined && (await pool.isDead(lease.box));
        if (dead) result.error = { code: 'BOX_UNAVAILABLE', message: `box ${lease.box.id} died during the flow: ${result.error!.message}` };
        attempts.push(result);
        // A box whose last call has not ended (the flow timed out mid-step) is never leased again.
        lease.release(dead || boxBusy ? 'dead' : 'ok');
        if (result.status === 'passed') break;
      } catch (err) {
        lease.release('dead');
        attempts.push({ attempt, status: 'failed', startedAt: new Date().toISOString(), durationMs: 0, box: lease.box, steps: [], error: toErrorInfo(err, undefined, masker) });
        break;
      }
    }
    const last = attempts.at(-1)!;
    const status = last.status === 'passed' ? (attempts.length > 1 ? 'flaky' : 'passed') : last.status === 'skipped' ? 'skipped' : 'failed';
    const result: FlowResult = { ...info, status, durationMs: attempts.reduce((a, t) => a + t.durationMs, 0), box: last.box, attempts, error: last.error };
    results.push(result);
    await deps.reporter.onFlowEnd(result);
  };
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let flow = queue.shift(); flow; flow = queue.shift()) await runOne(flow);
    }),
  );

  await saveDurations(durations, known, results.filter((r) => r.status !== 'skipped' && r.attempts.some((a) => a.durationMs > 0)));

  // 3. Boxes this run created are terminated.
  await pool.close().catch(async (err: unknown) => {
    const info = toErrorInfo(err, undefined, masker);
    errors.push(info);
    await deps.reporter.onError(info);
  });

  const order = new Map(flows.map((f, i) => [infos.get(f)!.id, i]));
  results.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const stats = computeStats(results);
  const result: RunResult = {
    version: 1,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    status: stats.failed || errors.length ? 'failed' : 'passed',
    shard: options.shard,
    boxes: pool.boxes(),
    flows: results,
    stats,
    baselines,
    errors,
    ...(pool.warnings.length ? { warnings: pool.warnings.map((w) => maskError(w, masker)) } : {}),
  };
  await deps.reporter.onEnd(result);
  return result;
}

interface AttemptDeps extends RunDeps {
  /** The run's masker, shared with the reporters. */
  masker: Masker;
  artifacts: ArtifactStore;
  options: RunOptions;
  loadFlow: (file: string) => Promise<Flow>;
  onBaseline: (path: string, written: BaselineWritten) => void;
}

async function runAttempt(flow: Flow, info: FlowInfo, attempt: number, lease: Lease, deps: AttemptDeps): Promise<FlowAttempt & { boxBusy?: true }> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const box = lease.box;
  const vars: Record<string, string> = { ...deps.options.env, ...flow.env };
  const masker = deps.masker;
  // The executor does not wait on reporters between steps; the attempt ends once they have heard
  // every step event (in order: the reporter host queues each reporter's hooks), before its flowEnd.
  const delivering: (void | Promise<void>)[] = [];
  const hooks = {
    stepBegin: (s: Parameters<FlowRuntime['hooks']['stepBegin']>[0]) => void delivering.push(deps.reporter.onStepBegin(info, s)),
    stepEnd: (s: StepRecord) => void delivering.push(deps.reporter.onStepEnd(info, s)),
    baselineWritten: deps.onBaseline,
  };
  // The flow deadline aborts whatever step is running, and stops waiting for the flow's own code.
  const deadline = new AbortController();
  const timeoutMs = flow.timeout ?? deps.options.flowTimeout;
  const timer = setTimeout(() => deadline.abort(new BoxflowError('FLOW_TIMEOUT', `flow "${flow.name}" did not finish within ${timeoutMs} ms`)), timeoutMs);
  let error: ErrorInfo | undefined;
  const steps: StepRecord[] = [];
  let rt: FlowRuntime | undefined;
  let exec: Executor | undefined;
  const floating = new FloatingCalls();
  // Config `video`: the box records the attempt, from here to its end (src/runner/video.ts).
  const recording = await startAttemptVideo(box, { client: deps.client, artifacts: deps.artifacts, options: deps.options }, deadline.signal);
  try {
    rt = await createFlowRuntime({ client: deps.client, box, boxState: lease.state, flow, info, options: deps.options, artifacts: deps.artifacts, masker, hooks, loadFlow: deps.loadFlow }, deadline.signal);
    const runtime = rt;
    const executor = (exec = new Executor(runtime, deadline.signal));
    // env: values may read -e and the values before them (`USER: ${USER || 'guest'}`), as in Maestro.
    Object.assign(vars, defineVariables({ ...deps.options.env }, flow.env, runtime.state, box.type));
    await untilAborted(
      (async () => {
        steps.push(...(await executor.runList(flow.onStart, '', vars, flow.file)));
        if (steps.some((s) => s.status === 'failed')) return;
        if (!flow.fn) return void steps.push(...(await executor.runList(flow.steps, '', vars, flow.file)));
        const { box: flowBox, expect } = executor.flowBox(vars, floating);
        try {
          await flow.fn({ box: flowBox, expect, env: vars });
          const left = executor.pendingCalls[0];
          if (left) throw new BoxflowError('FLOW_ERROR', `the flow ended while a box call was still running: ${left.label ?? stepLabel(left)} at ${where(left, deps.options.rootDir)} was not awaited (add await before it)`);
        } catch (err) {
          if (!executor.records.some((r) => r.status === 'failed') || BoxflowError.is(err)) error ??= await withFlowLocation(toErrorInfo(err, deadline.signal, masker), err, flow.file, deps.options.rootDir);
        }
      })(),
      deadline.signal,
    );
    // A call the flow never awaited fails it, whatever it did (it ran beside the calls after it, and
    // what it found went unseen); one still running is stopped.
    const unawaited = floating.error(deps.options.rootDir);
    if (unawaited) {
      error = toErrorInfo(unawaited, undefined, masker);
      deadline.abort(unawaited);
    }
  } catch (err) {
    error = toErrorInfo(err, deadline.signal, masker);
    if (deadline.signal.aborted && exec) error = { ...error, code: 'FLOW_TIMEOUT', message: timeoutMessage(error.message, exec, deps.options.rootDir) };
  } finally {
    clearTimeout(timer);
  }
  // The flow's box calls end (they were aborted) before anything else uses the box; a call that
  // does not end in time leaves the box to be replaced, never to be reused while it still acts.
  const settled = exec ? await exec.settled(kSettleMs) : true;
  if (exec) steps.push(...exec.records.filter((r) => !steps.includes(r)));
  // onFinish always runs, with its own deadline.
  const finish = new AbortController();
  const finishTimer = setTimeout(() => finish.abort(new BoxflowError('FLOW_TIMEOUT', 'onFinish did not finish in time')), Math.max(deps.options.stepTimeout * 4, 30_000));
  try {
    if (rt && settled && flow.onFinish.length) steps.push(...(await untilAborted(new Executor(rt, finish.signal).runList(flow.onFinish, `f`, vars, flow.file), finish.signal)));
  } catch (err) {
    error ??= toErrorInfo(err, finish.signal, masker);
  } finally {
    clearTimeout(finishTimer);
    await rt?.layout.close();
  }
  const failedStep = findFailed(steps);
  if (!error && failedStep) error = failedStep.error;
  if (error) error = maskError(error, masker);
  const durationMs = Math.round(performance.now() - started);
  const video = await recording?.finish(steps, error !== undefined);
  await Promise.all(delivering);
  return {
    attempt,
    status: error ? 'failed' : 'passed',
    startedAt,
    durationMs,
    box,
    steps,
    error,
    ...(video ? { video } : {}),
    ...(settled ? {} : { boxBusy: true }),
  };
}

/** How long a stopped flow's box calls may take to end (they are aborted) before the box is given up. */
const kSettleMs = 10_000;

function where(step: Step, rootDir: string): string {
  const at = relativeSource(step.source, rootDir);
  return at?.file ? `${at.file}:${at.line}:${at.column}` : 'an unknown line';
}

/** A timed-out flow's message names what it was waiting on: a running box call, else its last one. */
function timeoutMessage(message: string, exec: Executor, rootDir: string): string {
  const w = exec.waitingOn;
  if (!w) return message;
  const label = w.step.label ?? stepLabel(w.step);
  return w.running ? `${message}; it was waiting on ${label} at ${where(w.step, rootDir)}` : `${message}; its last box call, ${label} at ${where(w.step, rootDir)}, had ended: it was waiting on something else after it`;
}

/** An error thrown by a TS flow's own code names the line of the flow file it came from, with a frame. */
async function withFlowLocation(info: ErrorInfo, err: unknown, file: string, rootDir: string): Promise<ErrorInfo> {
  const at = stackLocations((err as Error)?.stack ?? '').find((l) => l.file === file);
  if (at) {
    const rel = relativeSource(at, rootDir);
    const text = await readFile(file, 'utf8').catch(() => undefined);
    return { ...info, message: `${info.message} (at ${rel.file}:${at.line}:${at.column})`, ...(text ? { snippet: codeFrame(text, at.line, at.column) } : {}) };
  }
  return info;
}

/** The values a flow names in `secrets:` (from its env, else the process environment). */
function secretsOf(flow: Flow): (string | undefined)[] {
  return flow.secrets.map((name) => flow.env[name] ?? process.env[name]);
}

function findFailed(steps: StepRecord[]): StepRecord | undefined {
  return steps.find((s) => s.status === 'failed');
}
