// A secret of the run is hidden in every flow's records, whichever flow declared it and whatever
// ran first (real `boxflow serve`, real Chromium): outputs do not depend on scheduling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('secret-run');
const { dir } = local;

test('a flow that runs before the flow declaring a secret already hides it', async () => {
  const page = 'data:text/html,<p>Token hunter2 here</p>';
  const shows = parseFlowYaml(`name: shows\nsteps:\n  - openTab: '${page}'\n  - assertVisible: { textContains: Token }\n`, join(dir, 'shows.flow.yaml'));
  const declares = parseFlowYaml(`name: declares\nenv: { TOKEN: hunter2 }\nsecrets: [TOKEN]\nsteps:\n  - openTab: '${page}'\n  - assertVisible: { textContains: Token }\n`, join(dir, 'declares.flow.yaml'));
  const result = await runFlows([shows, declares], testRunOptions(dir, { workers: 1 }), { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  for (const flow of result.flows) {
    assert.equal(flow.status, 'passed', JSON.stringify(flow.error));
    assert.equal(flow.attempts[0]!.steps[1]!.message, 'visible: <p> "Token *** here"', flow.name);
  }
});

test('text is masked before it is cut: the nearest hint, a passing assertion\'s message and the layout snapshot show no piece of a secret', async () => {
  const token = 'tok_9f3c1d7a5b2e8f4a6c0d9e7b3a1f5c8d2e6b'; // 40 characters, shown whole on the page
  const page = `data:text/html,<p>Token: ${token}</p><p>Header ${'z'.repeat(40)} ${token}</p><p>${'y'.repeat(190)}${token}</p>`;
  const header = `env: { TOKEN: ${token} }\nsecrets: [TOKEN]\nsteps:\n  - openTab: '${page}'\n`;
  const passes = parseFlowYaml(`name: passes\n${header}  - assertVisible: { textContains: Header }\n`, join(dir, 'passes.flow.yaml'));
  // The page shows more than the flow expects: the hint quotes the nearest node, cut to 40 characters.
  const fails = parseFlowYaml(`name: fails\n${header}  - assertVisible: { text: "Token:" }\n    timeout: 1s\n`, join(dir, 'fails.flow.yaml'));
  const options = testRunOptions(dir, { workers: 1, outputDir: join(dir, 'cut-out') });
  const result = await runFlows([passes, fails], options, { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  const [passed, failed] = result.flows;
  assert.equal(passed!.status, 'passed', JSON.stringify(passed!.error));
  assert.match(passed!.attempts[0]!.steps[1]!.message!, /^visible: <p> "Header z+ \*\*\*"$/);
  assert.equal(failed!.status, 'failed');
  const step = failed!.attempts[0]!.steps[1]!;
  assert.match(step.error!.message, /; nearest: .*"Token: \*\*\*"/);
  const snapshot = readFileSync(join(options.outputDir, step.layout!.snapshot), 'utf8');
  assert.match(snapshot, /"text":"y+\*\*\*"/, 'the long text in the snapshot, masked then cut');

  const pieces = Array.from({ length: token.length - 7 }, (_, i) => token.slice(i, i + 8));
  for (const [name, text] of [['records', JSON.stringify(result)], ['snapshot', snapshot]] as const) {
    for (const piece of pieces) assert.ok(!text.includes(piece), `${name} show ${piece}, a piece of the secret`);
  }
});
