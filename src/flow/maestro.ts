// Maestro flow files (a config document, `---`, a command list) read as boxflow flows: each
// command becomes the boxflow step with Maestro's meaning (docs: README "Coming from Maestro"),
// by its translator in maestro/commands.ts. A command boxflow cannot run is a load-time error at
// its file:line:col, never a no-op.
import { dirname } from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseAllDocuments, type Document } from 'yaml';
import { combinedError, locatedError } from './located.js';
import { FlowIssue, FlowIssues, type Path } from './parts.js';
import { buildFlow } from './validate.js';
import { locateIn } from './yaml.js';
import type { Flow, SourceLocation } from './types.js';
import { isObj, type Raw, type Unsupported } from './maestro/common.js';
import { Mapper } from './maestro/mapper.js';

/** YAML 1.1 booleans as SnakeYAML reads them (y/n are strings), as Maestro parses flows. */
const kBool11 = /^(?:yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|true|True|TRUE|false|False|FALSE)$/;

function parseDocs(text: string) {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc, schema: 'core', uniqueKeys: true });
  return { lc, docs: Array.isArray(docs) ? docs : [] };
}

/** A line that is `---` (perhaps indented: then not a YAML document marker, but what the author meant). */
const kSeparatorLine = /^[ \t]*-{3}[ \t\r]*$/gm;

/**
 * True when `text` is a Maestro flow: a config map, `---`, then a command list. Never throws: a
 * file that is not valid YAML is judged by its lines, so a folder's discovery goes on and the
 * file's own load reports its error at its line and column.
 */
export function isMaestroFlow(text: string): boolean {
  const separators = [...text.matchAll(kSeparatorLine)];
  if (!separators.length) return false;
  const { docs } = parseDocs(text);
  // A YAML error must be reported, not make the file silently "not a flow": judge by the lines before the last `---`.
  if (docs.some((d) => d.errors.length)) return /^(?:appId|url)\s*:/m.test(text.slice(0, separators.at(-1)!.index));
  if (docs.length < 2) return false;
  const config = docs[0]!.contents;
  return isMap(config) && (config.has('appId') || config.has('url')) && isSeq(docs[1]!.contents);
}

/** The value with YAML 1.1 scalars: yes/no/on/off are booleans, as Maestro's SnakeYAML has them. */
function toJs(doc: Document): unknown {
  // Quoted scalars stay strings: only plain ones are YAML 1.1 booleans.
  const plain = doc.clone();
  const walk = (n: unknown): void => {
    if (isScalar(n) && typeof n.value === 'string' && n.type === 'PLAIN' && kBool11.test(n.value)) n.value = /^(?:yes|on|true)$/i.test(n.value);
    else if (isMap(n)) n.items.forEach((p) => walk(p.value));
    else if (isSeq(n)) n.items.forEach(walk);
  };
  walk(plain.contents);
  return plain.toJS({ maxAliasCount: 1000 });
}

/**
 * Maestro's `${NAME}` is JavaScript: a name nothing defines gives undefined. In boxflow `${NAME}`
 * must be defined, so a name the file's own `env:` does not define becomes the expression
 * `${(NAME)}`, which reads the same variable and gives "undefined" without it. Maestro's `\${`
 * (a literal `${`) is boxflow's `$${`.
 */
function lenient(v: unknown, defined: Set<string> | 'all', undefinedNames?: Set<string>): unknown {
  if (typeof v === 'string') {
    return v.replace(/\\\$\{|\$\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}/g, (m, name?: string) => {
      if (name === undefined) return '$${';
      if (defined === 'all' || defined.has(name)) return m;
      undefinedNames?.add(name);
      return `\${(${name})}`;
    });
  }
  if (Array.isArray(v)) return v.map((x) => lenient(x, defined, undefinedNames));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, lenient(x, defined, undefinedNames)]));
  return v;
}

/** A Maestro flow file as a boxflow flow document (what `boxflow convert maestro` writes). Throws FLOW_SYNTAX / FLOW_SCHEMA at file:line:col. */
export function maestroToBoxflow(text: string, file: string, opts: { idiomatic?: boolean } = {}): { doc: Record<string, unknown>; locate(path: Path): SourceLocation } {
  const { lc, docs } = parseDocs(text);
  const bad = docs.flatMap((d) => d.errors)[0];
  if (bad) {
    const pos = bad.linePos?.[0] ?? { line: 1, col: 1 };
    throw locatedError('FLOW_SYNTAX', { file, line: pos.line, column: pos.col }, `YAML: ${bad.message.split('\n')[0]}`, text);
  }
  const [configDoc, commandsDoc] = docs as [Document, Document];
  const rawConfig = toJs(configDoc) as Raw;
  const rawCommands = toJs(commandsDoc);
  // Run as Maestro runs it, a name nothing defines reads undefined; converted, it stays ${NAME} (boxflow checks it).
  const defined = opts.idiomatic ? 'all' : new Set(isObj(rawConfig.env) ? Object.keys(rawConfig.env) : []);
  const config = lenient(rawConfig, defined) as Raw;
  const commands = lenient(rawCommands, defined);
  const rawAt = (p: Path): unknown => p.reduce<unknown>((n, seg) => (n as Record<string | number, unknown> | undefined)?.[seg], typeof p[0] === 'string' ? rawConfig : rawCommands);
  // At the key: the command's or the option's name is what the message is about.
  const locConfig = (p: Path): SourceLocation => locateIn(configDoc, lc, file, p, typeof p.at(-1) === 'string');
  const locCommand = (p: Path): SourceLocation => locateIn(commandsDoc, lc, file, p, typeof p.at(-1) === 'string');
  const appId = config.url ?? config.appId;
  const mapper = new Mapper(appId === undefined || /^https?:\/\//i.test(String(appId)), dirname(file), rawAt, opts.idiomatic ?? false);
  const doc: Raw = { name: config.name !== undefined ? String(config.name) : undefined };
  if (appId !== undefined) doc.appId = String(appId);
  // A package is a mobile app: the flow needs an Android box (a URL runs on a Linux box, the default).
  if (appId !== undefined && !/^https?:\/\//i.test(String(appId))) doc.box = 'android';
  if (Array.isArray(config.tags)) doc.tags = config.tags.map(String);
  if (isObj(config.env)) doc.env = config.env;
  if (opts.idiomatic) {
    // Converted, a ${NAME} the file does not define is declared as what the flow reads: given (with
    // -e, or by the flow that runs it), else "undefined" as Maestro reads it; the steps keep ${NAME}.
    const known = new Set(isObj(rawConfig.env) ? Object.keys(rawConfig.env) : []);
    const read = new Set<string>();
    lenient({ ...rawConfig, env: undefined }, known, read);
    lenient(rawCommands, known, read);
    if (read.size) doc.env = { ...(doc.env as Raw | undefined), ...Object.fromEntries([...read].map((n) => [n, `\${${n} || 'undefined'}`])) };
  }
  const located: Array<{ issue: Unsupported; at: SourceLocation }> = [];
  const take = (where: (p: Path) => SourceLocation) => {
    for (const issue of mapper.issues.splice(0)) located.push({ issue, at: where(issue.path) });
  };
  if (config.onFlowStart !== undefined) doc.onStart = mapper.list(config.onFlowStart, ['onFlowStart']);
  if (config.onFlowComplete !== undefined) doc.onFinish = mapper.list(config.onFlowComplete, ['onFlowComplete']);
  take(locConfig);
  doc.steps = mapper.list(commands, []);
  take(locCommand);
  if (located.length === 1) throw locatedError(located[0]!.issue.code, located[0]!.at, located[0]!.issue.message, text, { key: located[0]!.issue.command });
  if (located.length > 1) throw combinedError(located.map(({ issue, at }) => locatedError(issue.code, at, issue.message, text, { key: issue.command })));
  if (doc.name === undefined) delete doc.name;
  for (const k of ['onStart', 'onFinish']) if (Array.isArray(doc[k]) && !(doc[k] as unknown[]).length) delete doc[k];
  // A boxflow step's path maps back to the Maestro command it came from: the deepest mapped step on
  // the path. A step that is a command of a Maestro list (not a step a mapping added) carries the
  // command as written there, its label in reports.
  const locate = (path: Path): SourceLocation => {
    let node: unknown = doc;
    let from: Path | undefined;
    let command: string | undefined;
    path.forEach((seg, i) => {
      const parent = node;
      node = (parent as Record<string | number, unknown> | undefined)?.[seg];
      if (Array.isArray(parent) && typeof seg === 'number') {
        from = mapper.paths.get(parent)?.[seg] ?? from;
        command = i === path.length - 1 ? mapper.written.get(parent)?.[seg] : undefined;
      }
      if (typeof node === 'object' && node !== null) from = mapper.origin.get(node) ?? from;
    });
    const at = !from ? { file, line: 1, column: 1 } : typeof from[0] === 'string' ? locConfig(from) : locCommand(from);
    return command !== undefined && !opts.idiomatic ? { ...at, command } : at;
  };
  return { doc, locate };
}

/** Parses a Maestro flow file into a boxflow Flow. Throws BoxflowError FLOW_SYNTAX / FLOW_SCHEMA at file:line:col. */
export function parseMaestroYaml(text: string, file: string): Flow {
  const { doc, locate } = maestroToBoxflow(text, file);
  try {
    return buildFlow(doc, { file, locate });
  } catch (err) {
    if (err instanceof FlowIssue) throw locatedError('FLOW_SCHEMA', locate(err.path), `Maestro command mapped to boxflow: ${err.message}`, text);
    if (err instanceof FlowIssues) throw combinedError(err.issues.map((i) => locatedError('FLOW_SCHEMA', locate(i.path), `Maestro command mapped to boxflow: ${i.message}`, text)));
    throw err;
  }
}

