// The in-thread comparator. The worker pool runs this same function; unit tests call it
// directly. Cheap checks come first: equal PNG bytes, then equal decoded pixels (the second
// image decoded only where its scanlines differ), and only then pixelmatch, over just the band
// of rows that differ.
import pixelmatch from 'pixelmatch';
import { BoxflowError } from '../errors.js';
import { clampRect, cropRgba, decodePngPair, encodeIndexedPng, fillRect, padRgba, pngSize, type Rect, type RgbaImage, type Size } from '../png/png.js';

export interface CompareOptions {
  /** Per-pixel colour distance (YIQ) from 0 to 1 above which a pixel differs. Default 0.2. */
  threshold?: number;
  maxDiffPixels?: number;
  maxDiffPixelRatio?: number;
  /** Image-pixel rectangles painted one solid colour in both images before comparing. */
  masks?: Rect[];
  /** Crops both images (after masking) to this rectangle. */
  clip?: Rect;
}

export interface CompareResult {
  pass: boolean;
  /** Which check decided: equal PNG bytes, equal decoded pixels, or a pixelmatch count. */
  path: 'bytes' | 'pixels' | 'pixelmatch';
  diffPixels: number;
  diffRatio: number;
  /** Largest number of differing pixels that still passes. */
  limit: number;
  expectedSize: Size;
  actualSize: Size;
  sizeMismatch: boolean;
  message?: string;
  /** Only on failure. */
  diffPng?: Buffer;
}

export const kDefaultThreshold = 0.2;
const kMaskColor = [255, 0, 255, 255] as const;
// pixelmatch's anti-aliasing test reads pixels up to two rows away from a differing pixel.
const kBandMargin = 3;
const kDiffAlpha = 0.1;

function bad(message: string): BoxflowError {
  return new BoxflowError('INVALID_ARGUMENT', message);
}

function checkRect(r: unknown, what: string): void {
  const o = r as Record<string, unknown> | null;
  const ok = typeof o === 'object' && o !== null &&
    ['x', 'y', 'width', 'height'].every((k) => typeof o[k] === 'number' && Number.isFinite(o[k])) &&
    (o.width as number) >= 0 && (o.height as number) >= 0;
  if (!ok) throw bad(`${what} must be {x, y, width, height} with finite numbers and a non-negative size.`);
}

export function validateCompareOptions(opts: CompareOptions): void {
  const { threshold, maxDiffPixels, maxDiffPixelRatio, masks, clip } = opts;
  if (threshold !== undefined && !(typeof threshold === 'number' && threshold >= 0 && threshold <= 1)) throw bad(`threshold must be a number from 0 to 1, got ${String(threshold)}.`);
  if (maxDiffPixels !== undefined && !(Number.isInteger(maxDiffPixels) && maxDiffPixels >= 0)) throw bad(`maxDiffPixels must be a non-negative integer, got ${String(maxDiffPixels)}.`);
  if (maxDiffPixelRatio !== undefined && !(typeof maxDiffPixelRatio === 'number' && maxDiffPixelRatio >= 0 && maxDiffPixelRatio <= 1)) throw bad(`maxDiffPixelRatio must be a number from 0 to 1, got ${String(maxDiffPixelRatio)}.`);
  if (masks !== undefined) {
    if (!Array.isArray(masks)) throw bad('masks must be an array of rectangles.');
    masks.forEach((m, i) => checkRect(m, `masks[${i}]`));
  }
  if (clip !== undefined) checkRect(clip, 'clip');
}

/** maxDiffPixels and maxDiffPixelRatio×total: the smaller wins when both are given; neither means 0. */
export function diffLimit(total: number, opts: Pick<CompareOptions, 'maxDiffPixels' | 'maxDiffPixelRatio'>): number {
  const limits: number[] = [];
  if (opts.maxDiffPixels !== undefined) limits.push(opts.maxDiffPixels);
  if (opts.maxDiffPixelRatio !== undefined) limits.push(Math.floor(opts.maxDiffPixelRatio * total));
  return limits.length ? Math.min(...limits) : 0;
}

function comparedSize(size: Size, clip: Rect | undefined): Size {
  if (!clip) return size;
  const r = clampRect(clip, size);
  return { width: r.width, height: r.height };
}

function checkClipHits(clip: Rect | undefined, a: Size, b: Size, sa: Size, sb: Size): void {
  if (!clip) return;
  if (sa.width * sa.height === 0 && sb.width * sb.height === 0) {
    throw bad(`clip {x: ${clip.x}, y: ${clip.y}, width: ${clip.width}, height: ${clip.height}} lies outside the images (${a.width}x${a.height}, ${b.width}x${b.height}).`);
  }
}

/** Paints the masks on a decoded image and applies the clip. */
function prepareImage(img: RgbaImage, opts: CompareOptions): { image: RgbaImage; fullSize: Size } {
  for (const m of opts.masks ?? []) fillRect(img, m, kMaskColor);
  return { image: opts.clip ? cropRgba(img, opts.clip) : img, fullSize: { width: img.width, height: img.height } };
}

function ratioText(n: number): string {
  return n === 0 ? '0' : n < 0.0001 ? n.toExponential(2) : String(Math.round(n * 10000) / 10000);
}

/**
 * A 32-bit view of the pixels (copying only if the buffer is unaligned), for comparing whole
 * pixels. Int32: V8 keeps these small integers; Uint32 values above 2^31 would be doubles.
 */
function u32(buf: Buffer): Int32Array {
  let b = buf;
  if (b.byteOffset % 4 !== 0) {
    b = Buffer.allocUnsafeSlow(buf.length);
    buf.copy(b);
  }
  return new Int32Array(b.buffer, b.byteOffset, b.length >> 2);
}

/** First and last rows (searching rows from..to-1) where two equally sized images differ, or undefined when none do. */
function differingRows(a: RgbaImage, b: RgbaImage, from = 0, to = a.height): [number, number] | undefined {
  const a32 = u32(a.data);
  const b32 = u32(b.data);
  const n = to * a.width;
  let first = -1;
  let last = -1;
  for (let i = from * a.width; i < n; i++) if (a32[i] !== b32[i]) { first = i; break; }
  if (first < 0) return undefined;
  for (let i = n - 1; i >= first; i--) if (a32[i] !== b32[i]) { last = i; break; }
  return [Math.floor(first / a.width), Math.floor(last / a.width)];
}

/** Colours in the order first seen, each with its palette index. */
class Palette {
  readonly colors: [number, number, number, number][] = [];
  readonly #byColor = new Map<number, number>();

  indexOf(r: number, g: number, b: number, a: number): number {
    const key = (r << 24) | (g << 16) | (b << 8) | a;
    let k = this.#byColor.get(key);
    if (k === undefined) {
      k = this.colors.length;
      this.colors.push([r, g, b, a]);
      this.#byColor.set(key, k);
    }
    return k;
  }
}

/** pixelmatch's faded grey of rows y0..y1-1 of `a`, as palette indices (a run of one pixel value costs one compare a pixel). */
function greyRows(a: RgbaImage, a32: Int32Array, index: Uint8Array, palette: Palette, levels: Int16Array, y0: number, y1: number): void {
  const { width, data } = a;
  const rowBytes = width * 4;
  // Unlike the first pixel, so that it gets its own grey computed.
  let lastPx = ~(a32[y0 * width] ?? 0);
  let lastIdx = 0;
  for (let y = y0; y < y1; y++) {
    const row = y * width;
    // A row equal to the one above has its greys: screenshots repeat rows (backgrounds, margins),
    // and a native compare and copy cost far less than the loop. lastPx/lastIdx stay those of the
    // row's last pixel either way.
    if (y > y0 && data.compare(data, (row - width) * 4, row * 4, row * 4, row * 4 + rowBytes) === 0) {
      index.copyWithin(row, row - width, row);
      continue;
    }
    for (let p = row, stop = row + width; p < stop; p++) {
      const px = a32[p]!;
      if (px !== lastPx) {
        const i = p * 4;
        const g = (255 + ((data[i]! * 0.29889531 + data[i + 1]! * 0.58662247 + data[i + 2]! * 0.11448223 - 255) * kDiffAlpha * data[i + 3]!) / 255) & 0xff;
        let k = levels[g]!;
        if (k < 0) k = levels[g] = palette.indexOf(g, g, g, 255);
        lastIdx = k;
        lastPx = px;
      }
      index[p] = lastIdx;
    }
  }
}

/**
 * The diff image, palette-encoded: pixelmatch's faded grey of `a` outside the band, its output
 * inside it. Faded grey (255 - 10% of the distance to white) has at most 27 levels, and
 * pixelmatch adds only its red and yellow marks, so the palette never comes near 256 colours.
 */
function encodeDiff(a: RgbaImage, band: Buffer, y0: number, y1: number): Buffer {
  const { width, height } = a;
  const a32 = u32(a.data);
  const index = new Uint8Array(width * height);
  const palette = new Palette();
  const levels = new Int16Array(256).fill(-1);
  greyRows(a, a32, index, palette, levels, 0, y0);
  const band32 = u32(band);
  let lastPx = ~(band32[0] ?? 0);
  let lastIdx = 0;
  for (let j = 0, p = y0 * width; j < band32.length; j++, p++) {
    const px = band32[j]!;
    if (px !== lastPx) {
      const i = j * 4;
      lastIdx = palette.indexOf(band[i]!, band[i + 1]!, band[i + 2]!, band[i + 3]!);
      lastPx = px;
    }
    index[p] = lastIdx;
  }
  greyRows(a, a32, index, palette, levels, Math.max(y0, y1), height);
  return encodeIndexedPng(width, height, index, palette.colors);
}

/**
 * Compares two decoded images (already masked/clipped). Used by compareImagesSync. `knownRows`:
 * rows [from, to) outside which the two are known to hold the same pixels.
 */
export function compareRgba(expected: RgbaImage, actual: RgbaImage, opts: CompareOptions, knownRows?: [number, number]): CompareResult {
  const expectedSize = { width: expected.width, height: expected.height };
  const actualSize = { width: actual.width, height: actual.height };
  const sizeMismatch = expected.width !== actual.width || expected.height !== actual.height;
  const width = Math.max(expected.width, actual.width);
  const height = Math.max(expected.height, actual.height);
  const total = width * height;
  const limit = diffLimit(total, opts);
  const base = { expectedSize, actualSize, sizeMismatch, limit };
  const a = padRgba(expected, width, height);
  const b = padRgba(actual, width, height);
  const found = sizeMismatch ? differingRows(a, b) : knownRows ? differingRows(a, b, ...knownRows) : expected.data.equals(actual.data) ? undefined : differingRows(a, b);
  if (!sizeMismatch && !found) return { pass: true, path: 'pixels', diffPixels: 0, diffRatio: 0, ...base };
  const rows = found ?? [0, -1];
  const y0 = Math.max(0, rows[0] - kBandMargin);
  const y1 = Math.min(height, rows[1] + 1 + kBandMargin);
  const rowBytes = width * 4;
  const band = y1 > y0 ? Buffer.alloc((y1 - y0) * rowBytes) : Buffer.alloc(0);
  const diffPixels = y1 > y0
    ? pixelmatch(a.data.subarray(y0 * rowBytes, y1 * rowBytes), b.data.subarray(y0 * rowBytes, y1 * rowBytes), band, width, y1 - y0, {
      threshold: opts.threshold ?? kDefaultThreshold,
      alpha: kDiffAlpha,
    })
    : 0;
  const diffRatio = total ? diffPixels / total : 0;
  const pass = !sizeMismatch && diffPixels <= limit;
  if (pass) return { pass, path: 'pixelmatch', diffPixels, diffRatio, ...base };

  const counts = `${diffPixels} pixels (ratio ${ratioText(diffRatio)} of all image pixels) are different`;
  // No closing full stop: the message is a clause of the step's error, which goes on after it.
  const message = sizeMismatch
    ? `Expected an image ${expected.width}px by ${expected.height}px, received ${actual.width}px by ${actual.height}px. ${counts} after padding both to ${width}px by ${height}px`
    : `${counts}; the limit is ${limit}`;
  return { pass, path: 'pixelmatch', diffPixels, diffRatio, ...base, message, diffPng: encodeDiff(a, band, y0, y1) };
}

/** Synchronous, in-thread comparison of two PNGs. `compareImages` runs this in a worker. */
export function compareImagesSync(expected: Buffer, actual: Buffer, opts: CompareOptions = {}): CompareResult {
  validateCompareOptions(opts);
  const bytes = equalBytesResult(expected, actual, opts);
  if (bytes) return bytes;
  // Past the decode, the actual image is read only within the rows where the two may differ and
  // kBandMargin rows around them (compareRgba's knownRows and band; masks and a clip move rows,
  // never read outside them).
  const [expImg, actImg, rows] = decodePngPair(expected, actual, undefined, undefined, kBandMargin);
  const exp = prepareImage(expImg, opts);
  const act = prepareImage(actImg, opts);
  checkClipHits(opts.clip, exp.fullSize, act.fullSize, exp.image, act.image);
  // Masks paint both alike, so only the clip moves the rows that may differ.
  const top = opts.clip ? clampRect(opts.clip, exp.fullSize).y : 0;
  const known = rows && ([Math.max(0, rows[0] - top), Math.max(0, Math.min(exp.image.height, rows[1] - top))] as [number, number]);
  return compareRgba(exp.image, act.image, opts, known);
}

/** The pass result for byte-equal PNGs (reading only the IHDR), or undefined when the bytes differ. */
export function equalBytesResult(expected: Buffer, actual: Buffer, opts: CompareOptions): CompareResult | undefined {
  if (expected.length !== actual.length || !expected.equals(actual)) return undefined;
  const full = pngSize(expected, 'expected image');
  const size = comparedSize(full, opts.clip);
  checkClipHits(opts.clip, full, full, size, size);
  return {
    pass: true, path: 'bytes', diffPixels: 0, diffRatio: 0, limit: diffLimit(size.width * size.height, opts),
    expectedSize: size, actualSize: { ...size }, sizeMismatch: false,
  };
}
