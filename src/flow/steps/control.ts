// Steps that run other steps: nested flows, loops, retries.
import { parseDuration } from '../../api/duration.js';
import type { Selector } from '../../layout/types.js';
import { duration, ref, type Path } from '../parts.js';
import { baseName, clip, selectorLabel, type LabelCtx } from '../labels.js';
import type { Condition, StepBody } from '../types.js';
import { str, runtimeText, isRuntime, checkSelector, resolveFile, envValues } from './args.js';
import type { NormalizeCtx, StepDefs } from './types.js';

function toCondition(v: Record<string, unknown>, ctx: NormalizeCtx, rel: Path): Condition {
  if (v.true !== undefined) return { true: String(v.true) };
  return v.visible !== undefined
    ? { visible: checkSelector(v.visible as Selector, ctx, [...rel, 'visible']) }
    : { notVisible: checkSelector(v.notVisible as Selector, ctx, [...rel, 'notVisible']) };
}

/** A condition as a label: `visible "Login"`, `not visible #spinner`, or the text of a `true`. */
function conditionLabel(w: Condition, c: LabelCtx): string {
  return w.true !== undefined ? clip(c, w.true, 60) : w.visible !== undefined ? `visible ${selectorLabel(w.visible, c)}` : `not visible ${selectorLabel(w.notVisible!, c)}`;
}

export const controlSteps = {
  runFlow: {
    description:
      'Run another flow file (relative to this one), or inline `steps`, as a nested step; `when` runs it only if the condition holds, ' +
      '`env` defines variables for it; `stepTimeout` (inline steps) is each step\'s timeout, a duration or a ${...} evaluated when the block runs.',
    example: '- runFlow: { file: login.yaml, env: { USER: bob }, when: { visible: Login } }',
    label: (s, c) => {
      const cond = s.when ? ` if ${conditionLabel(s.when, c)}` : '';
      if (s.file !== undefined) return `runFlow ${baseName(c, s.file)}${cond}`;
      const n = s.steps?.length ?? 0;
      return `runFlow${cond} (${n} step${n === 1 ? '' : 's'})`;
    },
    arg: {
      title: 'a file, {file, env, when} or {steps, env, when, stepTimeout}',
      anyOf: [
        str('Flow file, relative to this file.'),
        {
          type: 'object',
          properties: { file: str('Flow file, relative to this file.'), env: ref('env'), when: ref('condition') },
          required: ['file'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: {
            steps: ref('steps'),
            env: ref('env'),
            when: ref('condition'),
            stepTimeout: { anyOf: [duration('Timeout of each of these steps.'), runtimeText] },
          },
          required: ['steps'],
          additionalProperties: false,
        },
      ],
    },
    normalize: (a, ctx) => {
      if (typeof a === 'string') return { kind: 'runFlow', file: resolveFile(a, ctx) };
      const body: StepBody & { kind: 'runFlow' } = a.steps !== undefined ? { kind: 'runFlow', steps: ctx.steps(a.steps, ['steps']) } : { kind: 'runFlow', file: resolveFile(a.file, ctx) };
      if (a.env !== undefined) body.env = envValues(a.env);
      if (a.when !== undefined) body.when = toCondition(a.when, ctx, ['when']);
      if (a.stepTimeout !== undefined) body.stepTimeout = isRuntime(a.stepTimeout) ? a.stepTimeout : parseDuration(a.stepTimeout);
      return body;
    },
  },
  repeat: {
    description: 'Repeat steps `times` times, or while a condition holds (at most `max` rounds); `env` defines variables for these steps only.',
    example: '- repeat: { times: 3, steps: [ { tap: Next } ] }',
    label: (s, c) => {
      if (s.times !== undefined) return `repeat ${typeof s.times === 'string' ? clip(c, s.times, 40) : s.times}×`;
      const cond = conditionLabel(s.while!, c);
      // A one-round loop is a condition guarding steps.
      return s.max === 1 ? `if ${cond}` : `repeat while ${cond}`;
    },
    arg: {
      type: 'object',
      description: 'Exactly one of times / while.',
      properties: {
        times: { anyOf: [{ type: 'integer', minimum: 1 }, runtimeText], description: 'A count, or a ${...} giving one when the loop starts (0: no round).' },
        while: ref('condition'),
        max: { type: 'integer', minimum: 1, description: 'Upper bound of rounds for while.' },
        env: ref('env'),
        steps: ref('steps'),
      },
      required: ['steps'],
      additionalProperties: false,
    },
    normalize: (a, ctx) => {
      if ((a.times === undefined) === (a.while === undefined)) {
        ctx.fail([], a.times === undefined ? 'needs either times or while' : 'takes times or while, not both');
      }
      if (a.max !== undefined && a.while === undefined) ctx.fail(['max'], 'max only applies to repeat with while', { atKey: true });
      const body: StepBody & { kind: 'repeat' } = { kind: 'repeat', steps: ctx.steps(a.steps, ['steps']) };
      if (a.times !== undefined) body.times = a.times;
      if (a.while !== undefined) body.while = toCondition(a.while, ctx, ['while']);
      if (a.max !== undefined) body.max = a.max;
      if (a.env !== undefined) body.env = envValues(a.env);
      return body;
    },
  },
  retry: {
    description: 'Run steps; when one fails, run them again, up to `times` more attempts.',
    example: '- retry: { times: 2, steps: [ { tap: Reload } ] }',
    label: (s, c) => `retry up to ${typeof s.times === 'string' ? clip(c, s.times, 40) : s.times}×`,
    arg: {
      type: 'object',
      properties: {
        times: { anyOf: [{ type: 'integer', minimum: 1, maximum: 100 }, runtimeText], description: 'Attempts after the first, or a ${...} giving them when the step runs (0 to 100).' },
        steps: ref('steps'),
      },
      required: ['times', 'steps'],
      additionalProperties: false,
    },
    normalize: (a, ctx) => ({ kind: 'retry', times: a.times, steps: ctx.steps(a.steps, ['steps']) }),
  },
} satisfies StepDefs;
