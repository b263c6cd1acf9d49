export type * from './types.js';
export { flowSchema, flowSchemaText } from './schema.js';
export { stepDefs, kStepNames, kBareStepNames, type StepDef, type StepName } from './steps.js';
export { parseFlowYaml } from './yaml.js';
export { discoverFlows, loadFlowFile, loadFlows, normalizeStep, type LoadedFlows } from './load.js';
export { flow, isFlowDefinition, callerLocation, type FlowDefinition, type FlowDefinitionOptions, type DeclarativeFlow, type RawStep } from './tsFlow.js';
export { interpolate } from './interpolate.js';
export { codeFrame } from './codeFrame.js';
export type { FlowErrorDetails } from './located.js';
