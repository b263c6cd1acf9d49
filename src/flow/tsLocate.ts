// Where the elements of a declarative TS flow's step lists are written, found by scanning the
// source text (brackets, strings, template literals and comments aware), so each step of
// `flow({ steps: [...] })` is reported at its own line rather than at the `flow(` call.

/** Offsets of the top-level elements of the array literal that starts at `open` (a '['). */
function arrayElements(text: string, open: number): number[] {
  const starts: number[] = [];
  let depth = 0;
  let expectElement = true;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      i = text.indexOf('\n', i);
      if (i < 0) break;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2) + 1;
      if (i <= 0) break;
      continue;
    }
    if (depth === 1 && expectElement && !/[\s,\]]/.test(c)) {
      starts.push(i);
      expectElement = false;
    }
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
      continue;
    }
    if (c === '[' || c === '{' || c === '(') depth++;
    else if (c === ']' || c === '}' || c === ')') {
      depth--;
      if (depth === 0) break;
    } else if (c === ',' && depth === 1) expectElement = true;
  }
  return starts;
}

/** `{steps: [line, column][], onStart: ..., onFinish: ...}` of the flow call at `from`. */
export function stepPositions(text: string, from: number): Partial<Record<'steps' | 'onStart' | 'onFinish', { line: number; column: number }[]>> {
  const out: Partial<Record<'steps' | 'onStart' | 'onFinish', { line: number; column: number }[]>> = {};
  const at = (offset: number) => {
    const before = text.slice(0, offset).split('\n');
    return { line: before.length, column: before.at(-1)!.length + 1 };
  };
  for (const key of ['steps', 'onStart', 'onFinish'] as const) {
    const m = new RegExp(`\\b${key}\\s*:\\s*\\[`, 'g');
    m.lastIndex = from;
    const found = m.exec(text);
    if (found) out[key] = arrayElements(text, found.index + found[0].length - 1).map(at);
  }
  return out;
}
