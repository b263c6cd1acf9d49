// boxflow/test attaches each step's images under names made from the step's label; Playwright names
// the attachment's file after that name, keeping every non-ASCII character. The names are ASCII.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asciiName } from '../../src/playwright/session.js';

test("a label's …, ⏎ and · are spelled out, accents dropped, anything else _: plain ASCII", () => {
  assert.equal(asciiName('type "demo@exampl…" ⏎ - after'), 'type "demo@exampl..." Enter - after');
  assert.equal(asciiName('tap #email · trace'), 'tap #email - trace');
  assert.equal(asciiName('tap "Grüße" - trace'), 'tap "Gru_e" - trace');
  assert.equal(asciiName('assertVisible "👍" - after'), 'assertVisible "_" - after');
  for (const name of ['repeat 2×', 'swipe → left', 'tap "Crème brûlée"']) assert.match(asciiName(name), /^[\x20-\x7e]*$/, name);
});
