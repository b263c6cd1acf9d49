import { BoxflowError } from '../errors.js';

const kName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Evaluates a `${...}` that is not a variable reference (the runner's JavaScript sandbox). */
export type ExpressionEvaluator = (expression: string) => string;

function interpolateString(text: string, vars: Record<string, string>, env: Record<string, string | undefined>, script?: ExpressionEvaluator): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const at = text.indexOf('$', i);
    if (at < 0) break;
    out += text.slice(i, at);
    if (text.startsWith('$${', at)) {
      out += '${';
      i = at + 3;
      continue;
    }
    if (!text.startsWith('${', at)) {
      out += '$';
      i = at + 1;
      continue;
    }
    const end = text.indexOf('}', at);
    if (end < 0) throw new BoxflowError('STEP_INVALID', `"${text}": "\${" has no closing "}" (write $\${ for a literal \${)`);
    const ref = text.slice(at + 2, end).trim();
    const isEnv = ref.startsWith('env.');
    const name = isEnv ? ref.slice(4) : ref;
    if (!kName.test(name) && script) {
      // An expression may hold braces: it runs to the last "}" before the next "$" (as Maestro reads it).
      const next = text.indexOf('$', end);
      const last = text.lastIndexOf('}', next < 0 ? text.length : next);
      out += script(text.slice(at + 2, last));
      i = last + 1;
      continue;
    }
    if (!kName.test(name)) throw new BoxflowError('STEP_INVALID', `"\${${ref}}" is not a variable reference: use \${NAME} or \${env.NAME}`, { details: { variable: ref } });
    const value = isEnv ? env[name] : Object.hasOwn(vars, name) ? vars[name] : undefined;
    if (value === undefined) {
      throw new BoxflowError(
        'STEP_INVALID',
        isEnv
          ? `\${env.${name}}: the environment variable ${name} is not set`
          : `\${${name}}: unknown variable; define it under env: (flow, runFlow or config) or read the process environment with \${env.${name}}`,
        { details: { variable: ref } },
      );
    }
    out += value;
    i = end + 1;
  }
  return out + text.slice(i);
}

/**
 * Replaces `${NAME}` (from `vars`) and `${env.NAME}` (from `env`) in every string of `value`
 * (deeply through arrays and plain objects). `$${` writes a literal `${`. With `script`, any other
 * `${expression}` is JavaScript the runner evaluates (`${output.total}`, `${COUNT * 2}`). An unknown or unset
 * variable throws STEP_INVALID (interpolation happens as a step runs); the runner adds the step's location.
 */
export function interpolate<T>(value: T, vars: Record<string, string>, env: Record<string, string | undefined> = process.env, script?: ExpressionEvaluator): T {
  if (typeof value === 'string') return interpolateString(value, vars, env, script) as T;
  if (Array.isArray(value)) return value.map((v) => interpolate(v, vars, env, script)) as T;
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, vars, env, script)])) as T;
  }
  return value;
}

/** Every `${NAME}` / `${env.NAME}` reference in the strings of `value` (deeply), for load-time checks. */
export function variableRefs(value: unknown, out: { name: string; env: boolean }[] = []): { name: string; env: boolean }[] {
  if (typeof value === 'string') {
    for (const m of value.matchAll(/(?<!\$)\$\{\s*(env\.)?([A-Za-z_][A-Za-z0-9_]*)\s*\}/g)) out.push({ name: m[2]!, env: m[1] !== undefined });
  } else if (Array.isArray(value)) value.forEach((v) => variableRefs(v, out));
  else if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) Object.values(value).forEach((v) => variableRefs(v, out));
  return out;
}
