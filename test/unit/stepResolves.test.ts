// Each runner step handler declares the fields of its step that take `${...}`; the executor resolves
// exactly those, deeply, once before the handler runs (as Maestro's evaluateScripts does).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { interpolate } from '../../src/flow/interpolate.js';
import { stepDefs } from '../../src/flow/index.js';
import type { Step, StepKind } from '../../src/flow/types.js';
import { handlers } from '../../src/runner/steps/index.js';
import { resolveFields } from '../../src/runner/steps/types.js';

const resolve = <T>(value: T): T => interpolate(value, { V: 'value' }, {});

test('every field every handler declares is resolved before it runs (strings, lists and maps within it); the rest stays as written', () => {
  const kinds = Object.keys(stepDefs) as StepKind[];
  assert.ok(kinds.length > 50);
  for (const kind of kinds) {
    const handler = handlers[kind];
    assert.ok(Array.isArray(handler.resolves), `${kind} declares its fields`);
    const written: Record<string, unknown> = { kind, source: { file: '/f.yaml', line: 1, column: 1 }, label: '${V}', undeclared: '${V}' };
    for (const field of handler.resolves as readonly string[]) written[field] = { text: '${V}', list: ['${V}', { deep: 'a ${V}' }] };
    const step = resolveFields(written as unknown as Step, handler.resolves, resolve) as unknown as Record<string, unknown>;
    for (const field of handler.resolves as readonly string[]) {
      assert.deepEqual(step[field], { text: 'value', list: ['value', { deep: 'a value' }] }, `${kind}.${field}`);
    }
    assert.equal(step.undeclared, '${V}', `${kind}: a field it does not declare`);
    assert.equal(step.label, '${V}', `${kind}: the label is not one of its fields`);
    assert.equal((written as { undeclared: string }).undeclared, '${V}', 'the step as written is kept');
    if (handler.resolves.length) assert.notEqual(step, written);
  }
});

test('child steps are never resolved with their parent (each resolves when it runs, with its own variables), nor a repeat\'s while (evaluated each round)', () => {
  for (const kind of ['runFlow', 'repeat', 'retry'] as const) assert.ok(!(handlers[kind].resolves as readonly string[]).includes('steps'), kind);
  assert.ok(!(handlers.repeat.resolves as readonly string[]).includes('while'));
  // A value that must be a number or a duration is declared: what its ${...} gives is checked when the step runs.
  assert.ok((handlers.repeat.resolves as readonly string[]).includes('times'));
  assert.ok((handlers.assertScreenshot.resolves as readonly string[]).includes('maxDiffPixelRatio'));
});

test('the fields handlers once read as written are declared: a screenshot\'s name, an upload\'s selector, a media name in the message', () => {
  assert.ok(handlers.screenshot.resolves.includes('name'));
  assert.ok(handlers.uploadFile.resolves.includes('selector'));
  assert.ok(handlers.deleteMedia.resolves.includes('media'));
});
