// `boxflow test` as a user runs it: the built CLI, a temp project, the embedded local server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { hasResults, readResults, runCli, startDemoApp, tempProject } from './helpers.js';
import type { StepRecord } from '../../src/runner/types.js';

let app: Awaited<ReturnType<typeof startDemoApp>>;
before(async () => {
  app = await startDemoApp();
});
after(() => app.close());

const flatten = (steps: StepRecord[]): StepRecord[] => steps.flatMap((s) => [s, ...flatten(s.children ?? [])]);

describe('boxflow test', () => {
  test('a passing flow exits 0 and records every action with its actionId and images', async () => {
    const dir = tempProject({
      'login.flow.yaml': `name: login\nenv: { PASSWORD: hunter2 }\nsecrets: [PASSWORD]\nsteps:\n  - openTab: ${app.url}/login\n  - tap: { css: "#email" }\n  - type: demo@example.com\n  - tap: { id: password }\n  - type: { text: "\${PASSWORD}", pressEnter: true }\n  - assertVisible: { text: "/Welcome, .+/" }\n`,
    });
    const run = await runCli(['test', '--reporter', 'json'], { cwd: dir });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const result = readResults(join(dir, 'boxflow-results'));
    assert.equal(result.stats.passed, 1);
    const steps = flatten(result.flows[0]!.attempts.at(-1)!.steps);
    const actions = steps.filter((s) => ['tap', 'type'].includes(s.command));
    assert.equal(actions.length, 4);
    for (const s of actions) {
      assert.match(s.actionId ?? '', /\S/, `${s.label} has an actionId`);
      assert.ok(s.screenshots?.before && s.screenshots.after && s.screenshots.trace, `${s.label} has before/after/trace images`);
    }
    assert.equal(steps.at(-1)!.source?.line, 10);
    const text = JSON.stringify(result);
    assert.ok(!text.includes('hunter2'), 'the secret is masked in results');
  });

  test('a failing flow exits 1 and the failing step carries its actionId', async () => {
    const dir = tempProject({
      'fail.flow.yaml': `name: fail\nsteps:\n  - openTab: ${app.url}/reorder\n  - drag: { from: Apples, to: { prompt: "the trash can" } }\n  - assertVisible: never\n`,
    });
    const run = await runCli(['test', '--reporter', 'json'], { cwd: dir });
    assert.equal(run.code, 1, run.stderr + run.stdout);
    const flow = readResults(join(dir, 'boxflow-results')).flows[0]!;
    assert.equal(flow.status, 'failed');
    const failed = flatten(flow.attempts[0]!.steps).find((s) => s.status === 'failed')!;
    assert.equal(failed.command, 'drag');
    assert.match(failed.actionId ?? '', /\S/);
    assert.equal(failed.source?.line, 4);
    assert.equal(flatten(flow.attempts[0]!.steps).at(-1)!.status, 'skipped');
  });

  test('a broken flow exits 2 with file:line:col and nothing runs', async () => {
    const dir = tempProject({
      'good.flow.yaml': `steps:\n  - openTab: ${app.url}/\n`,
      'bad.flow.yaml': `steps:\n  - openTab: ${app.url}/\n  - tapp: Login\n`,
    });
    const run = await runCli(['test'], { cwd: dir });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /bad\.flow\.yaml:3:5/);
    assert.match(run.stderr, /tap/);
    assert.equal(hasResults(join(dir, 'boxflow-results')), false, 'nothing ran');
  });

  test('an unreachable server exits 3', async () => {
    const dir = tempProject({ 'a.flow.yaml': `steps:\n  - openTab: ${app.url}/\n` });
    const run = await runCli(['test', '--base-url', 'http://127.0.0.1:9/api/v1', '--reporter', 'json'], { cwd: dir, env: { BOXFLOW_API_KEY: 'secret-key-123' } });
    assert.equal(run.code, 3, run.stderr + run.stdout);
    assert.ok(!(run.stderr + run.stdout).includes('secret-key-123'));
  });

  test('workers run flows in parallel on their own boxes, and shards split the flows exactly', async () => {
    const files: Record<string, string> = {};
    for (const n of [1, 2, 3, 4]) files[`f${n}.flow.yaml`] = `name: flow ${n}\nsteps:\n  - openTab: ${app.url}/list\n  - assertVisible: Item ${n}\n`;
    const dir = tempProject(files);
    const all = await runCli(['test', '--workers', '2', '--reporter', 'json', '-o', 'all'], { cwd: dir });
    assert.equal(all.code, 0, all.stderr);
    const result = readResults(join(dir, 'all'));
    assert.equal(result.stats.passed, 4);
    assert.equal(new Set(result.flows.map((f) => f.box?.id)).size, 2, 'two boxes, one per worker');

    const s1 = await runCli(['test', '--shard', '1/2', '--reporter', 'json', '-o', 's1'], { cwd: dir });
    const s2 = await runCli(['test', '--shard', '2/2', '--reporter', 'json', '-o', 's2'], { cwd: dir });
    assert.equal(s1.code, 0, s1.stderr);
    assert.equal(s2.code, 0, s2.stderr);
    const names1 = readResults(join(dir, 's1')).flows.map((f) => f.name);
    const names2 = readResults(join(dir, 's2')).flows.map((f) => f.name);
    assert.deepEqual([...names1, ...names2].sort(), ['flow 1', 'flow 2', 'flow 3', 'flow 4']);
    assert.ok(names1.length > 0 && names2.length > 0);
  });
});
