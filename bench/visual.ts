// Screenshot comparison on 1080×2400 pairs, ours (compareImages through the worker pool, diff
// encode included) against a naive pipeline in the same run: pngjs decode both, pixelmatch,
// pngjs default encode. Three paths: pass on equal bytes (two captures of one screen), pass on
// equal pixels in different bytes (the baseline re-encoded by another tool), and fail on a
// one-character change (with its diff PNG). Goals (ratio = ours / naive): pass ≤ 0.1, fail ≤ 0.1.
// Then the PNG codec of src/png/png.ts against pngjs tuned for speed and @napi-rs/canvas:
// it stays only while it is at least 2× faster than both (ratio ≤ 0.5).
// Then odiff, the real peer (odiff-bin, a dev dependency: only this bench uses it): its CLI (a process per pair) and
// its long-lived server mode (ODiffServer), on the same pairs written to files, threshold 0.2 and
// anti-aliased pixels ignored as ours does, each writing its diff image. Goal: fail ≤ 1.0 of the
// server mode. Both compare files, which is odiff's fast path (a baseline is a file; the capture
// is written to the output folder anyway).
import { PNG } from 'pngjs';
import pixelmatch from 'pixelmatch';
import { createCanvas, Image } from '@napi-rs/canvas';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { BoxClient } from '../src/api/client.js';
import { createApiKey, startServer } from '../src/server/index.js';
import { closeVisualPool, compareImages, decodePng, encodePng, pngSize, type RgbaImage } from '../src/visual/index.js';
import { benchSize, percentile, printResult } from './_report.js';

const kRuns = benchSize('BENCH_RUNS', 15, 1);
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const kWarmup = benchSize(undefined, 3, 0);

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

/** CPU time of the whole process (all threads: the worker pool's too), in ms. */
async function cpuTime(fn: () => unknown): Promise<number> {
  const t0 = process.cpuUsage();
  await fn();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

/**
 * Medians of two interleaved timings, so that load from other processes hits both sides alike:
 * wall time, and CPU time, which the other processes on a shared machine disturb far less.
 */
async function race(ours: () => unknown, theirs: () => unknown): Promise<{ o: number; n: number; oCpu: number; nCpu: number }> {
  const { o, n } = await raceWall(ours, theirs, kWarmup);
  // CPU time in blocks, each after a full GC: interleaved, one side's garbage would be
  // collected (on V8's helper threads, which process.cpuUsage counts) during the other's run.
  const cpuRuns = async (fn: () => unknown) => {
    gc();
    const xs: number[] = [];
    for (let i = 0; i < kRuns; i++) xs.push(await cpuTime(fn));
    return percentile(xs, 50);
  };
  const oCpu = await cpuRuns(ours);
  const nCpu = await cpuRuns(theirs);
  return { o, n, oCpu, nCpu };
}

async function measure(label: string, [expected, actual]: [Buffer, Buffer], wantPass: boolean, wantPath: string) {
  const check = await compareImages(expected, actual);
  const base = naive(expected, actual);
  if (check.pass !== wantPass || base.pass !== wantPass || check.path !== wantPath) throw new Error(`${label}: expected pass=${wantPass} by ${wantPath}, ours=${check.pass} by ${check.path}, naive=${base.pass}`);
  if (!wantPass && !check.diffPng?.length) throw new Error(`${label}: no diff image`);
  const r = await race(() => compareImages(expected, actual), () => naive(expected, actual));
  process.stderr.write(`${label}: ours median ${r.o.toFixed(2)} ms, ${r.oCpu.toFixed(2)} cpu ms (path ${check.path}, ${check.diffPixels} px, diff ${check.diffPng?.length ?? 0} B), ` +
    `naive median ${r.n.toFixed(2)} ms, ${r.nCpu.toFixed(2)} cpu ms (diff ${base.diff?.length ?? 0} B), ${(r.n / r.o).toFixed(1)}× faster\n`);
  return r;
}

// The codec contenders, each at its fastest settings for screenshots.
const pngjsTuned = {
  decode: (png: Buffer) => PNG.sync.read(png, { checkCRC: false }).data,
  encode: (img: RgbaImage) => {
    const p = new PNG({ width: img.width, height: img.height });
    p.data = img.data;
    return PNG.sync.write(p, { filterType: 2, deflateLevel: 1, colorType: 2 });
  },
};
const canvas = {
  decode: (png: Buffer) => {
    const image = new Image();
    image.src = png;
    const ctx = createCanvas(image.width, image.height).getContext('2d');
    ctx.drawImage(image, 0, 0);
    return ctx.getImageData(0, 0, image.width, image.height).data;
  },
  encode: (img: RgbaImage) => {
    const c = createCanvas(img.width, img.height);
    const ctx = c.getContext('2d');
    const data = ctx.createImageData(img.width, img.height);
    data.data.set(img.data);
    ctx.putImageData(data, 0, 0);
    return c.encodeSync('png');
  },
};

/**
 * Wall-time medians of two interleaved sides (odiff runs in its own process: CPU time would miss it).
 * A full GC before each timed run, on both sides: otherwise one side's garbage (the naive side
 * leaves about 100 MB a run) is collected during the other's, which then pays for it.
 */
async function raceWall(ours: () => unknown, theirs: () => unknown, warmup = Math.max(1, kWarmup)): Promise<{ o: number; n: number }> {
  for (let i = 0; i < warmup; i++) {
    await ours();
    await theirs();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < kRuns; i++) {
    gc();
    a.push(await time(ours));
    gc();
    b.push(await time(theirs));
  }
  return { o: percentile(a, 50), n: percentile(b, 50) };
}

type OdiffModule = typeof import('odiff-bin');

/** odiff's CLI and server mode on the pairs, against ours; undefined when odiff-bin is not installed. */
async function againstOdiff(): Promise<[string, string, { o: number; n: number }][] | undefined> {
  let odiff: OdiffModule;
  let server: InstanceType<OdiffModule['ODiffServer']>;
  try {
    odiff = (await import('odiff-bin')) as OdiffModule;
    server = new odiff.ODiffServer(); // throws when the platform's binary package is missing
  } catch (err) {
    process.stderr.write(`odiff: not available (odiff-bin, a dev dependency, or its platform binary is missing: ${(err as Error).message.split('\n')[0]}): no odiff lines\n`);
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-odiff-'));
  const file = (name: string, png: Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, png);
    return path;
  };
  const [base, same] = [file('base.png', pairs.identical[0]), file('same.png', pairs.identical[1])];
  const changed = file('changed.png', pairs.changed[1]);
  const diff = join(dir, 'diff.png');
  const options = { threshold: 0.2, antialiasing: true };
  try {
    const check = async (label: string, r: Promise<import('odiff-bin').ODiffResult>, match: boolean) => {
      const res = await r;
      if (res.match !== match) throw new Error(`odiff ${label}: expected match=${match}, got ${JSON.stringify(res)}`);
      return res;
    };
    const cliRes = await check('cli fail', odiff.compare(base, changed, diff, options), false);
    await check('server fail', server.compare(base, changed, diff, options), false);
    await check('server pass', server.compare(base, same, diff, options), true);
    process.stderr.write(`odiff: fail pair ${JSON.stringify(cliRes)}\n`);
    const ours = (a: Buffer, b: Buffer) => async () => {
      const r = await compareImages(a, b);
      // Ours writes its diff image too, as odiff does.
      if (r.diffPng) writeFileSync(join(dir, 'ours-diff.png'), r.diffPng);
    };
    // The server's own CPU time (utime + stime, in clock ticks of 10 ms) counts on odiff's side.
    const serverPid = (server as unknown as { process: { pid: number } }).process.pid;
    const serverCpuMs = () => readFileSync(`/proc/${serverPid}/stat`, 'utf8').split(') ')[1]!.split(' ').slice(11, 13).reduce((t, x) => t + Number(x) * 10, 0);
    /** CPU per comparison, in blocks of kRuns × 4 (the ticks are coarse): this process, plus odiff's server for theirs. */
    const cpuBlock = async (fn: () => unknown, withServer: boolean) => {
      gc();
      const n = kRuns * 4;
      const s0 = withServer ? serverCpuMs() : 0;
      const ms = await cpuTime(async () => {
        for (let i = 0; i < n; i++) await fn();
      });
      return (ms + (withServer ? serverCpuMs() - s0 : 0)) / n;
    };
    const lines: [string, string, { o: number; n: number }][] = [
      ['fail-vs-odiff-cli', 'ms', await raceWall(ours(...pairs.changed), () => odiff.compare(base, changed, diff, options))],
      ['fail-vs-odiff-server', 'ms', await raceWall(ours(...pairs.changed), () => server.compare(base, changed, diff, options))],
      ['pass-vs-odiff-server', 'ms', await raceWall(ours(...pairs.identical), () => server.compare(base, same, diff, options))],
      ['fail-vs-odiff-server-cpu', 'cpu ms', { o: await cpuBlock(ours(...pairs.changed), false), n: await cpuBlock(() => server.compare(base, changed, diff, options), true) }],
    ];
    for (const [metric, unit, r] of lines) process.stderr.write(`${metric}: ours median ${r.o.toFixed(2)} ${unit}, odiff ${r.n.toFixed(2)} ${unit}\n`);
    return lines;
  } finally {
    // odiff-bin 4.5 warns "odiff server exited unexpectedly with code null" here: its stop() clears
    // its exiting flag before the kill's exit event arrives. Nothing went wrong.
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function codec(screen: Buffer) {
  const img = decodePng(screen);
  for (const [name, dec] of [['pngjs', pngjsTuned.decode], ['canvas', canvas.decode]] as const) {
    if (!Buffer.from(dec(screen)).equals(img.data)) throw new Error(`${name} decodes other pixels than png.ts`);
  }
  for (const [name, enc] of [['png.ts', encodePng], ['pngjs', pngjsTuned.encode], ['canvas', canvas.encode]] as const) {
    if (!decodePng(enc(img)).data.equals(img.data)) throw new Error(`${name}'s encoding does not read back equal`);
  }
  const lines: [string, { oCpu: number; nCpu: number }][] = [
    ['decode-vs-pngjs-tuned', await race(() => decodePng(screen), () => pngjsTuned.decode(screen))],
    ['decode-vs-napi-canvas', await race(() => decodePng(screen), () => canvas.decode(screen))],
    ['encode-vs-pngjs-tuned', await race(() => encodePng(img), () => pngjsTuned.encode(img))],
    ['encode-vs-napi-canvas', await race(() => encodePng(img), () => canvas.encode(img))],
  ];
  process.stderr.write(`codec: png.ts encodes ${encodePng(img).length} B, pngjs tuned ${pngjsTuned.encode(img).length} B, canvas ${canvas.encode(img).length} B\n`);
  return lines;
}

const pairs = await captureBenchPairs();
const size = pngSize(pairs.identical[0]);
// The same pixels as the capture, in other bytes: a baseline written by another encoder.
const reencoded = encodePng(decodePng(pairs.identical[1]));
process.stderr.write(`pairs: ${size.width}x${size.height}, identical bytes: ${pairs.identical[0].equals(pairs.identical[1])}, ${kRuns} runs each\n`);
try {
  const pass = await measure('pass', pairs.identical, true, 'bytes');
  const pixels = await measure('pass-pixels', [pairs.identical[0], reencoded], true, 'pixels');
  const fail = await measure('fail', pairs.changed, false, 'pixelmatch');
  const codecs = await codec(pairs.identical[0]);
  const odiff = await againstOdiff();
  printResult('visual', 'pass', 'ms', pass.o, pass.n);
  printResult('visual', 'pass-pixels', 'ms', pixels.o, pixels.n);
  printResult('visual', 'fail', 'ms', fail.o, fail.n);
  printResult('visual', 'pass-pixels-cpu', 'cpu ms', pixels.oCpu, pixels.nCpu);
  printResult('visual', 'fail-cpu', 'cpu ms', fail.oCpu, fail.nCpu);
  // In-thread codecs: CPU time is the steadier measure on a shared machine.
  for (const [metric, r] of codecs) printResult('visual', metric, 'cpu ms', r.oCpu, r.nCpu);
  for (const [metric, unit, r] of odiff ?? []) printResult('visual', metric, unit, r.o, r.n);
} finally {
  await closeVisualPool();
}
