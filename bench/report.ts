// `npm run bench -- report`: a generated run of 2,000 steps with 3 images per step (40% of them
// duplicates). Ours: content-addressed ArtifactStore + the html reporter. Baseline: a naive
// writer that copies every image per step and writes one static page listing every step.
// Metrics: time to write the report, its size on disk, and time to first render in Chromium
// (the summary visible) and to the page's load event.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { ArtifactStore } from '../src/runner/artifacts.js';
import { computeStats } from '../src/runner/stats.js';
import type { FlowResult, RunResult, StepRecord } from '../src/runner/types.js';
import { writeHtmlReport } from '../reporters/html/index.js';
import { benchSize, percentile, printResult } from './_report.js';

const kFlows = benchSize(undefined, 40, 3);
const kStepsPerFlow = benchSize(undefined, 50, 5);
const kImagesPerStep = 3;
const kDuplicateShare = 0.4;
const kRenderRuns = benchSize(undefined, 3, 1);
const kWriteRounds = benchSize(undefined, 3, 1);

// A small valid PNG (RGB, 240x150) whose pixels depend on the seed: built by hand to keep
// generation out of the way (zlib level 1); real browsers decode it.
function png(seed: number): Buffer {
  const w = 240;
  const h = 150;
  const raw = Buffer.alloc((w * 3 + 1) * h);
  let x = Math.imul(seed, 2654435761) >>> 0;
  for (let y = 0; y < h; y++) {
    const row = y * (w * 3 + 1);
    raw[row] = 0;
    for (let i = 0; i < w; i++) {
      const o = row + 1 + i * 3;
      const band = y > 40 && y < 70;
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      raw[o] = band ? x & 0xff : 240 - (seed % 40);
      raw[o + 1] = band ? (x >>> 8) & 0xff : 240;
      raw[o + 2] = band ? (x >>> 16) & 0xff : 230 + (y % 20);
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 1 })), chunk('IEND', Buffer.alloc(0))]);
}

const kCrcTable = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = kCrcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function dirSize(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) total += statSync(join(e.parentPath, e.name)).size;
  return total;
}

// 1. The generated run: image slots, 40% of which repeat an earlier image.
const totalImages = kFlows * kStepsPerFlow * kImagesPerStep;
const unique = Math.round(totalImages * (1 - kDuplicateShare));
const images: Buffer[] = [];
for (let i = 0; i < unique; i++) images.push(png(i + 1));
let rng = 42;
const slots: number[] = [];
for (let i = 0; i < totalImages; i++) {
  rng = (Math.imul(rng, 1103515245) + 12345) >>> 0;
  // the first `unique` slots introduce each image once; the rest reuse one seen before
  slots.push(i < unique ? i : rng % unique);
}
for (let i = slots.length - 1; i > unique; i--) {
  rng = (Math.imul(rng, 1103515245) + 12345) >>> 0;
  const j = unique + (rng % (i - unique + 1));
  [slots[i], slots[j]] = [slots[j]!, slots[i]!];
}
const t0 = Date.parse('2026-01-01T00:00:00.000Z');

function buildResult(imagePath: (flow: number, step: number, k: number, slot: number) => string): RunResult {
  const flows: FlowResult[] = [];
  let slot = 0;
  for (let f = 0; f < kFlows; f++) {
    const steps: StepRecord[] = [];
    for (let s = 0; s < kStepsPerFlow; s++) {
      const shots = [0, 1, 2].map((k) => imagePath(f, s, k, slots[slot++]!));
      const failed = f % 10 === 3 && s === kStepsPerFlow - 1;
      const step: StepRecord = {
        id: String(s + 1), index: s + 1, label: `tap Button ${s + 1}`, command: 'tap', args: { text: `Button ${s + 1}` },
        source: { file: `flows/flow${f}.flow.yaml`, line: s + 5, column: 5 }, status: failed ? 'failed' : 'passed', attempts: 1,
        startedAt: new Date(t0 + f * 60_000 + s * 1000).toISOString(), durationMs: 400 + (s % 7) * 50, actionId: `act_${f}_${s}`,
        message: `Dragged from (${s},${s}) to (${s},${s})`, screenshots: { before: shots[0]!, after: shots[1]!, trace: shots[2]! },
      };
      if (failed) step.error = { code: 'ELEMENT_NOT_FOUND', message: `No visible element matched text "Button ${s + 1}" within 5s.` };
      steps.push(step);
    }
    const failed = f % 10 === 3;
    flows.push({
      id: `flow${String(f).padStart(8, '0')}`, name: `Generated flow ${f}`, file: `flows/flow${f}.flow.yaml`, tags: [f % 2 ? 'odd' : 'even'],
      status: failed ? 'failed' : 'passed', durationMs: 50_000, box: { id: `box-${f % 4}`, type: 'linux' },
      attempts: [{ attempt: 1, status: failed ? 'failed' : 'passed', startedAt: new Date(t0 + f * 60_000).toISOString(), durationMs: 50_000, steps }],
    });
  }
  return { version: 1, startedAt: new Date(t0).toISOString(), durationMs: kFlows * 60_000, status: 'failed', boxes: [0, 1, 2, 3].map((i) => ({ id: `box-${i}`, type: 'linux' as const })), flows, stats: computeStats(flows), baselines: [], errors: [] };
}

const root = mkdtempSync(join(tmpdir(), 'bf-bench-report-'));
try {
  // 2. Ours: store each image once (content-addressed), then the html reporter.
  const writeOurs = async (dir: string) => {
    const store = new ArtifactStore(dir);
    // A runner stores a step's images as they arrive, a few at a time, not thousands at once.
    const stored: string[] = new Array(images.length);
    for (let i = 0; i < images.length; i += 32) {
      const batch = images.slice(i, i + 32);
      (await Promise.all(batch.map((b) => store.put(b)))).forEach((p, j) => (stored[i + j] = p));
    }
    writeHtmlReport(buildResult((_f, _s, _k, slot) => stored[slot]!), dir, { rootDir: root });
    return store.stats.written;
  };

  // 3. Naive: a copy of every image for every step, and one static page listing every step.
  const writeNaive = (dir: string) => {
    mkdirSync(join(dir, 'steps'), { recursive: true });
    const naive = buildResult((f, s, k, slot) => {
      const p = `steps/f${f}-s${s}-${['before', 'after', 'trace'][k]}.png`;
      writeFileSync(join(dir, p), images[slot]!);
      return p;
    });
    const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    const html: string[] = [`<!doctype html><meta charset="utf-8"><title>naive</title><header data-testid="summary"><h1>${naive.stats.passed} passed, ${naive.stats.failed} failed</h1></header>`];
    for (const f of naive.flows) {
      html.push(`<section><h2>${esc(f.name)} — ${f.status}</h2><ol>`);
      for (const s of f.attempts[0]!.steps) html.push(`<li>${esc(s.label)} ${s.status} ${s.durationMs}ms <code>${s.actionId}</code> ${esc(s.message ?? '')}<br>${Object.values(s.screenshots!).map((p) => `<img src="${p}" width="120">`).join('')}</li>`);
      html.push('</ol></section>');
    }
    writeFileSync(join(dir, 'index.html'), html.join('\n'));
  };

  // Disk writeback on a shared machine is noisy: alternate the two writers and take medians.
  const oursDir = join(root, 'ours');
  const naiveDir = join(root, 'naive');
  const oursTimes: number[] = [];
  const naiveTimes: number[] = [];
  // CPU time (all threads, the fs thread pool's too) besides wall time: other processes' disk
  // writeback on a shared machine swings the wall time of both writers by seconds.
  const oursCpu: number[] = [];
  const naiveCpu: number[] = [];
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const d = process.cpuUsage(since);
    return (d.user + d.system) / 1000;
  };
  let written = 0;
  for (let round = 0; round < kWriteRounds; round++) {
    rmSync(oursDir, { recursive: true, force: true });
    rmSync(naiveDir, { recursive: true, force: true });
    const runOurs = async () => {
      const t = performance.now();
      const c = process.cpuUsage();
      written = await writeOurs(oursDir);
      oursTimes.push(performance.now() - t);
      oursCpu.push(cpuMs(c));
    };
    const runNaive = () => {
      const t = performance.now();
      const c = process.cpuUsage();
      writeNaive(naiveDir);
      naiveTimes.push(performance.now() - t);
      naiveCpu.push(cpuMs(c));
    };
    if (round % 2) {
      runNaive();
      await runOurs();
    } else {
      await runOurs();
      runNaive();
    }
  }
  const oursWrite = percentile(oursTimes, 50);
  const naiveWrite = percentile(naiveTimes, 50);

  // 4. First render and load in Chromium, from file://.
  const browser = await chromium.launch({
    executablePath: process.env.BOXFLOW_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const measure = async (dir: string) => {
    const first: number[] = [];
    const load: number[] = [];
    for (let i = 0; i < kRenderRuns; i++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const start = performance.now();
      const loaded = page.goto(pathToFileURL(join(dir, 'index.html')).href, { waitUntil: 'load', timeout: 300_000 }).then(() => performance.now() - start);
      await page.getByTestId('summary').waitFor({ state: 'visible', timeout: 300_000 });
      first.push(performance.now() - start);
      load.push(await loaded);
      await page.close();
    }
    return { first: percentile(first, 50), load: percentile(load, 50) };
  };
  let oursRender: { first: number; load: number };
  let naiveRender: { first: number; load: number };
  try {
    oursRender = await measure(oursDir);
    naiveRender = await measure(naiveDir);
  } finally {
    await browser.close();
  }

  process.stderr.write(`report bench: ${kFlows * kStepsPerFlow} steps, ${totalImages} image refs, ${unique} distinct; ours wrote ${written} files; write ms ours ${oursTimes.map(Math.round).join('/')} naive ${naiveTimes.map(Math.round).join('/')}; cpu ms ours ${oursCpu.map(Math.round).join('/')} naive ${naiveCpu.map(Math.round).join('/')}\n`);
  printResult('report', 'write', 'ms', oursWrite, naiveWrite);
  printResult('report', 'write-cpu', 'cpu ms', percentile(oursCpu, 50), percentile(naiveCpu, 50));
  printResult('report', 'size', 'bytes', dirSize(oursDir), dirSize(naiveDir));
  printResult('report', 'first-render', 'ms', oursRender.first, naiveRender.first);
  printResult('report', 'load', 'ms', oursRender.load, naiveRender.load);
} catch (err) {
  process.stderr.write(`report bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}
