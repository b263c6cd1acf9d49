// One "did you mean" for flow files, the config, API requests and drag targets (src/api/suggest.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { didYouMean } from '../../src/api/suggest.js';
import { check, kKeyNames, PressKeyBody } from '../../src/api/index.js';
import { resolveTextTarget } from '../../src/server/http/endpoints/dragPlan.js';
import type { BoxflowError } from '../../src/errors.js';

test('a misspelt name, a case slip, a prefix and an alias are suggested; a name far from all is not', () => {
  assert.equal(didYouMean('tpa', ['tap', 'swipe']), 'tap');
  assert.equal(didYouMean('Enter', ['enter', 'escape']), 'enter');
  assert.equal(didYouMean('esc', kKeyNames), 'escape');
  assert.equal(didYouMean('ctrl', ['control'], { ctrl: 'control' }), 'control');
  assert.equal(didYouMean('frobnicate', ['tap', 'swipe', 'sleep']), undefined);
});

test('an input over 64 characters gets no suggestion, however close (docs/api.md)', () => {
  const name = 'a'.repeat(64);
  assert.equal(didYouMean(`${name}b`, [name]), undefined);
  assert.equal(didYouMean(name.slice(1) + 'b', [name]), name);
});

test('the Box API suggests by the same rule: a far value gets no suggestion', () => {
  assert.match(check(PressKeyBody, { keys: ['entr'] })!.message, /did you mean "enter"/);
  assert.doesNotMatch(check(PressKeyBody, { keys: ['qqqqqqqqqqqq'] })!.message, /did you mean/);
});

test('a drag text target suggests a visible text only when one is plausibly meant', async () => {
  const screen = [{ tag: 'button', text: 'Send', x: 1, y: 1 }, { tag: 'a', text: 'Delete', x: 2, y: 2 }];
  const find = async () => ({ how: 'text', candidates: screen });
  const fail = (target: string) => resolveTextTarget(target, 'start', 1, find).then(() => assert.fail('resolved'), (e: BoxflowError) => e);
  assert.match((await fail('Sned')).message, /did you mean "Send"\?$/);
  const far = await fail('Frobnicate');
  assert.equal(far.code, 'TARGET_NOT_FOUND');
  assert.doesNotMatch(far.message, /did you mean/);
  assert.equal((far.details as { candidates: unknown[] }).candidates.length, 2, 'the candidates are still listed');
});
