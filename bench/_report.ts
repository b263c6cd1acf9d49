// Shared helpers for benches: timing statistics and the one-line JSON result.
export function percentile(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export function printResult(bench: string, metric: string, unit: string, ours: number, baseline: number): void {
  const round = (n: number) => Math.round(n * 1000) / 1000;
  process.stdout.write(`${JSON.stringify({ bench, metric, unit, ours: round(ours), baseline: round(baseline), ratio: round(ours / baseline) })}\n`);
}
