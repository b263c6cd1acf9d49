// What the Maestro mapper (mapper.ts) and its per-command translators (commands.ts) share: the
// error a command that boxflow cannot run raises, the mapper's surface the translators call, and
// the value helpers both use.
import { relative } from 'node:path';
import type { ErrorCode } from '../../errors.js';
import type { Path } from '../parts.js';
import { hint } from '../suggest.js';

/** A YAML value as Maestro's parser hands it over. */
export type Raw = Record<string, unknown>;
export const isObj = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
export const hasRuntime = (v: unknown) => typeof v === 'string' && v.includes('${');

export class Unsupported extends Error {
  readonly code: ErrorCode = 'FLOW_SCHEMA';
  constructor(readonly path: Path, readonly command: string, readonly why: string) {
    super(`Maestro command "${command}" is not supported: ${why}`);
  }
}

/** A name Maestro does not know: "Invalid Command" there too, with the nearest command it does. */
export class UnknownCommand extends Unsupported {
  constructor(path: Path, command: string, suggestion: string | undefined) {
    super(path, command, '');
    this.message = `"${command}" is not a Maestro command${hint(suggestion)}`;
  }
}

/** Maestro reads runFlow, retry and runScript files when it parses the flow: a missing one is a load-time error. */
export class MissingFile extends Unsupported {
  override readonly code = 'FLOW_NOT_FOUND';
  constructor(path: Path, command: string, file: string) {
    super(path, command, '');
    this.message = `${command}: no such file ${relative(process.cwd(), file) || file}`;
  }
}

/** What a translator may ask of the mapper: selectors, targets, conditions, durations, nested lists, files. */
export interface Mapping {
  /** The flow runs on a Linux box (its app is a URL), where Maestro ignores mobile-only options. */
  readonly web: boolean;
  /** The Maestro path each mapped step (object) came from, so errors point into the Maestro file. */
  readonly origin: WeakMap<object, Path>;
  file(file: unknown, path: Path, command: string): string;
  selector(v: unknown, path: Path, command: string): Raw;
  target(v: unknown, path: Path, command: string): Raw | string | number[];
  conditions(v: unknown, path: Path, command: string): Raw[];
  ms(v: unknown, path: Path, command: string): string;
  withTimeout(step: Raw | string, timeout: unknown, path: Path, command: string): Raw | string;
  list(items: unknown, path: Path): Raw[] | string[];
}

/** One Maestro command, read: what a translator gets. */
export interface Command {
  /** The command's name (`tapOn`). */
  name: string;
  /** Its value as written (undefined for a bare command). */
  v: unknown;
  /** Its value when that is a map, else {}. */
  m: Raw;
  /** Where the command is in the Maestro file (at its key). */
  at: Path;
  map: Mapping;
}

/** A Maestro command as the boxflow step with Maestro's meaning: a step map or a bare step name. */
export type Translator = (command: Command) => Raw | string;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** A pattern as the body of a /regex/ literal: only a slash not already escaped needs a backslash. */
function slashed(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      out += c + (pattern[++i] ?? '');
      continue;
    }
    out += c === '/' ? '\\/' : c;
  }
  return out;
}
const kRegexMeta = /[.*+?^${}()|[\]\\]/;
/** The pattern compiles and, as Maestro matches it, matches its own text. */
function selfMatching(pattern: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`, 'is').test(pattern);
  } catch {
    return false;
  }
}
function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/**
 * Maestro text: a whole-string regex, case-insensitive, dot-all, that also matches its own text
 * literally. Written in the form a person keeps: plain text (already a regex of itself) as
 * `/^text$/i`, a pattern that matches its own text as that pattern alone (`/^Welcome, .+$/is`), a
 * pattern that does not compile as escaped text (Maestro escapes it too); both alternatives only
 * when the pattern would miss its own text (`Log in (beta)`).
 */
export function textRe(t: string): string {
  if (t.includes('${')) return `/^(?:${t})$/is`;
  if (!kRegexMeta.test(t)) return `/^${slashed(t)}$/i`;
  if (!compiles(t)) return `/^${escapeRe(t)}$/i`;
  // Dot-all matters only where a dot may meet a line break.
  const flags = t.includes('.') ? 'is' : 'i';
  if (selfMatching(t)) return `/^${t.includes('|') ? `(?:${slashed(t)})` : slashed(t)}$/${flags}`;
  return `/^(?:${slashed(t)}|${escapeRe(t)})$/${flags}`;
}

/**
 * A Maestro screen point: "x%,y%" (0-100) stays a percent target, "x,y" becomes pixels [x, y]; a
 * `${...}` one becomes `{point}`, evaluated (and its form checked) when the step runs, as Maestro does.
 */
export function screenPoint(v: unknown, path: Path, command: string): Raw | string | number[] {
  if (hasRuntime(v)) return { point: String(v) };
  const t = String(v).replace(/\s/g, '');
  if (/^\d+(?:\.\d+)?%,\d+(?:\.\d+)?%$/.test(t)) return t;
  const px = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(t);
  if (px) return [Number(px[1]), Number(px[2])];
  throw new Unsupported(path, command, `a point is "x,y" in pixels or "x%,y%", not "${String(v)}"`);
}

/** `step` run only when every condition holds: inline steps with `when`, one block per condition. */
export function guarded(step: Raw | string, conds: Raw[]): Raw {
  let out = step;
  for (const c of [...conds].reverse()) out = { runFlow: { when: c, steps: [out] } };
  return out as Raw;
}

/** The `env` of inline commands: variables of that block only. */
export function scopeEnv(env: unknown, path: Path, command: string): Raw {
  if (env === undefined) return {};
  if (!isObj(env)) throw new Unsupported(path, command, 'env is a map of names to values');
  return { env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) };
}

/** The one `${...}` a value is, its expression; undefined when it is anything else. */
export const onlyExpression = (v: unknown): string | undefined => (typeof v === 'string' ? /^\s*\$\{([^$]*)\}\s*$/.exec(v)?.[1] : undefined);
