// A secret of the run is hidden in every flow's records, whichever flow declared it and whatever
// ran first (real `boxflow serve`, real Chromium): outputs do not depend on scheduling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
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
