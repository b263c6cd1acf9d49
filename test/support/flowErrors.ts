// The load-time error of a flow that must not load: its FLOW_SCHEMA message's first line and where
// it points (`line:col`). Fails the test when the flow loads, or fails with another error.
import assert from 'node:assert/strict';
import { BoxflowError } from '../../src/errors.js';
import { parseFlowYaml, type FlowErrorDetails } from '../../src/flow/index.js';

export function flowLoadError(yaml: string, file = '/flows/k.flow.yaml'): { message: string; at: string } {
  try {
    parseFlowYaml(yaml, file);
  } catch (err) {
    assert.ok(BoxflowError.is(err) && err.code === 'FLOW_SCHEMA', String(err));
    const d = err.details as FlowErrorDetails;
    return { message: err.message.split('\n')[0]!, at: `${d.line}:${d.column}` };
  }
  assert.fail(`the flow loaded: ${yaml}`);
}
