// The one code frame: flow errors (validate), the runner's step snippets and the reporters' frames
// read from a flow file all print it, so a frame looks the same wherever it is shown.

/** Three lines around `line` with a caret under `column` (both 1-based; column 0: no caret), Babel style. */
export function codeFrame(text: string, line: number, column: number): string {
  const lines = text.split(/\r?\n/);
  // A file's final newline starts no line of its own, unless the error is there (an unclosed quote).
  if (lines.length > line && lines[lines.length - 1] === '') lines.pop();
  const first = Math.max(1, line - 1);
  const last = Math.min(lines.length, line + 1);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const src = lines[n - 1] ?? '';
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${src}`.trimEnd());
    if (n === line && column > 0) {
      // Keep tabs so the caret lines up with what the terminal shows.
      const lead = src.slice(0, column - 1).replace(/[^\t]/g, ' ');
      out.push(`  ${' '.repeat(width)} | ${lead}^`);
    }
  }
  return out.join('\n');
}
