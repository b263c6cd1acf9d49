// A masked element that changes size is masked wherever it is (issue 33 item 11): a clock going
// from 9 to 10 while the screenshot settles, and a baseline taken when the clock showed 18 compared
// with a screen where it shows 4. Both once failed: the mask was where the element was at one look.
// Real `boxflow serve`, real Chromium, the runner as `boxflow test` runs it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { UpdateBaselines } from '../../src/runner/options.js';
import type { FlowResult, StepRecord } from '../../src/runner/types.js';
import { baselineMasks, decodePng } from '../../src/visual/index.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('growmask');

// /clock?at=N shows "Time: N" and stays there; /bar shows a bar that grows by a pixel every few ms
// (faster than screenshots come), and starts again from 20 px every 500 px.
const page = (body: string) => `<!doctype html><body style="margin:0;padding:20px;font:20px sans-serif"><h1>Orders</h1>${body}</body>`;
const kBar = page(`<div id="bar" style="height:20px;width:20px;background:teal"></div><p>below the bar</p>
<script>let n = 0; setInterval(() => { document.getElementById('bar').style.width = (20 + (++n % 500)) + 'px'; }, 10);</script>`);

let site: Server;
let siteUrl: string;
before(async () => {
  site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    const url = new URL(req.url ?? '/', 'http://x');
    res.end(url.pathname === '/bar' ? kBar : page(`<p>Time: <span id="clock" style="font:16px monospace">${Number(url.searchParams.get('at'))}</span></p>`));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
after(async () => {
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

async function run(name: string, path: string, step: string, update: UpdateBaselines): Promise<{ flow: FlowResult; step: StepRecord }> {
  const source = `name: ${name}\nsteps:\n  - setResolution: { width: 720, height: 450 }\n  - openTab: ${siteUrl}${path}\n  - assertVisible: Orders\n  - ${step}\n`;
  const flow = parseFlowYaml(source, join(local.dir, `${name}.flow.yaml`));
  const options = testRunOptions(local.dir, { outputDir: join(local.dir, `out-${name}`), baselines: { pathTemplate: '{flowDir}/__screenshots__/{flowName}/{name}-{boxType}.png', update } });
  const result = await runFlows([flow], options, { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  const f = result.flows[0]!;
  return { flow: f, step: f.attempts.at(-1)!.steps.at(-1)! };
}

test('a baseline taken when the masked clock showed 18 matches the screen where it shows 4: the clock is ignored where it was in either', async () => {
  const step = 'assertScreenshot: { name: orders, mask: [ { id: clock } ] }';
  const written = await run('clock', '/clock?at=18', step, 'missing');
  assert.equal(written.flow.status, 'passed', JSON.stringify(written.flow.error));
  // The baseline keeps where the clock was, in its pixels, under the mask's name.
  const baseline = readFileSync(join(local.dir, '__screenshots__', 'clock', 'orders-linux.png'));
  const kept = baselineMasks(baseline)['{id: "clock"}'];
  assert.equal(kept?.length, 1, JSON.stringify(baselineMasks(baseline)));
  assert.ok(kept[0]!.width > 0 && kept[0]!.height > 0);
  assert.equal(decodePng(baseline).width, 720, 'the baseline is still a PNG of the screen');

  const compared = await run('clock', '/clock?at=4', step, 'none');
  assert.equal(compared.flow.status, 'passed', JSON.stringify(compared.flow.error));
  assert.match(compared.step.message ?? '', /^matches /);
  // A mask the step no longer has is not kept from the baseline: masking the heading instead, the clock differs.
  const other = await run('clock', '/clock?at=4', step.replace('{ id: clock }', '{ css: h1 }'), 'none');
  assert.equal(other.flow.status, 'failed');
  assert.equal(other.step.error?.code, 'ASSERT_SCREENSHOT');
});

test('a masked element that grows while the screenshot settles is masked in each frame where it is, and the screenshot settles', async () => {
  const written = await run('bar', '/bar', 'assertScreenshot: { name: bar, mask: [ { id: bar } ] }', 'missing');
  assert.equal(written.flow.status, 'passed', JSON.stringify(written.flow.error));
  assert.match(written.step.message ?? '', /^baseline written/);
});
