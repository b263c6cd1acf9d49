// DevTools messages read as bytes, so that a message of any size is routed, renumbered and bounded
// without a string of it being built (V8 cannot build one over ~512 MiB, and every string is a copy).
//
// Chromium writes every message in one shape, without spaces: `{"id":N,` (an answer) or
// `{"method":"Domain.name",` (an event) first, and `,"sessionId":"…"}` last when it belongs to a
// session. Playwright writes its commands as `{"id":N,"method":"…","params":{…},"sessionId":"…"}`.
// Reading those two ends is enough to route a message; renumbering one rewrites its first bytes.
// Whatever has another shape is parsed instead (callers bound its size).

/** Chromium reads no message nested deeper than this (its JSON parser's stack limit). */
export const kMaxDepth = 300;
const kTooDeep = -2;
const kTooDeepMessage = `the message is nested more than ${kMaxDepth} levels deep, more than the browser reads`;
/** How much of a message's start and end is kept to read its id, method and session. */
export const kHeadBytes = 192;
export const kTailBytes = 96;

const kAnswerHead = /^\{"id":(0|[1-9]\d{0,15})[,}]/;
const kEventHead = /^\{"method":"([A-Za-z][\w.]{0,127})"[,}]/;
const kCommandHead = /^\{"id":(0|[1-9]\d{0,15}),"method":"([A-Za-z][\w.]{0,127})","params":(?=\{)/;
const kSessionTail = /,"sessionId":"([\w.-]{1,64})"\}$/;

export interface Answer {
  id: number;
  /** Bytes of `{"id":N`: what a renumbering replaces. */
  idEnd: number;
}

/** `{"id":N,…`: an answer's id. */
export function answerHead(head: Buffer): Answer | undefined {
  const m = kAnswerHead.exec(head.toString('latin1'));
  const id = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(id) ? { id, idEnd: 6 + m![1]!.length } : undefined;
}

/** `{"method":"…",…`: an event's method. */
export function eventHead(head: Buffer): string | undefined {
  return kEventHead.exec(head.toString('latin1'))?.[1];
}

export interface SessionTail {
  sessionId: string;
  /** Bytes of `,"sessionId":"…"}`: what taking the session away removes (before the closing brace). */
  length: number;
}

/** `…,"sessionId":"S"}`: the session of a message in Chromium's shape. */
export function sessionTail(tail: Buffer): SessionTail | undefined {
  const m = kSessionTail.exec(tail.toString('latin1'));
  return m ? { sessionId: m[1]!, length: m[0].length } : undefined;
}

export interface Command {
  id: number;
  method: string;
  sessionId: string | undefined;
  /** The command's params, as JSON bytes (a view of the message when it had Playwright's shape). */
  params: Buffer;
}

export type CommandRead =
  | { command: Command }
  /** Not a command this side can pass on: `id` (when it had one) gets the error. */
  | { refused: string; id: unknown; sessionId: unknown }
  /** Not a command at all (not JSON, no id or method): nobody to answer. */
  | undefined;

/**
 * A client's command. In Playwright's shape its params pass as bytes, once checked to be one object
 * nested no deeper than the browser reads (so that nothing after them can add keys). Any other shape
 * is parsed, once it is known to be shallow (V8 takes seconds to parse millions of `[`), and its
 * params are written again.
 */
export function readCommand(bytes: Buffer): CommandRead {
  const head = bytes.subarray(0, kHeadBytes).toString('latin1');
  const tail = sessionTail(bytes.subarray(-kTailBytes));
  const canonical = kCommandHead.exec(head);
  if (canonical) {
    const id = Number(canonical[1]);
    const start = canonical[0].length;
    const end = bytes.length - (tail ? tail.length : 1);
    const valueEnd = jsonValueEnd(bytes, start, end, 1);
    if (valueEnd === kTooDeep) return { refused: kTooDeepMessage, id, sessionId: tail?.sessionId };
    if (Number.isSafeInteger(id) && valueEnd === end && (tail || bytes[end] === 0x7d)) {
      return { command: { id, method: canonical[2]!, sessionId: tail?.sessionId, params: bytes.subarray(start, end) } };
    }
  }
  if (tooDeep(bytes)) {
    // Unread: its id is answered when it is at either end.
    const id = /^\{"id":(-?\d{1,15})[,}]/.exec(head) ?? /[{,]"id":(-?\d{1,15})\}$/.exec(bytes.subarray(-kTailBytes).toString('latin1'));
    return id ? { refused: kTooDeepMessage, id: Number(id[1]), sessionId: tail?.sessionId } : undefined;
  }
  let msg: unknown;
  try {
    msg = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return undefined;
  const { id, method, params, sessionId } = msg as Record<string, unknown>;
  if (typeof id !== 'number' || typeof method !== 'string') return undefined;
  if (!Number.isSafeInteger(id)) return { refused: "Message must have integer 'id' property", id, sessionId };
  if (sessionId !== undefined && typeof sessionId !== 'string') return { refused: "Message must have string 'sessionId' property", id, sessionId: undefined };
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) return { refused: "Message has property 'params' but it is not an object", id, sessionId };
  return { command: { id, method, sessionId, params: Buffer.from(JSON.stringify(params ?? {})) } };
}

/** Whether the JSON text in `bytes` is nested deeper than the browser reads (read up to the level past that). */
export function tooDeep(bytes: Buffer): boolean {
  let start = 0;
  while (start < bytes.length && (bytes[start] === 0x20 || bytes[start] === 0x0a || bytes[start] === 0x0d || bytes[start] === 0x09)) start++;
  return jsonValueEnd(bytes, start, bytes.length, 0) === kTooDeep;
}

/**
 * Where the JSON object or array that opens at `start`, `level` levels into the message, closes (the
 * index after it), reading no further than `end`: -1 when it does not close by then (or its brackets
 * do not pair), kTooDeep when the message is nested more than kMaxDepth deep there. Strings are
 * skipped with indexOf, so a long one (a screenshot, a file) costs little.
 */
function jsonValueEnd(bytes: Buffer, start: number, end: number, level: number): number {
  if (start < 0 || (bytes[start] !== 0x7b && bytes[start] !== 0x5b)) return -1;
  const open = new Uint8Array(kMaxDepth + 1);
  let depth = level;
  for (let i = start; i < end; i++) {
    const c = bytes[i];
    if (c === 0x22) {
      // To the closing quote: one not escaped by an odd run of backslashes.
      for (;;) {
        i = bytes.indexOf(0x22, i + 1);
        if (i === -1 || i >= end) return -1;
        let slashes = 0;
        while (bytes[i - 1 - slashes] === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (depth >= kMaxDepth) return kTooDeep;
      open[++depth] = c;
    } else if (c === 0x7d || c === 0x5d) {
      if (open[depth] !== c - 2) return -1; // `{` pairs with `}`, `[` with `]`: each 2 apart
      if (--depth === level) return i + 1;
    }
  }
  return -1;
}

// ------------------------------------------------------------------ a message held as pieces

/** The first `n` bytes of `parts` (a copy of at most `n` bytes when they span pieces). */
export function firstBytes(parts: readonly Buffer[], n: number): Buffer {
  if (!parts.length || parts[0]!.length >= n) return parts.length ? parts[0]!.subarray(0, n) : Buffer.alloc(0);
  return Buffer.concat(sliceParts(parts, 0, n));
}

/** The last `n` bytes of `parts` (a copy of at most `n` bytes when they span pieces). */
export function lastBytes(parts: readonly Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  for (let i = parts.length - 1, need = n; i >= 0 && need > 0; i--) {
    const p = parts[i]!;
    out.unshift(p.subarray(Math.max(0, p.length - need)));
    need -= out[0]!.length;
  }
  return out.length === 1 ? out[0]! : Buffer.concat(out);
}

/** Bytes [from, to) of the message held in `parts`, as views of them (nothing is copied). */
export function sliceParts(parts: readonly Buffer[], from: number, to: number): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const p of parts) {
    const s = Math.max(from - at, 0);
    const e = Math.min(to - at, p.length);
    if (s < e) out.push(p.subarray(s, e));
    at += p.length;
    if (at >= to) break;
  }
  return out;
}

/**
 * Splits a stream of NUL-terminated messages (Chromium's `--remote-debugging-pipe`) into messages
 * held as the pieces they came in, never joined. `limitOf(head)` says how long the message that
 * starts with `head` may be; past that its bytes are let go as they come, and `onDropped` is told
 * its first and last bytes once it ends.
 */
export class NulSplitter {
  #parts: Buffer[] = [];
  #size = 0;
  #limit: number | undefined;
  #dropped: { head: Buffer; tail: Buffer } | undefined;

  constructor(
    private readonly limitOf: (head: Buffer) => number,
    private readonly onMessage: (parts: Buffer[], size: number) => void,
    private readonly onDropped: (head: Buffer, tail: Buffer, size: number) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0); ; end = chunk.indexOf(0, start)) {
      this.#add(chunk.subarray(start, end === -1 ? chunk.length : end));
      if (end === -1) return;
      this.#end();
      start = end + 1;
    }
  }

  #add(piece: Buffer): void {
    if (!piece.length) return;
    this.#size += piece.length;
    if (this.#dropped) {
      this.#dropped.tail = lastBytes([this.#dropped.tail, piece], kTailBytes);
      return;
    }
    this.#parts.push(piece);
    if (this.#limit === undefined && this.#size >= kHeadBytes) this.#limit = this.limitOf(firstBytes(this.#parts, kHeadBytes));
    if (this.#limit !== undefined && this.#size > this.#limit) {
      // Copies of the two ends only: the rest goes now, and what follows is never kept.
      this.#dropped = { head: Buffer.from(firstBytes(this.#parts, kHeadBytes)), tail: Buffer.from(lastBytes(this.#parts, kTailBytes)) };
      this.#parts = [];
    }
  }

  #end(): void {
    const size = this.#size;
    const parts = this.#parts;
    const dropped = this.#dropped;
    this.#parts = [];
    this.#size = 0;
    this.#limit = undefined;
    this.#dropped = undefined;
    if (dropped) this.onDropped(dropped.head, dropped.tail, size);
    else if (size) this.onMessage(parts, size);
  }
}
