// `npm run bench -- scale`: 40 flows through `boxflow test` on the embedded server with 1, 2 and 4
// workers (each worker its own box), reporting the wall time and the peak memory of the whole run:
// the CLI process and every process under it (the boxes' Chromiums), summed, sampled every 100 ms
// (RSS, as asked; PSS too, on stderr: RSS counts the pages Chromium's processes share once each).
// Baseline = the 1-worker run. Goals: the wall time falls with workers as far as the cores allow;
// the peak grows by no more than one box per added worker (a box = the peak of the 1-worker run's
// Chromium processes). The flows are the demo app's sign-in and wrong-password scenarios, written
// out 20 times each, with the default screenshots (before/after/trace on every action).
// boxflow runs from dist/: `npm run build` first.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSize, kQuick, printResult } from './_report.js';

const kFlows = benchSize('BENCH_FLOWS', 40, 4);
const kWorkers = kQuick ? [1, 2] : [1, 2, 4];
const kRounds = benchSize('BENCH_ROUNDS', 1, 1);
const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'bench-scale-'));

function writeFlows(appUrl: string): string {
  const dir = join(work, 'flows');
  mkdirSync(dir);
  const signIn = (i: number) => `name: sign in ${i}
steps:
  - openTab: { url: "${appUrl}/login", expect: { title: "/Sign in/" } }
  - tap: { css: "#email" }
  - type: demo@example.com
  - tap: { id: password }
  - type: { text: hunter2, pressEnter: true }
  - assertVisible: { text: "/Welcome, .+/" }
`;
  const wrong = (i: number) => `name: wrong password ${i}
steps:
  - openTab: { url: "${appUrl}/login", expect: { title: "/Sign in/" } }
  - tap: { css: "#email" }
  - type: { text: "someone@example.com", mode: replace }
  - pressKey: tab
  - type: nope
  - pressKey: enter
  - assertVisible: { textContains: Sign in failed }
`;
  for (let i = 0; i < kFlows; i++) writeFileSync(join(dir, `f${String(i).padStart(2, '0')}.flow.yaml`), i % 2 ? wrong(i) : signIn(i));
  return dir;
}

interface Proc { ppid: number; comm: string }

/** Every process's parent and name, from /proc. */
function processTable(): Map<number, Proc> {
  const table = new Map<number, Proc>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // comm is in parentheses and may hold spaces; ppid is the second field after it.
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      table.set(Number(name), { comm, ppid: Number(stat.slice(close + 2).split(' ')[1]) });
    } catch {
      // exited while listing
    }
  }
  return table;
}

/** RSS and PSS (shared pages divided among their sharers: Chromium's processes share much). */
function memoryKb(pid: number): { rss: number; pss: number } {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return { rss: Number(/^Rss:\s+(\d+) kB/m.exec(text)?.[1] ?? 0), pss: Number(/^Pss:\s+(\d+) kB/m.exec(text)?.[1] ?? 0) };
  } catch {
    return { rss: 0, pss: 0 };
  }
}

/** The sums of RSS and PSS of `root` and all its descendants, and RSS of the Chromium processes among them. */
function sampleTree(root: number): { totalKb: number; pssKb: number; boxesKb: number; boxesPssKb: number; processes: number } {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const [pid, p] of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid]);
  let totalKb = 0;
  let pssKb = 0;
  let boxesKb = 0;
  let boxesPssKb = 0;
  let processes = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    const { rss: kb, pss } = memoryKb(pid);
    totalKb += kb;
    pssKb += pss;
    processes++;
    if (/chrom/i.test(table.get(pid)?.comm ?? '')) {
      boxesKb += kb;
      boxesPssKb += pss;
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return { totalKb, pssKb, boxesKb, boxesPssKb, processes };
}

interface RunResult { ms: number; peakKb: number; peakPssKb: number; peakBoxesKb: number; peakBoxesPssKb: number; peakProcesses: number }

function runSuite(flows: string, workers: number, round: number, expected = kFlows): Promise<RunResult> {
  const out = join(work, `out-${workers}-${round}`);
  const t = performance.now();
  const child = spawn(process.execPath, [join(repo, 'dist/src/cli/main.js'), 'test', flows, '--workers', String(workers), '--reporter', 'json', '-o', out], {
    cwd: work,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const peak = { peakKb: 0, peakPssKb: 0, peakBoxesKb: 0, peakBoxesPssKb: 0, peakProcesses: 0 };
  const poll = setInterval(() => {
    const s = sampleTree(child.pid!);
    peak.peakKb = Math.max(peak.peakKb, s.totalKb);
    peak.peakPssKb = Math.max(peak.peakPssKb, s.pssKb);
    peak.peakBoxesKb = Math.max(peak.peakBoxesKb, s.boxesKb);
    peak.peakBoxesPssKb = Math.max(peak.peakBoxesPssKb, s.boxesPssKb);
    peak.peakProcesses = Math.max(peak.peakProcesses, s.processes);
  }, 100);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(poll);
      const ms = performance.now() - t;
      let passed = -1;
      try {
        passed = (JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { stats: { passed: number } }).stats.passed;
      } catch {
        // no results: reported below
      }
      if (code !== 0 || passed !== expected) return reject(new Error(`boxflow test --workers ${workers} exited ${code} with ${passed} of ${expected} flows passed\n${err}`));
      resolve({ ms, ...peak });
    });
  });
}

const mib = (kb: number) => kb / 1024;
const demo = (await import('../flows/app/server.mjs')) as { createDemoServer(): import('node:http').Server };
const app = demo.createDemoServer();
await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
try {
  const flows = writeFlows(`http://127.0.0.1:${(app.address() as AddressInfo).port}`);
  process.stderr.write(`scale: ${kFlows} flows, workers ${kWorkers.join('/')}, ${kRounds} round(s); ${cpus().length} cores (${availableParallelism()} available), ` +
    `${(totalmem() / 2 ** 30).toFixed(1)} GiB, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the start\n`);
  // Warm-up: the OS cache, Chromium's first start.
  if (!kQuick) await runSuite(writeFlowsSubset(flows), 1, -1, 2);
  const results = new Map<number, RunResult[]>(kWorkers.map((w) => [w, []]));
  for (let r = 0; r < kRounds; r++) {
    // Rotate the order, so drift on the shared machine does not favour one worker count.
    for (let i = 0; i < kWorkers.length; i++) {
      const w = kWorkers[(i + r) % kWorkers.length]!;
      const res = await runSuite(flows, w, r);
      results.get(w)!.push(res);
      process.stderr.write(`scale: ${w} worker(s): ${(res.ms / 1000).toFixed(1)} s, peak RSS ${mib(res.peakKb).toFixed(0)} MiB, PSS ${mib(res.peakPssKb).toFixed(0)} MiB ` +
        `(Chromium RSS ${mib(res.peakBoxesKb).toFixed(0)} MiB, PSS ${mib(res.peakBoxesPssKb).toFixed(0)} MiB; ${res.peakProcesses} processes), load average ${loadavg()[0]!.toFixed(1)}\n`);
    }
  }
  // Medians over rounds, per worker count.
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const summary = new Map([...results].map(([w, rs]) => [w, { ms: median(rs.map((x) => x.ms)), peakKb: median(rs.map((x) => x.peakKb)), pssKb: median(rs.map((x) => x.peakPssKb)), boxesKb: median(rs.map((x) => x.peakBoxesKb)), boxesPssKb: median(rs.map((x) => x.peakBoxesPssKb)) }]));
  const one = summary.get(1)!;
  for (const w of kWorkers.slice(1)) {
    const s = summary.get(w)!;
    const perWorker = (s.peakKb - one.peakKb) / (w - 1);
    process.stderr.write(`scale: ${w} workers against 1: wall ×${(s.ms / one.ms).toFixed(2)}, peak RSS +${mib(s.peakKb - one.peakKb).toFixed(0)} MiB, PSS +${mib(s.pssKb - one.pssKb).toFixed(0)} MiB ` +
      `(per added worker RSS ${mib(perWorker).toFixed(0)} MiB, PSS ${mib((s.pssKb - one.pssKb) / (w - 1)).toFixed(0)} MiB; one box's Chromium peaked at RSS ${mib(one.boxesKb).toFixed(0)} MiB, PSS ${mib(one.boxesPssKb).toFixed(0)} MiB in the 1-worker run)\n`);
  }
  for (const w of kWorkers.slice(1)) printResult('scale', `wall-${w}-vs-1-workers`, 'ms', summary.get(w)!.ms, one.ms);
  for (const w of kWorkers.slice(1)) printResult('scale', `peak-rss-${w}-vs-1-workers`, 'MiB', mib(summary.get(w)!.peakKb), mib(one.peakKb));
} finally {
  await new Promise<void>((r) => app.close(() => r()));
  rmSync(work, { recursive: true, force: true, maxRetries: 3 });
}

/** The first two of the flows, in a folder of their own (the warm-up). */
function writeFlowsSubset(flows: string): string {
  const dir = join(work, 'warm-up');
  mkdirSync(dir);
  for (const f of readdirSync(flows).sort().slice(0, 2)) writeFileSync(join(dir, f), readFileSync(join(flows, f)));
  return dir;
}
