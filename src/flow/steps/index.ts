// The one table of steps: each entry holds the JSON Schema of the step's argument (with every
// shorthand form) and the normaliser that turns a valid argument into a Step body. The published
// schema (schema.ts) and the validators (validate.ts) both read this table, so they cannot drift.
// The entries live by category beside the runner's handlers of the same steps (runner/steps/).
import { clip, kNoMask, type LabelCtx } from '../labels.js';
import type { Step, StepKind } from '../types.js';
import type { StepDef } from './types.js';
import { actionsSteps } from './actions.js';
import { androidSteps } from './android.js';
import { appSteps } from './app.js';
import { assertsSteps } from './asserts.js';
import { clipboardSteps } from './clipboard.js';
import { controlSteps } from './control.js';
import { deviceSteps } from './device.js';
import { visualSteps } from './visual.js';
import { webSteps } from './web.js';

export type { NormalizeCtx, StepDef, TsCall } from './types.js';
export { envValues } from './args.js';
export { kRandomKinds } from './app.js';

/** Every step; the compiler checks none is missing. */
const kAll = {
  ...actionsSteps,
  ...androidSteps,
  ...appSteps,
  ...assertsSteps,
  ...clipboardSteps,
  ...controlSteps,
  ...deviceSteps,
  ...visualSteps,
  ...webSteps,
} satisfies { [K in StepKind]: StepDef<K> };

/**
 * The order of kStepNames: the order the published schema (schema/flow.schema.json) lists the
 * steps in. A step not named here comes last.
 */
const kOrder: StepKind[] = [
  'tap', 'longPress', 'doubleTap', 'hover', 'selectOption', 'fill', 'check', 'uncheck', 'uploadFile', 'assertUrl',
  'assertTitle', 'assertClipboard', 'swipe', 'drag', 'scrollUntilVisible', 'pressKey', 'type', 'setScale',
  'setResolution', 'installApp', 'closeAllApps', 'assertPackage', 'openTab', 'closeBrowser', 'renameFile',
  'runCommand', 'deleteMedia', 'deleteAlbum', 'webTerminal', 'cdpUrl', 'assertVisible', 'assertNotVisible',
  'assertLayout', 'assertScreenshot', 'screenshot', 'sleep', 'runFlow', 'repeat', 'retry', 'launchApp', 'setDevice',
  'record', 'assertDevice', 'stopApp', 'clearState', 'back', 'home', 'hideKeyboard', 'eraseText', 'openLink',
  'waitForAnimationToEnd', 'copyTextFrom', 'pasteText', 'inputRandom', 'assertTrue', 'evalScript', 'runScript',
];

const rank = (name: string) => {
  const i = kOrder.indexOf(name as StepKind);
  return i === -1 ? kOrder.length : i;
};
export const stepDefs = Object.fromEntries(Object.entries(kAll).sort(([a], [b]) => rank(a) - rank(b))) as typeof kAll;

export type StepName = keyof typeof stepDefs;
export const kStepNames = Object.keys(stepDefs) as StepName[];
export const kBareStepNames = kStepNames.filter((n) => (stepDefs[n] as StepDef).bare);
export const stepDef = (name: string): StepDef | undefined =>
  Object.hasOwn(stepDefs, name) ? (stepDefs as Record<string, StepDef>)[name] : undefined;

/**
 * A step's default label, from its entry in the table: what boxflow's reports and Playwright's
 * step titles both show when the step has no `label`. `ctx.mask` hides secrets before values are cut.
 */
export function stepLabel(step: Step, ctx: LabelCtx = kNoMask): string {
  // A step read from a Maestro file reads as its command there (`tapOn id: email`).
  if (step.source?.command) return clip(ctx, step.source.command, 100);
  return (stepDefs[step.kind] as StepDef).label(step, ctx);
}
