// The contract's schemas: duration limits, deprecated fields, and the two decisions on the spec's
// conflicts (docs/api.md): model default `gelato`, and scale 0.1 allowed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ActionOptions, ActionSettings, DragBody, PressKeyBody, ScreenshotOptions, TypeBody, endpoints,
} from '../../src/api/schemas.js';
import { check } from '../../src/api/validate.js';

test('screenshot delay: 30s is the most, 31s is rejected with the JSON path', () => {
  for (const delay of ['0ms', '500ms', '30s', '30000ms', '0.5m']) {
    assert.equal(check(ScreenshotOptions, { delay }), null, delay);
    assert.equal(check(PressKeyBody, { keys: ['a'], options: { screenshot: { delay } } }), null, delay);
  }
  for (const delay of ['31s', '30001ms', '1m', '1h']) {
    assert.deepEqual(check(PressKeyBody, { keys: ['a'], options: { screenshot: { delay } } }), { path: '/options/screenshot/delay', message: 'must be at most 30s' }, delay);
  }
});

test('a malformed duration names its path and the expected form', () => {
  assert.deepEqual(check(DragBody, { start: { x: 0, y: 0 }, end: { x: 1, y: 1 }, duration: '2 seconds' }), { path: '/duration', message: 'must be a duration such as 500ms, 30s, 5m or 1h' });
});

test('deprecated top-level screenshot fields are accepted on every action, with the same limits', () => {
  const deprecated = { includeScreenshot: true, outputFormat: 'storageKey', presignedExpiresIn: '10m', screenshotDelay: '2s', screenshotRange: ['before', 'after'] };
  assert.equal(check(PressKeyBody, { keys: ['enter'], ...deprecated }), null);
  assert.equal(check(TypeBody, { text: 'x', ...deprecated }), null);
  assert.equal(check(DragBody, { start: 'a', end: 'b', ...deprecated }), null);
  assert.equal(check(DragBody, { path: [{ x: 0, y: 0 }, { x: 5, y: 5 }], ...deprecated }), null);
  assert.deepEqual(check(PressKeyBody, { keys: ['enter'], screenshotDelay: '31s' }), { path: '/screenshotDelay', message: 'must be at most 30s' });
  assert.equal(check(PressKeyBody, { keys: ['enter'], outputFormat: 'jpeg' })?.path, '/outputFormat');
});

test('decision 1: both `gelato` and `ui-tars` are models; the stale spelling `uitars` is refused with a suggestion', () => {
  for (const model of ['gelato', 'ui-tars', 'gpt-5']) assert.equal(check(ActionOptions, { model }), null, model);
  const stale = check(ActionOptions, { model: 'uitars' });
  assert.equal(stale?.path, '/model');
  assert.match(stale!.message, /did you mean "ui-tars"/);
});

test('decision 2: scale 0.1 is allowed (0.1 <= x <= 1); 0.09 and 1.01 are not', () => {
  assert.equal(endpoints.updateSettings.body, ActionSettings);
  for (const scale of [0.1, 0.5, 1]) assert.equal(check(ActionSettings, { scale }), null, String(scale));
  for (const scale of [0.09, 1.01, 0, -1]) assert.equal(check(ActionSettings, { scale })?.path, '/scale', String(scale));
  assert.deepEqual(check(ActionSettings, {}), { path: '/scale', message: 'is required' });
});

test('an unknown key name is rejected at its index with a suggestion', () => {
  const p = check(PressKeyBody, { keys: ['control', 'esc'] });
  assert.equal(p?.path, '/keys/1');
  assert.match(p!.message, /did you mean "escape"/);
});

test('unknown fields pass through (a newer service must not break an older client)', () => {
  assert.equal(check(endpoints.screenLayout.response, { content: '<x/>', rotation: 90 }), null);
});
