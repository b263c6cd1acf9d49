import type { Step } from '../../flow/types.js';
import type { StepHandler } from './types.js';
import * as actions from './actions.js';
import * as android from './android.js';
import * as app from './app.js';
import * as asserts from './asserts.js';
import * as clipboard from './clipboard.js';
import * as control from './control.js';
import * as device from './device.js';
import * as visual from './visual.js';
import * as web from './web.js';

/** One handler per step kind; the compiler checks none is missing. */
export const handlers: { [K in Step['kind']]: StepHandler<K> } = {
  ...actions,
  ...android,
  ...app,
  ...asserts,
  ...clipboard,
  ...control,
  ...device,
  ...visual,
  ...web,
};
