// A masked element that moves or grows (issue 33 item 11): stable capture masks it where it is in
// each frame, and a baseline keeps where it was, inside the PNG, for the comparisons that follow.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pngText, withPngText } from '../../src/png/text.js';
import { baselineMasks, closeVisualPool, compareImages, decodePng, encodePng, stableCapture, writeBaseline, type Rect } from '../../src/visual/index.js';

after(() => closeVisualPool());

/** A white 60×20 screen with a black "clock" `width` pixels wide at (10, 5). */
function screen(width: number): { png: Buffer; clock: Rect } {
  const w = 60;
  const h = 20;
  const data = Buffer.alloc(w * h * 4, 255);
  for (let y = 5; y < 15; y++) for (let x = 10; x < 10 + width; x++) data.fill(0, (y * w + x) * 4, (y * w + x) * 4 + 3);
  return { png: encodePng({ width: w, height: h, data }), clock: { x: 10, y: 5, width, height: 10 } };
}

test('a clock that grows between two frames is masked where it is in each, and the screen settles at once', async () => {
  let n = 0;
  const capture = async () => {
    const { png, clock } = screen(10 + 10 * n++);
    return { png, masks: { '{id: "clock"}': [clock] } };
  };
  const r = await stableCapture(capture, { timeoutMs: 0 });
  assert.equal(r.stable, true);
  assert.equal(r.frames, 2);
  // Both places, for the baseline to keep.
  assert.deepEqual(r.masks, { '{id: "clock"}': [{ x: 10, y: 5, width: 10, height: 10 }, { x: 10, y: 5, width: 20, height: 10 }] });
});

test('a baseline keeps its masks inside the PNG: the image is the same, and they read back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxflow-maskpng-'));
  try {
    const { png, clock } = screen(20);
    const path = join(dir, 'b.png');
    await writeBaseline(path, png, { '{id: "clock"}': [clock] });
    const written = readFileSync(path);
    assert.deepEqual(decodePng(written), decodePng(png));
    assert.deepEqual(baselineMasks(written), { '{id: "clock"}': [clock] });
    // Against the screen where the clock is narrower, its old place masked too: equal.
    const now = screen(10);
    assert.equal((await compareImages(written, now.png, { masks: [now.clock] })).pass, false);
    assert.equal((await compareImages(written, now.png, { masks: [now.clock, clock] })).pass, true);
    // Without masks, the file is the image alone.
    await writeBaseline(path, png);
    assert.ok(readFileSync(path).equals(png));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('text in a PNG replaces what it kept under the same keyword; anything but what boxflow wrote reads as no masks', () => {
  const { png } = screen(10);
  const once = withPngText(png, 'boxflow:masks', '{"a":[]}');
  const twice = withPngText(once, 'boxflow:masks', '{"b":[{"x":1,"y":2,"width":3,"height":4}]}');
  assert.equal(pngText(twice, 'boxflow:masks'), '{"b":[{"x":1,"y":2,"width":3,"height":4}]}');
  assert.equal(twice.length, once.length + '{"b":[{"x":1,"y":2,"width":3,"height":4}]}'.length - '{"a":[]}'.length);
  assert.equal(pngText(twice, 'other'), undefined);
  assert.equal(pngText(withPngText(png, 'k', 'Zoë ⏎'), 'k'), 'Zoë ⏎');
  assert.deepEqual(baselineMasks(png), {});
  assert.deepEqual(baselineMasks(withPngText(png, 'boxflow:masks', 'not json')), {});
  assert.deepEqual(baselineMasks(withPngText(png, 'boxflow:masks', '[1,2]')), {});
  assert.deepEqual(baselineMasks(withPngText(png, 'boxflow:masks', '{"a":[{"x":"1"}],"b":[]}')), { b: [] });
});
