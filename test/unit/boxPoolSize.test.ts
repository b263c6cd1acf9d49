// `boxes: {linux: n}` sizes the pool: never more than n Linux boxes, whatever the workers.
// The Box API client is a test double here: only box creation and listing are under test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoxPool } from '../../src/runner/boxPool.js';
import type { BoxClient } from '../../src/api/client.js';
import type { Flow } from '../../src/flow/types.js';
import { testRunOptions } from '../support/runOptions.js';
import { waitFor } from '../support/waitFor.js';

function fakeClient() {
  let n = 0;
  const created: string[] = [];
  const client = {
    listBoxes: async () => ({ boxes: [], total: 0 }),
    createLinuxBox: async () => {
      const id = `box-${++n}`;
      created.push(id);
      return { id, type: 'linux', status: 'running' };
    },
    closeBrowser: async () => ({}),
    terminateBox: async () => ({}),
  };
  return { client: client as unknown as BoxClient, created };
}

const flow = { name: 'f', file: '/f.flow.yaml', tags: [], env: {}, secrets: [], onStart: [], onFinish: [], steps: [], source: { file: '/f', line: 1, column: 1 } } as Flow;

for (const [linux, workers, want] of [[2, 4, 2], [1, 3, 1], [0, 3, 3]] as const) {
  test(`boxes.linux ${linux || 'unset'} with ${workers} workers: at most ${want} boxes at once`, async () => {
    const { client, created } = fakeClient();
    const pool = new BoxPool(client, testRunOptions('/tmp', { workers, boxes: { ids: [], createLinux: linux, createAndroid: 0 } }));
    await pool.start(workers);
    const leases = await Promise.all(Array.from({ length: want }, () => pool.acquire(flow)));
    assert.equal(created.length, want);
    // One more flow waits for a box instead of creating one beyond the limit: it is queued as a
    // waiter (the event this is about), and no box was created for it.
    let extra = false;
    const waiting = pool.acquire(flow).then((l) => ((extra = true), l));
    await waitFor(() => pool.waiting === 1, { what: 'the next flow is queued as a waiter', intervalMs: 0 });
    assert.equal(extra, false, 'the next flow waits');
    assert.equal(created.length, want);
    leases[0]!.release('ok');
    const lease = await waiting;
    assert.equal(lease.box.id, leases[0]!.box.id, 'the released box is reused');
    assert.equal(pool.waiting, 0);
    lease.release('ok');
    assert.equal(created.length, want, 'no box was created for the waiting flow');
    await pool.close();
  });
}

test('a failed box creation wakes the flow that waited for it: each flow gets the error, none waits forever', { timeout: 10_000 }, async () => {
  const creates: { reject(err: Error): void }[] = [];
  const client = {
    listBoxes: async () => ({ boxes: [], total: 0 }),
    createLinuxBox: () => new Promise((_resolve, reject) => creates.push({ reject })),
    terminateBox: async () => ({}),
  } as unknown as BoxClient;
  const pool = new BoxPool(client, testRunOptions('/tmp', { workers: 2, boxes: { ids: [], createLinux: 1, createAndroid: 0 } }));
  await pool.start(2);
  const first = pool.acquire(flow);
  const second = pool.acquire(flow);
  await waitFor(() => creates.length === 1 && pool.waiting === 1, { what: 'one creation under way, the other flow waiting for it', intervalMs: 0 });
  const boom = (n: number) => Object.assign(new Error(`create ${n} answered 500`), { code: 'SERVER_ERROR' });
  creates[0]!.reject(boom(1));
  await assert.rejects(first, /create 1 answered 500/);
  // Woken, the waiting flow tries for itself (the limit allows one box, and none exists).
  await waitFor(() => creates.length === 2, { what: 'the waiting flow was woken and asked for a box', intervalMs: 0 });
  assert.equal(pool.waiting, 0);
  creates[1]!.reject(boom(2));
  await assert.rejects(second, /create 2 answered 500/);
  assert.equal(pool.size, 0);
  await pool.close();
});
