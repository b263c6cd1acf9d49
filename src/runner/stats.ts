import type { FlowResult, RunResult } from './types.js';

/** The run's counts by flow status: the one place they are computed (run, rebuild, merge). */
export function computeStats(flows: FlowResult[]): RunResult['stats'] {
  const stats = { total: flows.length, passed: 0, failed: 0, flaky: 0, skipped: 0 };
  for (const f of flows) stats[f.status]++;
  return stats;
}
