// The TypeScript flow API: `flow(...)` returns a tagged definition that loadFlowFile turns into
// a Flow; `callerLocation()` finds the user's file:line:col for steps recorded from TS calls.
import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FlowFn, SourceLocation } from './types.js';

const kFlowDefinition = Symbol.for('boxflow.flowDefinition');

/** A step as written in YAML: a bare step name or a one-key map plus common keys. */
export type RawStep = string | Record<string, unknown>;

/** What `flow(name, options, fn)` takes: the YAML top-level keys, durations as strings. */
export interface FlowDefinitionOptions {
  tags?: string[];
  box?: string;
  /** The app launchApp/stopApp/clearState act on by default (Android package; Linux boxes: a URL). */
  appId?: string;
  env?: Record<string, string | number | boolean>;
  secrets?: string[];
  /** Duration string, e.g. `2m`. */
  timeout?: string;
  /** Default step timeout, a duration string, e.g. `10s`. */
  stepTimeout?: string;
  onStart?: RawStep[];
  onFinish?: RawStep[];
}

/** What `flow({ ... })` takes: a YAML flow as an object. */
export interface DeclarativeFlow extends FlowDefinitionOptions {
  name?: string;
  steps: RawStep[];
}

export interface FlowDefinition {
  readonly [kFlowDefinition]: true;
  /** The YAML-shaped document (function form: the options plus `name`). */
  readonly doc: Record<string, unknown>;
  readonly fn?: FlowFn;
  /** Where `flow(` was called. */
  readonly source?: SourceLocation;
}

export function flow(spec: DeclarativeFlow): FlowDefinition;
export function flow(name: string, fn: FlowFn): FlowDefinition;
export function flow(name: string, options: FlowDefinitionOptions, fn: FlowFn): FlowDefinition;
export function flow(a: string | DeclarativeFlow, b?: FlowDefinitionOptions | FlowFn, c?: FlowFn): FlowDefinition {
  const source = callerLocation();
  const base = { [kFlowDefinition]: true as const, source };
  if (typeof a !== 'string') return { ...base, doc: { ...(a as object) } };
  const fn = typeof b === 'function' ? b : c;
  const options = typeof b === 'function' || b === undefined ? {} : b;
  return { ...base, doc: { name: a, ...options }, ...(fn ? { fn } : {}) };
}

export function isFlowDefinition(value: unknown): value is FlowDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kFlowDefinition] === true;
}

// src/ when run from source, dist/src/ when built: frames inside it are boxflow's, not the user's.
const kOwnRoot = dirname(dirname(fileURLToPath(import.meta.url))) + sep;
const kFrame = /(?:\(|\s)((?:file:\/\/)?(?:\/|[A-Za-z]:[\\/])[^()]*?):(\d+):(\d+)\)?\s*$/;

/** Parses `at fn (file:line:col)` stack lines into locations, innermost first. */
export function stackLocations(stack: string): SourceLocation[] {
  const out: SourceLocation[] = [];
  for (const line of stack.split('\n')) {
    const m = kFrame.exec(line);
    if (!m) continue;
    let file = m[1]!.replace(/\?.*$/, '');
    if (file.startsWith('file://')) {
      try {
        file = fileURLToPath(file);
      } catch {
        continue;
      }
    }
    out.push({ file, line: Number(m[2]), column: Number(m[3]) });
  }
  return out;
}

/**
 * The innermost stack frame outside boxflow's own code and node_modules: the user's call.
 * `{file: '<unknown>', line: 0, column: 0}` when there is none.
 */
export function callerLocation(): SourceLocation {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const found = stackLocations(stack).find((l) => !l.file.startsWith(kOwnRoot) && !l.file.includes(`${sep}node_modules${sep}`));
  return found ?? { file: '<unknown>', line: 0, column: 0 };
}
