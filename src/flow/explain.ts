// Explains why a value fails a schema, for people: walks the schema alongside the value and
// returns the issues of the best-fitting branch of each union (ajv reports every branch, and
// under $ref it loses the path that would tell them apart). Only the keywords the flow schema
// uses are understood; ajv stays the judge of validity.
import { kDurationPattern } from '../api/duration.js';
import { kKeyNames } from '../api/schemas.js';
import { didYouMean, hint } from './suggest.js';
import { kKeyAliases, kKeyComboPattern, kPercentPointPattern, kVarNamePattern, type JsonSchema, type Path } from './parts.js';

export interface Explained {
  path: Path;
  message: string;
  atKey?: boolean;
  prefix?: Path;
  suggestion?: string;
  /** Unknown keys weigh more: a branch that knows every key present fits better. */
  weight: number;
}

type Defs = Record<string, JsonSchema>;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function deref(schema: JsonSchema, defs: Defs): JsonSchema {
  let s = schema;
  while (typeof s.$ref === 'string') s = defs[s.$ref.replace('#/definitions/', '')] ?? {};
  return s;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(type: unknown, v: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  const t = typeOf(v);
  return types.some((x) => x === t || (x === 'number' && t === 'integer'));
}

/** Whether the value has the shape (type) of this schema or of one of its branches. */
function shapeMatches(schema: JsonSchema, v: unknown, defs: Defs): boolean {
  const s = deref(schema, defs);
  if (Array.isArray(s.anyOf)) return (s.anyOf as JsonSchema[]).some((b) => shapeMatches(b, v, defs));
  if (s.type !== undefined) return typeMatches(s.type, v);
  return true;
}

const kTypeWords: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'a map',
  array: 'a list',
  null: 'empty',
};

export function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'empty';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a map';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
  return `${typeof v === 'number' ? 'the number' : ''} ${String(v)}`.trim();
}

function expected(s: JsonSchema): string {
  if (typeof s.title === 'string') return s.title;
  const types = Array.isArray(s.type) ? s.type : [s.type];
  return types.map((t) => kTypeWords[t as string] ?? String(t)).join(' or ');
}

function patternMessage(pattern: string, v: string): { message: string; suggestion?: string } {
  if (pattern === kDurationPattern) {
    const fix = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|sec|secs|second|seconds|min|mins|minute|minutes|msec|millis|hours?)?\s*$/i.exec(v);
    const unit = fix?.[2]?.toLowerCase();
    const norm = unit === undefined ? 'ms' : unit.startsWith('ms') || unit.startsWith('mil') ? 'ms' : unit.startsWith('h') ? 'h' : unit.startsWith('mi') || unit === 'm' ? 'm' : 's';
    const suggestion = fix ? `${fix[1]}${norm}` : undefined;
    return {
      message: `${JSON.stringify(v)} is not a duration: write a number and a unit ms, s, m or h, e.g. 500ms or 30s${hint(suggestion)}`,
      ...(suggestion ? { suggestion } : {}),
    };
  }
  if (pattern === kKeyComboPattern) {
    const bad = v.split('+').find((k) => !(kKeyNames as readonly string[]).includes(k)) ?? v;
    const suggestion = didYouMean(bad, kKeyNames, kKeyAliases);
    return {
      message: `${JSON.stringify(bad)} is not a key name${hint(suggestion)}; key names are spelt as the Box API lists them (enter, control, arrowUp, f5, ...)`,
      ...(suggestion ? { suggestion } : {}),
    };
  }
  if (pattern === kPercentPointPattern) return { message: `${JSON.stringify(v)} is not a point: write "x%,y%", e.g. "50%,80%"` };
  if (pattern === kVarNamePattern) return { message: `${JSON.stringify(v)} is not a variable name: use letters, digits and _ (not first)` };
  return { message: `${JSON.stringify(v)} has characters that are not allowed here` };
}

export function explain(schema: JsonSchema, v: unknown, path: Path, defs: Defs): Explained[] {
  // Steps are judged one by one by the step dispatcher, which knows which step was meant.
  if (schema.$ref === '#/definitions/step') return [];
  const s = deref(schema, defs);
  const out: Explained[] = [];
  const add = (message: string, extra: Partial<Explained> = {}) => out.push({ path, message, weight: 1, ...extra });

  if (Array.isArray(s.anyOf)) {
    const branches = (s.anyOf as JsonSchema[]).map((b) => ({ b, issues: explain(b, v, path, defs) }));
    if (branches.some((x) => x.issues.length === 0)) return [];
    const shaped = branches.filter((x) => shapeMatches(x.b, v, defs));
    if (!shaped.length) {
      const quote = typeof v === 'number' && shapeMatches(s, String(v), defs) ? ` (quote it: "${v}")` : '';
      add(`must be ${expected(s)}, not ${describeValue(v)}${quote}`);
      return out;
    }
    const depth = (issues: Explained[]) => Math.max(...issues.map((i) => (i.prefix ?? i.path).length));
    const weight = (issues: Explained[]) => issues.reduce((n, i) => n + i.weight, 0);
    shaped.sort((a, b) => depth(b.issues) - depth(a.issues) || weight(a.issues) - weight(b.issues));
    return shaped[0]!.issues;
  }

  if (s.type !== undefined && !typeMatches(s.type, v)) {
    const wanted = expected(s);
    if (typeof v === 'number' && s.pattern === kDurationPattern) {
      add(`${v} has no unit: write a duration such as ${v}ms or ${v}s`, { suggestion: `${v}ms` });
      return out;
    }
    const quote = typeof v === 'number' && s.type === 'string' ? ` (quote it: "${v}")` : '';
    add(`must be ${wanted}, not ${describeValue(v)}${quote}`);
    return out;
  }
  if (Array.isArray(s.enum) && !s.enum.includes(v)) {
    const strings = s.enum.filter((e): e is string => typeof e === 'string');
    const suggestion = typeof v === 'string' ? didYouMean(v, strings, strings.length > 50 ? kKeyAliases : {}) : undefined;
    const list = strings.length > 12 ? `${strings.slice(0, 12).join(', ')}, ...` : strings.join(', ');
    // A long list names itself by its title (an ARIA role); the long one without a title is the key names.
    const what = strings.length > 50 ? (typeof s.title === 'string' ? `is not ${s.title}` : 'is not a key name') : `must be one of ${list}`;
    add(`${typeof v === 'string' ? JSON.stringify(v) : describeValue(v)} ${what}${hint(suggestion)}`, suggestion ? { suggestion } : {});
    return out;
  }

  if (typeof v === 'string') {
    if (typeof s.minLength === 'number' && v.length < s.minLength) add('must not be empty');
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(v)) {
      const { message, suggestion } = patternMessage(s.pattern, v);
      add(message, suggestion ? { suggestion } : {});
    }
  }
  if (typeof v === 'number') {
    if (typeof s.minimum === 'number' && v < s.minimum) add(`must be at least ${s.minimum}, not ${v}`);
    if (typeof s.maximum === 'number' && v > s.maximum) add(`must be at most ${s.maximum}, not ${v}`);
    if (typeof s.exclusiveMinimum === 'number' && v <= s.exclusiveMinimum) add(`must be more than ${s.exclusiveMinimum}, not ${v}`);
  }
  if (Array.isArray(v)) {
    if (typeof s.minItems === 'number' && v.length < s.minItems) add(v.length === 0 ? 'must not be an empty list' : `needs at least ${s.minItems} items, not ${v.length}`);
    if (typeof s.maxItems === 'number' && v.length > s.maxItems) add(`takes at most ${s.maxItems} items, not ${v.length}`);
    if (s.uniqueItems === true) {
      const seen = new Set<string>();
      v.forEach((item, i) => {
        const k = JSON.stringify(item);
        if (seen.has(k)) out.push({ path: [...path, i], message: `${describeValue(item)} is listed twice`, weight: 1 });
        seen.add(k);
      });
    }
    if (s.items && typeof s.items === 'object') v.forEach((item, i) => out.push(...explain(s.items as JsonSchema, item, [...path, i], defs)));
  }
  if (isObj(v)) {
    const props = (s.properties ?? {}) as Record<string, JsonSchema>;
    const known = Object.keys(props);
    for (const key of Object.keys(v)) {
      if (Object.hasOwn(props, key)) continue;
      if (s.propertyNames && typeof s.propertyNames === 'object') {
        const problem = explain(s.propertyNames as JsonSchema, key, [...path, key], defs);
        if (problem.length) out.push({ ...problem[0]!, atKey: true, prefix: path });
      }
      if (s.additionalProperties === false) {
        const suggestion = didYouMean(key, known);
        const message = known.length
          ? `unknown key "${key}"${hint(suggestion)}; allowed: ${known.join(', ')}`
          : `takes no keys, found "${key}"`;
        out.push({ path: [...path, key], message, atKey: true, prefix: path, weight: 2, ...(suggestion ? { suggestion } : {}) });
      } else if (typeof s.additionalProperties === 'object') {
        out.push(...explain(s.additionalProperties as JsonSchema, v[key], [...path, key], defs));
      }
    }
    for (const key of (s.required ?? []) as string[]) {
      if (v[key] === undefined) add(`missing required key "${key}"`, { atKey: true });
    }
    const count = Object.keys(v).length;
    if (typeof s.minProperties === 'number' && count < s.minProperties) add(`needs at least one of: ${known.join(', ')}`, { atKey: true });
    if (typeof s.maxProperties === 'number' && count > s.maxProperties) add(`takes only one of: ${known.join(', ')}`, { atKey: true });
    for (const key of known) if (v[key] !== undefined) out.push(...explain(props[key]!, v[key], [...path, key], defs));
  }
  return out;
}
