// The flow file boxflow studio writes to: a boxflow YAML flow (its `steps:` list) or a Maestro flow
// (the command list after `---`). Steps are added at a place in the list, moved and deleted with
// everything else kept as it was, comments included. A new item is rendered in the file's own style:
// the yaml package's Document API renders it (maps in flow `{ }` or block style, the padding inside
// braces, quoting and indentation taken from the items already there). Edits are made on the text,
// a step's lines with the comment lines right above it; should the result not read back as the same
// document with the steps expected (an unusual layout), the whole document is written by the Document
// API instead (parse, change the list, toString), which also keeps comments.
import { Document, isMap, isScalar, isSeq, parseAllDocuments, parseDocument, stringify, visit, type Node, type Scalar, type YAMLSeq } from 'yaml';
import { isMaestroFlow } from '../flow/maestro.js';
import type { Dialect } from './selectors.js';

export interface StepItem {
  /** Position in the steps (commands) list. */
  index: number;
  /** 1-based line of the item's dash. */
  line: number;
  /** The item as written (its source, without the dash). */
  text: string;
}

/** Maestro when the text is a Maestro flow; for a new file, boxflow for *.flow.yaml and Maestro for any other .yaml. */
export function dialectOf(file: string, text: string | undefined): Dialect {
  if (text !== undefined && text.trim()) return isMaestroFlow(text) ? 'maestro' : 'boxflow';
  return /\.flow\.ya?ml$/i.test(file) ? 'boxflow' : 'maestro';
}

/** The text of a new flow file (written with its first step). */
export function newFlowText(dialect: Dialect, opts: { name: string; web: boolean; app?: string }): string {
  if (dialect === 'boxflow') return `name: ${JSON.stringify(opts.name)}\n${opts.web ? '' : 'box: android\n'}steps:\n`;
  const app = opts.app ?? (opts.web ? 'http://127.0.0.1/' : 'com.example.app');
  return `${opts.web ? 'url' : 'appId'}: ${app}\nname: ${JSON.stringify(opts.name)}\n---\n`;
}

interface Located {
  doc: Document;
  /** The list of steps, when there is one. */
  seq: YAMLSeq | undefined;
  /** Where a new list would go: the `steps:` key's line end (boxflow, null value), or the end of the text (Maestro, empty commands). */
  emptyAt?: { offset: number; column: number };
}

function locate(text: string, dialect: Dialect): Located {
  if (dialect === 'maestro') {
    const docs = parseAllDocuments(text);
    const list = Array.isArray(docs) ? docs : [];
    const doc = list[1] ?? list[0];
    if (!doc || list.length < 2) throw new Error('a Maestro flow has a config, `---`, then its commands');
    const contents = doc.contents as Node | null;
    if (isSeq(contents)) return { doc, seq: contents };
    return { doc, seq: undefined, emptyAt: { offset: text.length, column: 0 } };
  }
  const doc = parseDocument(text);
  const steps = doc.get('steps', true) as Node | undefined;
  if (isSeq(steps)) return { doc, seq: steps };
  const root = doc.contents;
  if (isMap(root)) {
    const pair = root.items.find((p) => isScalar(p.key) && p.key.value === 'steps');
    const key = pair?.key as Scalar | undefined;
    if (key?.range && (pair!.value === null || (isScalar(pair!.value) && pair!.value.value === null))) {
      const lineEnd = text.indexOf('\n', key.range[1]);
      const lc = lineStart(text, key.range[0]);
      return { doc, seq: undefined, emptyAt: { offset: lineEnd < 0 ? text.length : lineEnd + 1, column: key.range[0] - lc + 2 } };
    }
  }
  return { doc, seq: undefined };
}

const lineStart = (text: string, offset: number) => text.lastIndexOf('\n', offset - 1) + 1;

/** The items of the flow's steps list with their lines. */
export function stepItems(text: string, dialect: Dialect): StepItem[] {
  let seq: YAMLSeq | undefined;
  try {
    seq = locate(text, dialect).seq;
  } catch {
    return [];
  }
  if (!seq) return [];
  return seq.items.map((item, index) => {
    const range = (item as Node).range;
    const start = range ? range[0] : 0;
    const end = range ? range[1] : start;
    return { index, line: lineOf(text, start), text: text.slice(start, end).trim() };
  });
}

const lineOf = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

type Quote = 'PLAIN' | 'QUOTE_DOUBLE' | 'QUOTE_SINGLE';

interface Style {
  flowMaps: boolean;
  padding: boolean;
  /** How a step's own string argument is quoted (`tapOn: "Text"`), and a string inside a map (`{ id: x }`). */
  quote: Quote;
  nestedQuote: Quote;
  /** Column of the items' dashes. */
  column: number;
  indent: number;
}

/** How the list's items are written (a new file: boxflow's docs style, or Maestro's). */
function styleOf(text: string, dialect: Dialect, at: Located): Style {
  const style: Style = { flowMaps: true, padding: dialect === 'boxflow', quote: dialect === 'maestro' ? 'QUOTE_DOUBLE' : 'PLAIN', nestedQuote: 'PLAIN', column: at.emptyAt?.column ?? 0, indent: 2 };
  const indents = [...text.matchAll(/^( +)\S/gm)].map((m) => m[1]!.length);
  const unit = indents.length ? indents.reduce((a, b) => gcd(a, b)) : 2;
  if (unit === 2 || unit === 4) style.indent = unit;
  const seq = at.seq;
  if (!seq?.items.length) return style;
  const first = (seq.items[0] as Node).range;
  if (first) style.column = Math.max(0, text.lastIndexOf('-', first[0]) - lineStart(text, first[0]));
  let flow = 0;
  let block = 0;
  let padded = 0;
  let tight = 0;
  let nestedFound = false;
  const quotes = { PLAIN: 0, QUOTE_DOUBLE: 0, QUOTE_SINGLE: 0 };
  const nested = { PLAIN: 0, QUOTE_DOUBLE: 0, QUOTE_SINGLE: 0 };
  const count = (n: unknown) => {
    if (isScalar(n) && typeof n.value === 'string' && n.type && n.type in nested && mayBePlain(n.value)) nested[n.type as Quote]++;
    else if (isMap(n)) for (const p of n.items) count(p.value);
    else if (isSeq(n)) n.items.forEach(count);
  };
  for (const item of seq.items) {
    if (!isMap(item)) continue;
    for (const pair of item.items) {
      const v = pair.value as Node | null;
      if (isMap(v) || isSeq(v)) {
        if (v.flow) {
          flow++;
          const src = v.range ? text.slice(v.range[0], v.range[0] + 2) : '';
          if (/^[{[] /.test(src)) padded++;
          else if (/^[{[]\S/.test(src) && !/^[{[][}\]]/.test(src)) tight++;
        } else {
          block++;
          // How deep the file nests a step's map: yaml puts it at the dash + 2 + indent.
          const inner = (v.items[0] as { key?: Node } | undefined)?.key?.range?.[0];
          if (inner !== undefined && !nestedFound) {
            const depth = inner - lineStart(text, inner) - style.column - 2;
            if (depth >= 1 && depth <= 8) style.indent = depth;
            nestedFound = true;
          }
        }
        count(v);
      }
      if (isScalar(v) && typeof v.value === 'string' && v.type && v.type in quotes && mayBePlain(v.value)) quotes[v.type as keyof typeof quotes]++;
    }
  }
  if (flow + block) style.flowMaps = flow >= block;
  if (padded + tight) style.padding = padded >= tight;
  const most = (q: Record<Quote, number>) => (Object.entries(q) as [Quote, number][]).sort((a, b) => b[1] - a[1])[0]!;
  if (most(quotes)[1] > 0) style.quote = most(quotes)[0];
  if (most(nested)[1] > 0) style.nestedQuote = most(nested)[0];
  return style;
}

/** A string YAML can write without quotes: only such a string tells whether the author quotes by habit. */
function mayBePlain(value: string): boolean {
  return !/^["']/.test(stringify(value));
}

function gcd(a: number, b: number): number {
  return b ? gcd(b, a % b) : a;
}

/** The new item's text, as a list item at column 0 (`- tap: { css: "#x" }\n`). */
function renderItem(value: unknown, style: Style): string {
  const doc = new Document([value]);
  visit(doc, {
    Map(_key, node, path) {
      // The step itself (`tap: ...`) is a block map; what is inside it follows the file.
      if (path.length > 2) node.flow = style.flowMaps;
    },
    Seq(_key, node, path) {
      if (path.length > 2) node.flow = style.flowMaps;
    },
    Scalar(key, node, path) {
      // Values only (keys plain), and only strings; a string that cannot be plain is quoted by yaml itself.
      // A bare command (`- back`) is a name: never quoted.
      if (path.length <= 2) return;
      const quote = path.length > 4 ? style.nestedQuote : style.quote;
      if (key !== 'key' && typeof node.value === 'string' && quote !== 'PLAIN') node.type = quote;
    },
  });
  return doc.toString({ lineWidth: 0, indent: style.indent, flowCollectionPadding: style.padding, indentSeq: true });
}

/** `text` with `value` (a step as YAML would hold it: `{tap: {id: x}}`, `'back'`) added as the last step. */
export function appendStep(text: string, dialect: Dialect, value: unknown): string {
  return insertStep(text, dialect, value, Infinity);
}

/**
 * `text` with `value` added as step `at` (0 first; past the end, or Infinity, last): before the
 * step now at `at` and the comment lines right above it, or after the last step.
 */
export function insertStep(text: string, dialect: Dialect, value: unknown, at: number): string {
  const located = locate(text, dialect);
  const style = styleOf(text, dialect, located);
  const pad = ' '.repeat(style.column);
  const itemText = renderItem(value, style)
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => pad + l)
    .join('\n');
  const old = stepsOf(text, dialect);
  const index = Math.max(0, Math.min(at, old.length));
  const expected = [...old.slice(0, index), value, ...old.slice(index)];
  const seq = located.seq;
  let offset: number | undefined;
  if (seq && !seq.flow && index < seq.items.length) offset = spanOf(text, seq, index).start;
  else if (seq && !seq.flow && seq.items.length) {
    const last = seq.items.at(-1) as Node;
    const end = last.range ? last.range[2] : undefined;
    if (end !== undefined) {
      const nl = text[end - 1] === '\n' ? end - 1 : text.indexOf('\n', end);
      offset = nl < 0 ? text.length : nl + 1;
    }
  } else if (located.emptyAt) offset = located.emptyAt.offset;
  else if (!seq && dialect === 'boxflow' && isMap(located.doc.contents)) offset = text.length;
  if (offset !== undefined) {
    const before = text.slice(0, offset);
    const sep = before && !before.endsWith('\n') ? '\n' : '';
    const head = !seq && !located.emptyAt ? 'steps:\n' : '';
    const out = `${before}${sep}${head}${head ? itemText.replace(/^/gm, '  ') : itemText}\n${text.slice(offset)}`;
    if (readsAs(text, out, dialect, expected)) return out;
  }
  return editWithDocument(text, dialect, style, (doc, items) => items.splice(index, 0, doc.createNode(value)));
}

/** `text` with step `from` moved to be step `to` (its comment lines above it travel with it). */
export function moveStep(text: string, dialect: Dialect, from: number, to: number): string {
  const old = stepsOf(text, dialect);
  if (!(from >= 0 && from < old.length)) throw new RangeError(`the flow has no step ${from + 1}`);
  const dest = Math.max(0, Math.min(to, old.length - 1));
  if (dest === from) return text;
  const expected = [...old];
  expected.splice(dest, 0, ...expected.splice(from, 1));
  const { seq } = locate(text, dialect);
  if (seq && !seq.flow) {
    const { start, end } = spanOf(text, seq, from);
    let block = text.slice(start, end);
    if (!block.endsWith('\n')) block += '\n';
    const rest = text.slice(0, start) + text.slice(end);
    const restSeq = locate(rest, dialect).seq;
    if (restSeq && !restSeq.flow && restSeq.items.length) {
      const offset = dest < restSeq.items.length ? spanOf(rest, restSeq, dest).start : spanOf(rest, restSeq, restSeq.items.length - 1).end;
      const head = rest.slice(0, offset);
      const out = `${head}${head && !head.endsWith('\n') ? '\n' : ''}${block}${rest.slice(offset)}`;
      if (readsAs(text, out, dialect, expected)) return out;
    }
  }
  const style = styleOf(text, dialect, locate(text, dialect));
  return editWithDocument(text, dialect, style, (_doc, items) => items.splice(dest, 0, ...items.splice(from, 1)));
}

/** `text` without step `index` (nor the comment lines right above it). */
export function deleteStep(text: string, dialect: Dialect, index: number): string {
  const old = stepsOf(text, dialect);
  if (!(index >= 0 && index < old.length)) throw new RangeError(`the flow has no step ${index + 1}`);
  const expected = old.filter((_, k) => k !== index);
  const { seq } = locate(text, dialect);
  if (seq && !seq.flow) {
    const { start, end } = spanOf(text, seq, index);
    const out = text.slice(0, start) + text.slice(end);
    if (readsAs(text, out, dialect, expected)) return out;
  }
  const style = styleOf(text, dialect, locate(text, dialect));
  return editWithDocument(text, dialect, style, (_doc, items) => items.splice(index, 1));
}

/**
 * The lines of step `i`: from the comment lines right above its dash (a blank line ends them) to the
 * end of its own last line. yaml's node end would also take the comments and blank lines that
 * follow, which are the next step's.
 */
function spanOf(text: string, seq: YAMLSeq, i: number): { start: number; end: number } {
  const item = seq.items[i] as Node;
  const [from, valueEnd] = item.range ?? [0, 0];
  const prevEnd = i > 0 ? spanEnd(text, (seq.items[i - 1] as Node).range?.[1] ?? 0) : 0;
  let start = lineStart(text, text.lastIndexOf('-', from));
  while (start > prevEnd) {
    const above = lineStart(text, start - 1);
    if (!/^[ \t]*#/.test(text.slice(above, start))) break;
    start = above;
  }
  return { start: Math.max(start, prevEnd), end: spanEnd(text, valueEnd) };
}

const spanEnd = (text: string, valueEnd: number) => {
  if (text[valueEnd - 1] === '\n') return valueEnd;
  const nl = text.indexOf('\n', valueEnd);
  return nl < 0 ? text.length : nl + 1;
};

/** Parse, change the list's items, toString: for layouts the text edits do not know. It keeps comments too. */
function editWithDocument(text: string, dialect: Dialect, style: Style, change: (doc: Document, items: unknown[]) => void): string {
  const opts = { lineWidth: 0, indent: style.indent, flowCollectionPadding: style.padding };
  if (dialect === 'maestro') {
    const docs = parseAllDocuments(text) as Document[];
    const doc = docs[1]!;
    if (!isSeq(doc.contents)) doc.contents = doc.createNode([]) as never;
    change(doc, (doc.contents as unknown as YAMLSeq).items);
    return docs.map((d) => d.toString(opts)).join('');
  }
  const doc = parseDocument(text);
  let steps = doc.get('steps', true);
  if (!isSeq(steps)) {
    doc.set('steps', doc.createNode([]));
    steps = doc.get('steps', true);
  }
  change(doc, (steps as YAMLSeq).items);
  return doc.toString(opts);
}

/** The steps (as plain values) of a flow's text. */
function stepsOf(text: string, dialect: Dialect): unknown[] {
  const docs = dialect === 'maestro' ? (parseAllDocuments(text) as Document[]).map((d) => d.toJS() as unknown) : [parseDocument(text).toJS() as unknown];
  const steps = dialect === 'maestro' ? docs[1] : ((docs[0] ?? {}) as Record<string, unknown> | null)?.steps;
  return Array.isArray(steps) ? steps : [];
}

/** True when `after` reads as `before` with the steps `expected`, and nothing else changed. */
function readsAs(before: string, after: string, dialect: Dialect, expected: unknown[]): boolean {
  try {
    const docs = (t: string) => (dialect === 'maestro' ? (parseAllDocuments(t) as Document[]) : [parseDocument(t)]);
    if (docs(after).some((d) => d.errors.length)) return false;
    if (JSON.stringify(stepsOf(after, dialect)) !== JSON.stringify(expected)) return false;
    const rest = (t: string) => {
      const js = docs(t).map((d) => d.toJS() as unknown);
      return JSON.stringify(dialect === 'maestro' ? js[0] : { ...((js[0] ?? {}) as Record<string, unknown>), steps: undefined });
    };
    return rest(before) === rest(after);
  } catch {
    return false;
  }
}
