// Titles of the Playwright steps that box calls become: the step's own `label`, else the very
// label boxflow's reports give it (from the step table, flow/steps.ts): `tap #email`,
// `type "demo@exampl…"`, `pressKey control+a`, `runFlow sign-in.flow.yaml`. Secrets are masked
// before any value is cut short.
import { stepLabel } from '../flow/steps/index.js';
import type { Step } from '../flow/types.js';
import type { Masker } from '../mask.js';

/** The step's title: its own `label`, else its default label; secrets masked. */
export function stepTitle(step: Step, _rootDir: string, masker: Masker): string {
  return masker.text(step.label ?? stepLabel(step, { mask: (text) => masker.text(text) }));
}
