// The mobile steps of a TypeScript flow (box.launchApp, stopApp, clearState, back, home,
// hideKeyboard, eraseText, openLink) on the embedded Linux box: a real `boxflow serve`, real
// Chromium, a real site on loopback. The flow reads each step's effect back from the page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadFlowFile, parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { FlowResult } from '../../src/runner/types.js';
import type { Flow } from '../../src/flow/types.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('tsmobile');
let site: Server;
let base: string;

before(async () => {
  site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    if (req.url?.startsWith('/two')) return void res.end('<title>two</title><h1>Page two</h1>');
    res.end('<title>one</title><input id="f" style="font-size:30px"><p><a href="/two">Two</a></p>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => site.close(() => r())));

async function run(flow: Flow, env: Record<string, string> = {}): Promise<FlowResult> {
  const r = await runFlows([flow], testRunOptions(local.dir, { env: { BASE: base, ...env } }), { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  return r.flows[0]!;
}
const steps = (f: FlowResult) => f.attempts.at(-1)!.steps;

test('each mobile box.* call of a TS flow is its YAML step, with the effect a web user expects on a Linux box', async () => {
  const out = join(local.dir, 'seen.json');
  const flow = await run(await loadFlowFile(join(import.meta.dirname, '../fixtures/tsflows/mobileSteps.flow.ts')), { OUT: out });
  assert.equal(flow.status, 'passed', JSON.stringify(flow.error ?? steps(flow).find((s) => s.status !== 'passed')?.error));
  const seen = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
  assert.deepEqual(seen, {
    launched: `${base}/?lang=fr`,
    erased2: 'hel',
    erasedAll: '',
    focusAfterHide: '',
    storedAfterClear: null,
    beforeBack: `${base}/two`,
    afterBack: `${base}/?lang=fr`,
    linked: `${base}/two?via=link`,
    relaunched: `${base}/`,
  });
  const commands = steps(flow).map((s) => s.command);
  for (const kind of ['launchApp', 'eraseText', 'hideKeyboard', 'clearState', 'back', 'openLink', 'stopApp']) assert.ok(commands.includes(kind), `${kind} is a recorded step: ${commands.join(', ')}`);
  const hide = steps(flow).find((s) => s.command === 'hideKeyboard')!;
  assert.equal(hide.message, 'focus taken off input#f');
  assert.match(hide.source?.file ?? '', /mobileSteps\.flow\.ts$/, 'located at the box.hideKeyboard call');
});

test('box.home() on a Linux box fails the step, naming the box type', async () => {
  const flow = await run({ ...parseFlowYaml('name: home\nbox: linux\nsteps: [back]\n', join(local.dir, 'home.flow.yaml')), steps: [], fn: async ({ box }) => box.home() });
  assert.equal(flow.status, 'failed');
  assert.equal(steps(flow)[0]!.command, 'home');
  assert.match(steps(flow)[0]!.error!.message, /home is a hardware button of Android boxes; box \S+ is linux/);
});
