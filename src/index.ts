// The public API of the boxflow package.
export { flow } from './flow/index.js';
export { defineConfig, type Config } from './cli/config.js';
export { BoxClient, BoxApiError, type BoxClientOptions, type RequestOptions } from './api/client.js';
export { BoxflowError, errorCodes, type ErrorCode } from './errors.js';
export type { Flow, FlowBox, FlowExpect, FlowOptions, Step } from './flow/types.js';
export type { Selector, SelectorObject } from './layout/types.js';
export type { Reporter, ReporterFactory, RunResult, FlowResult, StepRecord } from './runner/types.js';
