// A box's ledger is written as the box starts processes, fire-and-forget. A write that fails (a full
// disk, no descriptors left) must neither end the server (an unhandled rejection) nor stop the
// writes after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxLedger } from '../../src/server/host/processes.js';

test('a ledger write that fails is swallowed, and the next one writes everything once it can', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'boxflow-ledger-'));
  try {
    writeFileSync(join(dataDir, 'procs'), 'not a directory');
    const ledger = new BoxLedger(dataDir, { boxId: 'b1', uid: null, dir: join(dataDir, 'boxes', 'b1') });
    await ledger.add(process.pid); // resolves although nothing could be written
    rmSync(join(dataDir, 'procs'));
    await ledger.add(process.ppid);
    const written = JSON.parse(readFileSync(join(dataDir, 'procs', 'b1.json'), 'utf8')) as { procs: Array<{ pid: number }> };
    assert.deepEqual(written.procs.map((p) => p.pid), [process.pid, process.ppid]);
    await ledger.remove();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
