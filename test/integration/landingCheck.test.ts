// Where a tap lands on a Linux box is checked in the page (what is under the pointer, standing
// still). A check that cannot run (here the page's own code breaks it) confirms nothing: the tap
// never goes ahead as if it had passed, nor waits for an answer that will not come.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('landingcheck');
const { dir } = local;

test('a tap whose landing check fails in the page is not counted as landed: the button is never clicked, TARGET_OBSCURED names the failure', async () => {
  // The page's own code breaks elementFromPoint, which the check reads.
  const html = '<button id="go" onclick="document.title = \'clicked\'">Go</button><script>document.elementFromPoint = () => { throw new Error(\'patched away\'); };</script>';
  const page = `data:text/html,${encodeURIComponent(html)}`;
  const yaml = `name: landing\nsteps:\n  - openTab: "${page}"\n  - tap: { id: go }\n    timeout: 1s\n  - assertTitle: clicked\n`;
  const result = await runFlows([parseFlowYaml(yaml, join(dir, 'landing.flow.yaml'))], testRunOptions(dir, { outputDir: join(dir, 'out') }), { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  const [, tap, title] = result.flows[0]!.attempts[0]!.steps;
  assert.equal(tap!.status, 'failed');
  assert.equal(tap!.error?.code, 'TARGET_OBSCURED');
  assert.match(tap!.error!.message, /\{id: "go"\} is not what is under the pointer at .*: the check of what is there failed \(tap: the page threw Error: patched away/);
  assert.equal(title!.status, 'skipped');
});
