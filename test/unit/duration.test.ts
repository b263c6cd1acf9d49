// Duration strings (`<number><ms|s|m|h>`): parsing, formatting, and the spec's limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, isDuration, kDurationPattern, parseDuration } from '../../src/api/duration.js';
import { BoxflowError } from '../../src/errors.js';

test('parseDuration: each unit, decimals, a leading dot', () => {
  const cases: Array<[string, number]> = [
    ['0ms', 0], ['500ms', 500], ['30s', 30_000], ['5m', 300_000], ['1h', 3_600_000],
    ['1.5s', 1_500], ['.5s', 500], ['0.25m', 15_000], ['120m', 7_200_000], ['2.5h', 9_000_000],
  ];
  for (const [text, ms] of cases) assert.equal(parseDuration(text), ms, text);
});

test('parseDuration: anything else is INVALID_DURATION naming the value and the field', () => {
  for (const bad of ['', '5', 'ms', '5 s', ' 5s', '5s ', '-1s', '+1s', '1d', '1S', '5sec', '1e3ms', '1.s', '1,5s', '1h30m', 'NaNs']) {
    assert.throws(() => parseDuration(bad, 'delay'), (err: unknown) => {
      assert.ok(BoxflowError.is(err));
      assert.equal(err.code, 'INVALID_DURATION');
      assert.ok(err.message.startsWith(`delay: "${bad}" is not a duration`), err.message);
      return true;
    }, JSON.stringify(bad));
    assert.equal(isDuration(bad), false, bad);
  }
  assert.equal(isDuration(500), false, 'a number is not a duration string');
  assert.equal(isDuration(undefined), false);
});

test('the exported pattern and isDuration agree', () => {
  const re = new RegExp(kDurationPattern);
  for (const s of ['500ms', '30s', '.5h', '5', 'x1s', '1sx']) assert.equal(re.test(s), isDuration(s), s);
});

test('formatDuration: the largest exact unit, else milliseconds', () => {
  const cases: Array<[number, string]> = [
    [0, '0ms'], [1, '1ms'], [500, '500ms'], [1_000, '1s'], [1_500, '1500ms'], [30_000, '30s'], [90_000, '90s'],
    [60_000, '1m'], [300_000, '5m'], [3_600_000, '1h'], [5_400_000, '90m'], [7_200_000, '2h'], [2.6, '3ms'],
  ];
  for (const [ms, text] of cases) assert.equal(formatDuration(ms), text, String(ms));
});

test('formatDuration and parseDuration round-trip whole milliseconds', () => {
  for (const ms of [0, 7, 999, 1_000, 61_000, 3_599_000, 3_600_000, 86_400_000]) assert.equal(parseDuration(formatDuration(ms)), ms);
});
