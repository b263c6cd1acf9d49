import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { loadReporters, replayResult, ReporterHost } from '../../src/runner/reporterHost.js';
import { mergeRunDirs } from '../../src/runner/eventsMerge.js';
import { EventLog } from '../../src/runner/events.js';
import { builtinReporters } from '../../reporters/index.js';
import type { ReportData } from '../../reporters/html/index.js';
import type { PrettyLayout } from '../../reporters/html/layout.js';
import { prettyLayout } from '../../reporters/html/layout.js';
import { serveReport } from '../../reporters/html/serve.js';
import { kFixtureRoot, runFixture } from '../fixtures/results/fixture.js';
import type { StepRecord } from '../../src/runner/types.js';

function readReport(dir: string): ReportData {
  const window: { __BOXFLOW_REPORT__?: ReportData } = {};
  runInNewContext(readFileSync(join(dir, 'data', 'report.js'), 'utf8'), { window });
  return JSON.parse(JSON.stringify(window.__BOXFLOW_REPORT__)) as ReportData;
}

function* steps(list: StepRecord[]): Generator<StepRecord> {
  for (const s of list) {
    yield s;
    if (s.children) yield* steps(s.children);
  }
}

async function htmlRun() {
  const dir = mkdtempSync(join(tmpdir(), 'bf-html-'));
  const log = new EventLog(dir);
  const reps = await loadReporters(['html'], { outputDir: dir, rootDir: kFixtureRoot }, builtinReporters);
  const result = await runFixture(new ReporterHost(reps, log), { outputDir: dir });
  log.close();
  return { dir, result };
}

test('html: index.html works offline: only relative local scripts, styles and images; data as a script, not fetch', async () => {
  const { dir } = await htmlRun();
  try {
    const index = readFileSync(join(dir, 'index.html'), 'utf8');
    const refs = [...index.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.deepEqual(refs.sort(), ['assets/viewer.css', 'assets/viewer.js', 'data/report.js']);
    for (const r of refs) assert.ok(existsSync(join(dir, r)), `${r} exists`);
    const viewer = readFileSync(join(dir, 'assets', 'viewer.js'), 'utf8') + readFileSync(join(dir, 'assets', 'viewer.css'), 'utf8');
    assert.ok(!/https?:\/\//.test(viewer.replace(/http:\/\/www\.w3\.org/g, '')), 'no remote URL in the viewer');
    assert.ok(!/\bfetch\(|XMLHttpRequest|type="module"/.test(viewer + index), 'nothing a file:// page cannot load');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('html: every image is stored once, content-addressed, and every reference resolves', async () => {
  const { dir, result } = await htmlRun();
  try {
    const data = readReport(dir);
    assert.deepEqual(data.result.stats, result.stats);
    const refs: string[] = [];
    for (const f of data.result.flows) {
      for (const a of f.attempts) {
        for (const s of steps(a.steps)) {
          refs.push(...Object.values(s.screenshots ?? {}));
          if (s.visual) refs.push(...[s.visual.expected, s.visual.actual, s.visual.diff].filter((x): x is string => !!x));
        }
      }
    }
    const pngs = readdirSync(join(dir, 'data')).filter((n) => n.endsWith('.png'));
    assert.ok(refs.length > pngs.length, 'duplicates share a file');
    assert.equal(new Set(refs).size, pngs.length, 'one file per distinct image, nothing else');
    for (const r of refs) {
      assert.match(r, /^data\/[0-9a-f]{40}\.png$/);
      assert.ok(existsSync(join(dir, r)));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('html: a failed step carries its code frame, and its layout snapshot is pretty-printed with the candidate marked', async () => {
  const { dir } = await htmlRun();
  try {
    const data = readReport(dir);
    const checkout = data.result.flows.find((f) => f.name === 'Checkout from the cart')!;
    const failed = checkout.attempts[0]!.steps.find((s) => s.status === 'failed')!;
    assert.match(failed.error!.snippet!, /> 7 \|   - tap: Buy now/);
    const key = `${failed.layout!.snapshot}\n${failed.layout!.selector}`;
    const script = data.layouts[key]!;
    assert.ok(script && existsSync(join(dir, script)));
    let got: PrettyLayout | undefined;
    runInNewContext(readFileSync(join(dir, script), 'utf8'), { window: { __bfLayout: (k: string, v: PrettyLayout) => (k === key ? (got = v) : undefined) } });
    const marked = got!.lines.filter((l) => l[2]);
    assert.equal(marked.length, 1);
    assert.match(marked[0]![1], /^android\.widget\.Button text="Buy" id="com\.example\.shop:id\/buy".*disabled/);
    assert.equal(marked[0]![2], 1);
    assert.ok(got!.lines.some((l) => l[1].includes('Notebook & pen')), 'entities decoded');
    const depths = got!.lines.map((l) => l[0]);
    assert.deepEqual([Math.min(...depths), Math.max(...depths)], [0, 3]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('html: the code frames it adds are in the report, not in the result other reporters get after it', async () => {
  const { dir, result } = await htmlRun();
  try {
    const failedIn = (r: { flows: typeof result.flows }) => r.flows.find((f) => f.name === 'Checkout from the cart')!.attempts[0]!.steps.find((s) => s.status === 'failed')!;
    assert.match(failedIn(readReport(dir).result).error!.snippet!, /Buy now/);
    assert.equal(failedIn(result).error!.snippet, undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('prettyLayout: HTML snapshots show tags, attributes and text, and mark candidates', () => {
  const html = '<html><body><form><label for="e">Email</label><input id="email" type="email"><button id="go" aria-label="Send">Sign in</button><script>var x = "<b>";</script></form></body></html>';
  const p = prettyLayout(html, { format: 'html', selector: 'text "Sign on"', candidates: [{ text: 'Sign in', id: 'go', desc: 'Send', tag: 'button', order: 6 }] });
  const text = p.lines.map(([d, t, m]) => `${'  '.repeat(d)}${t}${m ? ` #${m}` : ''}`).join('\n');
  assert.match(text, /<button id="go" aria-label="Send"> #1\n\s+Sign in/);
  assert.match(text, /<input id="email" type="email">/);
  assert.ok(!text.includes('var x'), 'script bodies are not printed');
});

test('html: a report regenerated from merged shards (merge-reports) shows every flow', async () => {
  const a = mkdtempSync(join(tmpdir(), 'bf-html-'));
  const b = mkdtempSync(join(tmpdir(), 'bf-html-'));
  const out = mkdtempSync(join(tmpdir(), 'bf-html-'));
  try {
    for (const [dir, flows, index] of [[a, ['login', 'checkout'], 1], [b, ['home', 'search', 'settings'], 2]] as const) {
      const log = new EventLog(dir);
      await runFixture(new ReporterHost([], log), { outputDir: dir, flows: [...flows], shard: { index, total: 2 } });
      log.close();
    }
    const merged = mergeRunDirs([a, b], out);
    const reps = await loadReporters(['html', 'junit'], { outputDir: out, rootDir: kFixtureRoot }, builtinReporters);
    await replayResult(merged, new ReporterHost(reps), out);
    const data = readReport(out);
    assert.equal(data.result.flows.length, 5);
    assert.ok(existsSync(join(out, 'junit.xml')));
    const failed = data.result.flows.find((f) => f.name === 'Checkout from the cart')!.attempts[0]!.steps[2]!;
    assert.ok(data.layouts[`${failed.layout!.snapshot}\n${failed.layout!.selector}`], 'the layout snapshot came along with the shard');
  } finally {
    for (const d of [a, b, out]) rmSync(d, { recursive: true, force: true });
  }
});

test('serveReport: serves the report on loopback, and nothing outside it', async () => {
  const { dir } = await htmlRun();
  const server = await serveReport(dir);
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await fetch(server.url);
    assert.equal(index.status, 200);
    assert.match(index.headers.get('content-type')!, /text\/html/);
    assert.match(await index.text(), /assets\/viewer\.js/);
    const js = await fetch(new URL('data/report.js', server.url));
    assert.match(await js.text(), /__BOXFLOW_REPORT__/);
    const outside = await fetch(new URL('/..%2f..%2fetc%2fpasswd', server.url));
    assert.ok(outside.status === 403 || outside.status === 404);
    assert.equal((await fetch(new URL('nope.png', server.url))).status, 404);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
