// A step's default label reads like the step: `tap #email`, `type "demo@…"`, `assertVisible "Welcome"`.
// Each step's label function is in its entry of the step table (flow/steps.ts), the one place a
// step's meaning is written; Playwright's step titles (playwright/titles.ts) are the same labels.
export { stepLabel } from '../flow/steps/index.js';
export { selectorLabel, targetLabel, type LabelCtx } from '../flow/labels.js';
