// How typed text is cut for the device: `input text` arguments short enough once quoted, and UTF-8
// pieces for ADBKeyBoard's broadcasts (androidBox.ts, type).

/** Characters of one `input text` argument (quoted: a `'` takes 4, a space 2). */
const kTextArgChars = 1_500;

/** `line` cut into `input text` arguments of at most kTextArgChars characters once quoted. */
export function textArgs(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let cost = 0;
  for (const c of line) {
    const n = c === "'" ? 4 : c === ' ' ? 2 : 1;
    if (cost + n > kTextArgChars) {
      out.push(cur);
      cur = '';
      cost = 0;
    }
    cur += c;
    cost += n;
  }
  if (cur) out.push(cur);
  return out;
}

/** `text` cut at code points into pieces of at most `bytes` UTF-8 bytes. */
export function utf8Chunks(text: string, bytes: number): string[] {
  const out: string[] = [];
  let cur = '';
  let size = 0;
  for (const c of text) {
    const n = Buffer.byteLength(c);
    if (size + n > bytes) {
      out.push(cur);
      cur = '';
      size = 0;
    }
    cur += c;
    size += n;
  }
  if (cur) out.push(cur);
  return out;
}
