// `boxes: {linux: n}` sizes the pool: never more than n Linux boxes, whatever the workers.
// The Box API client is a test double here: only box creation and listing are under test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoxPool } from '../../src/runner/boxPool.js';
import type { BoxClient } from '../../src/api/client.js';
import type { Flow } from '../../src/flow/types.js';
import { testRunOptions } from '../support/runOptions.js';

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
    // One more flow waits for a box instead of creating one beyond the limit.
    let extra = false;
    const waiting = pool.acquire(flow).then((l) => ((extra = true), l));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(extra, false, 'the next flow waits');
    assert.equal(created.length, want);
    leases[0]!.release('ok');
    (await waiting).release('ok');
    assert.equal(created.length, want, 'the released box is reused');
    await pool.close();
  });
}
