// assertScreenshot's clip waits for its element like every selector, within the step's timeout
// (issue 22 item 3): right after a page load, an element the page adds a moment later is found, not
// reported missing; the masks are looked up once it has come. A mask that matches nothing masks
// nothing, as in Playwright, and says so on the step (issue 32 item 4). Real `boxflow serve`, real
// Chromium, the runner as `boxflow test` runs it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { UpdateBaselines } from '../../src/runner/options.js';
import type { FlowResult, StepRecord } from '../../src/runner/types.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('masks');

// The receipt and its ticking clock appear 500 ms after the page has loaded (when openTab answers).
const kReceipt = `<!doctype html><body style="margin:0;font:20px sans-serif">
<h1>Shop</h1>
<script>
  addEventListener('load', () => setTimeout(() => {
    const receipt = document.createElement('div');
    receipt.id = 'receipt';
    receipt.style = 'width:400px;padding:10px;border:2px solid teal';
    receipt.innerHTML = '<h2>Total 42.00</h2><p id="clock" style="font:20px monospace"></p>';
    document.body.append(receipt);
    const clock = document.getElementById('clock');
    const tick = () => { clock.textContent = 'at ' + performance.now().toFixed(0) + ' ms'; };
    tick();
    setInterval(tick, 40);
  }, 500));
</script></body>`;

let site: Server;
let siteUrl: string;
before(async () => {
  site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(req.url === '/ready' ? '<p>ready</p>' : kReceipt);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
after(async () => {
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

async function run(name: string, steps: string, update: UpdateBaselines): Promise<{ flow: FlowResult; steps: StepRecord[] }> {
  // The first steps look at a page once, so the runner's layout connection is open before the
  // receipt's page loads: the screenshot step's first look comes well within the 500 ms.
  const source = `name: ${name}\nsteps:\n  - openTab: ${siteUrl}/ready\n  - assertVisible: ready\n  - openTab: ${siteUrl}/receipt\n${steps}`;
  const flow = parseFlowYaml(source, join(local.dir, `${name}.flow.yaml`));
  const options = testRunOptions(local.dir, { outputDir: join(local.dir, `out-${name}`), baselines: { pathTemplate: '{flowDir}/__screenshots__/{flowName}/{name}-{boxType}.png', update } });
  const result = await runFlows([flow], options, { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  const f = result.flows[0]!;
  return { flow: f, steps: f.attempts.at(-1)!.steps };
}

test('a mask and a clip whose elements appear after the page loaded are waited for, and the clock is masked', async () => {
  const step = `  - assertScreenshot: { name: receipt, clip: { css: "#receipt" }, mask: [{ css: "#clock" }] }\n`;
  const written = await run('receipt', step, 'missing');
  assert.equal(written.flow.status, 'passed', JSON.stringify(written.flow.error));
  assert.match(written.steps.at(-1)!.message ?? '', /baseline written/);
  assert.ok(existsSync(join(local.dir, '__screenshots__', 'receipt', 'receipt-linux.png')));
  // Again, against that baseline: the clock has moved on, under its mask.
  const compared = await run('receipt', step, 'none');
  assert.equal(compared.flow.status, 'passed', JSON.stringify(compared.flow.error));
  assert.match(compared.steps.at(-1)!.message ?? '', /^matches /);
});

test('a mask that matches nothing masks nothing, as in Playwright: the step passes at once and says so on its record', async () => {
  const steps = `  - assertVisible: { css: "#clock" }\n  - assertScreenshot: { name: partly, mask: [{ css: "#clock" }, { css: "#no-such-thing" }] }\n`;
  const written = await run('partly', steps, 'missing');
  const step = written.steps.at(-1)!;
  assert.equal(written.flow.status, 'passed', JSON.stringify(written.flow.error));
  assert.match(step.message ?? '', /^baseline written: .*; mask \{css: "#no-such-thing"\} matched nothing on the screen, so it masks nothing$/);
  // Against that baseline, the ticking clock is still masked: the mask that matched did its work.
  const compared = await run('partly', steps, 'none');
  assert.equal(compared.flow.status, 'passed', JSON.stringify(compared.flow.error));
  assert.match(compared.steps.at(-1)!.message ?? '', /^matches .*; mask \{css: "#no-such-thing"\} matched nothing/);
});
