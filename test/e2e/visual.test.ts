// Screenshot assertions end to end: baselines written, a changed screen failing with
// expected/actual/diff files, --update-baselines=changed, and the stable-capture loop.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync, rmSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { readResults, runCli, tempProject } from './helpers.js';
import type { StepRecord } from '../../src/runner/types.js';

let server: Server;
let base = '';
let banner = 'Spring sale: 20% off';
const pages: Partial<Record<string, () => string>> = {
  '/banner': () => `<!doctype html><body style="margin:0;font:24px 'DejaVu Sans'"><h1 style="padding:20px">${banner}</h1><p style="padding:0 20px">Boxflow visual test page.</p></body>`,
  // Moves for 600 ms, then stands still: the capture waits for it.
  '/settles': () => `<!doctype html><body style="margin:0"><div id=b style="position:absolute;top:40px;left:0;width:80px;height:80px;background:#2f6fb0"></div><script>const t0=performance.now();function f(t){const x=Math.min(300,(t-t0)/2);b.style.left=x+'px';if(x<300)requestAnimationFrame(f)}requestAnimationFrame(f)</script></body>`,
  // Never stands still.
  '/never': () => `<!doctype html><body style="margin:0"><div id=b style="position:absolute;top:40px;width:80px;height:80px;background:#b3261e"></div><script>function f(t){b.style.left=(Math.floor(t/16)%400)+'px';requestAnimationFrame(f)}requestAnimationFrame(f)</script></body>`,
};

before(async () => {
  server = createServer((req, res) => {
    const page = pages[req.url ?? ''];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html' });
    res.end(page ? page() : 'not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => {
  server.closeAllConnections();
  server.close(() => r());
}));

const flat = (steps: StepRecord[]): StepRecord[] => steps.flatMap((s) => [s, ...flat(s.children ?? [])]);
const visualStep = (dir: string, out: string) => flat(readResults(join(dir, out)).flows[0]!.attempts.at(-1)!.steps).find((s) => s.command === 'assertScreenshot')!;

test('a changed screen fails with expected/actual/diff, and passes after --update-baselines=changed', async () => {
  banner = 'Spring sale: 20% off';
  const dir = tempProject({ 'banner.flow.yaml': `name: banner\nsteps:\n  - setResolution: { width: 640, height: 360 }\n  - openTab: ${base}/banner\n  - assertScreenshot: banner\n` });
  const baseline = join(dir, '__screenshots__', 'banner', 'banner-linux.png');

  // As Playwright: a missing baseline is written and the flow that wrote it fails (CI or not)...
  const first = await runCli(['test', '--reporter', 'json', '-o', 'r1'], { cwd: dir, env: { CI: 'true' } });
  assert.equal(first.code, 1, first.stderr);
  assert.equal(visualStep(dir, 'r1').visual?.written, 'missing');
  assert.match(visualStep(dir, 'r1').error!.message, /a baseline doesn't exist at __screenshots__\/banner\/banner-linux\.png, writing actual/);
  assert.ok(existsSync(baseline), 'the missing baseline was written');
  assert.deepEqual(readResults(join(dir, 'r1')).baselines, [{ path: '__screenshots__/banner/banner-linux.png', written: 'missing' }]);
  // ...unless the run asks for missing baselines (Playwright's --update-snapshots=missing): written, and it passes.
  rmSync(baseline);
  const asked = await runCli(['test', '--reporter', 'json', '-o', 'r1b', '--update-snapshots=missing'], { cwd: dir });
  assert.equal(asked.code, 0, asked.stderr);
  assert.equal(visualStep(dir, 'r1b').visual?.written, 'missing');

  const same = await runCli(['test', '--reporter', 'json', '-o', 'r2'], { cwd: dir });
  assert.equal(same.code, 0, same.stderr);
  assert.equal(visualStep(dir, 'r2').visual?.written, undefined);
  assert.equal(visualStep(dir, 'r2').visual?.diff, undefined, 'a passing step writes no diff');

  banner = 'Spring sale: 30% off';
  const changed = await runCli(['test', '--reporter', 'json', '-o', 'r3'], { cwd: dir });
  assert.equal(changed.code, 1, changed.stderr);
  const failed = visualStep(dir, 'r3');
  assert.equal(failed.error?.code, 'ASSERT_SCREENSHOT');
  for (const key of ['expected', 'actual', 'diff'] as const) {
    const file = join(dir, 'r3', failed.visual![key]!);
    assert.match(file, new RegExp(`banner-${key}\\.png$`));
    const png = PNG.sync.read(readFileSync(file));
    assert.deepEqual([png.width, png.height], [640, 360]);
  }
  assert.ok(failed.visual!.diffPixels! > 0);

  const updated = await runCli(['test', '--update-baselines=changed', '--reporter', 'list,json', '-o', 'r4'], { cwd: dir });
  assert.equal(updated.code, 0, updated.stderr);
  assert.match(updated.stdout, /1 screenshot baseline written:\n\s+updated: __screenshots__\/banner\/banner-linux\.png/);
  assert.equal(visualStep(dir, 'r4').visual?.written, 'changed');
  const again = await runCli(['test', '--reporter', 'json', '-o', 'r5'], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
});

test('the capture waits for an animation that settles, and fails with both frames on one that never does', async () => {
  const dir = tempProject({
    'settles.flow.yaml': `name: settles\nsteps:\n  - setResolution: { width: 480, height: 200 }\n  - openTab: ${base}/settles\n  - assertScreenshot: box\n    timeout: 10s\n`,
    'never.flow.yaml': `name: never\nsteps:\n  - setResolution: { width: 480, height: 200 }\n  - openTab: ${base}/never\n  - assertScreenshot: box\n    timeout: 2s\n`,
  });
  const run = await runCli(['test', '--reporter', 'json', '-o', 'r', '--update-snapshots=missing'], { cwd: dir });
  assert.equal(run.code, 1, run.stderr);
  const result = readResults(join(dir, 'r'));
  const byName = Object.fromEntries(result.flows.map((f) => [f.name, f]));
  assert.equal(byName.settles!.status, 'passed');
  const settled = PNG.sync.read(readFileSync(join(dir, '__screenshots__', 'settles', 'box-linux.png')));
  // The baseline shows the square at rest at x=300..380, not mid-flight.
  const at = (x: number, y: number) => settled.data.readUInt32BE((y * settled.width + x) * 4);
  assert.equal(at(340, 80), at(330, 90));
  assert.notEqual(at(340, 80), at(100, 80));
  const never = flat(byName.never!.attempts[0]!.steps).find((s) => s.command === 'assertScreenshot')!;
  assert.equal(never.error?.code, 'SCREENSHOT_UNSTABLE');
  assert.ok(never.visual?.previous && existsSync(join(dir, 'r', never.visual.previous)));
  assert.ok(never.visual?.actual && existsSync(join(dir, 'r', never.visual.actual)));
});
