// Every field a step handler declares takes `${...}`, resolved once before the handler runs: a
// field that handlers read themselves used to stay a literal `${...}` where one forgot it (the
// screenshot's name, in its attachment and message; a renamed file's message).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('stepfields');
const { dir } = local;

test('a screenshot named ${...} is attached under the name it gives, not the literal', async () => {
  const yaml = 'name: shot-name\nenv: { SHOT: home-page }\nsteps:\n  - screenshot: "${SHOT}"\n  - screenshot: { name: "${SHOT}-again" }\n';
  const result = await runFlows([parseFlowYaml(yaml, join(dir, 'shot.flow.yaml'))], testRunOptions(dir, { outputDir: join(dir, 'out') }), { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  const flow = result.flows[0]!;
  assert.equal(flow.status, 'passed', JSON.stringify(flow.error));
  const steps = flow.attempts[0]!.steps;
  assert.deepEqual(steps.map((s) => s.attachments?.map((a) => a.name)), [['home-page'], ['home-page-again']]);
  assert.match(steps[0]!.message!, /^captured home-page /);
  // The record keeps the step's arguments as written.
  assert.deepEqual(steps[0]!.args, { name: '${SHOT}' });
});
