// The runCommand step: a shell command in the box, as set-up or tear-down of a flow, over the Box
// API's commands endpoint on a real `boxflow serve` (the box's own user, no network). Its output is
// attached to the step (secrets masked), and an exit code other than the one expected fails it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadFlowFile, parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { Flow } from '../../src/flow/types.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('runcommand');
const { dir } = local;
const flowModule = new URL('../../src/flow/index.js', import.meta.url).pathname.replace(/\.js$/, '.ts');

async function run(flow: Flow, name: string) {
  const out = join(dir, name);
  const result = await runFlows([flow], testRunOptions(dir, { outputDir: out }), { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  return { out, flow: result.flows[0]!, steps: result.flows[0]!.attempts[0]!.steps };
}

test('runCommand seeds the box, shows its output, and fails on an unexpected exit code', async () => {
  const yaml = `name: seed
env: { TOKEN: s3cret-token-42 }
secrets: [TOKEN]
steps:
  - runCommand: "echo seeded > seed.txt && echo token=\${TOKEN}"
  - runCommand: { command: "cat seed.txt; id -u" }
  - runCommand: { command: "echo nope >&2; exit 3", expectExit: 3 }
  - runCommand: "echo broken >&2; exit 2"
`;
  const { out, flow, steps } = await run(parseFlowYaml(yaml, join(dir, 'seed.flow.yaml')), 'seed');
  assert.equal(flow.status, 'failed');
  const [seed, cat, expected, broken] = steps;
  assert.equal(seed!.status, 'passed', JSON.stringify(seed!.error));
  assert.equal(seed!.label, 'runCommand "echo seeded > seed.txt && echo token=${TOKEN}"');
  const stdout = seed!.attachments!.find((a) => a.name === 'stdout')!;
  assert.equal(readFileSync(join(out, stdout.path), 'utf8').trim(), 'token=***', 'the secret is masked in the attached output');
  assert.match(cat!.message!, /^exit 0: seeded \| \d+$/);
  assert.notEqual(Number(/(\d+)$/.exec(cat!.message!)![1]), 0, 'the command runs as the box user, not root');
  assert.equal(expected!.status, 'passed');
  assert.equal(broken!.status, 'failed');
  assert.equal(broken!.error?.code, 'COMMAND_FAILED');
  assert.match(broken!.error!.message, /exited with 2, expected 0: broken/);
});

test('a TS flow runs a command with box.runCommand', async () => {
  const file = join(dir, 'cmd.flow.ts');
  writeFileSync(file, `import { flow } from ${JSON.stringify(flowModule)};\nexport default flow('cmd', { box: 'linux' }, async ({ box }) => {\n  await box.runCommand('echo from-ts');\n  await box.runCommand('exit 5', { expectExit: 5, label: 'expected failure' });\n});\n`);
  const { flow, steps } = await run(await loadFlowFile(file), 'ts');
  assert.equal(flow.status, 'passed', JSON.stringify(flow.error));
  assert.equal(steps[0]!.message, 'exit 0: from-ts');
  assert.equal(steps[1]!.label, 'expected failure');
});
