// Screenshot comparison on 1080×2400 pairs: the pass path (identical screens) and the fail path
// (a one-character change), ours (compareImages through the worker pool, diff encode included)
// against a naive pipeline in the same run: pngjs decode both, pixelmatch, pngjs default encode.
// Goals: pass >= 10× faster, fail >= 3× faster (ratio = ours / naive, so <= 0.1 and <= 0.33).
import { PNG } from 'pngjs';
import pixelmatch from 'pixelmatch';
import { captureDemo } from '../test/fixtures/visual/capture.js';
import { closeVisualPool, compareImages, pngSize } from '../src/visual/index.js';
import { percentile, printResult } from './_report.js';

const kRuns = Number(process.env.BENCH_RUNS ?? 15);
const kWarmup = 3;

/** The one place that knows where the pairs come from (later: a box of `boxflow serve`). */
async function captureBenchPairs(): Promise<{ identical: [Buffer, Buffer]; changed: [Buffer, Buffer] }> {
  const shot = { width: 360, height: 800, scale: 3 };
  const { pngs } = await captureDemo([shot, shot, { ...shot, state: { total: '42' } }]);
  const [a, b, c] = pngs as [Buffer, Buffer, Buffer];
  return { identical: [a, b], changed: [a, c] };
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
