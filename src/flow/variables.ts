// `${NAME}` references that nothing defines are load-time errors, located at their step, rather
// than failures halfway through a run.
import { readFileSync } from 'node:fs';
import type { BoxflowError } from '../errors.js';
import { variableRefs } from './interpolate.js';
import { locatedError } from './located.js';
import { didYouMean, hint } from './suggest.js';
import type { Flow, Step } from './types.js';

/**
 * Every undefined variable of a declarative flow: `${NAME}` not in the flow's env nor the config's,
 * `${env.NAME}` not set in the environment. (runFlow files are checked when they run: their
 * variables come from the step that calls them.)
 */
export function undefinedVariables(flow: Flow, configEnv: Record<string, string> = {}, processEnv: NodeJS.ProcessEnv = process.env): BoxflowError[] {
  const known = { ...configEnv, ...flow.env };
  const names = Object.keys(known);
  const errors: BoxflowError[] = [];
  let text: string | undefined;
  const visit = (step: Step, known: Record<string, string>) => {
    const { source, kind: _k, label: _l, ...rest } = step as Step & { steps?: Step[] };
    const nested = 'steps' in rest ? (rest.steps as Step[]) : [];
    if ('steps' in rest) delete (rest as { steps?: unknown }).steps;
    // A repeat's env: defines variables for its own steps.
    const inner = step.kind === 'repeat' && step.env ? { ...known, ...step.env } : known;
    const seen = new Set<string>();
    for (const ref of variableRefs(rest)) {
      const key = `${ref.env}:${ref.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (ref.env ? processEnv[ref.name] !== undefined : Object.hasOwn(known, ref.name)) continue;
      const suggestion = ref.env ? undefined : didYouMean(ref.name, names);
      const message = ref.env
        ? `\${env.${ref.name}}: the environment variable ${ref.name} is not set`
        : `\${${ref.name}} is not defined${hint(suggestion)}: define it under env: (the flow's or the config's), or read the environment with \${env.${ref.name}}`;
      text ??= readText(flow.file);
      errors.push(locatedError('FLOW_SCHEMA', source, message, text, suggestion ? { key: ref.name, suggestion } : { key: ref.name }));
    }
    nested.forEach((s) => visit(s, inner));
  };
  if (!flow.fn) [...flow.onStart, ...flow.steps, ...flow.onFinish].forEach((s) => visit(s, known));
  return errors;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
