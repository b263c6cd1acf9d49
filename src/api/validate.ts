// One ajv instance, with one set of options: the contract (server requests, client responses),
// the flow schema and the config schema all compile on it.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { BoxflowError } from '../errors.js';
import { isDuration, parseDuration } from './duration.js';
import { didYouMean, hint } from './suggest.js';

const withinMax = (data: string, max: string) => {
  try {
    parseDuration(data, '', max);
    return true;
  } catch {
    return false;
  }
};

/** The options of the one instance; scripts/flowValidators.mjs compiles the flow schema ahead of time with them. */
export const kAjvOptions = { allErrors: false, strict: false, useDefaults: false, coerceTypes: false, verbose: true } as const;

const ajv = new Ajv(kAjvOptions);
ajv.addKeyword({
  keyword: 'maxDuration',
  type: 'string',
  schemaType: 'string',
  errors: false,
  validate: (max: string, data: string) => !isDuration(data) || withinMax(data, max),
});

/** The shared instance, for schemas that are not the contract's (flow files, the config). */
export function sharedAjv(): Ajv {
  return ajv;
}

const cache = new WeakMap<TSchema, ValidateFunction>();

export function compile(schema: TSchema): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

export interface SchemaProblem {
  /** JSON pointer of the value at fault, `/` for the root. */
  path: string;
  message: string;
}

/** Validates `data`; returns null when it is valid, else the first problem with its JSON path. */
export function check(schema: TSchema, data: unknown): SchemaProblem | null {
  const fn = compile(schema);
  if (fn(data)) return null;
  return describe(fn.errors ?? [], data);
}

/** Validates a request body: null, or the error to answer (INVALID_DURATION for a duration over its maximum). */
export function requestProblem(schema: TSchema, data: unknown, where = ''): BoxflowError | null {
  const fn = compile(schema);
  if (fn(data)) return null;
  const errors = fn.errors ?? [];
  const problem = describe(errors, data);
  const tooLong = errors.some((e) => e.keyword === 'maxDuration' && (e.instancePath || '/') === problem.path);
  return new BoxflowError(tooLong ? 'INVALID_DURATION' : 'INVALID_REQUEST', `${where}${formatProblem(problem)}`);
}

function describe(errors: ErrorObject[], _data: unknown): SchemaProblem {
  // For unions ajv reports every branch; the most specific (deepest) error reads best.
  const best = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0]!;
  const path = best.instancePath || '/';
  let message: string;
  switch (best.keyword) {
    case 'required':
      return { path: `${best.instancePath}/${(best.params as { missingProperty: string }).missingProperty}`, message: 'is required' };
    case 'const':
    case 'enum': {
      // A union of literals (TypeBox's Type.Union of Type.Literal) fails once per branch with `const`.
      const allowed = best.keyword === 'enum'
        ? (best.params as { allowedValues: unknown[] }).allowedValues
        : errors.filter((e) => e.keyword === 'const' && e.instancePath === best.instancePath).map((e) => (e.params as { allowedValue: unknown }).allowedValue);
      const strings = allowed.filter((v): v is string => typeof v === 'string');
      const suggestion = typeof best.data === 'string' ? didYouMean(best.data, strings) : undefined;
      message = `is ${preview(best.data)}, not one of the allowed values${hint(suggestion)}: ${allowed.slice(0, 12).map((v) => JSON.stringify(v)).join(', ')}${allowed.length > 12 ? ', ...' : ''}`;
      break;
    }
    case 'pattern':
      message = 'must be a duration such as 500ms, 30s, 5m or 1h';
      break;
    case 'maxDuration':
      message = `must be at most ${best.schema as string}`;
      break;
    default:
      message = best.message ?? 'is invalid';
  }
  return { path, message };
}

const kPreviewLength = 60;

/** A value as a message may quote it: strings cut short, containers named, never walked. */
export function preview(value: unknown): string {
  if (typeof value === 'string') {
    return value.length > kPreviewLength ? `${JSON.stringify(value.slice(0, kPreviewLength))}… (${value.length} characters)` : JSON.stringify(value);
  }
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return String(value);
}

export function formatProblem(p: SchemaProblem): string {
  return `${p.path} ${p.message}`;
}
