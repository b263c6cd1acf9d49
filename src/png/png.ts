// PNG read/write tuned for screenshots. pngjs spends ~95% of a 1080×2400 decode in its JS
// unfilter/bitmap stages (zlib itself takes ~5 ms), and its default encoder tries every filter
// at deflate level 9. The common screenshot shapes (8-bit RGB/RGBA/grey/palette, not interlaced)
// take a tight typed-array path here; anything else falls back to pngjs.
// Hostile input: every chunk's CRC is checked, a header past kMaxSide/kMaxPixels is refused before
// anything is inflated, and inflating stops as soon as the data passes the size its header
// declares, so a small file cannot make the decoder allocate more than that size (IMAGE_CORRUPT).
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { PNG } from 'pngjs';
import { BoxflowError } from '../errors.js';

export interface Size {
  width: number;
  height: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** 8-bit RGBA pixels, row-major, no padding. */
export interface RgbaImage extends Size {
  data: Buffer;
}

const kLittleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const kMaxChunk = 64 << 20;
/** Widest or tallest image decoded (a screenshot is a few thousand pixels a side). */
const kMaxSide = 32768;
/** Most pixels decoded: 64 Mpx, 256 MiB of RGBA (a 1080×2400 screenshot is 2.6 Mpx). */
const kMaxPixels = 2 ** 26;
/** Adam7 passes: first column, first row, column step, row step. */
const kAdam7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]] as const;
/** Channels of each colour type. */
const kChannels: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Bit depths each colour type allows. */
const kDepths: Record<number, readonly number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
const kSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const inflateAsync = promisify(zlib.inflate);
const deflateAsync = promisify(zlib.deflate);

export function isPng(buf: Uint8Array): boolean {
  return buf.length >= 8 && Buffer.from(buf.buffer, buf.byteOffset, 8).equals(kSignature);
}

/** Not a PNG at all, or cut short. */
function notPng(what: string, why: string): BoxflowError {
  return new BoxflowError('INVALID_ARGUMENT', `${what} is not a valid PNG: ${why}.`);
}

/** A PNG whose content is corrupt or hostile: refused, never decoded into a "difference". */
function corrupt(what: string, why: string, cause?: unknown): BoxflowError {
  return new BoxflowError('IMAGE_CORRUPT', `${what} is a corrupt PNG: ${why}.`, cause === undefined ? undefined : { cause });
}

/** Width and height from the IHDR chunk, without decoding. */
export function pngSize(buf: Buffer, what = 'image'): Size {
  if (!isPng(buf)) throw notPng(what, 'missing PNG signature');
  if (buf.length < 24 || buf.toString('latin1', 12, 16) !== 'IHDR') throw notPng(what, 'missing IHDR chunk');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

interface Chunks {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
  palette?: Buffer;
  trns?: Buffer;
  idat: Buffer[];
}

/** The chunks of a PNG, each checked against its CRC, and its header checked for sense and size. */
function readChunks(buf: Buffer, what: string): Chunks {
  const { width, height } = pngSize(buf, what);
  if (buf.readUInt32BE(8) !== 13) throw corrupt(what, `its IHDR chunk is ${buf.readUInt32BE(8)} bytes, not 13`);
  const out: Chunks = { width, height, bitDepth: buf[24]!, colorType: buf[25]!, interlace: buf[28]!, idat: [] };
  if (width === 0 || height === 0) throw corrupt(what, `its header declares ${width}x${height} pixels`);
  if (width > kMaxSide || height > kMaxSide || width * height > kMaxPixels) {
    throw corrupt(what, `its header declares ${width}x${height} pixels, over what boxflow decodes (${kMaxSide} a side, ${kMaxPixels} pixels in all)`);
  }
  if (!kDepths[out.colorType]?.includes(out.bitDepth) || buf[26] !== 0 || buf[27] !== 0 || out.interlace > 1) {
    throw corrupt(what, `its header is invalid (bit depth ${out.bitDepth}, colour type ${out.colorType}, compression ${buf[26]}, filter ${buf[27]}, interlace ${out.interlace})`);
  }
  let off = 8;
  while (off + 8 <= buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    const start = off + 8;
    if (start + len + 4 > buf.length) throw notPng(what, `chunk ${type} runs past the end of the data`);
    const body = buf.subarray(start, start + len);
    if (crc32(buf.subarray(off + 4, start + len)) !== buf.readUInt32BE(start + len)) throw corrupt(what, `chunk ${type} at byte ${off} fails its CRC`);
    if (type === 'IDAT') out.idat.push(body);
    else if (type === 'PLTE') out.palette = body;
    else if (type === 'tRNS') out.trns = body;
    else if (type === 'IEND') break;
    off = start + len + 4;
  }
  if (!out.idat.length) throw notPng(what, 'no image data');
  return out;
}

/** Reverses the row filters of rows y0..y1-1 in place; row y0-1 must already be unfiltered. */
function unfilter(raw: Uint8Array, y0: number, y1: number, stride: number, bpp: number): void {
  const rowLen = stride + 1;
  for (let y = y0; y < y1; y++) {
    const cur = y * rowLen + 1;
    const end = cur + stride;
    let f = raw[cur - 1]!;
    // On the first row "up" is zero: Up is None, Paeth is Sub, Average halves left only.
    if (y === 0 && (f === 2 || f === 4)) f = f === 2 ? 0 : 1;
    switch (f) {
      case 0:
        break;
      case 1:
        for (let i = cur + bpp; i < end; i++) raw[i] = raw[i]! + raw[i - bpp]!;
        break;
      case 2: {
        // Four bytes per step, each added without carry into the next (SWAR): screenshots are
        // mostly Up rows, and this is three times the byte loop's speed.
        const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
        let i = cur;
        for (const stop = end - 3; i < stop; i += 4) {
          const a = dv.getUint32(i, true);
          const b = dv.getUint32(i - rowLen, true);
          dv.setUint32(i, (((a & 0x7f7f7f7f) + (b & 0x7f7f7f7f)) ^ ((a ^ b) & 0x80808080)) >>> 0, true);
        }
        for (; i < end; i++) raw[i] = raw[i]! + raw[i - rowLen]!;
        break;
      }
      case 3:
        if (y === 0) {
          for (let i = cur + bpp; i < end; i++) raw[i] = raw[i]! + (raw[i - bpp]! >> 1);
        } else {
          for (let i = cur; i < cur + bpp; i++) raw[i] = raw[i]! + (raw[i - rowLen]! >> 1);
          for (let i = cur + bpp; i < end; i++) raw[i] = raw[i]! + ((raw[i - bpp]! + raw[i - rowLen]!) >> 1);
        }
        break;
      case 4: {
        for (let i = cur; i < cur + bpp; i++) raw[i] = raw[i]! + raw[i - rowLen]!;
        for (let i = cur + bpp; i < end; i++) {
          const a = raw[i - bpp]!;
          const b = raw[i - rowLen]!;
          const c = raw[i - rowLen - bpp]!;
          const pa = b > c ? b - c : c - b;
          const pb = a > c ? a - c : c - a;
          const pc0 = a + b - c - c;
          const pc = pc0 < 0 ? -pc0 : pc0;
          raw[i] = raw[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
        }
        break;
      }
      default:
        throw new BoxflowError('IMAGE_CORRUPT', `PNG row ${y} has an unknown filter type ${f}.`);
    }
  }
}

interface Inflated {
  c: Chunks;
  bpp: number;
  stride: number;
  /** Filtered scanlines, each led by its filter byte; unfiltered in place as rows are decoded. */
  raw: Buffer;
}

/** Bytes per pixel and per row of a PNG the typed-array path handles, else undefined (pngjs decodes it). */
function shapeOf(c: Chunks): { bpp: number; stride: number; size: number } | undefined {
  const fast = c.bitDepth === 8 && c.interlace === 0 &&
    (c.colorType === 6 || c.colorType === 4 || ((c.colorType === 2 || c.colorType === 0) && !c.trns) || (c.colorType === 3 && !!c.palette));
  if (!fast) return undefined;
  const bpp = c.colorType === 6 ? 4 : c.colorType === 2 ? 3 : c.colorType === 4 ? 2 : 1;
  const stride = c.width * bpp;
  return { bpp, stride, size: c.height * (stride + 1) };
}

/** Bytes of the filtered scanlines the header declares: every scanline, each led by its filter byte. */
function inflatedSize(c: Chunks): number {
  const bits = kChannels[c.colorType]! * c.bitDepth;
  const rows = (w: number, h: number) => (w && h ? h * (1 + Math.ceil((w * bits) / 8)) : 0);
  if (!c.interlace) return rows(c.width, c.height);
  let n = 0;
  for (const [x0, y0, dx, dy] of kAdam7) n += rows(Math.ceil(Math.max(0, c.width - x0) / dx), Math.ceil(Math.max(0, c.height - y0) / dy));
  return n;
}

/**
 * The scanlines of a PNG the typed-array path handles, else undefined (pngjs decodes it, once its
 * data is known to inflate to its size); `async` inflates off the main thread. Inflating stops as
 * soon as the output passes the size the header declares.
 */
function inflate(buf: Buffer, what: string): Inflated | undefined;
function inflate(buf: Buffer, what: string, async: true): Promise<Inflated | undefined>;
function inflate(buf: Buffer, what: string, async?: true): Inflated | undefined | Promise<Inflated | undefined> {
  const c = readChunks(buf, what);
  const shape = shapeOf(c);
  const size = shape?.size ?? inflatedSize(c);
  const data = c.idat.length === 1 ? c.idat[0]! : Buffer.concat(c.idat);
  // One output chunk of the known size: the default 16 KiB chunks cost twice the inflate itself.
  // With size + 1 bytes in it, data that inflates past its size is refused when that chunk fills.
  const options = { chunkSize: Math.max(zlib.constants.Z_MIN_CHUNK, Math.min(size + 1, kMaxChunk)), maxOutputLength: size };
  const done = (raw: Buffer): Inflated | undefined => {
    if (raw.length < size) throw corrupt(what, `its image data inflates to ${raw.length} bytes, short of the ${size} its ${c.width}x${c.height} header declares`);
    return shape && { c, bpp: shape.bpp, stride: shape.stride, raw };
  };
  const failed = (err: unknown) => (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE'
    ? corrupt(what, `its image data inflates past the ${size} bytes its ${c.width}x${c.height} header declares`, err)
    : corrupt(what, `its image data does not inflate (${(err as Error).message})`, err);
  if (async) return inflateAsync(data, options).then(done, (err: unknown) => Promise.reject(failed(err)));
  let raw: Buffer;
  try {
    raw = zlib.inflateSync(data, options);
  } catch (err) {
    throw failed(err);
  }
  return done(raw);
}

/** Decodes any PNG to 8-bit RGBA. */
export function decodePng(buf: Buffer, what = 'image'): RgbaImage {
  const img = inflate(buf, what);
  // pngjs gets only what passed the checks above: its CRCs, header and inflated size.
  if (!img) return decodeWithPngjs(buf, what);
  const { width, height } = img.c;
  unfilter(img.raw, 0, height, img.stride, img.bpp);
  const out = Buffer.allocUnsafeSlow(width * height * 4);
  expandRows(img, out, 0, height);
  return { width, height, data: out };
}

/** Both images, and the rows [from, to) outside which they are known to be equal (when known). */
export type PngPair = [RgbaImage, RgbaImage, [number, number] | undefined];

/**
 * Decodes two PNGs that are likely to show nearly the same screen. A scanline whose filtered
 * bytes and whose previous row are equal in both reconstructs to the same pixels, so only the
 * band of rows from the first differing scanline until the two images agree again is decoded a
 * second time; the rest of `b` is a copy of `a` (with `bandMargin`, only the rows that many around
 * the band are: the rest is left zero). Same pixels as two decodePng calls where they are written.
 */
export function decodePngPair(a: Buffer, b: Buffer, whatA = 'expected image', whatB = 'actual image', bandMargin?: number): PngPair {
  const ia = inflate(a, whatA);
  const ib = inflate(b, whatB);
  if (!ia || !ib || !sameFormat(ia.c, ib.c)) return [decodePng(a, whatA), decodePng(b, whatB), undefined];
  const { width, height } = ia.c;
  const { stride, bpp } = ia;
  const rowLen = stride + 1;
  const rowEq = (y: number) => ia.raw.compare(ib.raw, y * rowLen, (y + 1) * rowLen, y * rowLen, (y + 1) * rowLen) === 0;
  let first = 0;
  while (first < height && rowEq(first)) first++;
  let last = height - 1;
  while (last > first && rowEq(last)) last--;
  unfilter(ia.raw, 0, height, stride, bpp);
  const outA = Buffer.allocUnsafeSlow(width * height * 4);
  expandRows(ia, outA, 0, height);
  // With `bandMargin`, the caller reads `b` only within the band and that many rows around it: the
  // rest stays zeros (memory never touched) instead of a copy of `a` (3-6 ms at 1080x2400).
  const bandOnly = bandMargin !== undefined;
  const outB = bandOnly ? Buffer.alloc(outA.length) : Buffer.allocUnsafeSlow(outA.length);
  if (!bandOnly) outA.copy(outB);
  if (first === height) return [{ width, height, data: outA }, { width, height, data: outB }, [0, 0]];
  // b's row first-1 is a's (equal so far), the seed its first differing row unfilters against.
  if (first > 0) ia.raw.copy(ib.raw, (first - 1) * rowLen, (first - 1) * rowLen, first * rowLen);
  // Rows whose pixels come out equal keep a's copy; past the last differing scanline, the first
  // such row ends the search.
  let lo = -1;
  let hi = -1;
  for (let y = first; y < height; y++) {
    unfilter(ib.raw, y, y + 1, stride, bpp);
    const same = ia.raw.compare(ib.raw, y * rowLen + 1, (y + 1) * rowLen, y * rowLen + 1, (y + 1) * rowLen) === 0;
    if (!same) {
      if (lo < 0) lo = y;
      hi = y;
    } else if (y > last) {
      break;
    }
  }
  if (lo < 0) return [{ width, height, data: outA }, { width, height, data: outB }, [0, 0]];
  if (bandOnly) {
    const rowBytes = width * 4;
    outA.copy(outB, Math.max(0, lo - bandMargin) * rowBytes, Math.max(0, lo - bandMargin) * rowBytes, Math.min(height, hi + 1 + bandMargin) * rowBytes);
  }
  expandRows(ib, outB, lo, hi + 1);
  return [{ width, height, data: outA }, { width, height, data: outB }, [lo, hi + 1]];
}

function sameFormat(a: Chunks, b: Chunks): boolean {
  const eq = (x?: Buffer, y?: Buffer) => (x === undefined ? y === undefined : y !== undefined && x.equals(y));
  return a.width === b.width && a.height === b.height && a.colorType === b.colorType && eq(a.palette, b.palette) && eq(a.trns, b.trns);
}

/** Unfiltered scanlines y0..y1-1 to RGBA pixels in `out`. */
function expandRows({ c, bpp, stride, raw }: Inflated, out: Buffer, y0: number, y1: number): void {
  const { width } = c;
  const rowLen = stride + 1;
  if (c.colorType === 6) {
    for (let y = y0; y < y1; y++) raw.copy(out, y * stride, y * rowLen + 1, y * rowLen + 1 + stride);
    return;
  }
  let o = y0 * width * 4;
  if (c.colorType === 2 && kLittleEndian && out.byteOffset % 4 === 0) {
    // Int32: V8 keeps these values small integers; Uint32 values above 2^31 would be doubles.
    const out32 = new Int32Array(out.buffer, out.byteOffset, out.length >> 2);
    // Four pixels from three four-byte loads, twice the speed of a load per byte.
    const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    let p = y0 * width;
    for (let y = y0; y < y1; y++) {
      let i = y * rowLen + 1;
      const end = i + stride;
      for (; i + 12 <= end; i += 12) {
        const a = dv.getInt32(i, true);
        const b = dv.getInt32(i + 4, true);
        const c = dv.getInt32(i + 8, true);
        out32[p++] = (a & 0xffffff) | 0xff000000;
        out32[p++] = (a >>> 24) | ((b & 0xffff) << 8) | 0xff000000;
        out32[p++] = (b >>> 16) | ((c & 0xff) << 16) | 0xff000000;
        out32[p++] = (c >>> 8) | 0xff000000;
      }
      for (; i < end; i += 3) out32[p++] = raw[i]! | (raw[i + 1]! << 8) | (raw[i + 2]! << 16) | 0xff000000;
    }
  } else if (c.colorType === 2) {
    for (let y = y0; y < y1; y++) {
      for (let i = y * rowLen + 1, end = i + stride; i < end; i += 3) {
        out[o++] = raw[i]!;
        out[o++] = raw[i + 1]!;
        out[o++] = raw[i + 2]!;
        out[o++] = 255;
      }
    }
  } else if (c.colorType === 0 || c.colorType === 4) {
    for (let y = y0; y < y1; y++) {
      for (let i = y * rowLen + 1, end = i + stride; i < end; i += bpp) {
        const v = raw[i]!;
        out[o++] = v;
        out[o++] = v;
        out[o++] = v;
        out[o++] = bpp === 2 ? raw[i + 1]! : 255;
      }
    }
  } else {
    const plte = c.palette!;
    const trns = c.trns;
    for (let y = y0; y < y1; y++) {
      for (let i = y * rowLen + 1, end = i + stride; i < end; i++) {
        const k = raw[i]!;
        out[o++] = plte[k * 3] ?? 0;
        out[o++] = plte[k * 3 + 1] ?? 0;
        out[o++] = plte[k * 3 + 2] ?? 0;
        out[o++] = trns && k < trns.length ? trns[k]! : 255;
      }
    }
  }
}

function decodeWithPngjs(buf: Buffer, what: string): RgbaImage {
  try {
    const png = PNG.sync.read(buf);
    return { width: png.width, height: png.height, data: png.data };
  } catch (err) {
    throw corrupt(what, (err as Error).message, err);
  }
}

let crcTable: Int32Array | undefined;
function crc32(data: Buffer): number {
  const native = (zlib as { crc32?: (d: Uint8Array) => number }).crc32;
  if (native) return native(data);
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  let c = -1;
  for (let i = 0; i < data.length; i++) c = crcTable[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

export function chunk(type: string, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  body.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

/**
 * Encodes RGBA pixels quickly: RGB when every pixel is opaque, the "up" filter on every row,
 * deflate level 1 with run-length matching (screenshots and diffs are long runs of one colour).
 * Measured on 1080×2400: ~20 ms and smaller files than pngjs's defaults, which take ~280 ms.
 */
export function encodePng(img: RgbaImage): Buffer {
  const { width, height, data } = img;
  const n = width * height;
  const aligned = kLittleEndian && data.byteOffset % 4 === 0;
  const px = aligned ? new Uint32Array(data.buffer, data.byteOffset, n) : undefined;
  let opaque = true;
  if (px) {
    for (let i = 0; i < n; i++) if (px[i]! < 0xff000000) { opaque = false; break; }
  } else {
    for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) { opaque = false; break; }
  }
  const bpp = opaque ? 3 : 4;
  const stride = width * bpp;
  const rowLen = stride + 1;
  const packed = Buffer.allocUnsafe(height * rowLen);
  let o = 0;
  if (opaque && px) {
    for (let y = 0; y < height; y++) {
      packed[o++] = 2;
      const row = y * width;
      if (y === 0) {
        for (let i = 0; i < width; i++) {
          const v = px[i]!;
          packed[o++] = v;
          packed[o++] = v >>> 8;
          packed[o++] = v >>> 16;
        }
      } else {
        for (let i = row, end = row + width; i < end; i++) {
          const v = px[i]!;
          const u = px[i - width]!;
          packed[o++] = v - u;
          packed[o++] = (v >>> 8) - (u >>> 8);
          packed[o++] = (v >>> 16) - (u >>> 16);
        }
      }
    }
  } else {
    for (let y = 0; y < height; y++) {
      packed[o++] = 2;
      for (let i = y * width * 4, end = i + width * 4; i < end; i += 4) {
        packed[o++] = data[i]!;
        packed[o++] = data[i + 1]!;
        packed[o++] = data[i + 2]!;
        if (!opaque) packed[o++] = data[i + 3]!;
      }
    }
    for (let y = height - 1; y > 0; y--) {
      const cur = y * rowLen + 1;
      for (let i = cur, end = cur + stride; i < end; i++) packed[i] = packed[i]! - packed[i - rowLen]!;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = opaque ? 2 : 6;
  const idat = zlib.deflateSync(packed, { level: 1, strategy: zlib.constants.Z_RLE });
  return Buffer.concat([kSignature, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * Encodes palette-indexed pixels (one byte each) with their RGBA colours: a third of the bytes
 * of RGB for deflate. Diff images, a faded grey of a screenshot with a few marks, have few colours.
 */
export function encodeIndexedPng(width: number, height: number, index: Uint8Array, colors: readonly (readonly [number, number, number, number])[]): Buffer {
  if (colors.length > 256) throw new BoxflowError('INVALID_ARGUMENT', `a palette holds at most 256 colours, got ${colors.length}.`);
  const rowLen = width + 1;
  const packed = Buffer.allocUnsafe(height * rowLen);
  // No filter: long runs of one index are what Z_RLE compresses best anyway.
  for (let y = 0; y < height; y++) {
    packed[y * rowLen] = 0;
    packed.set(index.subarray(y * width, (y + 1) * width), y * rowLen + 1);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 3;
  const plte = Buffer.from(colors.flatMap(([r, g, b]) => [r, g, b]));
  const alpha = colors.map((c) => c[3]);
  const trns = alpha.some((a) => a !== 255) ? [chunk('tRNS', Buffer.from(alpha))] : [];
  const idat = zlib.deflateSync(packed, { level: 1, strategy: zlib.constants.Z_RLE });
  return Buffer.concat([kSignature, chunk('IHDR', ihdr), chunk('PLTE', plte), ...trns, chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** A patch of RGBA pixels (not premultiplied) placed at (x, y) over an image. */
export interface Overlay extends RgbaImage {
  x: number;
  y: number;
}


/**
 * The PNG with `overlay` blended over it. For 8-bit RGB and RGBA (every screenshot), only the rows
 * from the top to the overlay's end are unfiltered, and only the overlay's rows and the one below are
 * written again (with no filter); every other scanline keeps its bytes. The deflate runs off the main
 * thread. Other shapes are decoded whole and encoded again.
 */
export async function overlayPng(png: Buffer, overlay: Overlay, what = 'image'): Promise<Buffer> {
  const img = await inflate(png, what, true);
  if (!img || (img.c.colorType !== 2 && img.c.colorType !== 6)) {
    const rgba = decodePng(png, what);
    blendOver(rgba.data, rgba.width, 4, overlay, clampRect(overlay, rgba), 0);
    return encodePng(rgba);
  }
  const { c, bpp, stride, raw } = img;
  const area = clampRect(overlay, c);
  if (!area.width || !area.height) return png;
  const rowLen = stride + 1;
  const end = area.y + area.height;
  // The row below the overlay is filtered against one that changes: it is written again too.
  const last = Math.min(c.height, end + 1);
  const rows = Buffer.from(raw.subarray(0, last * rowLen));
  unfilter(rows, 0, last, stride, bpp);
  blendOver(rows, c.width, bpp, overlay, area, 1);
  for (let y = area.y; y < last; y++) {
    raw[y * rowLen] = 0;
    rows.copy(raw, y * rowLen + 1, y * rowLen + 1, (y + 1) * rowLen);
  }
  const idat = await deflateAsync(raw.subarray(0, c.height * rowLen), { level: 1 });
  return Buffer.concat([kSignature, chunk('IHDR', png.subarray(16, 29)), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** Source-over of the overlay's pixels inside `area` onto 8-bit RGB (bpp 3) or RGBA (bpp 4) rows, each `lead` bytes in. */
function blendOver(dst: Buffer, width: number, bpp: number, overlay: Overlay, area: Rect, lead: number): void {
  const rowLen = width * bpp + lead;
  for (let y = area.y; y < area.y + area.height; y++) {
    let o = ((y - overlay.y) * overlay.width + (area.x - overlay.x)) * 4;
    let d = y * rowLen + lead + area.x * bpp;
    for (let x = 0; x < area.width; x++, o += 4, d += bpp) {
      const a = overlay.data[o + 3]!;
      if (a === 0) continue;
      const da = bpp === 4 ? dst[d + 3]! : 255;
      // out = src·a + dst·da·(1 − a), over out's alpha; with an opaque dst that is the plain mix.
      const keep = (da * (255 - a)) / 255;
      const outA = a + keep;
      for (let k = 0; k < 3; k++) dst[d + k] = Math.round((overlay.data[o + k]! * a + dst[d + k]! * keep) / outA);
      if (bpp === 4) dst[d + 3] = Math.round(outA);
    }
  }
}

/** Clamps a rectangle to the image (floor the start, ceil the end); may come out empty. */
export function clampRect(r: Rect, size: Size): Rect {
  const x0 = Math.max(0, Math.min(size.width, Math.floor(r.x)));
  const y0 = Math.max(0, Math.min(size.height, Math.floor(r.y)));
  const x1 = Math.max(x0, Math.min(size.width, Math.ceil(r.x + r.width)));
  const y1 = Math.max(y0, Math.min(size.height, Math.ceil(r.y + r.height)));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

export function cropRgba(img: RgbaImage, rect: Rect): RgbaImage {
  const r = clampRect(rect, img);
  if (r.x === 0 && r.y === 0 && r.width === img.width && r.height === img.height) return img;
  const out = Buffer.allocUnsafeSlow(r.width * r.height * 4);
  for (let y = 0; y < r.height; y++) {
    const src = ((r.y + y) * img.width + r.x) * 4;
    img.data.copy(out, y * r.width * 4, src, src + r.width * 4);
  }
  return { width: r.width, height: r.height, data: out };
}

/** Places the image at the top-left of a transparent width×height canvas. */
export function padRgba(img: RgbaImage, width: number, height: number): RgbaImage {
  if (img.width === width && img.height === height) return img;
  const out = Buffer.alloc(width * height * 4);
  const w = Math.min(width, img.width);
  for (let y = 0; y < Math.min(height, img.height); y++) img.data.copy(out, y * width * 4, y * img.width * 4, (y * img.width + w) * 4);
  return { width, height, data: out };
}

/** Paints a rectangle (clamped to the image) in place with one RGBA colour. */
export function fillRect(img: RgbaImage, rect: Rect, rgba: readonly [number, number, number, number]): void {
  const r = clampRect(rect, img);
  if (!r.width || !r.height) return;
  const px = Buffer.from(rgba);
  for (let y = r.y; y < r.y + r.height; y++) {
    const start = (y * img.width + r.x) * 4;
    img.data.fill(px, start, start + r.width * 4);
  }
}
