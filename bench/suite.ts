// `npm run bench -- suite`: the example flows (flows/) through `boxflow test` on the embedded
// local box against the same scenarios as @playwright/test specs (bench/suite-pw), on the same
// Chromium with the same flags and the same number of workers, screenshots off on both sides.
// Each side is a whole CLI run (process start, browsers, flows, a JSON report), alternating
// rounds, median of each. boxflow runs from dist/ (what TS flows import as 'boxflow'): build first. A second line times boxflow with its default screenshots
// (before/after/trace on every action) against the same Playwright runs.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSize, kQuick, percentile, printResult } from './_report.js';

const kRounds = benchSize('BENCH_ROUNDS', 3, 1);
const kWorkers = Number(process.env.BENCH_WORKERS ?? 2);
const kAppUrl = 'http://127.0.0.1:4173';
const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'bench-suite-'));

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** The flows hard-code the demo app on :4173; reuse one that already answers there. */
async function startDemoApp(): Promise<() => Promise<void>> {
  if (!(await portFree(4173))) {
    const res = await fetch(`${kAppUrl}/login`).catch(() => undefined);
    if (!res?.ok) throw new Error('port 4173 is taken by something that is not the demo app');
    return async () => {};
  }
  const demo = (await import('../flows/app/server.mjs')) as { createDemoServer(): import('node:http').Server };
  const app = demo.createDemoServer();
  await new Promise<void>((r) => app.listen(4173, '127.0.0.1', r));
  return () => new Promise<void>((r) => app.close(() => r()));
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: repo, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - t) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}\n${err}`))));
  });
}

function boxflowConfig(name: string, screenshots: boolean): string {
  const file = join(work, `${name}.config.json`);
  // The demo's screenshot baseline is written by the first run (as in the repository's own config).
  // The quick mode (CI) runs one scenario on each side: enough to see that both still run.
  const config = { flows: [kQuick ? join(repo, 'flows', 'sign-in.flow.yaml') : join(repo, 'flows')], workers: kWorkers, appBaseUrl: kAppUrl, reporters: ['json'], baselines: { update: 'missing' }, ...(screenshots ? {} : { screenshots: false }) };
  writeFileSync(file, JSON.stringify(config));
  return file;
}

const configs = { off: boxflowConfig('off', false), on: boxflowConfig('on', true) };
const boxflow = (mode: 'off' | 'on', round: number) => {
  const out = join(work, `bf-${mode}-${round}`);
  return run(process.execPath, [join(repo, 'dist/src/cli/main.js'), 'test', '-c', configs[mode], '-o', out]).catch((err: Error) => {
    throw new Error(`${err.message}\nfailed flows: ${failedFlows(out).join('; ')}`);
  });
};

/** Names, failed steps and errors of the flows that failed, from boxflow's results.json. */
function failedFlows(out: string): string[] {
  type Flow = { name: string; status: string; error?: { code: string; message: string }; attempts: { steps: { label: string; status: string; error?: { code: string; message: string } }[] }[] };
  try {
    const { flows } = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { flows: Flow[] };
    return flows.filter((f) => f.status === 'failed').map((f) => {
      const step = f.attempts.at(-1)?.steps.find((s) => s.status === 'failed');
      const error = step?.error ?? f.error;
      return `${f.name}${step ? ` at "${step.label}"` : ''}: ${error ? `${error.code} ${error.message.split('\n')[0]}` : ''}`;
    });
  } catch {
    return ['(no results.json)'];
  }
}
const pwOut = join(work, 'pw');
const pwJson = join(work, 'pw.json');
const playwright = () =>
  run(process.execPath, [join(repo, 'node_modules/@playwright/test/cli.js'), 'test', '-c', 'bench/suite-pw/playwright.config.ts', '--workers', String(kWorkers), '--reporter', 'json', ...(kQuick ? ['sign-in.spec.ts'] : [])],
    { BENCH_PW_OUT: pwOut, BENCH_PW_SNAPSHOTS: join(work, 'pw-snapshots'), PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson }).catch((err: Error) => {
    throw new Error(`${err.message}\nfailed specs: ${failedSpecs().join('; ')}`);
  });

/** Titles and first error lines of the specs that failed, from Playwright's JSON report. */
function failedSpecs(): string[] {
  type Suite = { specs?: { title: string; ok: boolean; tests: { results: { error?: { message?: string } }[] }[] }[]; suites?: Suite[] };
  const walk = (s: Suite): string[] => [
    ...(s.specs ?? []).filter((x) => !x.ok).map((x) => `${x.title}: ${x.tests[0]?.results.at(-1)?.error?.message?.split('\n')[0] ?? ''}`),
    ...(s.suites ?? []).flatMap(walk),
  ];
  try {
    return walk(JSON.parse(readFileSync(pwJson, 'utf8')) as Suite);
  } catch {
    return ['(no JSON report)'];
  }
}

/** A run that fails once (a flake on a loaded machine) is run again, and the bench says so. */
async function once<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    process.stderr.write(`suite: ${what} failed, running it again: ${(err as Error).message.split('\n').slice(-2).join(' ')}\n`);
    return fn();
  }
}

const stopApp = await startDemoApp();
try {
  // Warm-up: compiles (tsx, Playwright's transform caches), fills the OS cache, and writes the
  // Playwright side's own screenshot baseline (boxflow's has its mask painted in).
  if (!kQuick) {
    await once('the Playwright warm-up', playwright);
    await once('the boxflow warm-up', () => boxflow('off', -1));
  }
  const times = { off: [] as number[], on: [] as number[], pw: [] as number[] };
  for (let r = 0; r < kRounds; r++) {
    const order: (() => Promise<void>)[] = [
      async () => void times.off.push(await once('boxflow', () => boxflow('off', r))),
      async () => void times.pw.push(await once('@playwright/test', playwright)),
      // The quick mode (CI) checks that both sides still run: one boxflow run is enough for that.
      ...(kQuick ? [] : [async () => void times.on.push(await once('boxflow with screenshots', () => boxflow('on', r)))]),
    ];
    // Rotate who goes first, so drift on the shared machine does not favour one side.
    for (let i = 0; i < order.length; i++) await order[(i + r) % order.length]!();
  }
  const fmt = (xs: number[]) => xs.map((x) => Math.round(x)).join('/');
  process.stderr.write(`suite: ${kWorkers} workers, ${kRounds} rounds; boxflow screenshots off ${fmt(times.off)} ms, default screenshots ${times.on.length ? `${fmt(times.on)} ms` : 'not run (quick mode)'}, @playwright/test ${fmt(times.pw)} ms\n`);
  const pw = percentile(times.pw, 50);
  printResult('suite', 'screenshots-off', 'ms', percentile(times.off, 50), pw);
  if (times.on.length) printResult('suite', 'default-screenshots', 'ms', percentile(times.on, 50), pw);
} finally {
  await stopApp();
  rmSync(work, { recursive: true, force: true, maxRetries: 3 });
}
