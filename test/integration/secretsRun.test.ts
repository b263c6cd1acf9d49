// A secret of the run is hidden in every flow's records, whichever flow declared it and whatever
// ran first (real `boxflow serve`, real Chromium): outputs do not depend on scheduling.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { BoxClient } from '../../src/api/client.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { testRunOptions } from '../support/runOptions.js';

const dir = mkdtempSync(join(tmpdir(), 'boxflow-secret-run-'));
chmodSync(dir, 0o755); // box users (the server runs each box as its own user when root) reach their dirs
let server: Awaited<ReturnType<typeof startServer>>;
let client: BoxClient;

before(async () => {
  const secret = randomBytes(16).toString('hex');
  server = await startServer({ port: 0, dataDir: join(dir, 'srv'), secret, log: () => {} });
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'secret-run') });
});
after(async () => {
  await client.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a flow that runs before the flow declaring a secret already hides it', async () => {
  const page = 'data:text/html,<p>Token hunter2 here</p>';
  const shows = parseFlowYaml(`name: shows\nsteps:\n  - openTab: '${page}'\n  - assertVisible: { textContains: Token }\n`, join(dir, 'shows.flow.yaml'));
  const declares = parseFlowYaml(`name: declares\nenv: { TOKEN: hunter2 }\nsecrets: [TOKEN]\nsteps:\n  - openTab: '${page}'\n  - assertVisible: { textContains: Token }\n`, join(dir, 'declares.flow.yaml'));
  const result = await runFlows([shows, declares], testRunOptions(dir, { workers: 1 }), { client, reporter: new ReporterHost([]), secrets: [] });
  for (const flow of result.flows) {
    assert.equal(flow.status, 'passed', JSON.stringify(flow.error));
    assert.equal(flow.attempts[0]!.steps[1]!.message, 'visible: <p> "Token *** here"', flow.name);
  }
});
