// Shared helpers for benches: timing statistics and the one-line JSON result.
export function percentile(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export function printResult(bench: string, metric: string, unit: string, ours: number, baseline: number): void {
  // Four significant digits: a 0.0004 ratio must not print as 0.
  const round = (n: number) => Number(n.toPrecision(4));
  process.stdout.write(`${JSON.stringify({ bench, metric, unit, ours: round(ours), baseline: round(baseline), ratio: round(ours / baseline) })}\n`);
}
