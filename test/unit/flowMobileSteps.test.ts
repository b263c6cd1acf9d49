// The mobile-flow steps load from YAML and from TypeScript's step shapes, with the flow's appId.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeStep, parseFlowYaml } from '../../src/flow/index.js';

const at = { file: '/x/a.flow.ts', line: 1, column: 1 };

test('a flow-level appId is kept; a TypeScript step object takes the YAML shape', () => {
  const f = parseFlowYaml('appId: com.example.app\nsteps:\n  - launchApp\n  - back\n', '/x/a.flow.yaml');
  assert.equal(f.appId, 'com.example.app');
  assert.deepEqual(f.steps.map((s) => s.kind), ['launchApp', 'back']);
  const { source: _s, ...step } = normalizeStep({ launchApp: { appId: 'com.other', clearState: true } }, at);
  assert.deepEqual(step, { kind: 'launchApp', appId: 'com.other', clearState: true, stopApp: true });
});

test('misused mobile steps are load-time errors that say what to write', () => {
  assert.throws(() => parseFlowYaml('steps:\n  - inputRandom: { type: email, length: 3 }\n', '/x/b.flow.yaml'), /length applies to text and number, not email/);
  assert.throws(() => parseFlowYaml('steps:\n  - eraseText: 0\n', '/x/c.flow.yaml'), /eraseText/);
  assert.throws(() => parseFlowYaml('steps:\n  - copyTextFrom\n', '/x/d.flow.yaml'), /step "copyTextFrom" needs an argument, e.g. - copyTextFrom: \{ id: order-number \}/);
  assert.throws(() => parseFlowYaml('appId: 3\nsteps:\n  - back\n', '/x/e.flow.yaml'), /appId/);
});
