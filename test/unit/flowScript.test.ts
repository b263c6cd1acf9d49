// The flow's JavaScript sandbox: `output` shared, variables as globals, unknown names undefined,
// a time limit, and `${expression}` in interpolated strings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { interpolate } from '../../src/flow/index.js';
import { isTrueText, ScriptHost } from '../../src/runner/script.js';

const g = (vars: Record<string, string> = {}) => ({ vars, platform: 'web' as const });

test('output persists between scripts, var declarations do not, and the last expression is the result', () => {
  const host = new ScriptHost();
  assert.equal(host.run('var local = 1; output.n = Number(N) + local; output.n', g({ N: '41' }), 't'), '42');
  assert.equal(host.run('typeof local', g(), 't'), 'undefined');
  assert.equal(host.run('output.n * 2', g(), 't'), '84');
  assert.equal(host.run('UNSET_NAME || "fallback"', g(), 't'), 'fallback');
  assert.equal(host.run('({a: [1, 2]})', g(), 't'), '{"a":[1,2]}');
  assert.equal(host.run('maestro.platform', g(), 't'), 'web');
  const logs: string[] = [];
  host.run('console.log("seen", output.n)', g(), 't', logs);
  assert.deepEqual(logs, ['seen 42']);
});

test('a script error and an endless script fail with the script named; the host process is out of reach', () => {
  const host = new ScriptHost();
  assert.throws(() => host.run('nope(', g(), 'evalScript'), /evalScript: SyntaxError/);
  assert.throws(() => host.run('while (true) {}', g(), 'loop.js'), /loop.js: the script ran longer than 10s/);
  assert.equal(host.run('typeof process + typeof require', g(), 't'), 'undefinedundefined');
  assert.equal(host.run('output.constructor.constructor("return typeof process")()', g(), 't'), 'undefined');
  assert.equal(host.run('output.after = 1', g(), 't'), '1', 'the context survives a timeout');
});

test('${expression} runs in the sandbox, up to the last } before the next $; ${NAME} stays a variable', () => {
  const host = new ScriptHost();
  host.run('output.user = {name: "bo"}', g(), 't');
  const vars = { N: '3' };
  const js = (e: string) => host.run(e, g(vars), 't');
  assert.equal(interpolate('hi ${output.user.name} x${N}', vars, {}, js), 'hi bo x3');
  assert.equal(interpolate('${ [{a: 1}][0].a + Number(N) } and ${N * 2}', vars, {}, js), '4 and 6');
  assert.equal(interpolate('$${output.x}', vars, {}, js), '${output.x}');
  assert.throws(() => interpolate('${output.x}', vars, {}), /not a variable reference/, 'without a sandbox an expression is an error, as before');
});

test('the truth of a condition text follows Maestro: blank, false, undefined, null and 0 are false', () => {
  for (const t of ['', ' ', 'false', 'FALSE', 'undefined', 'null', '0', '0.0']) assert.equal(isTrueText(t), false, t);
  for (const t of ['true', '1', 'someVar', 'no', 'Undefined ']) assert.equal(isTrueText(t), true, t);
});
