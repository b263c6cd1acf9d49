// 500 concurrent requests on 4 boxes of one `boxflow serve` (a mix of screen-layout GETs, type and
// press-key actions, through the project's BoxClient): errors, latency p50/p99 and the server's RSS
// before and after. The baseline is the same 500 requests sent one at a time. The server runs in a
// child process (this file, re-run with BOXFLOW_BENCH_LOAD_SERVER set) so its RSS is its own.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent } from 'undici';
import { BoxClient } from '../src/api/client.js';
import { createApiKey, startServer } from '../src/server/index.js';
import { benchSize, percentile, printResult } from './_report.js';

const kRequests = benchSize('BENCH_LOAD_REQUESTS', 500, 20);
const kBoxes = 4;
const kSecret = 'bench-load-secret-bench-load-secret';

if (process.env.BOXFLOW_BENCH_LOAD_SERVER) {
  // The server side: start, say where, stop when the parent closes stdin.
  // Every request has its own connection, all from this one address: past the default per-peer cap.
  const server = await startServer({ port: 0, dataDir: process.env.BOXFLOW_BENCH_LOAD_SERVER, secret: kSecret, log: () => {}, maxConnectionsPerPeer: kRequests + 64 });
  process.stdout.write(`${JSON.stringify({ baseUrl: server.baseUrl })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
} else {
  await main();
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 102.4) / 10;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'boxflow-bench-load-'));
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname], {
    env: { ...process.env, BOXFLOW_BENCH_LOAD_SERVER: dataDir },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  const lines = createInterface({ input: child.stdout! });
  const { baseUrl } = JSON.parse((await lines[Symbol.asyncIterator]().next()).value as string) as { baseUrl: string };
  // One connection per request in flight, so that all 500 are at the server at once.
  const dispatcher = new Agent({ connections: kRequests + 16, pipelining: 1 });
  const client = new BoxClient({ baseUrl, apiKey: await createApiKey(kSecret, 'bench'), dispatcher, maxRetries: 0, timeoutMs: 120_000 });
  try {
    const page = `data:text/html,${encodeURIComponent('<!DOCTYPE html><title>load</title><h1>Load</h1><p>Some text to read back.</p><input id="t" autofocus>')}`;
    const boxes = await Promise.all(Array.from({ length: kBoxes }, () => client.createLinuxBox()));
    await Promise.all(boxes.map((b) => client.openTab(b.id, { url: page })));

    const calls = Array.from({ length: kRequests }, (_, i) => {
      const id = boxes[i % kBoxes]!.id;
      const kind = Math.floor(i / kBoxes) % 3;
      return kind === 0 ? () => client.screenLayout(id) : kind === 1 ? () => client.type(id, { text: 'x' }) : () => client.pressKey(id, { keys: ['backspace'] });
    });
    const run = async (fn: () => Promise<unknown>) => {
      const t = performance.now();
      try {
        await fn();
        return { ms: performance.now() - t, ok: true };
      } catch {
        return { ms: performance.now() - t, ok: false };
      }
    };
    const summary = (phase: string, results: Array<{ ms: number; ok: boolean }>, wallMs: number, extra: Record<string, number> = {}) => {
      const ms = results.map((r) => r.ms);
      const line = { bench: 'load', phase, requests: results.length, boxes: kBoxes, errors: results.filter((r) => !r.ok).length, p50Ms: round(percentile(ms, 50)), p99Ms: round(percentile(ms, 99)), wallMs: round(wallMs), ...extra };
      process.stdout.write(`${JSON.stringify(line)}\n`);
    };

    for (const fn of calls.slice(0, 40)) await fn(); // warm up
    const rssBeforeMiB = await rssMiB(child.pid!);
    let t = performance.now();
    const concurrent = await Promise.all(calls.map(run));
    const concurrentWall = performance.now() - t;
    const rssAfterMiB = await rssMiB(child.pid!);
    summary('concurrent', concurrent, concurrentWall, { rssBeforeMiB, rssAfterMiB });

    t = performance.now();
    const sequential: Array<{ ms: number; ok: boolean }> = [];
    for (const fn of calls) sequential.push(await run(fn));
    const sequentialWall = performance.now() - t;
    summary('sequential', sequential, sequentialWall, { rssAfterMiB: await rssMiB(child.pid!) });

    printResult('load', `wall time of ${kRequests} requests on ${kBoxes} boxes, all at once vs one at a time`, 'ms', concurrentWall, sequentialWall);
  } finally {
    await client.close();
    await dispatcher.close();
    child.stdin!.end();
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
