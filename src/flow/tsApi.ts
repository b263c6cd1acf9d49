// The `box` and `expect` a TypeScript flow function gets. Each call becomes the YAML step it stands
// for, located at the user's call; whoever runs the flow (the runner, boxflow/test) gets the step
// through `runStep` and decides how to run and record it. Nothing here knows how a step runs.
import { BoxflowError } from '../errors.js';
import type { FlowBox, FlowExpect, SourceLocation, Step } from './types.js';
import { normalizeStep } from './load.js';
import { callerLocation } from './tsFlow.js';

export interface FlowApiHost {
  /** Runs one step; rejects when it failed, so the flow function stops there. */
  runStep(step: Step): Promise<void>;
  info: FlowBox['info'];
  page: FlowBox['browser']['page'];
}

/** Options take the YAML shape; a numeric timeout is in ms, as StepCommon has it. */
function withOpts(raw: Record<string, unknown>, opts?: object): Record<string, unknown> {
  const extra: Record<string, unknown> = { ...(opts ?? {}) };
  if (typeof extra.timeout === 'number') extra.timeout = `${extra.timeout}ms`;
  return { ...raw, ...extra };
}

export function flowApi(host: FlowApiHost): { box: FlowBox; expect: FlowExpect } {
  const call = async (raw: Record<string, unknown>, source: SourceLocation) => {
    let step: Step;
    try {
      step = normalizeStep(raw, source);
    } catch (err) {
      // `boxflow validate` cannot see what a function builds: found now, it is a run-time error.
      throw BoxflowError.is(err) && err.code === 'FLOW_SCHEMA' ? new BoxflowError('STEP_INVALID', err.message, { cause: err, details: err.details }) : err;
    }
    await host.runStep(step);
  };
  const box: FlowBox = {
    tap: (target, opts) => call(withOpts({ tap: target }, opts), callerLocation()),
    longPress: (target, opts) => {
      const { duration, ...rest } = opts ?? {};
      return call(withOpts({ longPress: duration ? { ...(typeof target === 'string' ? { text: target } : target), duration } : target }, rest), callerLocation());
    },
    swipe: (spec, opts) => call(withOpts({ swipe: spec }, opts), callerLocation()),
    drag: (spec, opts) => call(withOpts({ drag: spec }, opts), callerLocation()),
    pressKey: (keys, opts) => call(withOpts({ pressKey: keys }, opts), callerLocation()),
    type: (text, opts) => call(withOpts({ type: text }, opts), callerLocation()),
    openTab: (url, opts) => call(withOpts({ openTab: url }, opts), callerLocation()),
    closeBrowser: (opts) => call(withOpts({ closeBrowser: null }, opts), callerLocation()),
    setScale: (scale, opts) => call(withOpts({ setScale: scale }, opts), callerLocation()),
    setResolution: (size, opts) => call(withOpts({ setResolution: size }, opts), callerLocation()),
    screenshot: (name, opts) => call(withOpts({ screenshot: name }, opts), callerLocation()),
    sleep: (duration, opts) => call(withOpts({ sleep: duration }, opts), callerLocation()),
    launchApp: (app, opts) => call(withOpts({ launchApp: app ?? null }, opts), callerLocation()),
    stopApp: (appId, opts) => call(withOpts({ stopApp: appId ?? null }, opts), callerLocation()),
    clearState: (appId, opts) => call(withOpts({ clearState: appId ?? null }, opts), callerLocation()),
    back: (opts) => call(withOpts({ back: null }, opts), callerLocation()),
    home: (opts) => call(withOpts({ home: null }, opts), callerLocation()),
    hideKeyboard: (opts) => call(withOpts({ hideKeyboard: null }, opts), callerLocation()),
    eraseText: (chars, opts) => call(withOpts({ eraseText: chars ?? null }, opts), callerLocation()),
    openLink: (url, opts) => call(withOpts({ openLink: url }, opts), callerLocation()),
    step: (raw) => call(raw, callerLocation()),
    browser: { page: host.page },
    info: host.info,
  };
  const expect: FlowExpect = () => ({
    toShow: (selector, opts) => call(withOpts({ assertVisible: selector }, opts), callerLocation()),
    toHaveLayout: (spec, opts) => {
      const { selector, ...rest } = spec;
      const sel = typeof selector === 'string' ? { text: selector } : selector;
      return call(withOpts({ assertLayout: { ...sel, ...rest } }, opts), callerLocation());
    },
    toMatchScreenshot: (name, opts) => {
      const { label, optional, timeout, screenshots, ...visual } = (opts ?? {}) as Record<string, unknown>;
      const common = Object.fromEntries(Object.entries({ label, optional, timeout, screenshots }).filter(([, v]) => v !== undefined));
      return call({ assertScreenshot: Object.keys(visual).length ? { name, ...visual } : name, ...common }, callerLocation());
    },
    not: { toShow: (selector, opts) => call(withOpts({ assertNotVisible: selector }, opts), callerLocation()) },
  });
  return { box, expect };
}
