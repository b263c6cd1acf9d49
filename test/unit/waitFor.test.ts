// The tests' one way to wait (test/support/waitFor.ts): what ends the wait, and what a timeout says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../support/waitFor.js';

test('waitFor: a falsy value (a count of 0 too) is "not yet"; the first truthy value is the answer', async () => {
  const values = [undefined, null, false, 0, '', 'found'];
  assert.equal(await waitFor(() => values.shift(), { intervalMs: 0 }), 'found');
});

test('waitFor: a probe that throws is tried again; a timeout names what was awaited and the last failure', async () => {
  let tries = 0;
  assert.equal(await waitFor(() => (++tries < 3 ? assert.fail('not yet') : tries), { intervalMs: 0 }), 3);
  await assert.rejects(
    waitFor(() => assert.fail('still failing'), { what: 'the door to open', timeoutMs: 30, intervalMs: 5 }),
    /^Error: waited 30 ms for the door to open; the last try failed: still failing$/,
  );
});

test('waitFor: accept ends the wait on any value it takes (0 too), and a timeout names the last value', async () => {
  const counts = [3, 2, 1, 0];
  assert.equal(await waitFor(() => counts.shift(), { accept: (n) => n === 0, intervalMs: 0 }), 0);
  await assert.rejects(waitFor(() => 7, { what: 'no sevens', accept: (n) => n !== 7, timeoutMs: 30, intervalMs: 5 }), /waited 30 ms for no sevens; the last value was 7$/);
});
