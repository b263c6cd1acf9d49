import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import pixelmatch from 'pixelmatch';
import { BoxflowError } from '../../src/errors.js';
import {
  closeVisualPool, compareImages, compareImagesSync, decodePng, encodePng, pngSize, visualPoolInfo, type Rect,
} from '../../src/visual/index.js';
import { decodePngPair } from '../../src/png/png.js';

const dir = join(import.meta.dirname, '../fixtures/visual');
const png = (name: string) => readFileSync(join(dir, `${name}.png`));
const clockRect = (JSON.parse(readFileSync(join(dir, 'rects.json'), 'utf8')) as { clock: Rect }).clock;
const total = 360 * 640;

after(() => closeVisualPool());

const assertCode = (code: string) => (err: unknown) => BoxflowError.is(err) && err.code === code;

test('two separate captures of the same screen pass on equal bytes', async () => {
  const a = png('base');
  const b = png('base-again');
  assert.notEqual(a, b);
  const r = await compareImages(a, b);
  assert.equal(r.pass, true);
  assert.equal(r.path, 'bytes');
  assert.equal(r.diffPixels, 0);
  assert.deepEqual(r.expectedSize, { width: 360, height: 640 });
  assert.equal(r.diffPng, undefined);
});

test('equal bytes still pass by bytes with masks and a clip, and report the clipped size', async () => {
  const r = await compareImages(png('base'), png('base-again'), { masks: [clockRect], clip: { x: 10, y: 20, width: 100, height: 50 } });
  assert.equal(r.pass, true);
  assert.equal(r.path, 'bytes');
  assert.deepEqual(r.actualSize, { width: 100, height: 50 });
});

test('the same pixels in a different encoding pass on decoded pixels', async () => {
  const reencoded = encodePng(decodePng(png('base')));
  assert.notDeepEqual(reencoded, png('base'));
  const r = await compareImages(png('base'), reencoded);
  assert.equal(r.pass, true);
  assert.equal(r.path, 'pixels');
});

test('one pixel off fails with maxDiffPixels 0 and passes with 1', async () => {
  const strict = await compareImages(png('base'), png('pixel'), { maxDiffPixels: 0 });
  assert.equal(strict.pass, false);
  assert.equal(strict.path, 'pixelmatch');
  assert.equal(strict.diffPixels, 1);
  assert.equal(strict.limit, 0);
  assert.match(strict.message!, /^1 pixels \(ratio .*\) are different; the limit is 0$/);
  const diff = PNG.sync.read(strict.diffPng!);
  const at = (x: number, y: number) => [...diff.data.subarray((y * 360 + x) * 4, (y * 360 + x) * 4 + 4)];
  assert.deepEqual(at(200, 300), [255, 0, 0, 255]);
  assert.notDeepEqual(at(201, 300), [255, 0, 0, 255]);

  const loose = await compareImages(png('base'), png('pixel'), { maxDiffPixels: 1 });
  assert.equal(loose.pass, true);
  assert.equal(loose.diffPixels, 1);
  assert.equal(loose.diffPng, undefined);
});

test('an anti-aliased one-character text change fails at the default threshold with a full-size diff', async () => {
  const r = await compareImages(png('base'), png('text'));
  assert.equal(r.pass, false);
  assert.ok(r.diffPixels > 0, 'some pixels differ');
  assert.equal(r.sizeMismatch, false);
  const diff = decodePng(r.diffPng!);
  assert.deepEqual([diff.width, diff.height], [360, 640]);
});

test('the threshold decides how different a pixel must be', async () => {
  const strict = await compareImages(png('base'), png('text'), { threshold: 0 });
  const normal = await compareImages(png('base'), png('text'));
  const loose = await compareImages(png('base'), png('text'), { threshold: 1 });
  assert.ok(strict.diffPixels > normal.diffPixels, `${strict.diffPixels} > ${normal.diffPixels}`);
  assert.equal(loose.diffPixels, 0);
  assert.equal(loose.pass, true);
  assert.equal(loose.path, 'pixelmatch');
});

test('maxDiffPixelRatio is a fraction of all pixels', async () => {
  const n = (await compareImages(png('base'), png('text'))).diffPixels;
  const at = await compareImages(png('base'), png('text'), { maxDiffPixelRatio: n / total });
  assert.equal(at.pass, true);
  assert.equal(at.limit, n);
  const below = await compareImages(png('base'), png('text'), { maxDiffPixelRatio: (n - 1) / total });
  assert.equal(below.pass, false);
  assert.equal(below.limit, n - 1);
});

test('with both limits the smaller one wins; with neither the limit is 0', async () => {
  const n = (await compareImages(png('base'), png('text'))).diffPixels;
  const ratioSmaller = await compareImages(png('base'), png('text'), { maxDiffPixels: 10_000, maxDiffPixelRatio: (n - 1) / total });
  assert.equal(ratioSmaller.pass, false);
  assert.equal(ratioSmaller.limit, n - 1);
  const pixelsSmaller = await compareImages(png('base'), png('text'), { maxDiffPixels: n - 1, maxDiffPixelRatio: 0.5 });
  assert.equal(pixelsSmaller.pass, false);
  assert.equal(pixelsSmaller.limit, n - 1);
  const both = await compareImages(png('base'), png('text'), { maxDiffPixels: n, maxDiffPixelRatio: 0.5 });
  assert.equal(both.pass, true);
  const neither = await compareImages(png('base'), png('pixel'));
  assert.equal(neither.limit, 0);
  assert.equal(neither.pass, false);
});

test('a ticking clock fails unmasked and passes with a mask over it', async () => {
  const bare = await compareImages(png('base'), png('clock'));
  assert.equal(bare.pass, false);
  const masked = await compareImages(png('base'), png('clock'), { masks: [clockRect] });
  assert.equal(masked.pass, true);
  assert.equal(masked.path, 'pixels');
  const elsewhere = await compareImages(png('base'), png('clock'), { masks: [{ x: 0, y: 300, width: 100, height: 100 }] });
  assert.equal(elsewhere.pass, false);
});

test('a clip limits the comparison to its rectangle', async () => {
  const away = await compareImages(png('base'), png('clock'), { clip: { x: 0, y: 100, width: 360, height: 400 } });
  assert.equal(away.pass, true);
  const over = await compareImages(png('base'), png('clock'), { clip: { x: 200, y: 0, width: 160, height: 44 } });
  assert.equal(over.pass, false);
  assert.deepEqual(over.expectedSize, { width: 160, height: 44 });
  assert.deepEqual(pngSize(over.diffPng!), { width: 160, height: 44 });
  await assert.rejects(compareImages(png('base'), png('clock'), { clip: { x: 1000, y: 0, width: 10, height: 10 } }), assertCode('INVALID_ARGUMENT'));
});

test('images of different sizes fail, name both sizes, and still get a padded diff', async () => {
  const r = await compareImages(png('base'), png('size'), { maxDiffPixelRatio: 1 });
  assert.equal(r.pass, false);
  assert.equal(r.sizeMismatch, true);
  assert.deepEqual(r.expectedSize, { width: 360, height: 640 });
  assert.deepEqual(r.actualSize, { width: 360, height: 600 });
  assert.match(r.message!, /360px by 640px/);
  assert.match(r.message!, /360px by 600px/);
  assert.ok(r.diffPixels > 0, 'the padded rows count as different');
  assert.deepEqual(pngSize(r.diffPng!), { width: 360, height: 640 });
});

test('the worker pool gives the same answer as the in-thread comparator', async () => {
  for (const other of ['pixel', 'text', 'size']) {
    const pooled = await compareImages(png('base'), png(other));
    const local = compareImagesSync(png('base'), png(other));
    assert.deepEqual({ ...pooled, diffPng: undefined }, { ...local, diffPng: undefined });
    assert.ok(pooled.diffPng!.equals(local.diffPng!), `same diff image for ${other}`);
  }
});

test('bad input is an INVALID_ARGUMENT error, also across the worker boundary', async () => {
  await assert.rejects(compareImages(png('base'), Buffer.from('not a png')), (err: unknown) =>
    BoxflowError.is(err) && err.code === 'INVALID_ARGUMENT' && /actual image/.test(err.message));
  const truncated = png('text').subarray(0, 2000);
  await assert.rejects(compareImages(png('base'), truncated), assertCode('INVALID_ARGUMENT'));
  await assert.rejects(compareImages(png('base'), png('text'), { threshold: 2 }), assertCode('INVALID_ARGUMENT'));
  await assert.rejects(compareImages(png('base'), png('text'), { maxDiffPixels: -1 }), assertCode('INVALID_ARGUMENT'));
  await assert.rejects(compareImages(png('base'), png('text'), { masks: [{ x: 0, y: 0, width: -5, height: 1 }] }), assertCode('INVALID_ARGUMENT'));
  assert.throws(() => pngSize(Buffer.from('GIF89a')), assertCode('INVALID_ARGUMENT'));
});

test('pngSize reads the header without decoding', () => {
  assert.deepEqual(pngSize(png('size')), { width: 360, height: 600 });
  const headerOnly = png('base').subarray(0, 33);
  assert.deepEqual(pngSize(headerOnly), { width: 360, height: 640 });
});

test('the decoder agrees with pngjs on every colour type and filter, and the encoder round-trips', () => {
  const src = PNG.sync.read(png('text'));
  const variants: Buffer[] = [png('text')];
  for (const filterType of [0, 1, 2, 3, 4]) variants.push(PNG.sync.write(src, { filterType }));
  variants.push(PNG.sync.write(src, { colorType: 0, inputColorType: 6 }));
  variants.push(PNG.sync.write(src, { colorType: 4, inputColorType: 6 }));
  const translucent = new PNG({ width: src.width, height: src.height });
  src.data.copy(translucent.data);
  for (let i = 3; i < translucent.data.length; i += 4 * 7) translucent.data[i] = 100;
  variants.push(PNG.sync.write(translucent));
  // Widths that leave 1, 2 and 3 pixels after the decoder's four-pixel steps.
  for (const width of [37, 38, 39]) {
    const odd = new PNG({ width, height: 5 });
    for (let i = 0; i < odd.data.length; i++) odd.data[i] = i % 4 === 3 ? 255 : (i * 37) & 0xff;
    for (const filterType of [0, 2]) variants.push(PNG.sync.write(odd, { colorType: 2, filterType }));
  }
  variants.forEach((v, i) => assert.ok(decodePng(v).data.equals(PNG.sync.read(v).data), `variant ${i} decodes like pngjs`));
  for (const img of [decodePng(png('text')), decodePng(PNG.sync.write(translucent))]) {
    const enc = encodePng(img);
    assert.ok(PNG.sync.read(enc).data.equals(img.data), 'encoded pixels read back equal');
  }
});

test('decoding a pair only where scanlines differ gives the same pixels as two full decodes, for every filter', () => {
  const pairs: [Buffer, Buffer][] = ['pixel', 'text', 'clock', 'base-again', 'size'].map((name) => [png('base'), png(name)]);
  // Changes on the first, a middle and the last row, and two apart: with the Up/Average/Paeth
  // filters a changed row alters how the rows below it are encoded, so the re-decoded band must
  // run on past it, and on to the last differing scanline.
  const base = PNG.sync.read(png('base'));
  for (const filterType of [-1, 0, 1, 2, 3, 4]) {
    for (const rows of [[0], [320], [639], [10, 500]]) {
      const edited = new PNG({ width: base.width, height: base.height });
      base.data.copy(edited.data);
      for (const y of rows) edited.data.fill(7, y * base.width * 4, y * base.width * 4 + 40);
      pairs.push([PNG.sync.write(base, { filterType }), PNG.sync.write(edited, { filterType })]);
    }
  }
  for (const [a, b] of pairs) {
    const [da, db] = decodePngPair(a, b);
    const fa = decodePng(a);
    const fb = decodePng(b);
    assert.ok(da.data.equals(fa.data), 'first image');
    assert.ok(db.data.equals(fb.data), 'second image');
    assert.deepEqual([db.width, db.height], [fb.width, fb.height]);
  }
});

test('the diff image shows every unchanged pixel in pixelmatch\'s faded grey, white ones and black ones', () => {
  const white = new PNG({ width: 40, height: 30 });
  white.data.fill(255);
  // White above, then a black stripe at the top of the band pixelmatch redraws.
  for (let i = 12 * 40 * 4; i < 15 * 40 * 4; i++) white.data[i] = i % 4 === 3 ? 255 : 0;
  const changed = new PNG({ width: 40, height: 30 });
  white.data.copy(changed.data);
  changed.data.fill(0, (15 * 40 + 20) * 4, (15 * 40 + 21) * 4 - 1);
  const r = compareImagesSync(PNG.sync.write(white), PNG.sync.write(changed));
  assert.equal(r.diffPixels, 1);
  const diff = PNG.sync.read(r.diffPng!);
  const expected = new PNG({ width: 40, height: 30 });
  pixelmatch(white.data, changed.data, expected.data, 40, 30, { threshold: 0.2, alpha: 0.1 });
  assert.ok(diff.data.equals(expected.data), 'the same diff image as pixelmatch draws');
});

test('the pool starts on first use, is skipped for equal bytes, and closes', async () => {
  await closeVisualPool();
  assert.equal(visualPoolInfo().open, false);
  await compareImages(png('base'), png('base-again'));
  assert.equal(visualPoolInfo().open, false);
  await compareImages(png('base'), png('pixel'));
  const info = visualPoolInfo();
  assert.equal(info.open, true);
  assert.equal(info.completed, 1);
  await closeVisualPool();
  assert.equal(visualPoolInfo().open, false);
  assert.equal((await compareImages(png('base'), png('pixel'))).diffPixels, 1);
  assert.equal(visualPoolInfo().open, true);
});
