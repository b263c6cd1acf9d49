// Reading a run back: results.jsonl line by line, a RunResult rebuilt from its events (a killed
// run keeps every finished step), and the result of an output dir.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BoxflowError } from '../errors.js';
import { kEventsFile, kResultsFile } from './events.js';
import { computeStats } from './stats.js';
import type { BoxInfo, ErrorInfo, FlowAttempt, FlowInfo, FlowResult, RunEvent, RunInfo, RunResult, StepRecord } from './types.js';

/** Reads results.jsonl. A torn last line (the process died mid-write) and blank lines are skipped. */
export function readEvents(file: string): RunEvent[] {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const events: RunEvent[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    try {
      events.push(JSON.parse(line) as RunEvent);
    } catch {
      const last = lines.slice(i + 1).every((l) => !l.trim());
      if (!last) throw new BoxflowError('RESULTS_INVALID', `${file}:${i + 1}: not a JSON line`);
    }
  }
  return events;
}

/**
 * The RunResult of an output dir: results.json when the run finished, otherwise rebuilt
 * from results.jsonl (a killed or still-running run).
 */
export function readRunDir(dir: string): RunResult {
  const jsonl = join(dir, kEventsFile);
  const json = join(dir, kResultsFile);
  if (existsSync(jsonl)) {
    const events = readEvents(jsonl);
    if (events.some((e) => e.type === 'end') || !existsSync(json)) return resultFromEvents(events);
  }
  if (existsSync(json)) return readResultsJson(json);
  throw new BoxflowError('RESULTS_INVALID', `${dir} holds no ${kResultsFile} or ${kEventsFile}`);
}

function readResultsJson(file: string): RunResult {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new BoxflowError('RESULTS_INVALID', `${file}: not JSON (${(err as Error).message})`, { cause: err });
  }
  const r = value as Partial<RunResult> | null;
  if (r?.version !== 1 || !Array.isArray(r.flows)) throw new BoxflowError('RESULTS_INVALID', `${file}: not the results of a boxflow run (version 1 with flows)`);
  return r as RunResult;
}

const kInterrupted = (what: string): ErrorInfo => ({ code: 'RUN_INTERRUPTED', message: `The run was interrupted ${what}.` });

interface OpenAttempt {
  attempt: FlowAttempt;
  /** Finished steps by id (nested ones too, until their parent finishes). */
  done: Map<string, StepRecord>;
  /** Steps begun and not finished, by id. */
  running: Map<string, { id: string; label: string; command: string; time: string }>;
}

/**
 * Rebuilds a RunResult from events. With an `end` event that result is returned as is;
 * otherwise (a killed run) every flow that had begun keeps its finished steps, an unfinished
 * flow is `failed` with RUN_INTERRUPTED (its running step too), flows that never began are
 * `skipped`, and the run's status is `interrupted`.
 */
export function resultFromEvents(events: RunEvent[]): RunResult {
  const end = events.find((e) => e.type === 'end');
  if (end && end.type === 'end') return end.result;

  let run: RunInfo | undefined;
  const infos = new Map<string, FlowInfo>();
  const finished = new Map<string, FlowResult>();
  const open = new Map<string, { info: FlowInfo; attempts: FlowAttempt[]; current?: OpenAttempt }>();
  const boxes = new Map<string, BoxInfo>();
  const errors: ErrorInfo[] = [];
  let lastTime = '';

  for (const e of events) {
    lastTime = e.time > lastTime ? e.time : lastTime;
    switch (e.type) {
      case 'begin':
        run = e.run;
        for (const f of e.run.flows) infos.set(f.id, f);
        break;
      case 'flowBegin': {
        infos.set(e.flow.id, e.flow);
        if (e.box) boxes.set(e.box.id, e.box);
        let o = open.get(e.flow.id);
        if (!o) open.set(e.flow.id, (o = { info: e.flow, attempts: [] }));
        if (o.current) o.attempts.push(closeAttempt(o.current, e.time));
        const attempt: FlowAttempt = { attempt: e.attempt, status: 'failed', startedAt: e.time, durationMs: 0, steps: [] };
        if (e.box) attempt.box = e.box;
        o.current = { attempt, done: new Map(), running: new Map() };
        finished.delete(e.flow.id);
        break;
      }
      case 'stepBegin': {
        const cur = open.get(e.flowId)?.current;
        cur?.running.set(e.step.id, { ...e.step, time: e.time });
        break;
      }
      case 'stepEnd': {
        const cur = open.get(e.flowId)?.current;
        if (!cur) break;
        cur.running.delete(e.step.id);
        // A finished parent carries its children: drop them from the loose set.
        for (const id of [...cur.done.keys()]) if (id.startsWith(`${e.step.id}.`)) cur.done.delete(id);
        cur.done.set(e.step.id, e.step);
        break;
      }
      case 'flowEnd':
        finished.set(e.flow.id, e.flow);
        open.delete(e.flow.id);
        if (e.flow.box) boxes.set(e.flow.box.id, e.flow.box);
        for (const a of e.flow.attempts) if (a.box) boxes.set(a.box.id, a.box);
        break;
      case 'error':
        errors.push(e.error);
        break;
      default:
        break;
    }
  }

  const startedAt = run?.startedAt ?? events[0]?.time ?? new Date(0).toISOString();
  const flows: FlowResult[] = [];
  const order = [...infos.keys()];
  for (const id of [...finished.keys(), ...open.keys()]) if (!order.includes(id)) order.push(id);
  for (const id of order) {
    const done = finished.get(id);
    if (done) {
      flows.push(done);
      continue;
    }
    const o = open.get(id);
    const info = infos.get(id)!;
    if (!o) {
      flows.push({ ...info, status: 'skipped', durationMs: 0, attempts: [], error: kInterrupted('before this flow began') });
      continue;
    }
    const attempts = [...o.attempts];
    if (o.current) attempts.push(closeAttempt(o.current, lastTime));
    const last = attempts[attempts.length - 1]!;
    const first = attempts[0]!;
    const flow: FlowResult = {
      ...info,
      status: 'failed',
      durationMs: Math.max(0, Date.parse(last.startedAt) + last.durationMs - Date.parse(first.startedAt)),
      attempts,
      error: last.error ?? kInterrupted('while this flow ran'),
    };
    if (last.box) flow.box = last.box;
    flows.push(flow);
  }

  const result: RunResult = {
    version: 1,
    startedAt,
    durationMs: Math.max(0, Date.parse(lastTime || startedAt) - Date.parse(startedAt)),
    status: 'interrupted',
    boxes: [...boxes.values()],
    flows,
    stats: computeStats(flows),
    baselines: [],
    errors,
  };
  if (run?.shard) result.shard = run.shard;
  return result;
}

function closeAttempt(o: OpenAttempt, time: string): FlowAttempt {
  const steps = [...o.done.values()];
  // Deepest first, so a running parent takes its running child along with its finished ones.
  for (const r of [...o.running.values()].reverse()) {
    const children = nestLoose(steps.filter((s) => s.id.startsWith(`${r.id}.`)));
    const step: StepRecord = {
      id: r.id,
      index: Number(r.id.split('.').pop()) || 0,
      label: r.label,
      command: r.command,
      args: null,
      status: 'failed',
      attempts: 1,
      startedAt: r.time,
      durationMs: Math.max(0, Date.parse(time) - Date.parse(r.time)),
      error: kInterrupted('during this step'),
    };
    if (children.length) step.children = children;
    steps.push(step);
  }
  const top = nestLoose(steps);
  const error = kInterrupted('while this flow ran');
  return {
    ...o.attempt,
    status: 'failed',
    durationMs: Math.max(0, Date.parse(time) - Date.parse(o.attempt.startedAt)),
    steps: top,
    error,
  };
}

/** Keeps only steps with no ancestor in the list (descendants live in their ancestor's children), in id order. */
function nestLoose(steps: StepRecord[]): StepRecord[] {
  const ids = new Set(steps.map((s) => s.id));
  const hasAncestor = (id: string) => {
    const parts = id.split('.');
    for (let i = parts.length - 1; i > 0; i--) if (ids.has(parts.slice(0, i).join('.'))) return true;
    return false;
  };
  return steps.filter((s) => !hasAncestor(s.id)).sort((a, b) => compareIds(a.id, b.id));
}

function compareIds(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d) return d;
  }
  return 0;
}
