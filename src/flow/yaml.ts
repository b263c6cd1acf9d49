import { LineCounter, isMap, isScalar, parseDocument, type Document, type Node } from 'yaml';
import { FlowIssue, FlowIssues, type Path } from './parts.js';
import { buildFlow, type DocContext } from './validate.js';
import { combinedError, issueError, locatedError } from './located.js';
import { Masker } from '../mask.js';
import type { Flow, SourceLocation } from './types.js';

function nodeAt(doc: Document, path: Path): Node | null | undefined {
  return (path.length ? doc.getIn(path, true) : doc.contents) as Node | null | undefined;
}

/** Where the value (or, with atKey, the key) at `path` starts; falls back to the nearest ancestor. */
export function locateIn(doc: Document, lc: LineCounter, file: string, path: Path, atKey = false): SourceLocation {
  const at = (offset: number): SourceLocation => {
    const p = lc.linePos(offset);
    return { file, line: p.line, column: p.col };
  };
  const last = path.at(-1);
  if (atKey && typeof last === 'string') {
    const parent = nodeAt(doc, path.slice(0, -1));
    if (isMap(parent)) {
      const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === last);
      const range = (pair?.key as Node | undefined)?.range;
      if (range) return at(range[0]);
    }
  }
  for (let n = path.length; n >= 0; n--) {
    const node = nodeAt(doc, path.slice(0, n));
    if (node?.range) return at(node.range[0]);
  }
  return { file, line: 1, column: 1 };
}

const kYamlCodeWords: Record<string, string> = {
  DUPLICATE_KEY: 'duplicate key',
  TAB_AS_INDENT: 'a tab is used for indentation; YAML indents with spaces',
  MULTIPLE_DOCS: 'a flow file holds one YAML document; remove the "---" separator',
};

/** Parses and validates a YAML flow. Throws BoxflowError FLOW_SYNTAX or FLOW_SCHEMA. */
export function parseFlowYaml(source: string, file: string): Flow {
  const lc = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lc, uniqueKeys: true, prettyErrors: true });
  // Read once, also when the YAML has errors: what reads tells the secrets a code frame must hide.
  let data: unknown;
  let unreadable: Error | undefined;
  try {
    data = doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    unreadable = err as Error;
  }
  // Code frames quote the file: never the values of its own `secrets:`.
  const text = withoutSecrets(source, data);
  const bad = doc.errors[0];
  if (bad) {
    const pos = bad.linePos?.[0] ?? { line: 1, col: 1 };
    let message = bad.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    let key: string | undefined;
    if (bad.code === 'DUPLICATE_KEY') {
      key = /^["']?([^"':\s]+)/.exec(source.slice(bad.pos[0]))?.[1];
      message = `${kYamlCodeWords.DUPLICATE_KEY}${key ? ` "${key}"` : ''}: a map holds each key once`;
    } else if (kYamlCodeWords[bad.code]) {
      message = kYamlCodeWords[bad.code]!;
    }
    throw locatedError('FLOW_SYNTAX', { file, line: pos.line, column: pos.col }, `YAML: ${message}`, text, key ? { key } : {});
  }
  if (unreadable) throw locatedError('FLOW_SYNTAX', { file, line: 1, column: 1 }, `YAML: ${unreadable.message}`, text);
  const ctx: DocContext = { file, locate: (path, atKey) => locateIn(doc, lc, file, path, atKey) };
  try {
    return buildFlow(data, { ...ctx, locate: (path, atKey) => (path.length === 0 && !atKey ? { file, line: 1, column: 1 } : ctx.locate(path, atKey)) });
  } catch (err) {
    if (err instanceof FlowIssue) throw issueError(withFlowMapHint(doc, err), ctx.locate(err.path, err.options.atKey), text);
    if (err instanceof FlowIssues) throw combinedError(err.issues.map((i) => issueError(withFlowMapHint(doc, i), ctx.locate(i.path, i.options.atKey), text)));
    throw err;
  }
}

// `{ text: /Welcome, .+/ }`: in a { } map a comma starts a new key, so ".+/" became a key.
function withFlowMapHint(doc: Document, issue: FlowIssue): FlowIssue {
  const last = issue.path.at(-1);
  if (!issue.options.atKey || typeof last !== 'string') return issue;
  const parent = nodeAt(doc, issue.path.slice(0, -1));
  if (!isMap(parent) || !parent.flow) return issue;
  const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === last);
  if (!pair || (pair.value !== null && !(isScalar(pair.value) && pair.value.value === null))) return issue;
  return new FlowIssue(issue.path, `${issue.message}. Inside { } a comma separates keys: quote a value that holds a comma, e.g. text: "/Welcome, .+/"`, issue.options);
}

/**
 * The text with the values its `secrets:` name hidden, as far as the document (`data`) reads: a secret's value
 * comes from the flow's `env:`, else the process environment. No text (no frame) when hiding a
 * secret that spans lines would move the lines.
 */
function withoutSecrets(text: string, data: unknown): string | undefined {
  const { secrets, env } = (data ?? {}) as { secrets?: unknown; env?: unknown };
  if (!Array.isArray(secrets)) return text;
  const vars = (env && typeof env === 'object' ? env : {}) as Record<string, unknown>;
  const values = secrets.map((name) => {
    const v = typeof name === 'string' ? (vars[name] ?? process.env[name]) : undefined;
    return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
  });
  const masked = new Masker(values).text(text);
  return masked.split('\n').length === text.split('\n').length ? masked : undefined;
}
