// Merging shards and partial runs (`merge-reports`): one RunResult from several, and their
// artifacts copied into one output dir.
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BoxflowError } from '../errors.js';
import { writeResultsJson } from './events.js';
import { readRunDir } from './eventsRead.js';
import { computeStats } from './stats.js';
import type { BoxInfo, ErrorInfo, FlowResult, RunResult } from './types.js';

function lastAttemptStart(f: FlowResult): number {
  const a = f.attempts[f.attempts.length - 1];
  return a ? Date.parse(a.startedAt) : -Infinity;
}

/**
 * Merges shards and partial runs. A flow present in several inputs keeps the attempt set
 * whose last attempt started latest (on a tie, a finished flow beats an interrupted one).
 * Flow order: first appearance across the inputs in the given order.
 */
export function mergeResults(results: RunResult[]): RunResult {
  if (!results.length) throw new BoxflowError('INVALID_ARGUMENT', 'nothing to merge');
  const flows = new Map<string, FlowResult>();
  const interruptedScore = (f: FlowResult) => (f.error?.code === 'RUN_INTERRUPTED' ? 0 : 1);
  for (const r of results) {
    for (const f of r.flows) {
      const prev = flows.get(f.id);
      if (!prev) {
        flows.set(f.id, f);
        continue;
      }
      const dt = lastAttemptStart(f) - lastAttemptStart(prev);
      if (dt > 0 || (dt === 0 && interruptedScore(f) > interruptedScore(prev))) flows.set(f.id, f);
    }
  }
  const merged = [...flows.values()];
  const boxes = new Map<string, BoxInfo>();
  const baselines = new Map<string, RunResult['baselines'][number]>();
  const errors = new Map<string, ErrorInfo>();
  const warnings = new Map<string, ErrorInfo>();
  let start = Infinity;
  let end = -Infinity;
  for (const r of results) {
    for (const b of r.boxes) boxes.set(b.id, b);
    for (const b of r.baselines) baselines.set(b.path, b);
    for (const e of r.errors) errors.set(`${e.code}\u0000${e.message}`, e);
    for (const w of r.warnings ?? []) warnings.set(`${w.code}\u0000${w.message}`, w);
    const s = Date.parse(r.startedAt);
    start = Math.min(start, s);
    end = Math.max(end, s + r.durationMs);
  }
  const stats = computeStats(merged);
  const unfinished = merged.some((f) => f.error?.code === 'RUN_INTERRUPTED');
  return {
    version: 1,
    startedAt: new Date(start).toISOString(),
    durationMs: Math.max(0, end - start),
    status: unfinished ? 'interrupted' : stats.failed ? 'failed' : 'passed',
    boxes: [...boxes.values()],
    flows: merged,
    stats,
    baselines: [...baselines.values()],
    errors: [...errors.values()],
    ...(warnings.size ? { warnings: [...warnings.values()] } : {}),
  };
}

/**
 * `merge-reports`: reads each dir, merges the results, copies every stored artifact
 * (data/, content-addressed, so names never clash) into outputDir, and writes results.json.
 */
export function mergeRunDirs(dirs: string[], outputDir: string): RunResult {
  const results = dirs.map(readRunDir);
  const merged = mergeResults(results);
  const target = join(outputDir, 'data');
  mkdirSync(target, { recursive: true });
  for (const dir of dirs) {
    const data = join(dir, 'data');
    if (!existsSync(data)) continue;
    for (const name of readdirSync(data)) {
      if (name.endsWith('.tmp')) continue;
      const to = join(target, name);
      if (!existsSync(to)) copyFileSync(join(data, name), to);
    }
  }
  writeResultsJson(outputDir, merged);
  return merged;
}
