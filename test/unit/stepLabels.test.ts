import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeStep } from '../../src/flow/index.js';
import { stepLabel } from '../../src/runner/label.js';

const src = { file: '/p/a.flow.yaml', line: 1, column: 1 };
const label = (raw: Record<string, unknown>) => stepLabel(normalizeStep(raw, src));

test('default step labels read like the step, not like JSON', () => {
  assert.equal(label({ tap: { css: '#email' } }), 'tap #email');
  assert.equal(label({ tap: { id: 'password' } }), 'tap #password');
  assert.equal(label({ tap: 'Login' }), 'tap "Login"');
  assert.equal(label({ tap: [10, 20] }), 'tap (10, 20)');
  assert.equal(label({ tap: '50%,80%' }), 'tap 50%,80%');
  assert.equal(label({ type: 'demo@example.com' }), 'type "demo@exampl…"');
  assert.equal(label({ type: { text: 'x', pressEnter: true } }), 'type "x" ⏎');
  assert.equal(label({ assertVisible: 'Welcome' }), 'assertVisible "Welcome"');
  assert.equal(label({ assertVisible: { textContains: '3 items' } }), 'assertVisible …"3 items"…');
  assert.equal(label({ assertNotVisible: { text: 'Item', index: 2 } }), 'assertNotVisible "Item" [2]');
  assert.equal(label({ pressKey: 'control+a' }), 'pressKey control+a');
  assert.equal(label({ swipe: 'up' }), 'swipe up');
  assert.equal(label({ swipe: { direction: 'up', on: { css: '#items' } } }), 'swipe up on #items');
  assert.equal(label({ openTab: '/login' }), 'openTab /login');
  assert.equal(label({ selectOption: { id: 'country', label: 'France' } }), 'selectOption #country "France"');
  assert.equal(label({ selectOption: { id: 'country', value: 'fr' } }), 'selectOption #country value "fr"');
  assert.equal(label({ tap: { text: 'OK', below: { id: 'title' } } }), 'tap "OK" below #title');
  assert.equal(label({ repeat: { times: 2, steps: [{ tap: 'Next' }] } }), 'repeat 2×');
  assert.equal(label({ assertLayout: { css: 'li', count: 3 } }), 'assertLayout li count 3');
  assert.equal(label({ tap: { id: 'icon', index: -1 } }), 'tap #icon [-1]');
  assert.equal(label({ tap: { css: 'li', containsDescendants: ['Buy', { id: 'price' }] } }), 'tap li containsDescendants ["Buy", #price]');
  assert.equal(label({ assertVisible: { text: 'Row', containsChild: { id: 'check' } } }), 'assertVisible "Row" containsChild #check');
  assert.equal(label({ tap: { traits: ['square'], size: { width: 48, height: 48 } } }), 'tap {traits: ["square"], size: {width: 48, height: 48}}');
  for (const raw of [{ tap: { text: 'A', below: { id: 'b' } } }, { sleep: '1s' }, { closeBrowser: null }]) assert.doesNotMatch(label(raw), /"\w+":/, JSON.stringify(raw));
});
