// Maestro flow files run as they are: a Maestro suite for the demo app passes on the embedded
// Linux box through `boxflow test`, and `boxflow validate` names each command it cannot run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult, StepRecord } from '../../src/runner/types.js';
import { readResults, repoRoot, runCli, startDemoApp } from './helpers.js';
import { tempDir } from '../support/tmp.js';

let maestroRun: RunResult | undefined;
let app: Awaited<ReturnType<typeof startDemoApp>>;
/** A copy of test/fixtures/maestro whose flows name this test's own demo app (not the shared port 4173). */
let project: string;

before(async () => {
  app = await startDemoApp();
  project = tempDir('boxflow-maestro-project-');
  const fixtures = join(project, 'test/fixtures/maestro');
  cpSync(join(repoRoot, 'test/fixtures/maestro'), fixtures, { recursive: true });
  for (const e of readdirSync(fixtures, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const file = join(e.parentPath, e.name);
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('http://127.0.0.1:4173', app.url));
  }
  // The runs that compare verdicts need no images (the demo suite's run checks them): less CPU for CI.
  writeFileSync(join(project, 'no-images.config.json'), JSON.stringify({ screenshots: false }));
});
after(() => app?.close());

test('the Maestro demo suite passes on the embedded Linux box, recorded like any flow', async () => {
  const out = join(tempDir('boxflow-maestro-'), 'out');
  const run = await runCli(['test', 'test/fixtures/maestro/demo', '--reporter', 'json', '-o', out], { cwd: project });
  const result = readResults(out);
  maestroRun = result;
  const failures = result.flows.filter((f) => f.status !== 'passed').map((f) => `${f.name}: ${f.error?.code} ${f.error?.message}`);
  assert.equal(run.code, 0, `${run.stderr}\n${failures.join('\n')}`);
  assert.deepEqual(result.flows.map((f) => f.file.replace(/.*\//, '')).sort(), [
    'copy_paste_random.yaml', 'hooks_and_back.yaml', 'long_list.yaml', 'repeat_retry.yaml', 'run_flow.yaml',
    'scripts_and_output.yaml', 'selectors.yaml', 'sign_in.yaml', 'widgets.yaml', 'wrong_password.yaml',
  ]);
  const steps = (name: string) => result.flows.find((f) => f.file.endsWith(name))!.attempts.at(-1)!.steps;
  const signIn = steps('sign_in.yaml');
  const tap = signIn.find((s) => s.command === 'tap' && s.actionId);
  assert.ok(tap, 'taps are actions with ids');
  // Each step is titled by its Maestro command as written, never boxflow's internal form of it.
  assert.deepEqual(signIn.slice(0, 5).map((s) => s.label), ['launchApp', 'assertVisible sign in', 'tapOn id: email', 'inputText ${USER}', 'tapOn id: pass.*']);
  assert.deepEqual(Object.keys(tap.screenshots ?? {}).sort(), ['after', 'before', 'trace'], 'with their images, as any flow');
  assert.equal(signIn[0]!.source?.line, 7, 'steps keep their Maestro line');
  // The runFlow with `when: visible` ran its file: the condition held after signing in.
  const runFlow: StepRecord = steps('run_flow.yaml').at(-1)!;
  assert.match(runFlow.message ?? '', /^ran noop/);
  // onFlowComplete runs last; a Maestro label titles its step.
  assert.equal(steps('hooks_and_back.yaml').at(-1)!.command, 'stopApp');
  assert.ok(steps('widgets.yaml').some((s) => s.label === 'Agree to the terms'));
});

test('boxflow validate reports each command a Maestro file uses that boxflow cannot run, at its position (exit 2)', async () => {
  const run = await runCli(['validate', 'test/fixtures/maestro/refused', 'test/fixtures/maestro/demo'], { cwd: project });
  assert.equal(run.code, 2, run.stderr);
  const text = run.stdout + run.stderr;
  // Maestro reads addMedia's files when it parses the flow: a missing one is a load-time error.
  assert.match(text, /unsupported\.yaml:5:7: addMedia: no such file .*photo\.png/);
  assert.match(text, /unsupported\.yaml:7:3: "tapOnn" is not a Maestro command \(did you mean "tapOn"\?\)/);
  assert.match(text, /unsupported\.yaml:8:3: Maestro command "assertWithAI" is not supported: AI assertions need Maestro's cloud model/);
  // What Android or the web can do is not refused: device state, permissions, clearKeychain (noted when it runs).
  assert.doesNotMatch(text, /unsupported\.yaml:\d+:\d+: .*(?:setLocation|clearKeychain|launchApp|permissions)/);
  assert.doesNotMatch(text, /demo\/[\w/]+\.yaml:\d+:\d+/, 'the demo flows are valid: no problem at any of their positions');
});

test('a ${NAME} nothing defines is no load-time error in a Maestro file (Maestro reads undefined); validate takes -e too', async () => {
  const file = 'test/fixtures/maestro/demo/sub/login.yaml';
  const without = await runCli(['validate', file], { cwd: project });
  assert.equal(without.code, 0, without.stderr);
  assert.match(without.stdout, /1 flow valid/);
  const withEnv = await runCli(['validate', '-e', 'USER=demo@example.com', '-e', 'PASSWORD=hunter2', file], { cwd: project });
  assert.equal(withEnv.code, 0, withEnv.stderr);
});

test('convert maestro writes boxflow flows that validate and run with the same steps and verdicts', async () => {
  const tmp = tempDir('boxflow-convert-');
  const conv = await runCli(['convert', 'maestro', 'test/fixtures/maestro/demo', '--out', join(tmp, 'flows')], { cwd: project });
  assert.equal(conv.code, 0, conv.stderr);
  assert.match(conv.stdout, /12 flows written/);
  const run = await runCli(['test', join(tmp, 'flows'), '-c', 'no-images.config.json', '--reporter', 'json', '-o', join(tmp, 'out')], { cwd: project });
  assert.equal(run.code, 0, run.stderr);
  const converted = readResults(join(tmp, 'out'));
  assert.ok(maestroRun, 'the Maestro suite ran first');
  // The same steps with the same verdicts; the titles differ: a Maestro file's steps read as its commands, a converted one's as boxflow's.
  const shape = (r: RunResult) => Object.fromEntries(r.flows.map((f) => [f.name, { status: f.status, steps: f.attempts.at(-1)!.steps.map((s) => `${s.command}:${s.status}`) }]));
  assert.deepEqual(shape(converted), shape(maestroRun!));
  const signIn = converted.flows.find((f) => f.name === 'Maestro sign in')!.attempts.at(-1)!.steps;
  assert.deepEqual(signIn.slice(2, 4).map((s) => s.label), ['tap #email', 'type "${USER}"']);
  // The idiomatic form a person keeps: a plain id, a condition as a condition, no wrapper loops.
  const written = readFileSync(join(tmp, 'flows', 'sign_in.flow.yaml'), 'utf8');
  assert.match(written, /- tap:\n\s+id: email\n/);
  assert.doesNotMatch(written, /\(\?:\.\*\\\/\)\?\(\?:email\)/);
  const runFlow = readFileSync(join(tmp, 'flows', 'run_flow.flow.yaml'), 'utf8');
  assert.match(runFlow, /when:\n\s+visible:/);
  assert.doesNotMatch(runFlow, /repeat|max: 1/);
});

test('Maestro semantics run as Maestro runs them: env precedence, conditions, loops, launch arguments, swipes by points; converted, the same', async () => {
  const tmp = tempDir('boxflow-maestro-semantics-');
  const env = { MAESTRO_SEMANTICS_REGION: 'eu' };
  const vars = ['-e', 'GREETING=cli', '-e', 'WHO=cli-who'];
  const run = await runCli(['test', 'test/fixtures/maestro/semantics', '-c', 'no-images.config.json', ...vars, '--reporter', 'json', '-o', join(tmp, 'out')], { cwd: project, env });
  const result = readResults(join(tmp, 'out'));
  const failures = result.flows.filter((f) => f.status !== 'passed').map((f) => `${f.name}: ${f.error?.code} ${f.error?.message}`);
  assert.equal(run.code, 0, `${run.stderr}\n${failures.join('\n')}`);
  assert.deepEqual(result.flows.map((f) => f.file.replace(/.*\//, '')).sort(), ['conditions.yaml', 'env_precedence.yaml', 'gestures.yaml', 'launch_args.yaml', 'loops.yaml', 'selector_keys.yaml']);
  const steps = (name: string) => result.flows.find((f) => f.file.endsWith(name))!.attempts.at(-1)!.steps;
  // A false condition skips (the sub-flow that would fail never ran); a guarded block of steps ran or did not.
  const conditions = steps('conditions.yaml');
  assert.deepEqual(conditions.filter((s) => s.command === 'runFlow').map((s) => s.message?.replace(/^ran (?:mark|1 step).*/, 'ran')), [
    'ran', 'skipped: condition not met', 'ran', 'skipped: condition not met', 'skipped: condition not met', 'skipped: condition not met',
  ]);
  // Each step is its Maestro command, conditions and all; not one nested in generated loops.
  assert.equal(conditions[1]!.label, 'runFlow when: {platform: Web}');
  assert.deepEqual(conditions[1]!.children!.map((c) => [c.id, c.label]), [['2.1', 'tapOn id: terms']]);
  // retry of a file: four attempts (maxRetries 9 capped at 3, plus the first).
  assert.equal(steps('loops.yaml').find((s) => s.command === 'retry')!.attempts, 4);

  // -e without the flow's own default: WHO falls back to 'nobody' and the flow says so.
  const without = await runCli(['test', 'test/fixtures/maestro/semantics/env_precedence.yaml', '-c', 'no-images.config.json', '--reporter', 'json', '-o', join(tmp, 'out-no-e')], { cwd: project, env });
  assert.equal(without.code, 1);
  assert.match(readResults(join(tmp, 'out-no-e')).flows[0]!.error?.message ?? '', /WHO == 'cli-who'/);

  const conv = await runCli(['convert', 'maestro', 'test/fixtures/maestro/semantics', '--out', join(tmp, 'flows')], { cwd: project });
  assert.equal(conv.code, 0, conv.stderr);
  const again = await runCli(['test', join(tmp, 'flows'), '-c', 'no-images.config.json', ...vars, '--reporter', 'json', '-o', join(tmp, 'out-conv')], { cwd: project, env });
  assert.equal(again.code, 0, again.stderr);
  const shape = (r: RunResult) => Object.fromEntries(r.flows.map((f) => [f.name, { status: f.status, steps: f.attempts.at(-1)!.steps.map((s) => `${s.command}:${s.status}`) }]));
  assert.deepEqual(shape(readResults(join(tmp, 'out-conv'))), shape(result));
});

test('inputText keeps optional and label, inputRandomText its length: when they run and once converted', async () => {
  const tmp = tempDir('boxflow-maestro-keeps-');
  const dir = join(project, 'keeps');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'keeps.yaml'),
    [
      `url: ${app.url}/login`,
      '---',
      '- launchApp',
      '- tapOn: { id: email }',
      '- inputRandomText: { length: 12 }',
      '- copyTextFrom: { id: email }',
      '- assertTrue: ${maestro.copiedText.length == 12}',
      // Fails when it runs (nope is not defined): optional, it is a warning and the flow goes on.
      '- inputText: { text: "${nope()}", optional: true, label: "L" }',
      '- assertVisible: Sign in',
      '',
    ].join('\n'),
  );
  const check = (r: RunResult, how: string, randomLabel: string) => {
    const f = r.flows[0]!;
    const steps = f.attempts.at(-1)!.steps;
    assert.equal(f.status, 'passed', `${how}: ${f.error?.code} ${f.error?.message}`);
    const typed = steps.find((s) => s.label === 'L');
    assert.equal(typed?.command, 'type', `${how}: the label titles the step`);
    assert.equal(typed?.status, 'warned', `${how}: the optional step failed as a warning`);
    assert.equal(steps.find((s) => s.command === 'inputRandom')?.label, randomLabel, how);
    assert.equal(steps.at(-1)!.status, 'passed', `${how}: the flow went on`);
  };
  const run = await runCli(['test', 'keeps', '-c', 'no-images.config.json', '--reporter', 'json', '-o', join(tmp, 'out')], { cwd: project });
  assert.equal(run.code, 0, run.stderr);
  check(readResults(join(tmp, 'out')), 'Maestro file', 'inputRandomText length: 12');

  const conv = await runCli(['convert', 'maestro', 'keeps', '--out', join(tmp, 'flows')], { cwd: project });
  assert.equal(conv.code, 0, conv.stderr);
  const converted = readdirSync(join(tmp, 'flows')).find((f) => f.endsWith('.yaml'))!;
  const text = readFileSync(join(tmp, 'flows', converted), 'utf8');
  assert.match(text, /length: 12/);
  assert.match(text, /optional: true/);
  const again = await runCli(['test', join(tmp, 'flows'), '-c', 'no-images.config.json', '--reporter', 'json', '-o', join(tmp, 'out-conv')], { cwd: project });
  assert.equal(again.code, 0, again.stderr);
  check(readResults(join(tmp, 'out-conv')), 'converted flow', 'inputRandom text (length 12)');
});
