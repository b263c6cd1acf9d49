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

test('step options are accepted inside the step map as well as beside it', () => {
  const f = parseFlowYaml(
    [
      'steps:',
      '  - assertVisible: { text: Ready, timeout: 2s }',
      '  - tap: { id: go, label: Go, optional: true, screenshots: false }',
      '  - launchApp: { appId: com.x, timeout: 30s }',
      '  - back: { label: Back out }',
      '  - selectOption: { id: country, label: France, timeout: 1s }',
      '  - assertVisible: Ready',
      '    timeout: 3s',
    ].join('\n') + '\n',
    '/x/o.flow.yaml',
  );
  const bare = f.steps.map(({ source: _s, ...rest }) => rest);
  assert.deepEqual(bare, [
    { kind: 'assertVisible', selector: { text: 'Ready' }, timeout: 2000 },
    { kind: 'tap', target: { selector: { id: 'go' } }, label: 'Go', optional: true, screenshots: false },
    { kind: 'launchApp', appId: 'com.x', stopApp: true, timeout: 30_000 },
    { kind: 'back', label: 'Back out' },
    // selectOption's own `label` is the option, not the step title.
    { kind: 'selectOption', selector: { id: 'country' }, by: 'label', option: 'France', timeout: 1000 },
    { kind: 'assertVisible', selector: 'Ready', timeout: 3000 },
  ]);
});

test('an option given twice, a bad option inside the map, or a map of options only are errors at the key', () => {
  const err = (yaml: string) => {
    try {
      parseFlowYaml(yaml, '/x/p.flow.yaml');
    } catch (e) {
      return (e as Error).message;
    }
    assert.fail('no error');
  };
  assert.match(err('steps:\n  - assertVisible: { text: A, timeout: 2s }\n    timeout: 3s\n'), /p\.flow\.yaml:2:\d+.*"timeout" is given twice: beside assertVisible and inside it/s);
  assert.match(err('steps:\n  - assertVisible: { text: A, timeout: soon }\n'), /p\.flow\.yaml:2:\d+[\s\S]*timeout/);
  assert.match(err('steps:\n  - assertVisible: { timeout: 2s }\n'), /assertVisible/);
});
