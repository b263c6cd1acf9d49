// The in-thread comparator. The worker pool runs this same function; unit tests call it
// directly. Cheap checks come first: equal PNG bytes, then equal decoded pixels (the second
// image decoded only where its scanlines differ), and only then pixelmatch, over just the band
// of rows that differ.
import pixelmatch from 'pixelmatch';
import { BoxflowError } from '../errors.js';
import { clampRect, cropRgba, decodePngPair, encodePng, fillRect, padRgba, pngSize, type Rect, type RgbaImage, type Size } from './png.js';

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
const kLittleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

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

/** A little-endian 32-bit view of the pixels (copying only if the buffer is unaligned). */
function u32(buf: Buffer): Uint32Array {
  let b = buf;
  if (b.byteOffset % 4 !== 0) {
    b = Buffer.allocUnsafeSlow(buf.length);
    buf.copy(b);
  }
  return new Uint32Array(b.buffer, b.byteOffset, b.length >> 2);
}

/** First and last rows where two equally sized images differ, or undefined when none do. */
function differingRows(a: RgbaImage, b: RgbaImage): [number, number] | undefined {
  const a32 = u32(a.data);
  const b32 = u32(b.data);
  const n = a.width * a.height;
  let first = -1;
  let last = -1;
  for (let i = 0; i < n; i++) if (a32[i] !== b32[i]) { first = i; break; }
  if (first < 0) return undefined;
  for (let i = n - 1; i >= first; i--) if (a32[i] !== b32[i]) { last = i; break; }
  return [Math.floor(first / a.width), Math.floor(last / a.width)];
}

/** pixelmatch's faded-grey background for unchanged pixels, for rows y0..y1. */
function drawGrayRows(src: Buffer, src32: Uint32Array, out32: Uint32Array, width: number, y0: number, y1: number): void {
  let lastPx = -1;
  let lastGray = 0;
  for (let p = y0 * width, end = y1 * width; p < end; p++) {
    const px = src32[p]!;
    if (px !== lastPx) {
      const i = p * 4;
      const val = 255 + ((src[i]! * 0.29889531 + src[i + 1]! * 0.58662247 + src[i + 2]! * 0.11448223 - 255) * kDiffAlpha * src[i + 3]!) / 255;
      const g = val & 0xff;
      lastGray = kLittleEndian ? (0xff000000 | (g << 16) | (g << 8) | g) >>> 0 : ((g << 24) | (g << 16) | (g << 8) | 0xff) >>> 0;
      lastPx = px;
    }
    out32[p] = lastGray;
  }
}

/** Compares two decoded images (already masked/clipped). Used by compareImagesSync. */
export function compareRgba(expected: RgbaImage, actual: RgbaImage, opts: CompareOptions): CompareResult {
  const expectedSize = { width: expected.width, height: expected.height };
  const actualSize = { width: actual.width, height: actual.height };
  const sizeMismatch = expected.width !== actual.width || expected.height !== actual.height;
  const width = Math.max(expected.width, actual.width);
  const height = Math.max(expected.height, actual.height);
  const total = width * height;
  const limit = diffLimit(total, opts);
  const base = { expectedSize, actualSize, sizeMismatch, limit };
  if (!sizeMismatch && expected.data.equals(actual.data)) {
    return { pass: true, path: 'pixels', diffPixels: 0, diffRatio: 0, ...base };
  }
  const a = padRgba(expected, width, height);
  const b = padRgba(actual, width, height);
  const rows = differingRows(a, b) ?? [0, -1];
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

  const diff = Buffer.allocUnsafeSlow(total * 4);
  const a32 = u32(a.data);
  const diff32 = u32(diff);
  drawGrayRows(a.data, a32, diff32, width, 0, y0);
  band.copy(diff, y0 * rowBytes);
  drawGrayRows(a.data, a32, diff32, width, Math.max(y0, y1), height);
  const counts = `${diffPixels} pixels (ratio ${ratioText(diffRatio)} of all image pixels) are different`;
  const message = sizeMismatch
    ? `Expected an image ${expected.width}px by ${expected.height}px, received ${actual.width}px by ${actual.height}px. ${counts} after padding both to ${width}px by ${height}px.`
    : `${counts}; the limit is ${limit}.`;
  return { pass, path: 'pixelmatch', diffPixels, diffRatio, ...base, message, diffPng: encodePng({ width, height, data: diff }) };
}

/** Synchronous, in-thread comparison of two PNGs. `compareImages` runs this in a worker. */
export function compareImagesSync(expected: Buffer, actual: Buffer, opts: CompareOptions = {}): CompareResult {
  validateCompareOptions(opts);
  const bytes = equalBytesResult(expected, actual, opts);
  if (bytes) return bytes;
  const [expImg, actImg] = decodePngPair(expected, actual);
  const exp = prepareImage(expImg, opts);
  const act = prepareImage(actImg, opts);
  checkClipHits(opts.clip, exp.fullSize, act.fullSize, exp.image, act.image);
  return compareRgba(exp.image, act.image, opts);
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
