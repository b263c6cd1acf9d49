// The exit code of an Android command comes back in its output: the device's shell line ends with
// `echo boxflow-exit:$?` (commands.ts), so the output's last line is the marker and the code. The
// output goes on to the reader as it comes; only its end, as long as it could still be (the start
// of) that last line, is held back. That is at most the marker line's length, whatever the device
// sends: output that merely looks like the marker (`boxflow-exit:` and then megabytes of digits) is
// passed on once it can no longer be it, and each chunk is scanned once.

export const kExitMarker = 'boxflow-exit:';
/** The marker line at its longest: `$?` is 0–255 (three digits), the line may end in CRLF (a pty). */
export const kMarkerLineMax = kExitMarker.length + 3 + 2;
const kMarkerLine = /^boxflow-exit:(\d{1,3})\r?\n?$/;
const kMarkerLineStart = /^boxflow-exit:\d{1,3}(?:\r\n?|\n)?$/;

/** Whether `text` is the start of a marker line (or the whole of one). */
function couldBeMarker(text: string): boolean {
  return text.length <= kExitMarker.length ? kExitMarker.startsWith(text) : kMarkerLineStart.test(text);
}

export class ExitMarkerScanner {
  #held = Buffer.alloc(0);

  /** What is held back: the output's end while it could still be the marker line. */
  get held(): Buffer {
    return this.#held;
  }

  /** The output that `chunk` makes certain (it cannot be the marker line); the rest is held back. */
  push(chunk: Buffer): Buffer {
    const all = this.#held.length ? Buffer.concat([this.#held, chunk]) : chunk;
    const tail = all.subarray(Math.max(0, all.length - kMarkerLineMax)).toString('latin1');
    let keep = tail.length;
    while (keep > 0 && !couldBeMarker(tail.slice(tail.length - keep))) keep--;
    // A copy: the held bytes must not keep the device's whole chunk alive.
    this.#held = Buffer.from(all.subarray(all.length - keep));
    return all.subarray(0, all.length - keep);
  }

  /** At the output's end: the exit code when its last line is the marker, else undefined (the held bytes are then output). */
  end(): number | undefined {
    const line = kMarkerLine.exec(this.#held.toString('latin1'));
    return line ? Number(line[1]) : undefined;
  }
}
