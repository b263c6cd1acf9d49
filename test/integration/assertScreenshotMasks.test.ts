// assertScreenshot's masks and clip wait for their elements like every selector, within the step's
// timeout (issue 22 item 3): right after a page load, an element the page adds a moment later is
// found, not reported missing. Real `boxflow serve`, real Chromium, the runner as `boxflow test` runs it.
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

test('a mask whose element never comes fails with ELEMENT_NOT_FOUND once the step timeout is over', async () => {
  const started = performance.now();
  const { flow, steps } = await run('never', `  - assertScreenshot: { name: never, mask: [{ css: "#clock" }, { css: "#no-such-thing" }], timeout: 1500ms }\n`, 'missing');
  const failed = steps.at(-1)!;
  assert.equal(flow.status, 'failed');
  assert.equal(failed.error?.code, 'ELEMENT_NOT_FOUND', JSON.stringify(failed.error));
  assert.match(failed.error!.message, /mask\/clip \{css: "#no-such-thing"\} matches no visible element after 1500 ms/);
  assert.ok(performance.now() - started >= 1500, 'it waited the step timeout');
  assert.ok(failed.layout?.snapshot, 'the searched layout is kept as evidence');
});
