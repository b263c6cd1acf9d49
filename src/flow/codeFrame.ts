/** Three lines around `line` with a caret under `column` (both 1-based), Babel style. */
export function codeFrame(text: string, line: number, column: number): string {
  const lines = text.split(/\r?\n/);
  const first = Math.max(1, line - 1);
  const last = Math.min(lines.length, line + 1);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const src = lines[n - 1] ?? '';
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${src}`.trimEnd());
    if (n === line) {
      // Keep tabs so the caret lines up with what the terminal shows.
      const lead = src.slice(0, Math.max(0, column - 1)).replace(/[^\t]/g, ' ');
      out.push(`  ${' '.repeat(width)} | ${lead}^`);
    }
  }
  return out.join('\n');
}
