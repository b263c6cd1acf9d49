// Hostile PNGs: a small file whose data inflates far past the size its header declares (a "PNG
// bomb"), a chunk that fails its CRC, a header with absurd dimensions. Each is refused with
// IMAGE_CORRUPT, before its pixels are decoded and without inflating what its header does not
// declare; a baseline comparison reports that code, never a difference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { BoxflowError } from '../../src/errors.js';
import { decodePng, encodePng, overlayPng } from '../../src/png/png.js';
import { closeVisualPool, compareImages, compareImagesSync } from '../../src/visual/index.js';

test.after(() => closeVisualPool());

const kSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}

function ihdr(width: number, height: number, colorType = 6, interlace = 0): Buffer {
  const b = Buffer.alloc(13);
  b.writeUInt32BE(width, 0);
  b.writeUInt32BE(height, 4);
  b[8] = 8;
  b[9] = colorType;
  b[12] = interlace;
  return chunk('IHDR', b);
}

/**
 * A zlib stream of `mib` MiB of zero bytes, built from one compressed MiB repeated (each copy ends
 * in a sync flush, so copies chain), with the right Adler-32: a valid stream ~1000 times smaller
 * than what it inflates to, made in milliseconds.
 */
function zerosStream(mib: number): Buffer {
  const segment = zlib.deflateRawSync(Buffer.alloc(1 << 20), { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const final = Buffer.from([0x03, 0x00]); // an empty final block of fixed codes
  const n = mib * (1 << 20);
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((n % 65521) << 16) | 1) >>> 0, 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array.from({ length: mib }, () => segment), final, adler]);
}

/** A 1000×1000 PNG (4 MB of scanlines) whose image data inflates to `mib` MiB. */
function pngBomb(mib: number, interlace = 0): Buffer {
  return Buffer.concat([kSignature, ihdr(1000, 1000, 6, interlace), chunk('IDAT', zerosStream(mib)), chunk('IEND', Buffer.alloc(0))]);
}

const isCorrupt = (pattern: RegExp) => (err: unknown) => {
  assert.ok(BoxflowError.is(err), `a BoxflowError, got ${String(err)}`);
  assert.equal(err.code, 'IMAGE_CORRUPT', err.message);
  assert.match(err.message, pattern);
  return true;
};

function image(width: number, height: number, seed = 1): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < data.length; i++) data[i] = (i % 4 === 3 ? 255 : (i * seed) & 0xff);
  return encodePng({ width, height, data });
}

// First, so that the process's peak memory is still low when it is measured.
test('a PNG bomb (1000x1000 header, 1 GiB of data) is refused with IMAGE_CORRUPT without inflating it', () => {
  const bomb = pngBomb(1024);
  assert.ok(bomb.length < 2 << 20, `a small file (${bomb.length} bytes)`);
  // Such a stream is valid zlib (checked on a small one): without a bound, this one inflates to 1 GiB.
  assert.equal(zlib.inflateSync(zerosStream(8)).length, 8 << 20);
  const peakBefore = process.resourceUsage().maxRSS; // KiB
  assert.throws(() => decodePng(bomb, 'the baseline'), isCorrupt(/^the baseline is a corrupt PNG: its image data inflates past the 4001000 bytes its 1000x1000 header declares/));
  const grownMiB = (process.resourceUsage().maxRSS - peakBefore) / 1024;
  assert.ok(grownMiB < 200, `peak memory grew by ${grownMiB.toFixed(0)} MiB decoding a bomb`);
});

test('a bomb is refused on every path: interlaced (pngjs decodes those), the async overlay, the comparator', async () => {
  const bomb = pngBomb(64);
  assert.throws(() => decodePng(pngBomb(64, 1)), isCorrupt(/inflates past the \d+ bytes its 1000x1000 header declares/));
  await assert.rejects(overlayPng(bomb, { x: 0, y: 0, width: 1, height: 1, data: Buffer.from([255, 0, 0, 255]) }, 'the screenshot'), isCorrupt(/^the screenshot is a corrupt PNG: its image data inflates past/));
  const actual = image(1000, 1000);
  assert.throws(() => compareImagesSync(bomb, actual), isCorrupt(/^expected image is a corrupt PNG/));
  // Across the worker boundary, the code is kept: a baseline comparison reports it, not a difference.
  await assert.rejects(compareImages(bomb, actual), isCorrupt(/^expected image is a corrupt PNG: its image data inflates past/));
  await assert.rejects(compareImages(actual, bomb), isCorrupt(/^actual image is a corrupt PNG/));
});

test('a chunk that fails its CRC is refused, whichever chunk it is', async () => {
  const good = image(40, 30);
  assert.equal(decodePng(good).width, 40, 'the untouched image decodes');
  const idatAt = good.indexOf('IDAT', 0, 'latin1') - 4;
  const idatLen = good.readUInt32BE(idatAt);
  // A flipped bit in the compressed pixels, which may well still inflate: only the CRC tells.
  const flipped = Buffer.from(good);
  flipped[idatAt + 8 + Math.floor(idatLen / 2)]! ^= 0x10;
  assert.throws(() => decodePng(flipped, 'the baseline'), isCorrupt(/^the baseline is a corrupt PNG: chunk IDAT at byte \d+ fails its CRC/));
  await assert.rejects(compareImages(flipped, good), isCorrupt(/chunk IDAT at byte \d+ fails its CRC/));
  // The header's CRC too (a width changed by a bit flip would otherwise decode as another size).
  const header = Buffer.from(good);
  header[19]! ^= 0x01;
  assert.throws(() => decodePng(header), isCorrupt(/chunk IHDR at byte 8 fails its CRC/));
  // And an ancillary chunk's: a PNG whose bytes are not the ones written is not trusted.
  const withText = Buffer.concat([good.subarray(0, 33), chunk('tEXt', Buffer.from('Software\0boxflow')), good.subarray(33)]);
  assert.equal(decodePng(withText).height, 30);
  withText[33 + 8 + 2]! ^= 0x20;
  assert.throws(() => decodePng(withText), isCorrupt(/chunk tEXt at byte 33 fails its CRC/));
});

test('absurd or invalid headers are refused before anything is inflated', () => {
  const idat = chunk('IDAT', zlib.deflateSync(Buffer.alloc(10)));
  const end = chunk('IEND', Buffer.alloc(0));
  assert.throws(() => decodePng(Buffer.concat([kSignature, ihdr(100_000, 100_000), idat, end])), isCorrupt(/declares 100000x100000 pixels, over what boxflow decodes/));
  assert.throws(() => decodePng(Buffer.concat([kSignature, ihdr(20_000, 20_000), idat, end])), isCorrupt(/declares 20000x20000 pixels, over what boxflow decodes/));
  assert.throws(() => decodePng(Buffer.concat([kSignature, ihdr(0, 10), idat, end])), isCorrupt(/declares 0x10 pixels/));
  assert.throws(() => decodePng(Buffer.concat([kSignature, ihdr(10, 10, 5), idat, end])), isCorrupt(/header is invalid \(bit depth 8, colour type 5/));
  // Data short of the declared size is corrupt too, not padded with whatever memory held.
  assert.throws(() => decodePng(Buffer.concat([kSignature, ihdr(10, 10), idat, end])), isCorrupt(/inflates to 10 bytes, short of the 410 its 10x10 header declares/));
  assert.throws(() => decodePng(Buffer.concat([kSignature, ihdr(10, 10), chunk('IDAT', Buffer.from('not zlib')), end])), isCorrupt(/does not inflate/));
});

test('a whole, valid PNG of every shape still decodes (the bound is exact, not a guess)', () => {
  for (const [w, h] of [[1, 1], [7, 3], [360, 640]] as const) {
    const png = image(w, h, 3);
    const out = decodePng(png);
    assert.deepEqual([out.width, out.height, out.data.length], [w, h, w * h * 4]);
  }
  // Interlaced images go to pngjs after the same checks: 8x8 RGB, Adam7 passes of these sizes.
  const passes = [[1, 1], [1, 1], [2, 1], [2, 2], [4, 2], [4, 4], [8, 4]];
  const interlacedRaw = Buffer.alloc(passes.reduce((n, [w, h]) => n + h! * (1 + w! * 3), 0));
  const interlaced = Buffer.concat([kSignature, ihdr(8, 8, 2, 1), chunk('IDAT', zlib.deflateSync(interlacedRaw)), chunk('IEND', Buffer.alloc(0))]);
  assert.equal(decodePng(interlaced).width, 8);
});
