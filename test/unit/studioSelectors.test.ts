// The selector boxflow studio writes for an element: the first candidate, of id, test id, role and
// name, label, placeholder, text, a short CSS path (Android: a class), then an index, that matches
// only that element in the live layout (run through the runner's own query), in boxflow's and in
// Maestro's syntax; and the element at a point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fromDomSnapshot, parseLayout, query, type DomSnapshot } from '../../src/layout/index.js';
import { cssCandidates, elementAt, fieldValue, maestroSelector, suggestSelectors } from '../../src/studio/selectors.js';
import { elementSteps, keySteps, typeSteps } from '../../src/studio/steps.js';

const dom = JSON.parse(readFileSync(new URL('../fixtures/dom/snapshot.json', import.meta.url), 'utf8')) as { viewport: { width: number; height: number }; snapshot: DomSnapshot };
const web = fromDomSnapshot(dom.snapshot, dom.viewport);
const android = parseLayout(readFileSync(new URL('../fixtures/android/android_open-with-resolver-dialog_samsung.xml', import.meta.url), 'utf8'));
const show = (v: unknown) => JSON.stringify(v);

test('the element at a point: the smallest one there, or the button or link it is part of', () => {
  assert.equal(elementAt(web, 100, 250)?.id, 'login');
  assert.equal(elementAt(web, 360, 250)?.id, 'help');
  assert.equal(elementAt(web, 50, 300)?.tag, 'li');
  assert.equal(elementAt(web, -5, -5), undefined);
});

test('an id first; its count is the runner\'s own', () => {
  const s = suggestSelectors(web, elementAt(web, 100, 250)!, 'boxflow');
  assert.deepEqual(s.best, { value: { id: 'login' }, kind: 'id', count: 1, unique: true });
  // Every candidate's count is what the runner's query finds.
  for (const c of s.candidates) assert.equal(c.count, query(web, c.value as never).length, show(c.value));
  assert.deepEqual(s.candidates.map((c) => c.kind).slice(0, 3), ['id', 'role', 'text']);
  assert.deepEqual(s.candidates[1]!.value, { role: 'button', name: 'Log in' });
});

test('no id: the text when it is unique; else a short CSS path that singles the element out, with the text\'s count shown', () => {
  const items = query(web, { css: '#items li' });
  const second = items[1]!;
  const s = suggestSelectors(web, second, 'boxflow');
  assert.equal(s.best.kind, 'css');
  assert.deepEqual(s.best.value, { css: '#items li:nth-of-type(2)' });
  assert.equal(query(web, s.best.value as never)[0], second);
  const text = s.candidates.find((c) => c.kind === 'text')!;
  assert.deepEqual([text.value, text.count, text.unique], ['Item', 3, false]);
  // An index narrows the text as a last resort.
  assert.deepEqual(s.candidates.find((c) => c.kind === 'index')?.value, { text: 'Item', index: 1 });
});

test('CSS candidates: test ids first, then tag.class, then tag paths under an ancestor with an id', () => {
  const login = query(web, { id: 'login' })[0]!;
  assert.deepEqual(cssCandidates(login).slice(0, 2), ['button.abs', 'button']);
  assert.ok(cssCandidates(query(web, { css: '#items li' })[0]!).includes('#items li:nth-of-type(1)'));
});

test('Android: the resource id after its package first; alike elements by text or id with an index', () => {
  const title = query(android, { id: 'title' })[0]!;
  assert.deepEqual(suggestSelectors(android, title, 'boxflow').best.value, { id: 'title' });
  const messages = query(android, 'Messages');
  assert.equal(messages.length, 2);
  const s = suggestSelectors(android, messages[1]!, 'boxflow');
  assert.deepEqual(s.best.value, { text: 'Messages', index: 1 });
  assert.equal(query(android, s.best.value as never)[0], messages[1]);
});

test('Maestro: the same choice in Maestro\'s syntax, counted the way boxflow reads Maestro (regex text, ids after the package)', () => {
  const title = query(android, { id: 'title' })[0]!;
  assert.deepEqual(suggestSelectors(android, title, 'maestro').best.value, { id: 'title' });
  assert.deepEqual(maestroSelector('Open with', false), { text: '/^Open with$/i' });
  const login = query(web, { id: 'login' })[0]!;
  const s = suggestSelectors(web, login, 'maestro');
  assert.deepEqual(s.best.value, { id: 'login' });
  assert.equal(s.candidates.find((c) => c.kind === 'text')?.value, 'Log in');
});

test('steps in each dialect: taps, assertions (text, screenshot with masks), typing and keys', () => {
  assert.deepEqual(elementSteps('boxflow', 'tap', { id: 'a' }), [{ tap: { id: 'a' } }]);
  assert.deepEqual(elementSteps('maestro', 'tap', 'Save'), [{ tapOn: 'Save' }]);
  assert.deepEqual(elementSteps('boxflow', 'assertText', { id: 'out' }, { text: 'Saved' }), [{ assertLayout: { id: 'out', text: 'Saved' } }]);
  assert.deepEqual(elementSteps('boxflow', 'assertText', 'Saved', { text: 'Saved' }), [{ assertVisible: 'Saved' }]);
  assert.deepEqual(elementSteps('boxflow', 'assertText', { text: 'Item', index: 1 }, { text: 'Item' }), [{ assertLayout: { selector: { text: 'Item', index: 1 }, text: 'Item' } }]);
  assert.deepEqual(elementSteps('maestro', 'assertText', { id: 'out' }, { text: 'Total: $5' }), [{ assertVisible: { id: 'out', text: 'Total: \\$5' } }]);
  assert.deepEqual(elementSteps('boxflow', 'assertScreenshot', { id: 'a' }, { name: 'home', masks: [{ id: 'clock' }] }), [{ assertScreenshot: { name: 'home', mask: [{ id: 'clock' }] } }]);
  assert.deepEqual(elementSteps('boxflow', 'assertScreenshot', { id: 'a' }, { name: 'home' }), [{ assertScreenshot: 'home' }]);
  assert.deepEqual(elementSteps('maestro', 'assertScreenshot', { id: 'a' }, { name: 'home' }), [{ takeScreenshot: 'home' }]);
  // Cropped to the element: its selector is the crop; Maestro's takeScreenshot crops on it.
  assert.deepEqual(elementSteps('boxflow', 'assertScreenshot', { id: 'a' }, { name: 'card', crop: true, masks: [{ id: 'b' }] }), [{ assertScreenshot: { name: 'card', crop: { id: 'a' }, mask: [{ id: 'b' }] } }]);
  assert.deepEqual(elementSteps('maestro', 'assertScreenshot', { id: 'a' }, { name: 'card', crop: true }), [{ takeScreenshot: { path: 'card', cropOn: { id: 'a' } } }]);
  assert.match(String(elementSteps('boxflow', 'assertScreenshot', '40%,50%', { name: 'card', crop: true })), /cannot be cropped/);
  assert.match(String(elementSteps('boxflow', 'assertScreenshot', { id: 'a' }, { name: ' ' })), /needs a name/);
  // A field's value: the explicit form, `text` being what the field holds.
  assert.deepEqual(elementSteps('boxflow', 'assertValue', { role: 'textbox', name: 'Email' }, { value: 'ann@example.com' }), [{ assertLayout: { selector: { role: 'textbox', name: 'Email' }, text: 'ann@example.com' } }]);
  assert.match(String(elementSteps('boxflow', 'assertValue', { id: 'out' }, {})), /not a form field/);
  assert.match(String(elementSteps('boxflow', 'assertVisible', '50%,40%')), /nothing to assert/);
  assert.deepEqual(typeSteps('maestro', 'hi', true), [{ inputText: 'hi' }, { pressKey: 'Enter' }]);
  assert.deepEqual(typeSteps('boxflow', 'hi', true), [{ type: { text: 'hi', pressEnter: true } }]);
  assert.deepEqual(keySteps('boxflow', 'back'), ['back']);
  assert.deepEqual(keySteps('maestro', 'escape'), [{ pressKey: 'Escape' }]);
});

test('the role and name first when no id or test id names the element; then the label, the placeholder, the text; Maestro keeps its own kinds', () => {
  const t = parseLayout('<h1>Sign in</h1><form><label>Email <input name="email" placeholder="you@example.com"></label><button>Sign in</button><input type="password" id="pw"></form>');
  const button = query(t, { css: 'button' })[0]!;
  const s = suggestSelectors(t, button, 'boxflow');
  assert.deepEqual(s.best, { value: { role: 'button', name: 'Sign in' }, kind: 'role', count: 1, unique: true });
  // The text matches the heading too: shown with its count, not chosen.
  assert.deepEqual(s.candidates.find((c) => c.kind === 'text'), { value: 'Sign in', kind: 'text', count: 2, unique: false });
  const field = query(t, { css: 'input[name=email]' })[0]!;
  const f = suggestSelectors(t, field, 'boxflow');
  assert.deepEqual(f.candidates.slice(0, 3).map((c) => [c.kind, c.value, c.count]), [
    ['role', { role: 'textbox', name: 'Email' }, 1],
    ['label', { labelText: 'Email' }, 1],
    ['placeholder', { placeholder: 'you@example.com' }, 1],
  ]);
  assert.ok(!suggestSelectors(t, button, 'maestro').candidates.some((c) => ['role', 'label', 'placeholder'].includes(c.kind)));
  // Android: the node's own text first, its role and name (content-desc) a candidate after it.
  const once = query(android, { text: 'Just once' })[0]!;
  const a = suggestSelectors(android, once, 'boxflow');
  assert.deepEqual(a.candidates.slice(2, 5).map((c) => c.value), ['Just once', { desc: 'Use selected app just once' }, { role: 'button', name: 'Use selected app just once' }]);
  // A value to assert: a text field's, never a password's, nothing for a button.
  assert.equal(fieldValue(t, field), '');
  assert.equal(fieldValue(t, query(t, { id: 'pw' })[0]!), undefined);
  assert.equal(fieldValue(t, button), undefined);
});
