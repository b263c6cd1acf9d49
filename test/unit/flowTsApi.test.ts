// The TS flow API (src/flow/tsApi.ts): each box/expect call becomes the YAML step it stands for,
// located at the caller's line; a step the flow function builds wrong is a run-time STEP_INVALID.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BoxflowError } from '../../src/errors.js';
import { flowApi } from '../../src/flow/tsApi.js';
import type { Step } from '../../src/flow/types.js';

function recorder() {
  const steps: Step[] = [];
  const api = flowApi({
    runStep: async (step) => void steps.push(step),
    info: { id: 'b1', type: 'linux' },
    page: () => Promise.reject(new Error('no page here')),
  });
  return { steps, ...api };
}

test('box and expect calls reach the host as steps, with their options and the caller\'s location', async () => {
  const { steps, box, expect } = recorder();
  await box.tap('Login', { timeout: 500, label: 'sign in' });
  await expect(box).toShow({ text: 'Welcome' });
  await expect(box).not.toShow('Error');
  await box.longPress('Item', { duration: '1s' });
  assert.deepEqual(steps.map((s) => s.kind), ['tap', 'assertVisible', 'assertNotVisible', 'longPress']);
  assert.equal(steps[0]!.timeout, 500, 'a numeric timeout is in ms');
  assert.equal(steps[0]!.label, 'sign in');
  assert.equal(steps[0]!.source.file, fileURLToPath(import.meta.url));
  const line = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').findIndex((l) => l.includes("await box.tap('Login', {")) + 1;
  assert.equal(steps[0]!.source.line, line, 'located at the box.tap call');
  assert.deepEqual(box.info, { id: 'b1', type: 'linux' });
});

test('a step the flow function builds wrong is STEP_INVALID, located at its call, and never reaches the host', async () => {
  const { steps, box } = recorder();
  await assert.rejects(box.step({ frobnicate: true }), (err: unknown) => {
    assert.ok(BoxflowError.is(err));
    assert.equal(err.code, 'STEP_INVALID');
    assert.match(err.message, /unknown step "frobnicate"/);
    assert.ok(err.message.includes(fileURLToPath(import.meta.url)), err.message);
    return true;
  });
  assert.equal(steps.length, 0);
});

test('a failing step rejects the call, so the flow function stops there', async () => {
  const { box } = flowApi({
    runStep: () => Promise.reject(new BoxflowError('ELEMENT_NOT_FOUND', 'no "Login"')),
    info: { id: 'b1', type: 'android' },
    page: () => Promise.reject(new Error('no page')),
  });
  await assert.rejects(box.tap('Login'), { code: 'ELEMENT_NOT_FOUND' });
});
