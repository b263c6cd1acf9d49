// The runner resolves the `role`/`name`, `label` and `placeholder` selector keys the studio writes:
// in a YAML flow and in a TS flow, on a real `boxflow serve` with real Chromium (the layout is the
// page's DOMSnapshot); and on an Android box (the replay TEST DOUBLE of a real device dump) a role
// from the class with content-desc as its name, while `label`, which no Android layout has, is
// refused with STEP_INVALID.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { loadFlowFile, parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { RunResult, StepRecord } from '../../src/runner/types.js';
import { startAndroidReplay } from '../support/androidReplayServer.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('roles');
let app: Server;
let pageUrl: string;

// "Sign in" is the heading's text too: only the role tells the button apart.
const kPage = `<!doctype html><html><head><title>roles</title></head><body>
<h1>Sign in</h1>
<form onsubmit="document.getElementById('hello').textContent = 'Welcome, ' + document.getElementById('e').value; return false">
<label for="e">Email</label> <input id="e" placeholder="you@example.com">
<label>Password <input type="password" placeholder="Your password"></label>
<button>Sign in</button>
</form>
<h2 id="hello"></h2>
</body></html>`;

before(async () => {
  app = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(kPage);
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  pageUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
});
after(() => new Promise<void>((r) => app.close(() => r())));

const steps = (r: RunResult): StepRecord[] => r.flows[0]!.attempts.at(-1)!.steps;
const explain = (r: RunResult) => steps(r).map((s) => `${s.label}: ${s.status} ${s.error ? `${s.error.code} ${s.error.message}` : ''}`).join('\n');

test('a YAML flow: fill by label, tap by placeholder and by role and name, assert by role and by label', async () => {
  const yaml = `name: roles in YAML
steps:
  - openTab: ${pageUrl}
  - fill: { labelText: Email, value: ann@example.com }
  - tap: { placeholder: Your password }
  - type: secret
  - tap: { role: button, name: Sign in }
  - assertVisible: { role: heading, name: "Welcome, ann@example.com" }
  - assertLayout: { selector: { role: textbox, name: Email }, text: ann@example.com }
  - assertLayout: { selector: { labelText: Password }, text: "••••••" }
  - assertLayout: { role: heading, name: "/^welcome/i", count: 1 }
`;
  const flow = parseFlowYaml(yaml, join(local.dir, 'roles.flow.yaml'));
  const r = await runFlows([flow], testRunOptions(local.dir), { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  assert.equal(r.flows[0]!.status, 'passed', explain(r));
  assert.equal(steps(r).length, 9);
  assert.match(steps(r)[5]!.message ?? '', /Welcome, ann@example\.com/);
});

test('a TS flow: the same keys through box.tap, box.step and expect(box)', async () => {
  const flow = await loadFlowFile(join(import.meta.dirname, '../fixtures/tsflows/roles.flow.ts'));
  const r = await runFlows([flow], testRunOptions(local.dir, { env: { PAGE: pageUrl } }), { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  assert.equal(r.flows[0]!.status, 'passed', explain(r) + JSON.stringify(r.flows[0]!.error));
  assert.deepEqual(
    steps(r).map((s) => s.command),
    ['openTab', 'fill', 'tap', 'type', 'tap', 'assertVisible', 'assertLayout', 'assertLayout'],
  );
});

test('a name that matches no button: the failure names the selector as written', async () => {
  const yaml = `name: no such button\nsteps:\n  - openTab: ${pageUrl}\n  - tap: { role: button, name: Sign up }\n    timeout: 1s\n`;
  const flow = parseFlowYaml(yaml, join(local.dir, 'nosuch.flow.yaml'));
  const r = await runFlows([flow], testRunOptions(local.dir), { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  const failed = steps(r)[1]!;
  assert.equal(failed.error?.code, 'ELEMENT_NOT_FOUND', explain(r));
  assert.match(failed.error!.message, /\{role: "button", name: "Sign up"\}/);
  // The near matches: what reads like the name.
  assert.match(failed.error!.message, /"Sign in"/);
});

test('Android: a role from the class, named by its content-desc; labelText refused with STEP_INVALID', async () => {
  const replay = await startAndroidReplay({ layout: 'android_open-with-resolver-dialog_samsung.xml' });
  const client = new BoxClient({ baseUrl: replay.baseUrl, apiKey: 'replay-key-0001', maxRetries: 0 });
  try {
    const run = (yaml: string) =>
      runFlows([parseFlowYaml(yaml, join(local.dir, 'android.flow.yaml'))], testRunOptions(local.dir, { stepTimeout: 1_000, boxes: { ids: [replay.boxId], createLinux: 0, createAndroid: 0 } }), {
        client,
        reporter: new ReporterHost([]),
        secrets: ['replay-key-0001'],
      });
    const r = await run('box: android\nsteps:\n  - tap: { role: button, name: Use selected app just once }\n');
    assert.equal(r.flows[0]!.status, 'passed', explain(r));
    const drag = replay.requests.filter((q) => q.path.endsWith('/actions/drag')).map((q) => JSON.parse(q.body.toString()) as { start: { x: number; y: number } })[0]!;
    // "Just once" is [72,2124][538,2178] in the dump.
    assert.deepEqual(drag.start, { x: (72 + 538) / 2, y: (2124 + 2178) / 2 });
    const refused = await run('box: android\nsteps:\n  - tap: { labelText: Open with }\n');
    const step = steps(refused)[0]!;
    assert.equal(step.error?.code, 'STEP_INVALID', explain(refused));
    assert.match(step.error!.message, /"labelText" finds a web page's form field .* Android layout has none of them: use desc \(content-desc\), placeholder \(the hint\) or text/);
  } finally {
    await client.close();
    await replay.close();
  }
});
