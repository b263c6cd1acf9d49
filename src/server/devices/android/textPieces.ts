// How typed text is cut for the device: `input text` arguments short enough once quoted, and UTF-8
// pieces for ADBKeyBoard's broadcasts (androidBox.ts, type).

/** Characters of one `input text` argument (quoted: a `'` takes 4, a space 2). */
const kTextArgChars = 1_500;

/** `text` cut at code points into pieces whose `cost` adds up to at most `max`. */
function pieces(text: string, max: number, cost: (c: string) => number): string[] {
  const out: string[] = [];
  let cur = '';
  let sum = 0;
  for (const c of text) {
    const n = cost(c);
    if (sum + n > max) {
      out.push(cur);
      cur = '';
      sum = 0;
    }
    cur += c;
    sum += n;
  }
  if (cur) out.push(cur);
  return out;
}

/** `line` cut into `input text` arguments of at most kTextArgChars characters once quoted. */
export function textArgs(line: string): string[] {
  return pieces(line, kTextArgChars, (c) => (c === "'" ? 4 : c === ' ' ? 2 : 1));
}

/** `text` cut at code points into pieces of at most `bytes` UTF-8 bytes. */
export function utf8Chunks(text: string, bytes: number): string[] {
  return pieces(text, bytes, (c) => Buffer.byteLength(c));
}
