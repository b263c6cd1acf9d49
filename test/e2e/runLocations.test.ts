// Where a failure happened, in paths relative to the project: list, JUnit, GitHub annotations and
// results; a TS flow's own error names its line; repeat rounds have ids of their own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StepRecord } from '../../src/runner/types.js';
import { readResults, runCli, startDemoApp, tempProject } from './helpers.js';

let app: Awaited<ReturnType<typeof startDemoApp>>;
before(async () => (app = await startDemoApp()));
after(() => app?.close());

test('failure locations are project-relative everywhere; TS flow errors carry file:line; repeat rounds get ids', async () => {
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ appBaseUrl: app.url, screenshots: false }),
    'flows/loop.flow.yaml': 'name: loop\nsteps:\n  - openTab: /\n  - repeat:\n      times: 2\n      steps:\n        - assertVisible: { css: body }\n  - assertVisible: { text: Missing }\n    timeout: 1s\n',
    'flows/code.flow.ts': "import { flow } from 'boxflow';\n\nexport default flow('code', {}, async ({ box }) => {\n  await box.openTab('/');\n  const items: string[] = [];\n  if (items.length === 0) throw new Error('no items in the cart');\n});\n",
  });
  const out = join(dir, 'out');
  const run = await runCli(['test', 'flows', '--reporter', 'list,junit,json,github', '-o', out], { cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
  assert.equal(run.code, 1, run.stderr);
  const result = readResults(out);
  const loop = result.flows.find((f) => f.name === 'loop')!;
  const steps = loop.attempts[0]!.steps;
  const repeat = steps[1]!;
  assert.deepEqual(repeat.children!.map((c: StepRecord) => c.id), ['2.1.1', '2.2.1'], 'each round has its own ids');
  const failed = steps[2]!;
  assert.deepEqual(failed.source, { file: 'flows/loop.flow.yaml', line: 8, column: 5 });

  const code = result.flows.find((f) => f.name === 'code')!;
  assert.match(code.error!.message, /no items in the cart \(at flows\/code\.flow\.ts:6:33\)/);
  assert.match(code.error!.snippet ?? '', /> 6 \|/);

  const everything = [run.stdout, run.stderr, ...readdirSync(out).filter((f) => f.endsWith('.xml')).map((f) => readFileSync(join(out, f), 'utf8'))].join('\n');
  assert.ok(!everything.includes(dir), 'no absolute project path in list, JUnit or annotations');
  assert.match(run.stdout, /::error file=flows\/loop\.flow\.yaml,line=8/);
  assert.match(run.stdout, /flows\/loop\.flow\.yaml:8:5/);
});
