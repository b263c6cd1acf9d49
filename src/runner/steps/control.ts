// Steps that hold steps: runFlow, repeat, retry. Their children nest in the record.
import { parseDuration } from '../../api/duration.js';
import { BoxflowError, kStepValue } from '../../errors.js';
import { query } from '../../layout/index.js';
import type { Condition } from '../../flow/types.js';
import { defineVariables, isTrueText } from '../script.js';
import { handler, type StepHandler, type StepRun } from './types.js';
import type { StepRecord } from '../types.js';

/** Whether a condition holds now; its `${...}` resolved already (a runFlow's `when`, with its step). */
async function condition(run: StepRun, when: Condition | undefined): Promise<boolean> {
  if (!when) return true;
  if (when.true !== undefined) return isTrueText(when.true);
  const tree = await run.rt.layout.tree(run.signal);
  if (when.visible !== undefined && !query(tree, when.visible).length) return false;
  if (when.notVisible !== undefined && query(tree, when.notVisible).length) return false;
  return true;
}

function failIfChildFailed(children: StepRecord[]): void {
  const failed = children.find((c) => c.status === 'failed');
  if (failed) throw new BoxflowError((failed.error?.code ?? 'FLOW_ERROR') as never, `step ${failed.id} (${failed.label}) failed: ${failed.error?.message ?? ''}`);
}

/**
 * A value given as `${...}`, evaluated now and checked to be a whole number from `min` to `max`;
 * else STEP_INVALID saying what it gave (the step's record has its file:line:col).
 */
export function runtimeInteger(value: number | string, written: unknown, what: string, min: number, max: number): number {
  if (typeof value === 'number') return value;
  const text = value.trim();
  const n = Number(text);
  if (!/^-?\d+(?:\.0*)?$/.test(text) || n < min || n > max) {
    throw kStepValue(what, written, text, `a whole number from ${min} to ${max}`);
  }
  return n;
}

/** A timeout given as `${...}`: milliseconds (a number) or a duration (10s), evaluated now. */
function runtimeDuration(value: number | string, written: unknown, what: string): number {
  if (typeof value === 'number') return value;
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text));
  try {
    return parseDuration(text, what);
  } catch {
    throw kStepValue(what, written, text, 'milliseconds nor a duration (e.g. 10s)');
  }
}

export const runFlow: StepHandler<'runFlow'> = handler(['env', 'when', 'stepTimeout'], async (step, run) => {
  if (!(await condition(run, step.when))) {
    run.record.message = 'skipped: condition not met';
    return;
  }
  if (step.steps) {
    // Inline steps: the step's env holds for them only; a stepTimeout bounds each of them.
    const vars = step.env ? defineVariables(run.vars, step.env, run.rt.state, run.rt.box.type) : run.vars;
    const timeout = step.stepTimeout === undefined ? undefined : runtimeDuration(step.stepTimeout, (run.written as typeof step).stepTimeout, 'stepTimeout');
    const steps = timeout === undefined ? step.steps : step.steps.map((s) => ({ ...s, timeout }));
    const children = await run.runChildren(steps, vars, run.flowFile);
    run.record.children = children;
    run.record.message = `ran ${children.length} step${children.length === 1 ? '' : 's'}${timeout !== undefined ? ` (each within ${timeout} ms)` : ''}`;
    failIfChildFailed(children);
    return;
  }
  const sub = await run.rt.loadFlow(step.file!);
  // As Maestro: the step's env first, then the flow's own env: (its values may read the step's).
  const vars = defineVariables({ ...run.vars, ...step.env }, sub.env, run.rt.state, run.rt.box.type);
  run.rt.addSecrets(sub.secrets.map((name) => vars[name] ?? process.env[name]));
  const children = [
    ...(await run.runChildren([...sub.onStart, ...sub.steps, ...sub.onFinish], vars, sub.file)),
  ];
  run.record.children = children;
  run.record.message = `ran ${sub.name} (${children.length} steps)`;
  failIfChildFailed(children);
});

export const repeat: StepHandler<'repeat'> = handler(['times'], async (step, run) => {
  const children: StepRecord[] = [];
  run.record.children = children;
  const max = step.times !== undefined ? runtimeInteger(step.times, (run.written as typeof step).times, 'repeat times', 0, 1_000_000) : (step.max ?? 100);
  // Variables of the repeat's env live in its steps only (Maestro's runFlow env on inline commands).
  const vars = step.env ? defineVariables(run.vars, step.env, run.rt.state, run.rt.box.type) : run.vars;
  let n = 0;
  for (; n < max; n++) {
    // `while` is evaluated again before each round, with what the round before changed: not with the step.
    if (step.while && !(await condition(run, run.resolve(step.while)))) break;
    const batch = await run.runChildren(step.steps, vars, run.flowFile, n + 1);
    children.push(...batch);
    failIfChildFailed(batch);
  }
  run.record.attempts = n;
  run.record.message = `repeated ${n} time${n === 1 ? '' : 's'}`;
});

export const retry: StepHandler<'retry'> = handler(['times'], async (step, run) => {
  const children: StepRecord[] = [];
  run.record.children = children;
  const times = runtimeInteger(step.times, (run.written as typeof step).times, 'retry times', 0, 100);
  for (let attempt = 1; ; attempt++) {
    const batch = await run.runChildren(step.steps, run.vars, run.flowFile, attempt);
    children.push(...batch);
    run.record.attempts = attempt;
    if (!batch.some((c) => c.status === 'failed')) {
      run.record.message = attempt === 1 ? 'passed on the first attempt' : `passed on attempt ${attempt} of ${times + 1}`;
      return;
    }
    if (attempt > times) failIfChildFailed(batch);
  }
});
