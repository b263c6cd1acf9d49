// A command's output (POST /commands, /run-code and their websocket), one
// stream of it at a time: kept for the answer, or passed on as it comes to an OutputSink (the
// websocket). Either way at most `max` bytes of it, cut at a character boundary and said so at the
// end, with the same notes, so the two paths answer the same text. What was cut is also in the
// answer's `truncated` (bytes dropped per stream), which a client reads without parsing the note.
import type { CommandResult } from '../../api/schemas.js';
import { BoxflowError } from '../../errors.js';

/**
 * Where a command's output goes as it comes (the command websocket, http/endpoints/commandSocket.ts), instead
 * of into the answer: the commands and run-code handlers then answer `stdout` and `stderr` empty.
 */
export interface OutputSink {
  /** Output of one stream, as text (a character split between two reads waits for its end). */
  write(stream: 'stdout' | 'stderr', text: string): void;
  /** Whether the reader has too much unread: the command's output is then not read, so the command waits on its pipe. */
  full(): boolean;
  /** Calls `fn` once, when the reader has caught up. */
  onDrain(fn: () => void): void;
}

/** Refuses a path or argument with a NUL character (no file name or argument can hold one). */
export function noNul(value: string, field: string): string {
  if (value.includes('\0')) throw new BoxflowError('INVALID_REQUEST', `${field} must not contain a NUL character`);
  return value;
}

/** One stream's output, cut at `max` bytes (at a character boundary) and said so. */
export class Output {
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #total = 0;
  readonly #decoder = new TextDecoder('utf-8');
  /** The last character passed on to the sink; undefined before the first. */
  #last: string | undefined;

  /** With `sink`, the text goes there as it comes and `text()` answers ''. */
  constructor(
    readonly max: number,
    readonly sink?: (text: string) => void,
  ) {}

  add(chunk: Buffer): void {
    this.#total += chunk.length;
    if (this.#kept >= this.max) return;
    const part = chunk.subarray(0, this.max - this.#kept);
    this.#kept += part.length;
    if (this.sink) this.#emit(this.#decoder.decode(part, { stream: true }));
    else this.#chunks.push(part);
  }

  /** Bytes the stream has carried, kept or not. */
  get total(): number {
    return this.#total;
  }

  /** Bytes past `max`, counted but not kept. */
  get dropped(): number {
    return Math.max(0, this.#total - this.max);
  }

  /** Counts `n` bytes the stream carried that were never read (a file's size past what was pulled). */
  skip(n: number): void {
    this.#total += n;
  }

  #emit(text: string): void {
    if (!text) return;
    this.#last = text.at(-1);
    this.sink!(text);
  }

  /** The end: what is left, the note of a cut, and `note` (`[boxflow: …]`) on a line of its own. */
  text(note?: string): string {
    const cut = this.#total > this.max;
    // A character cut in two at the limit is left out (stream mode keeps an incomplete tail back).
    let out = this.sink ? (cut ? '' : this.#decoder.decode()) : new TextDecoder('utf-8').decode(Buffer.concat(this.#chunks), { stream: cut });
    if (cut) out += `\n[boxflow: output cut at ${this.max} bytes; the command wrote ${this.#total}]`;
    if (note) {
      const last = out ? out.at(-1) : this.#last;
      out += `${last !== undefined && last !== '\n' ? '\n' : ''}[boxflow: ${note}]`;
    }
    if (!this.sink) return out;
    this.#emit(out);
    return '';
  }
}

/**
 * A command's answer from its two outputs (their ends: the notes of a cut, `stderrNote` last), with
 * `truncated` naming the bytes dropped from each stream that was cut.
 */
export function commandResult(exitCode: number, stdout: Output, stderr: Output, stderrNote?: string): CommandResult {
  const truncated = { ...(stdout.dropped ? { stdout: stdout.dropped } : {}), ...(stderr.dropped ? { stderr: stderr.dropped } : {}) };
  return { exitCode, stdout: stdout.text(), stderr: stderr.text(stderrNote), ...(Object.keys(truncated).length ? { truncated } : {}) };
}

/**
 * Backpressure for a sink: `check()` after each chunk pauses `streams` while the sink is full, and
 * they are resumed once it has drained. Without a sink it does nothing.
 */
export class Backpressure {
  #paused = false;
  constructor(
    readonly sink: OutputSink | undefined,
    readonly streams: ReadonlyArray<{ pause(): unknown; resume(): unknown }>,
  ) {}

  get paused(): boolean {
    return this.#paused;
  }

  check(): void {
    if (this.#paused || !this.sink?.full()) return;
    this.#paused = true;
    for (const s of this.streams) s.pause();
    this.sink.onDrain(() => {
      this.#paused = false;
      for (const s of this.streams) s.resume();
    });
  }
}
