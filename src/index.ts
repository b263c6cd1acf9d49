// The public API of the boxflow package.
export { flow } from './flow/index.js';
export { defineConfig, type Config } from './cli/config.js';
export { BoxClient, BoxApiError, type BoxClientOptions, type RequestOptions } from './api/client.js';
export { BoxflowError, errorCodes, type ErrorCode } from './errors.js';
export type { Flow, FlowBox, FlowExpect, FlowOptions, Step } from './flow/types.js';
export type { Selector, SelectorObject } from './layout/types.js';
// Everything a reporter's hooks receive, so a custom reporter can type each hook.
export type {
  Reporter,
  ReporterFactory,
  ReporterContext,
  RunInfo,
  RunResult,
  RunEvent,
  FlowInfo,
  FlowResult,
  FlowAttempt,
  FlowStatus,
  BoxInfo,
  StepRecord,
  StepStatus,
  StepImages,
  VisualRecord,
  LayoutEvidence,
  ErrorInfo,
} from './runner/types.js';
