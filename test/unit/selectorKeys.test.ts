// One list of selector keys (src/layout/types.ts): the query, the published schema, the loader's
// checks and the labels all follow it, and the keys added for Maestro flows load with clear errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flowSchema, parseFlowYaml } from '../../src/flow/index.js';
import { flowLoadError } from '../support/flowErrors.js';
import { kSelectorKeys, parseLayout, query } from '../../src/layout/index.js';

test('the published selector map has exactly the keys the query knows, in the same order', () => {
  const defs = flowSchema.definitions as Record<string, { properties?: Record<string, unknown> }>;
  assert.deepEqual(Object.keys(defs.selectorObject!.properties!), [...kSelectorKeys]);
  for (const k of ['traits', 'size', 'containsChild', 'containsDescendants']) assert.ok(kSelectorKeys.includes(k as never), k);
  // Every key the list names is one the query accepts.
  const t = parseLayout('<ul><li>a</li></ul>');
  const sample: Record<string, unknown> = { text: 'a', textContains: 'a', id: 'a', desc: 'a', class: 'li', css: 'li', traits: ['text'], index: -1, enabled: true, checked: false, selected: false, focused: false, clickable: false, scrollable: false, childOf: { css: 'ul' }, containsChild: 'a', containsDescendants: ['a'] };
  for (const [k, v] of Object.entries(sample)) assert.doesNotThrow(() => query(t, { [k]: v }), k);
});

function loadError(step: string): string {
  const { at, message } = flowLoadError(`steps:\n${step}\n`);
  return `${at} ${message.replace(/^[^ ]+ /, '')}`;
}

test('the new keys load, and their mistakes are load-time errors at the value', () => {
  assert.doesNotThrow(() =>
    parseFlowYaml(
      'steps:\n  - tap: { css: li, index: -1, traits: [text, square], size: { width: 48, tolerance: 2 }, containsChild: OK, containsDescendants: [A, { id: b }] }\n',
      '/flows/k.flow.yaml',
    ),
  );
  assert.equal(loadError('  - tap: { traits: [round] }'), '2:21 steps[0].tap.traits[0]: "round" must be one of text, long-text, square');
  assert.equal(loadError('  - tap: { traits: text }'), '2:20 steps[0].tap.traits: must be a list, not the string "text"');
  assert.equal(loadError('  - tap: { size: { width: 3, depth: 1 } }'), '2:30 steps[0].tap.size: unknown key "depth"; allowed: width, height, tolerance');
  assert.equal(loadError('  - tap: { containsChild: { size: { tolerance: 1 } } }'), '2:35 steps[0].tap.containsChild.size: needs width, height or both (tolerance alone matches any size)');
  assert.equal(loadError('  - assertVisible: { containsDescendants: [] }'), '2:43 steps[0].assertVisible.containsDescendants: must not be an empty list');
  assert.match(loadError('  - assertVisible: { containsDescendants: [{ txt: b }] }'), /^2:46 steps\[0\]\.assertVisible\.containsDescendants\[0\]: unknown key "txt" \(did you mean "text"\?\)/);
  assert.equal(loadError('  - tap: { index: 1.5 }'), '2:19 steps[0].tap.index: must be a whole number, not the number 1.5');
});
