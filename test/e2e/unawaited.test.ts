// A TS flow that forgets `await` (issue 32 item 2): the built CLI on the embedded server, as a user
// runs it. Three calls the flow did not await, two of which fail after the flow has returned: the
// flow fails naming each call and its line, its steps are in the report, the flow after it runs,
// and the run ends with its summary, its reports and exit 1, never with an unhandled rejection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readResults, runCli, tempProject } from './helpers.js';

const kPage = 'data:text/html,<button>Go</button>';

test('a TS flow with three un-awaited calls fails naming each with its line; the run goes on to its summary and reports, exit 1', { timeout: 120_000 }, async () => {
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ flows: ['flows'], workers: 1, timeouts: { step: '1s' }, reporters: ['list', 'junit', 'json'] }),
    'flows/a-forgot.flow.ts': [
      "import { flow } from 'boxflow';",
      '',
      "export default flow('forgot', { box: 'linux' }, async ({ box, expect }) => {",
      `  await box.openTab(${JSON.stringify(kPage)});`,
      "  box.tap('No such button');",
      "  expect(box).toShow('Nowhere to be seen');",
      "  expect(box).not.toShow('Go');",
      '});',
      '',
    ].join('\n'),
    'flows/b-after.flow.yaml': `name: after\nsteps:\n  - openTab: '${kPage}'\n  - assertVisible: Go\n`,
  });
  const out = join(dir, 'out');
  const run = await runCli(['test', '-o', out], { cwd: dir, env: { NO_COLOR: '1' } });
  const said = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.code, 1, said);
  assert.doesNotMatch(run.stderr, /unhandled|StepFailure|^\s+at /im, 'no crash, no stack trace');
  assert.match(run.stdout, /1 passed, 1 failed/, `the summary:\n${said}`);

  const result = readResults(out);
  const [forgot, after] = result.flows;
  assert.equal(forgot!.status, 'failed');
  assert.equal(forgot!.error?.code, 'FLOW_ERROR');
  assert.match(
    forgot!.error!.message,
    /^`box\.tap\(\.\.\.\)` at flows\/a-forgot\.flow\.ts:5:\d+, `expect\(box\)\.toShow\(\.\.\.\)` at flows\/a-forgot\.flow\.ts:6:\d+ and `expect\(box\)\.not\.toShow\(\.\.\.\)` at flows\/a-forgot\.flow\.ts:7:\d+ were not awaited/,
  );
  // Its steps are in the report, each as it ended: the un-awaited ones were stopped or failed, never lost.
  const steps = forgot!.attempts[0]!.steps;
  assert.deepEqual(steps.map((s) => s.command).sort(), ['assertNotVisible', 'assertVisible', 'openTab', 'tap']);
  assert.ok(steps.filter((s) => s.command !== 'openTab').every((s) => s.status === 'failed'), JSON.stringify(steps.map((s) => [s.command, s.status])));
  assert.equal(after!.status, 'passed', JSON.stringify(after!.error));
  assert.ok(existsSync(join(out, 'junit.xml')), 'the JUnit report');
  assert.match(readFileSync(join(out, 'junit.xml'), 'utf8'), /was not awaited|were not awaited/);
});

test('an un-awaited call that passed still fails its flow: whether it was awaited does not depend on timing', { timeout: 120_000 }, async () => {
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ flows: ['flows'], reporters: ['json'] }),
    'flows/quick.flow.ts': [
      "import { flow } from 'boxflow';",
      '',
      "export default flow('quick', { box: 'linux' }, async ({ box, expect }) => {",
      `  await box.openTab(${JSON.stringify(kPage)});`,
      "  const shown = expect(box).toShow('Go');",
      "  await box.tap('Go');",
      '  void shown;',
      "  await Promise.all([box.tap('Go'), expect(box).toShow('Go')]);",
      '});',
      '',
    ].join('\n'),
  });
  const out = join(dir, 'out');
  const run = await runCli(['test', '-o', out], { cwd: dir, env: { NO_COLOR: '1' } });
  assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
  const flow = readResults(out).flows[0]!;
  // Only line 5's expect: the calls given to Promise.all are awaited through it.
  assert.match(flow.error!.message, /^`expect\(box\)\.toShow\(\.\.\.\)` at flows\/quick\.flow\.ts:5:\d+ was not awaited/);
  assert.ok(flow.attempts[0]!.steps.every((s) => s.status === 'passed'));
});

test("a promise the flow itself rejects and never awaits is the run's error, not a crash: exit 1 with the summary and reports", { timeout: 120_000 }, async () => {
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ flows: ['flows'], reporters: ['json'] }),
    'flows/stray.flow.ts': [
      "import { flow } from 'boxflow';",
      '',
      "export default flow('stray', { box: 'linux' }, async ({ box, expect }) => {",
      "  void Promise.reject(new Error('stray-boom-7f1'));",
      `  await box.openTab(${JSON.stringify(kPage)});`,
      "  await expect(box).toShow('Go');",
      '});',
      '',
    ].join('\n'),
  });
  const out = join(dir, 'out');
  const run = await runCli(['test', '-o', out], { cwd: dir, env: { NO_COLOR: '1' } });
  const said = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.code, 1, said);
  assert.doesNotMatch(run.stderr, /^\s+at /m, 'no stack trace');
  assert.match(run.stderr, /a promise that nothing awaited was rejected during the run: stray-boom-7f1/);
  const result = readResults(out);
  assert.equal(result.flows[0]!.status, 'passed');
  assert.deepEqual(result.errors.map((e) => e.code), ['FLOW_ERROR']);
});
