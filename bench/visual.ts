// Screenshot comparison on 1080×2400 pairs: the pass path (identical screens) and the fail path
// (a one-character change), ours (compareImages through the worker pool, diff encode included)
// against a naive pipeline in the same run: pngjs decode both, pixelmatch, pngjs default encode.
// Goals: pass >= 10× faster, fail >= 3× faster (ratio = ours / naive, so <= 0.1 and <= 0.33).
import { PNG } from 'pngjs';
import pixelmatch from 'pixelmatch';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../src/api/client.js';
import { createApiKey, startServer } from '../src/server/index.js';
import { closeVisualPool, compareImages, pngSize } from '../src/visual/index.js';
import { percentile, printResult } from './_report.js';

const kRuns = Number(process.env.BENCH_RUNS ?? 15);
const kWarmup = 3;

/**
 * The pairs come from the demo app (flows/app) on a box of `boxflow serve`, its resolution set to
 * 1080×2400: the sign-in page twice (identical), then with one character typed (a small change).
 */
async function captureBenchPairs(): Promise<{ identical: [Buffer, Buffer]; changed: [Buffer, Buffer] }> {
  const demo = (await import('../flows/app/server.mjs')) as { createDemoServer(): import('node:http').Server };
  const app = demo.createDemoServer();
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  const appUrl = `http://127.0.0.1:${(app.address() as import('node:net').AddressInfo).port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-visual-'));
  const secret = randomBytes(16).toString('hex');
  const server = await startServer({ port: 0, dataDir, secret, log: () => {} });
  const client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'bench') });
  try {
    const box = await client.createLinuxBox({ config: { resolution: { width: 1080, height: 2400 } } });
    await client.setResolution(box.id, { width: 1080, height: 2400 });
    await client.openTab(box.id, { url: `${appUrl}/login` });
    const shot = async () => Buffer.from((await client.screenshot(box.id, { outputFormat: 'base64' })).uri.split(',')[1]!, 'base64');
    const a = await shot();
    const b = await shot();
    await client.drag(box.id, { start: 'Email', end: 'Email', duration: '50ms' });
    await client.type(box.id, { text: 'x', options: { screenshot: false } });
    const c = await shot();
    const size = pngSize(a);
    if (size.width !== 1080 || size.height !== 2400) throw new Error(`captured ${size.width}×${size.height}, expected 1080×2400`);
    await client.terminateBox(box.id);
    return { identical: [a, b], changed: [a, c] };
  } finally {
    await client.close();
    await server.close();
    await new Promise<void>((r) => app.close(() => r()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function naive(expected: Buffer, actual: Buffer): { pass: boolean; diff?: Buffer } {
  const a = PNG.sync.read(expected);
  const b = PNG.sync.read(actual);
  const diff = new PNG({ width: a.width, height: a.height });
  const n = pixelmatch(a.data, b.data, diff.data, a.width, a.height, { threshold: 0.2 });
  return n === 0 ? { pass: true } : { pass: false, diff: PNG.sync.write(diff) };
}

async function time(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function measure(label: string, [expected, actual]: [Buffer, Buffer], wantPass: boolean) {
  const check = await compareImages(expected, actual);
  const base = naive(expected, actual);
  if (check.pass !== wantPass || base.pass !== wantPass) throw new Error(`${label}: expected pass=${wantPass}, ours=${check.pass}, naive=${base.pass}`);
  for (let i = 0; i < kWarmup; i++) {
    await compareImages(expected, actual);
    naive(expected, actual);
  }
  const ours: number[] = [];
  const theirs: number[] = [];
  // Interleaved so that load from other processes hits both sides alike.
  for (let i = 0; i < kRuns; i++) {
    ours.push(await time(() => compareImages(expected, actual)));
    theirs.push(await time(() => naive(expected, actual)));
  }
  const o = percentile(ours, 50);
  const n = percentile(theirs, 50);
  process.stderr.write(`${label}: ours median ${o.toFixed(2)} ms (path ${check.path}, ${check.diffPixels} px, diff ${check.diffPng?.length ?? 0} B), ` +
    `naive median ${n.toFixed(2)} ms (diff ${base.diff?.length ?? 0} B), ${(n / o).toFixed(1)}× faster\n`);
  return { o, n };
}

const pairs = await captureBenchPairs();
const size = pngSize(pairs.identical[0]);
process.stderr.write(`pairs: ${size.width}x${size.height}, identical bytes: ${pairs.identical[0].equals(pairs.identical[1])}, ${kRuns} runs each\n`);
try {
  const pass = await measure('pass', pairs.identical, true);
  const fail = await measure('fail', pairs.changed, false);
  printResult('visual', 'pass', 'ms', pass.o, pass.n);
  printResult('visual', 'fail', 'ms', fail.o, fail.n);
} finally {
  await closeVisualPool();
}
