// `npm run bench -- <name> [--quick]` runs bench/<name>.ts. Each bench ends with one JSON line per
// metric: {"bench", "metric", "unit", "ours", "baseline", "ratio"}. `all` runs every bench, each in a
// process of its own, and fails when one fails or prints no result line; `--quick` makes each short
// (CI runs `all --quick` so that no bench rots).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join, dirname } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
if (args.includes('--quick')) process.env.BENCH_QUICK = '1';
const name = args.find((a) => !a.startsWith('--'));
const names = readdirSync(here).filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_')).map((f) => f.slice(0, -3));
if (name === 'all') {
  const failed: string[] = [];
  for (const bench of names) {
    const started = performance.now();
    process.stderr.write(`[bench] ${bench}${process.env.BENCH_QUICK ? ' (quick)' : ''}\n`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), bench], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env, encoding: 'utf8', timeout: 10 * 60_000 });
    process.stdout.write(r.stdout ?? '');
    const lines = (r.stdout ?? '').split('\n').filter((l) => l.startsWith('{"bench"'));
    const ok = r.status === 0 && lines.length > 0;
    if (!ok) failed.push(`${bench} (exit ${r.status ?? r.signal}, ${lines.length} result lines)`);
    process.stderr.write(`[bench] ${bench}: ${ok ? 'ok' : 'FAILED'} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }
  if (failed.length) process.stderr.write(`[bench] failed: ${failed.join(', ')}\n`);
  process.exit(failed.length ? 1 : 0);
}
if (!name || !existsSync(join(here, `${name}.ts`))) {
  process.stderr.write(`usage: npm run bench -- <name>|all [--quick]\nbenches: ${names.join(', ')}\n`);
  process.exit(2);
}
await import(pathToFileURL(join(here, `${name}.ts`)).href);
