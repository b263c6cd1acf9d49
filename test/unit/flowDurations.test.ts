import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { durationsFile, readDurations, saveDurations, slowestFirst } from '../../src/runner/durations.js';

test('flows start slowest first by earlier runs; those never timed before them; ties in file order', () => {
  const known = { a: 100, b: 3000, c: 100, d: 900 };
  assert.deepEqual(slowestFirst(['a', 'b', 'new1', 'c', 'd', 'new2'], (x) => x, known), ['new1', 'new2', 'b', 'd', 'a', 'c']);
  assert.deepEqual(slowestFirst(['a', 'c'], (x) => x, {}), ['a', 'c'], 'without a cache: file order');
});

test("durations are kept in the project's node_modules/.cache/boxflow; a project without node_modules keeps none", async () => {
  const root = mkdtempSync(join(tmpdir(), 'bf-durations-'));
  try {
    const project = join(root, 'project');
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    mkdirSync(join(project, 'e2e', 'flows'), { recursive: true });
    const file = durationsFile(join(project, 'e2e', 'flows'));
    assert.equal(file, join(project, 'node_modules', '.cache', 'boxflow', 'flow-durations.json'));
    assert.equal(durationsFile(mkdtempSync(join(root, 'bare-'))), undefined);
    await saveDurations(file, {}, [{ id: 'x', durationMs: 1200 }, { id: 'y', durationMs: 80 }]);
    const known = await readDurations(file);
    assert.deepEqual(known, { x: 1200, y: 80 });
    await saveDurations(file, known, [{ id: 'y', durationMs: 5000 }]);
    assert.deepEqual(await readDurations(file), { x: 1200, y: 5000 }, 'the newest duration wins');
    writeFileSync(file, '{"x": "slow", "y": -1, "z": 10');
    assert.deepEqual(await readDurations(file), {}, 'a broken cache is no cache');
    writeFileSync(file, '{"x": "slow", "y": -1, "z": 10}');
    assert.deepEqual(await readDurations(file), { z: 10 }, 'only durations are read');
    assert.match(readFileSync(file, 'utf8'), /z/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
