// The run: select flows (grep, tags, shard), schedule them over N workers (each on its own
// box), retry failed flows, stream events to reporters, and build the RunResult.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { BoxClient } from '../api/client.js';
import { BoxflowError, exitClassOf } from '../errors.js';
import { codeFrame, loadFlowFile, stackLocations } from '../flow/index.js';
import type { Flow } from '../flow/types.js';
import type { BaselineWritten } from '../visual/index.js';
import { Masker } from '../mask.js';
import { ArtifactStore } from './artifacts.js';
import { BoxPool, type Lease } from './boxPool.js';
import { Executor, maskError, relativeSource, toErrorInfo, type FlowRuntime } from './executor.js';
import { LayoutSource } from './layoutSource.js';
import { computeStats } from './stats.js';
import { defineVariables } from './script.js';
import type { RunOptions } from './options.js';
import type { ErrorInfo, FlowAttempt, FlowInfo, FlowResult, Reporter, RunResult, StepRecord } from './types.js';

export interface RunDeps {
  client: BoxClient;
  /** Receives every event (reporters + results.jsonl). */
  reporter: Required<Pick<Reporter, 'onBegin' | 'onFlowBegin' | 'onStepBegin' | 'onStepEnd' | 'onFlowEnd' | 'onError' | 'onEnd'>>;
  /** Values never to show (the API key). */
  secrets: string[];
  /**
   * The run's masker, when the caller shares it (the CLI gives it to the reporters for the code
   * frames they read): it starts with `secrets` and learns every flow's secrets as flows run.
   */
  masker?: Masker;
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
  const artifacts = new ArtifactStore(options.outputDir);
  const infos = new Map(flows.map((f) => [f, flowInfo(f, options.rootDir)]));
  const results: FlowResult[] = [];
  const baselines: RunResult['baselines'] = [];
  const errors: ErrorInfo[] = [];
  const pool = new BoxPool(deps.client, options);
  // Every flow hides every secret of the run (the API key, each flow's `secrets:`), known before
  // the first flow starts: what a flow's records show does not depend on which flows ran before.
  const masker = (deps.masker ?? new Masker()).add(deps.secrets).add(flows.flatMap(secretsOf));
  const subFlows = new Map<string, Promise<Flow>>();
  const loadFlow = (file: string): Promise<Flow> => {
    const cached = subFlows.get(file);
    if (cached) return cached;
    const p = loadFlowFile(file);
    subFlows.set(file, p);
    return p;
  };

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

  // 2. Workers take flows from one queue until it is empty.
  const queue = [...flows];
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
        const result = await runAttempt(flow, info, attempt, lease, { ...deps, masker, artifacts, options, loadFlow, onBaseline: (path, written) => baselines.push({ path, written }) });
        // A failure on a box that no longer runs is the box's fault, not the flow's.
        const dead = result.error !== undefined && (await pool.isDead(lease.box));
        if (dead) result.error = { code: 'BOX_UNAVAILABLE', message: `box ${lease.box.id} died during the flow: ${result.error!.message}` };
        attempts.push(result);
        lease.release(dead ? 'dead' : 'ok');
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

async function runAttempt(flow: Flow, info: FlowInfo, attempt: number, lease: Lease, deps: AttemptDeps): Promise<FlowAttempt> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const box = lease.box;
  const vars: Record<string, string> = { ...deps.options.env, ...flow.env };
  const masker = deps.masker;
  const state: FlowRuntime['state'] = { scale: 1 };
  const layout = new LayoutSource(deps.client, box, state);
  const rt: FlowRuntime = {
    client: deps.client,
    box,
    flow,
    info,
    options: deps.options,
    artifacts: deps.artifacts,
    layout,
    state,
    boxState: lease.state,
    masker,
    addSecrets: (values) => void masker.add(values),
    loadFlow: deps.loadFlow,
    hooks: {
      stepBegin: (s) => void deps.reporter.onStepBegin(info, s),
      stepEnd: (s) => void deps.reporter.onStepEnd(info, s),
      baselineWritten: deps.onBaseline,
    },
  };
  // The flow deadline aborts whatever step is running.
  const deadline = new AbortController();
  const timeoutMs = flow.timeout ?? deps.options.flowTimeout;
  const timer = setTimeout(() => deadline.abort(new BoxflowError('FLOW_TIMEOUT', `flow "${flow.name}" did not finish within ${timeoutMs} ms`)), timeoutMs);
  const exec = new Executor(rt, deadline.signal);
  let error: ErrorInfo | undefined;
  const steps: StepRecord[] = [];
  try {
    // env: values may read -e and the values before them (`USER: ${USER || 'guest'}`), as in Maestro.
    Object.assign(vars, defineVariables({ ...deps.options.env }, flow.env, state, box.type));
    state.scale = (await deps.client.getSettings(box.id).catch(() => ({ scale: 1 }))).scale;
    steps.push(...(await exec.runList(flow.onStart, '', vars, flow.file)));
    if (!steps.some((s) => s.status === 'failed')) {
      if (flow.fn) {
        const { box: flowBox, expect } = exec.flowBox(vars);
        try {
          await flow.fn({ box: flowBox, expect, env: vars });
        } catch (err) {
          if (!exec.records.some((r) => r.status === 'failed')) error = await withFlowLocation(toErrorInfo(err, deadline.signal, masker), err, flow.file, deps.options.rootDir);
        }
        steps.push(...exec.records);
      } else {
        steps.push(...(await exec.runList(flow.steps, '', vars, flow.file)));
      }
    }
  } catch (err) {
    error = toErrorInfo(err, deadline.signal, masker);
  } finally {
    clearTimeout(timer);
  }
  // onFinish always runs, with its own deadline.
  const finish = new AbortController();
  const finishTimer = setTimeout(() => finish.abort(new BoxflowError('FLOW_TIMEOUT', 'onFinish did not finish in time')), Math.max(deps.options.stepTimeout * 4, 30_000));
  try {
    if (flow.onFinish.length) steps.push(...(await new Executor(rt, finish.signal).runList(flow.onFinish, `f`, vars, flow.file)));
  } finally {
    clearTimeout(finishTimer);
    await layout.close();
  }
  const failedStep = findFailed(steps);
  if (!error && failedStep) error = failedStep.error;
  if (error) error = maskError(error, masker);
  return {
    attempt,
    status: error ? 'failed' : 'passed',
    startedAt,
    durationMs: Math.round(performance.now() - started),
    box,
    steps,
    error,
  };
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
