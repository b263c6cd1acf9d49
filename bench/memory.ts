// `npm run bench -- memory`: peak RSS of `boxflow test` running one flow of 10,000 steps against
// the same flow shape with 1,000 steps (ratio = 10k / 1k; goal ≤ 1.2: memory must not grow with
// the length of a run). Each run is a fresh CLI process (dist/, build first) with the default
// screenshots (before/after/trace on every action) and the default reporters (list, html).
//
// The box service is a TEST DOUBLE: a light in-process Box API v1 fake on loopback HTTP that
// answers type/press-key at once with three distinct small PNG data URIs per action. The
// embedded server with a real Chromium takes ~100-250 ms per screenshotted step, so 10,000 steps
// would take most of an hour; what grows in the runner (records, events, images) does not depend
// on how the box made the images.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodePng } from '../src/visual/index.js';
import { benchSize, printResult } from './_report.js';

const kSmall = benchSize('BENCH_SMALL', 1_000, 50);
const kLarge = benchSize('BENCH_LARGE', 10_000, 200);
const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'bench-memory-'));

/** A 320×240 screen with a counter-dependent band: every action's images are new bytes. */
function screen(n: number, phase: number): string {
  const width = 320;
  const height = 240;
  const data = Buffer.alloc(width * height * 4, 0xff);
  let x = (n * 3 + phase + 1) >>> 0;
  for (let i = 40 * width * 4; i < 60 * width * 4; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    data[i] = i % 4 === 3 ? 255 : x >>> 24;
  }
  return `data:image/png;base64,${encodePng({ width, height, data }).toString('base64')}`;
}

const now = new Date().toISOString();
const box = {
  id: 'fake-box-1', type: 'linux', status: 'running', createdAt: now, updatedAt: now, expiresAt: null,
  config: { cpu: 1, memory: 1024, storage: 1, envs: {}, labels: {}, os: { version: 'fake' } },
};

function startFakeService(): Promise<{ url: string; close: () => Promise<void> }> {
  let actions = 0;
  const send = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/api\/v1/, '');
    if (req.method === 'GET' && path === `/boxes/${box.id}`) return send(res, 200, box);
    if (req.method === 'GET' && path === '/boxes') return send(res, 200, { data: [box], total: 1, page: 1, pageSize: 1 });
    if (req.method === 'GET' && path === `/boxes/${box.id}/actions/settings`) return send(res, 200, { scale: 1 });
    if (req.method === 'POST' && (path === `/boxes/${box.id}/actions/type` || path === `/boxes/${box.id}/actions/press-key`)) {
      const n = actions++;
      const shot = (JSON.parse(raw || '{}') as { options?: { screenshot?: boolean | { phases?: string[] } } }).options?.screenshot;
      const phases = shot === false ? [] : typeof shot === 'object' && shot.phases ? shot.phases : ['before', 'after', 'trace'];
      const screenshot = Object.fromEntries(phases.map((p, i) => [p, { uri: screen(n, i) }]));
      return send(res, 200, { actionId: `act_${n}`, message: 'done', ...(phases.length ? { screenshot } : {}) });
    }
    send(res, 404, { code: 'NOT_FOUND', message: `the fake service has no ${req.method} ${path}` });
  };
  const server = createServer((req, res) => void handle(req, res).catch((err: unknown) => send(res, 500, { code: 'INTERNAL', message: String(err) })));
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/api/v1`, close: () => new Promise<void>((r) => server.close(() => r())) });
    });
  });
}

/** Peak RSS (VmHWM) of the CLI running a flow of `steps` steps, read from /proc until it exits. */
function runFlow(url: string, steps: number): Promise<{ peakKb: number; ms: number }> {
  const dir = join(work, `run-${steps}`);
  const body = Array.from({ length: steps }, (_, i) => (i % 2 ? '  - pressKey: backspace' : '  - type: ab')).join('\n');
  const flowFile = join(work, `steps-${steps}.flow.yaml`);
  writeFileSync(flowFile, `name: ${steps} steps\nsteps:\n${body}\n`);
  // A long flow outlives the default 2-minute flow timeout.
  const config = join(work, 'boxflow.config.json');
  writeFileSync(config, JSON.stringify({ timeouts: { flow: '3h' }, reporters: ['list', 'html'] }));
  const t = performance.now();
  const child = spawn(process.execPath, [join(repo, 'dist/src/cli/main.js'), 'test', flowFile, '-c', config, '--base-url', url, '--box', box.id, '-o', dir], {
    cwd: work,
    env: { ...process.env, BOXFLOW_API_KEY: randomBytes(8).toString('hex') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peakKb = Math.max(peakKb, Number(m[1]));
    } catch {
      // exited between two polls
    }
  }, 50);
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      clearInterval(poll);
      const result = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as { stats: { passed: number }; flows: { error?: unknown }[] };
      if (code !== 0 || result.stats.passed !== 1) return reject(new Error(`boxflow test (${steps} steps) exited ${code}: ${JSON.stringify(result.flows[0]?.error)}\n${err}`));
      resolve({ peakKb, ms: performance.now() - t });
    });
  });
}

const service = await startFakeService();
try {
  const small = await runFlow(service.url, kSmall);
  const large = await runFlow(service.url, kLarge);
  process.stderr.write(`memory: ${kSmall} steps peak RSS ${(small.peakKb / 1024).toFixed(1)} MiB in ${Math.round(small.ms)} ms; ` +
    `${kLarge} steps ${(large.peakKb / 1024).toFixed(1)} MiB in ${Math.round(large.ms)} ms (fake service, default screenshots)\n`);
  printResult('memory', `rss-${kLarge}-vs-${kSmall}-steps`, 'MiB', large.peakKb / 1024, small.peakKb / 1024);
} finally {
  await service.close();
  rmSync(work, { recursive: true, force: true, maxRetries: 3 });
}
