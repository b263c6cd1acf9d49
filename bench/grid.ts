// `npm run bench -- grid [--quick]`: the price of the grid hop. The same action steps run on a Linux
// box of `boxflow serve` (its own Chromium, the baseline) and on a box of `boxflow serve --grid` whose
// browser is a session of a real Selenium Grid 4 on this machine (standalone: router, distributor and
// a node with Debian's chromedriver; test/integration/gridSupport.ts). Ours is the grid box.
//
// Metrics: a runner action step with the default images (before/after/trace), p50 of durationMs over
// alternating rounds; a bare `type` round trip (no images) through the client; the time to create a
// box; and the memory a box costs: the PSS of the box's browser processes (for the grid box, its
// chromedriver too), read from /proc/<pid>/smaps_rollup after the steps. The grid node's JVM is a
// fixed cost per node, printed on stderr with serve's own growth per grid box.
//
// Without Java, chromedriver or the Selenium jar the bench says so and prints a `skipped` line.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../src/api/client.js';
import type { Box } from '../src/api/schemas.js';
import { resolveConfig } from '../src/cli/config.js';
import { parseFlowYaml } from '../src/flow/index.js';
import { ReporterHost } from '../src/runner/reporterHost.js';
import { runFlows } from '../src/runner/run.js';
import { createApiKey, startServer } from '../src/server/index.js';
import { testRunOptions } from '../test/support/runOptions.js';
import { gridUnavailable, startGrid } from '../test/integration/gridSupport.js';
import { benchSize, percentile, printResult } from './_report.js';

const kSteps = benchSize('BENCH_STEPS', 24, 4);
const kRounds = benchSize('BENCH_ROUNDS', 4, 1);
const kTypes = benchSize('BENCH_ITERATIONS', 100, 10);
const kStarts = benchSize('BENCH_STARTS', 5, 1);
const kWarmupSteps = 2;
const page = 'data:text/html,<input id=i autofocus style="font-size:40px"><p>grid bench</p><script>document.getElementById("i").focus()</script>';

const why = gridUnavailable();
if (why) {
  process.stderr.write(`grid bench skipped: ${why}\n`);
  process.stdout.write(`${JSON.stringify({ bench: 'grid', skipped: why })}\n`);
  process.exit(0);
}

// ------------------------------------------------------------------ /proc

function stat(pid: number): { ppid: number; pgrp: number; comm: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), pgrp: Number(f[2]), comm: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')) };
  } catch {
    return undefined;
  }
}

function pids(): number[] {
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number);
}

/** Every descendant of `root` (not `root` itself). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of pids()) {
    const s = stat(pid);
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** Proportional set size in MiB (shared pages split among their users): what a process really adds. */
function pssMiB(pid: number): number {
  try {
    const kb = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

function rssMiB(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? Number(kb) / 1024 : 0;
}

const sum = (list: number[]) => list.reduce((a, b) => a + b, 0);

// ------------------------------------------------------------------ set-up

const dir = mkdtempSync(join(tmpdir(), 'bench-grid-'));
const secret = randomBytes(16).toString('hex');
const grid = await startGrid({ maxSessions: 2 });
const localServer = await startServer({ port: 0, dataDir: join(dir, 'local'), secret, log: () => {} });
const gridServer = await startServer({ port: 0, dataDir: join(dir, 'grid'), secret, log: () => {}, grid: { url: grid.url, chromiumBinary: '/usr/bin/chromium' } });
const key = await createApiKey(secret, 'bench');
const local = new BoxClient({ baseUrl: localServer.baseUrl, apiKey: key });
const remote = new BoxClient({ baseUrl: gridServer.baseUrl, apiKey: key });

const time = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
  const t = performance.now();
  const v = await fn();
  return [performance.now() - t, v];
};

try {
  // Box start: create (wait for the browser) and terminate, alternating sides.
  const startLocal: number[] = [];
  const startGridBox: number[] = [];
  for (let i = 0; i < kStarts; i++) {
    for (const [client, into] of (i % 2 ? [[remote, startGridBox], [local, startLocal]] : [[local, startLocal], [remote, startGridBox]]) as Array<[BoxClient, number[]]>) {
      const [ms, box] = await time(() => client.createLinuxBox({ wait: true }));
      into.push(ms);
      await client.terminateBox(box.id);
    }
  }

  const localBox: Box = await local.createLinuxBox({ wait: true });
  const rssBefore = rssMiB(process.pid);
  const gridBox: Box = await remote.createLinuxBox({ wait: true });
  const rssGridDelta = rssMiB(process.pid) - rssBefore;

  // The same flow on both boxes, alternating rounds; the default images of a project.
  const actions = ['type: ab', 'pressKey: backspace', 'tap: "50%,70%"', 'pressKey: tab'];
  const steps = Array.from({ length: kSteps }, (_, i) => `  - ${actions[i % actions.length]}`).join('\n');
  const flow = parseFlowYaml(`name: steps\nsteps:\n  - openTab: '${page}'\n${steps}\n`, join(dir, 'steps.flow.yaml'));
  const screenshots = resolveConfig({}, {}, undefined, dir, {}).options.screenshots;
  const stepTimes = async (client: BoxClient, box: Box, tag: string): Promise<number[]> => {
    const out = join(dir, `out-${tag}`);
    const options = testRunOptions(dir, { outputDir: out, flowTimeout: 600_000, stepTimeout: 30_000, screenshots, boxes: { ids: [box.id], createLinux: 0, createAndroid: 0 } });
    const result = await runFlows([flow], options, { client, reporter: new ReporterHost([]), secrets: [] });
    const records = result.flows[0]!.attempts.at(-1)!.steps;
    if (result.stats.passed !== 1) throw new Error(`the bench flow failed on the ${tag} box: ${JSON.stringify(result.flows[0]!.error ?? records.find((s) => s.error)?.error)}`);
    rmSync(out, { recursive: true, force: true });
    return records.slice(1 + kWarmupSteps).map((s) => s.durationMs);
  };
  const stepLocal: number[] = [];
  const stepGrid: number[] = [];
  // CPU of this process (serve, the runner and its artifact store) per step run on the grid box: an
  // upper bound of what one step costs serve, which is what limits the boxes one serve can front.
  let gridCpuMs = 0;
  let gridStepsRun = 0;
  const onGrid = async (tag: string) => {
    const cpu = process.cpuUsage();
    const times = await stepTimes(remote, gridBox, tag);
    const used = process.cpuUsage(cpu);
    gridCpuMs += (used.user + used.system) / 1000;
    gridStepsRun += kSteps + 1;
    return times;
  };
  await stepTimes(local, localBox, 'warm-local');
  await stepTimes(remote, gridBox, 'warm-grid');
  for (let r = 0; r < kRounds; r++) {
    if (r % 2) {
      stepGrid.push(...(await onGrid(`g${r}`)));
      stepLocal.push(...(await stepTimes(local, localBox, `l${r}`)));
    } else {
      stepLocal.push(...(await stepTimes(local, localBox, `l${r}`)));
      stepGrid.push(...(await onGrid(`g${r}`)));
    }
  }

  // Bare round trips: type one character, no images.
  const typeLocal: number[] = [];
  const typeGrid: number[] = [];
  for (let i = 0; i < kTypes; i++) {
    const pair: Array<[BoxClient, Box, number[]]> = [[local, localBox, typeLocal], [remote, gridBox, typeGrid]];
    for (const [client, box, into] of i % 2 ? pair.reverse() : pair) into.push((await time(() => client.type(box.id, { text: 'x' })))[0]);
  }

  // Memory of one box, after the same steps on the same page.
  const mine = descendants(process.pid).filter((p) => /chrom/i.test(stat(p)?.comm ?? '') && stat(p)?.pgrp !== grid.pgid);
  const localMiB = sum(mine.map(pssMiB));
  const [session] = await grid.sessions();
  const gridProcs = pids().filter((p) => stat(p)?.pgrp === grid.pgid && p !== grid.pgid);
  const gridMiB = sum(gridProcs.map(pssMiB));
  const jvmMiB = pssMiB(grid.pgid);

  process.stderr.write(
    [
      `box start: local p50 ${percentile(startLocal, 50).toFixed(0)} ms, grid p50 ${percentile(startGridBox, 50).toFixed(0)} ms (${kStarts} each)`,
      `action step with ${screenshots.phases.join('/')} images: local p50 ${percentile(stepLocal, 50)} ms p90 ${percentile(stepLocal, 90)} ms; grid p50 ${percentile(stepGrid, 50)} ms p90 ${percentile(stepGrid, 90)} ms (${stepLocal.length} steps each)`,
      `CPU of serve + runner per step on the grid box: ${(gridCpuMs / gridStepsRun).toFixed(1)} ms (${gridStepsRun} steps)`,
      `type round trip: local p50 ${percentile(typeLocal, 50).toFixed(2)} ms, grid p50 ${percentile(typeGrid, 50).toFixed(2)} ms`,
      `memory per box (PSS): local Chromium ${localMiB.toFixed(0)} MiB in ${mine.length} processes; grid session ${gridMiB.toFixed(0)} MiB in ${gridProcs.length} processes (chromedriver + Chromium, on the node; session ${session?.id ?? '?'}); the node's JVM ${jvmMiB.toFixed(0)} MiB once per node; serve's RSS grew ${rssGridDelta.toFixed(1)} MiB with the grid box`,
    ].join('\n') + '\n',
  );
  printResult('grid', 'box start', 'ms p50', percentile(startGridBox, 50), percentile(startLocal, 50));
  printResult('grid', 'type round trip', 'ms p50', percentile(typeGrid, 50), percentile(typeLocal, 50));
  printResult('grid', 'memory per box', 'MiB PSS', gridMiB, localMiB);
  printResult('grid', 'action step with images', 'ms p50', percentile(stepGrid, 50), percentile(stepLocal, 50));
  await local.terminateBox(localBox.id);
  await remote.terminateBox(gridBox.id);
} finally {
  await local.close();
  await remote.close();
  await localServer.close();
  await gridServer.close();
  await grid.close();
  rmSync(dir, { recursive: true, force: true });
}
