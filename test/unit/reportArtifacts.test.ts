import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ArtifactStore } from '../../src/runner/artifacts.js';
import { screenPng } from '../fixtures/results/fixture.js';

const sha1 = (b: Uint8Array) => createHash('sha1').update(b).digest('hex');

test('an image is stored once, under its sha1, however often and however it arrives', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-art-'));
  try {
    const png = screenPng(3);
    const store = new ArtifactStore(dir);
    const paths = await Promise.all([store.put(png), store.put(png), store.put(Buffer.from(png))]);
    const expected = `data/${sha1(png)}.png`;
    assert.deepEqual(paths, [expected, expected, expected]);
    assert.equal(await store.putDataUri(`data:image/png;base64,${png.toString('base64')}`), expected);
    const file = join(dir, 'src.png');
    writeFileSync(file, png);
    assert.equal(await store.putFile(file), expected);
    assert.equal(await store.putStream(Readable.from([png.subarray(0, 100), png.subarray(100)]), 'png'), expected);
    assert.deepEqual(readdirSync(join(dir, 'data')), [`${sha1(png)}.png`]);
    assert.deepEqual(readFileSync(join(dir, expected)), png);
    assert.equal(store.stats.written, 1);

    // a second store on the same dir (a resumed run) finds it on disk
    const again = new ArtifactStore(dir);
    assert.equal(await again.put(png), expected);
    assert.equal(again.stats.written, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an image torn by a crash of an earlier run is written again whole; a whole one is kept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-art-'));
  try {
    const [torn, whole] = [screenPng(4), screenPng(5)];
    mkdirSync(join(dir, 'data'));
    const tornFile = join(dir, 'data', `${sha1(torn)}.png`);
    writeFileSync(tornFile, torn.subarray(0, 50));
    const wholeFile = join(dir, 'data', `${sha1(whole)}.png`);
    writeFileSync(wholeFile, whole);
    const inode = statSync(wholeFile).ino;
    const store = new ArtifactStore(dir);
    await store.put(torn);
    await store.put(whole);
    assert.deepEqual(readFileSync(tornFile), torn);
    assert.equal(statSync(wholeFile).ino, inode);
    // The same for an image that arrives as a stream (from boxflow serve).
    const streamed = screenPng(6);
    const streamedFile = join(dir, 'data', `${sha1(streamed)}.png`);
    writeFileSync(streamedFile, streamed.subarray(0, 40));
    await store.putStream(Readable.from([streamed]), 'png');
    assert.deepEqual(readFileSync(streamedFile), streamed);
    assert.deepEqual(readdirSync(join(dir, 'data')).sort(), [`${sha1(torn)}.png`, `${sha1(whole)}.png`, `${sha1(streamed)}.png`].sort(), 'no temporary file left');
    assert.equal(store.stats.written, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('data URIs pick their extension from the media type; bad input is refused with a code', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-art-'));
  try {
    const store = new ArtifactStore(dir);
    const xml = '<hierarchy><node text="a &amp; b"/></hierarchy>';
    const p = await store.putDataUri(`data:application/xml,${encodeURIComponent(xml)}`);
    assert.match(p, /^data\/[0-9a-f]{40}\.xml$/);
    assert.equal(readFileSync(join(dir, p), 'utf8'), xml);
    assert.match(await store.putDataUri('data:image/jpeg;base64,/9j/4AAQ'), /\.jpg$/);
    await assert.rejects(store.putDataUri('http://example.com/a.png'), { code: 'INVALID_ARGUMENT' });
    await assert.rejects(store.put(Buffer.from('x'), '../etc'), { code: 'INVALID_ARGUMENT' });
    assert.ok(!readdirSync(join(dir, 'data')).some((n) => n.endsWith('.tmp')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
