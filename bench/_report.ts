// Shared helpers for benches: timing statistics, the one-line JSON result, and the quick mode.

/** `npm run bench -- <name> --quick` (BENCH_QUICK=1): a short run that checks the bench still works (CI). */
export const kQuick = process.env.BENCH_QUICK === '1';

/** A bench's size: `full`, or `quick` in the quick mode; an explicit environment variable wins. */
export function benchSize(envName: string | undefined, full: number, quick: number): number {
  const set = envName ? process.env[envName] : undefined;
  return set !== undefined && set !== '' ? Number(set) : kQuick ? quick : full;
}
export function percentile(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export function printResult(bench: string, metric: string, unit: string, ours: number, baseline: number): void {
  // Four significant digits: a 0.0004 ratio must not print as 0.
  const round = (n: number) => Number(n.toPrecision(4));
  process.stdout.write(`${JSON.stringify({ bench, metric, unit, ours: round(ours), baseline: round(baseline), ratio: round(ours / baseline) })}\n`);
}
