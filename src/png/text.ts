// Text kept inside a PNG (an iTXt chunk: a keyword and UTF-8 text). Every PNG reader skips it, so the
// file still shows and compares as the image it is; boxflow reads back what it wrote there.
import { chunk } from './png.js';

const kSignatureLength = 8;

/** Each chunk of `png` as its type and where its body is; stops at IEND or at data that is not a chunk. */
function* chunks(png: Buffer): Generator<{ type: string; at: number; body: Buffer }> {
  let off = kSignatureLength;
  while (off + 12 <= png.length) {
    const len = png.readUInt32BE(off);
    const type = png.toString('latin1', off + 4, off + 8);
    if (off + 12 + len > png.length) return;
    yield { type, at: off, body: png.subarray(off + 8, off + 8 + len) };
    if (type === 'IEND') return;
    off += 12 + len;
  }
}

/** The keyword an iTXt body starts with, and the body's text (uncompressed ones only: boxflow writes no other). */
function readItxt(body: Buffer): { keyword: string; text?: string } {
  const end = body.indexOf(0);
  const keyword = body.toString('latin1', 0, end < 0 ? body.length : end);
  // keyword \0, compression flag, method, language tag \0, translated keyword \0, text
  if (end < 0 || body[end + 1] !== 0) return { keyword };
  const lang = body.indexOf(0, end + 3);
  const translated = lang < 0 ? -1 : body.indexOf(0, lang + 1);
  return translated < 0 ? { keyword } : { keyword, text: body.toString('utf8', translated + 1) };
}

/** The text `png` keeps under `keyword`, if any. */
export function pngText(png: Buffer, keyword: string): string | undefined {
  for (const c of chunks(png)) {
    if (c.type !== 'iTXt') continue;
    const { keyword: k, text } = readItxt(c.body);
    if (k === keyword) return text;
  }
  return undefined;
}

/** `png` with `text` kept under `keyword` (replacing what it kept there before), just before its IEND. */
export function withPngText(png: Buffer, keyword: string, text: string): Buffer {
  const parts: Buffer[] = [png.subarray(0, kSignatureLength)];
  for (const c of chunks(png)) {
    if (c.type === 'iTXt' && readItxt(c.body).keyword === keyword) continue;
    if (c.type === 'IEND') parts.push(chunk('iTXt', Buffer.concat([Buffer.from(`${keyword}\0\0\0\0\0`, 'latin1'), Buffer.from(text, 'utf8')])));
    parts.push(png.subarray(c.at, c.at + 12 + c.body.length));
  }
  return Buffer.concat(parts);
}
