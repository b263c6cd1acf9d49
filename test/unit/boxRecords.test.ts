// The box records a serve keeps in its data dir (src/server/boxes/boxRecords.ts): what a crash in the
// middle of a write leaves (a temporary file beside the record) loses no box.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxRecords, type SavedBox } from '../../src/server/boxes/boxRecords.js';

function saved(id: string, status: SavedBox['record']['status'] = 'running'): SavedBox {
  const now = new Date().toISOString();
  return {
    v: 1,
    record: { id, type: 'linux', status, reason: null, createdAt: now, updatedAt: now, expiresAt: null, config: { cpu: 2, memory: 1024, storage: 10, envs: {}, labels: {}, os: { version: 'debian-12' } } },
    tenant: 't',
    kind: 'local',
    scale: 1,
    resolution: { width: 1280, height: 800 },
    dir: `/data/boxes/${id}`,
    workDir: `/data/boxes/${id}/work`,
    user: null,
    serial: null,
  };
}

test('a write cut short by a crash leaves the record before it: the next load has the box, the torn temporary file is removed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxflow-records-'));
  try {
    const records = new BoxRecords(dir);
    await records.save(saved('box-1'));
    assert.equal(statSync(join(dir, 'records', 'box-1.json')).mode & 0o777, 0o600, 'only the server reads it');
    // What a server killed in the middle of its next write leaves: half a record, under a temporary name.
    const torn = JSON.stringify(saved('box-1', 'stopped')).slice(0, 40);
    writeFileSync(join(dir, 'records', '.box-1.4242.7.tmp'), torn);
    // And a record that is not one (written by hand, say) is reported, not taken.
    writeFileSync(join(dir, 'records', 'junk.json'), '{"v":1}');
    const bad: string[] = [];
    const loaded = await new BoxRecords(dir).load((name) => bad.push(name));
    assert.deepEqual(loaded.map((b) => [b.record.id, b.record.status]), [['box-1', 'running']]);
    assert.deepEqual(bad, ['junk.json']);
    assert.deepEqual(readdirSync(join(dir, 'records')).sort(), ['box-1.json', 'junk.json']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the last of several saves wins, and a removed box does not come back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxflow-records-'));
  try {
    const records = new BoxRecords(dir);
    await Promise.all([records.save(saved('a', 'pending')), records.save(saved('a', 'running')), records.save(saved('b'))]);
    await records.save(saved('a', 'stopped'));
    await records.remove('b');
    const loaded = await new BoxRecords(dir).load(() => {});
    assert.deepEqual(loaded.map((b) => [b.record.id, b.record.status]), [['a', 'stopped']]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
