// scrollUntilVisible on a Linux box scrolls the inner scroll container that hides the element (the
// mouse wheel over it, as a desktop user does), and when such a container hides it for good, says
// so (issue 22 item 6). Real `boxflow serve`, real Chromium, the runner as `boxflow test` runs it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { FlowResult, StepRecord } from '../../src/runner/types.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('scroller');

const rows = (n: number, style = '') => Array.from({ length: n }, (_, i) => `<p style="height:30px;margin:0;${style}">Message ${i + 1}</p>`).join('');
const kPages: Record<string, string> = {
  // The page fits the screen; the list scrolls inside its 200 px, its last row 1,200 px down.
  '/inbox': `<!doctype html><body style="margin:0;font:16px sans-serif"><h1>Inbox</h1>
    <div id="list" class="messages" style="height:200px;width:300px;overflow:auto;border:1px solid #888">${rows(40)}</div>
    <p>Footer</p></body>`,
  // The list scrolls down but not sideways: the reply sits right of what it lets show, at its end.
  '/wide': `<!doctype html><body style="margin:0;font:16px sans-serif"><h1>Thread</h1>
    <div id="thread" style="height:200px;width:300px;overflow-y:auto;overflow-x:hidden;border:1px solid #888">${rows(15)}
    <p style="height:30px;width:200px;margin:0 0 0 600px">Hidden reply</p></div></body>`,
};

let site: Server;
let siteUrl: string;
before(async () => {
  site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(kPages[req.url ?? ''] ?? '<p>no such page</p>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
after(async () => {
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

async function run(name: string, steps: string): Promise<{ flow: FlowResult; steps: StepRecord[] }> {
  const flow = parseFlowYaml(`name: ${name}\nsteps:\n${steps}`, join(local.dir, `${name}.flow.yaml`));
  const options = testRunOptions(local.dir, { outputDir: join(local.dir, `out-${name}`) });
  const result = await runFlows([flow], options, { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  const f = result.flows[0]!;
  return { flow: f, steps: f.attempts.at(-1)!.steps };
}

test('scrollUntilVisible scrolls the inner scroll container the element is hidden in', async () => {
  const { flow, steps } = await run('inbox', `  - openTab: ${siteUrl}/inbox
  - assertNotVisible: Message 40
  - scrollUntilVisible: Message 40
  - assertVisible: Message 40
  - assertVisible: Inbox
`);
  assert.equal(flow.status, 'passed', JSON.stringify(flow.error));
  const scroll = steps.find((s) => s.command === 'scrollUntilVisible')!;
  assert.match(scroll.message ?? '', /^visible after \d+ swipes \(scrolled div#list\.messages \[0,\d+\]\[302,\d+\]\)$/);
});

test('an element its scroll container hides for good: the error names the container, not a "nearest" match', async () => {
  const { flow, steps } = await run('wide', `  - openTab: ${siteUrl}/wide
  - scrollUntilVisible: Hidden reply
`);
  assert.equal(flow.status, 'failed');
  const scroll = steps.find((s) => s.command === 'scrollUntilVisible')!;
  assert.equal(scroll.error?.code, 'ELEMENT_NOT_FOUND', JSON.stringify(scroll.error));
  assert.match(scroll.error!.message, /^"Hidden reply" is hidden by its scroll container div#thread \[0,\d+\]\[302,\d+\], which scrolls no further down \(after \d+ swipes down\)$/);
  assert.doesNotMatch(scroll.error!.message, /nearest/);
  // It scrolled the list to its end first (a few swipes, not the ten it may take).
  const swipes = Number(/after (\d+) swipes/.exec(scroll.error!.message)![1]);
  assert.ok(swipes >= 1 && swipes < 10, scroll.error!.message);
  assert.ok(scroll.layout?.snapshot, 'the searched layout is kept as evidence');
});
