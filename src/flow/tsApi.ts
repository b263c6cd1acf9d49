// The `box` and `expect` a TypeScript flow function gets, built from the step table (steps.ts):
// each entry's `ts` names the method or matcher that runs it. Each call becomes the YAML step it
// stands for, located at the user's call; whoever runs the flow (the runner, boxflow/test) gets the
// step through `runStep` and decides how to run and record it. Nothing here knows how a step runs.
import { BoxflowError } from '../errors.js';
import type { FlowBox, FlowExpect, SourceLocation, Step } from './types.js';
import { normalizeStep } from './load.js';
import { kPercentPointPattern } from './parts.js';
import { kStepNames, stepDef, type StepName } from './steps/index.js';
import { callerLocation } from './tsFlow.js';

export interface FlowApiHost {
  /** Runs one step; rejects when it failed, so the flow function stops there. */
  runStep(step: Step): Promise<void>;
  info: FlowBox['info'];
  page: FlowBox['page'];
}

type Raw = Record<string, unknown>;
const isPlainObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const kPercentRe = new RegExp(kPercentPointPattern);

/** `value` with `extra` keys joined to its map form (a string becomes `{[stringKey]: value}`, a point [x, y] `{x, y}`). */
function joinArg(name: StepName, value: unknown, extra: Raw, stringKey: string | undefined): unknown {
  if (!Object.keys(extra).length) return value;
  if (Array.isArray(value) && value.length === 2) return { x: value[0], y: value[1], ...extra };
  if (isPlainObject(value)) return { ...value, ...extra };
  if (typeof value === 'string' && stringKey && !(stringKey === 'text' && kPercentRe.test(value))) return { [stringKey]: value, ...extra };
  throw new BoxflowError('STEP_INVALID', `${name}: ${JSON.stringify(value)} cannot take ${Object.keys(extra).join(', ')}; give a map (a point in pixels is {x, y})`);
}

/**
 * The YAML step a TS API call stands for: `box.tap(target, opts)` is `{tap: target, ...opts}`.
 * The options take the YAML shape (a numeric timeout is in ms, as StepCommon has it); those the
 * step's table entry names as `argKeys` go into its argument. Used by a TS flow's `box`/`expect`
 * and by boxflow/test's matchers, so a call means the same in both.
 */
export function tsStep(name: StepName, value: unknown, opts?: object): Raw {
  const ts = stepDef(name)?.ts ?? {};
  const common: Raw = {};
  const extra: Raw = {};
  for (const [k, v] of Object.entries(opts ?? {})) {
    if (v === undefined) continue;
    if (ts.argKeys?.includes(k)) extra[k] = v;
    else common[k] = v;
  }
  if (typeof common.timeout === 'number') common.timeout = `${common.timeout}ms`;
  let arg = ts.arg === 'none' ? null : ts.arg === 'optional' ? (value ?? null) : value;
  // A key given as undefined is a key not given (`{selector, text: undefined}`).
  if (isPlainObject(arg)) arg = Object.fromEntries(Object.entries(arg).filter(([, v]) => v !== undefined));
  return { [name]: joinArg(name, arg, extra, ts.stringKey), ...common };
}

type Call = (name: StepName, value: unknown, opts: object | undefined, source: SourceLocation) => Promise<void>;
type Method = (...args: unknown[]) => Promise<void>;

/** The table's methods (`box.*`) and matchers (`expect(box).*`, `expect(box).not.*`). */
function fromTable(call: Call): { methods: Record<string, Method>; matchers: Record<string, Method>; not: Record<string, Method> } {
  const methods: Record<string, Method> = {};
  const matchers: Record<string, Method> = {};
  const not: Record<string, Method> = {};
  for (const name of kStepNames) {
    const ts = stepDef(name)!.ts;
    if (!ts) continue;
    const fn: Method = ts.arg === 'none' ? (opts) => call(name, undefined, opts as object, callerLocation()) : (value, opts) => call(name, value, opts as object, callerLocation());
    if (ts.method) methods[ts.method] = fn;
    if (ts.matcher?.startsWith('not.')) not[ts.matcher.slice(4)] = fn;
    else if (ts.matcher) matchers[ts.matcher] = fn;
  }
  return { methods, matchers, not };
}

export function flowApi(host: FlowApiHost): { box: FlowBox; expect: FlowExpect } {
  const run = async (raw: () => Raw, source: SourceLocation) => {
    let step: Step;
    try {
      step = normalizeStep(raw(), source);
    } catch (err) {
      // `boxflow validate` cannot see what a function builds: found now, it is a run-time error.
      throw BoxflowError.is(err) && err.code === 'FLOW_SCHEMA' ? new BoxflowError('STEP_INVALID', err.message, { cause: err, details: err.details }) : err;
    }
    await host.runStep(step);
  };
  const { methods, matchers, not } = fromTable((name, value, opts, source) => run(() => tsStep(name, value, opts), source));
  const box = {
    ...methods,
    step: (raw: Raw) => run(() => raw, callerLocation()),
    page: host.page,
    // The old spelling, kept working: `box.page()` is the one API of TS flows and boxflow/test.
    browser: { page: host.page },
    info: host.info,
  } as unknown as FlowBox;
  const expect = (() => ({ ...matchers, not })) as unknown as FlowExpect;
  return { box, expect };
}
