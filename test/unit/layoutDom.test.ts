import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fromDomSnapshot, query, centre, parseLayout } from '../../src/layout/index.js';
import type { DomSnapshot } from '../../src/layout/index.js';
import { BoxflowError } from '../../src/errors.js';

type Rect = { left: number; top: number; right: number; bottom: number };
const fixture = JSON.parse(readFileSync(new URL('../fixtures/dom/snapshot.json', import.meta.url), 'utf8')) as {
  viewport: { width: number; height: number };
  scroll: { x: number; y: number };
  rects: Record<string, Rect>;
  snapshot: DomSnapshot;
};
const t = fromDomSnapshot(fixture.snapshot, fixture.viewport);
const byId = (id: string) => query(t, { id }, { visibleOnly: false })[0]!;

test('the captured page was scrolled, so the fixture really tests scroll offsets', () => {
  assert.equal(fixture.scroll.y, 40);
  assert.equal(t.format, 'html');
  assert.equal(t.hasGeometry, true);
  assert.deepEqual(t.screen, { width: 800, height: 600 });
});

test('bounds are CSS px relative to the viewport, as the page laid them out', () => {
  for (const id of ['title', 'greet', 'email', 'remember', 'lang', 'login', 'reset', 'help', 'logo', 'items', 'below-fold', 'partly-off', 'clicky', 'faded-child']) {
    const want = fixture.rects[id]!;
    const got = byId(id).bounds!;
    for (const k of ['left', 'top', 'right', 'bottom'] as const) assert.ok(Math.abs(got[k] - want[k]) < 0.01, `${id}.${k}: ${got[k]} vs ${want[k]}`);
  }
  assert.deepEqual(byId('login').bounds, { left: 40, top: 230, right: 160, bottom: 270 });
  assert.deepEqual(centre(query(t, 'Log in')[0]!), { x: 100, y: 250 });
});

test('an explicit scroll offset wins over the snapshot\'s own', () => {
  const t0 = fromDomSnapshot(fixture.snapshot, { ...fixture.viewport, scrollX: 0, scrollY: 0 });
  assert.deepEqual(query(t0, { id: 'login' })[0]!.bounds, { left: 40, top: 270, right: 160, bottom: 310 });
});

test('visibility: display none, visibility hidden, opacity 0 (inherited), hidden attr, off-viewport and empty boxes are not visible', () => {
  for (const id of ['none', 'ghost', 'faded', 'faded-child', 'attr-hidden', 'below-fold', 'empty']) assert.equal(byId(id).visible, false, id);
  for (const id of ['title', 'greet', 'email', 'remember', 'lang', 'login', 'reset', 'help', 'logo', 'items', 'partly-off', 'clicky']) assert.equal(byId(id).visible, true, id);
  assert.deepEqual(query(t, 'Below the fold'), []);
  assert.equal(query(t, 'Below the fold', { visibleOnly: false }).length, 1);
  assert.deepEqual(query(t, 'Ghost'), []);
  assert.deepEqual(query(t, 'Faded'), []);
  assert.equal(query(t, { css: 'head' }, { visibleOnly: false })[0]!.visible, false);
});

test('text, desc and states follow the HTML rules, with live form state from the snapshot', () => {
  assert.equal(byId('title').text, 'Sign in');
  assert.equal(byId('greet').text, 'Hello brave new world');
  assert.equal(byId('email').text, 'demo@example.com', 'typed value (inputValue), not the empty attribute');
  assert.equal(byId('email').attributes.value, '');
  assert.equal(byId('remember').state.checked, true, 'ticked by the user (inputChecked)');
  assert.equal(byId('lang').text, 'Türkçe');
  assert.deepEqual(query(t, { class: 'option', selected: true }, { visibleOnly: false }).map((n) => n.text), ['Türkçe']);
  assert.equal(byId('reset').state.enabled, false);
  assert.equal(byId('help').desc, 'Get help');
  assert.equal(byId('logo').desc, 'Company logo');
  assert.equal(byId('clicky').state.clickable, true);
  assert.equal(byId('title').state.clickable, false);
  assert.ok(!byId('items').text.includes('Secret'));
});

test('selectors: css, text with innermost match, index top-to-bottom, relative keys', () => {
  assert.deepEqual(query(t, 'Item').map((n) => n.bounds!.top), [290, 330, 370]);
  assert.equal(query(t, { text: 'Item', index: 2 })[0]!.bounds!.top, 370);
  assert.deepEqual(query(t, { css: '#items li' }).length, 3);
  assert.equal(query(t, { class: 'button', rightOf: 'Log in' })[0]!.id, 'reset');
  assert.equal(query(t, { clickable: true, below: { id: 'lang' } })[0]!.id, 'login');
  // The <select> is nearest above "?" but off to its side; aligned nodes come first.
  const aboveHelp = query(t, { clickable: true, above: { id: 'help' } });
  assert.deepEqual(aboveHelp.slice(0, 2).map((n) => n.id || n.tag), ['email', 'label']);
  assert.ok(aboveHelp.some((n) => n.id === 'lang'));
  assert.deepEqual(query(t, { textContains: 'Remember' }).map((n) => n.tag), ['label']);
  assert.deepEqual(query(t, { css: 'button', enabled: false }).map((n) => n.text), ['Reset']);
  assert.deepEqual(query(t, { textContains: 'screen' }).map((n) => n.id), ['partly-off'], 'partly on screen counts as visible');
});

test('DOMSnapshot tree: css with a negative index, containsChild, containsDescendants, size and square', () => {
  assert.equal(query(t, { css: '#items li', index: -1 })[0]!.bounds!.top, 370);
  assert.deepEqual(query(t, { css: 'p', containsChild: { css: 'b' } }).map((n) => n.id), ['greet']);
  assert.deepEqual(query(t, { css: 'ul', containsChild: 'Item' }).map((n) => n.id), ['items']);
  assert.deepEqual(query(t, { css: 'label', containsDescendants: [{ id: 'remember' }] }).map((n) => n.tag), ['label']);
  assert.deepEqual(query(t, { css: 'label', containsDescendants: [{ id: 'email' }] }), []);
  assert.deepEqual(query(t, { size: { width: 120, height: 40 } }).map((n) => n.id), ['login', 'reset']);
  assert.deepEqual(query(t, { size: { width: 40, height: 40 } }).map((n) => n.id), ['logo']);
  assert.ok(query(t, { traits: ['square'] }).some((n) => n.id === 'logo'));
  assert.ok(!query(t, { traits: ['square'] }).some((n) => n.id === 'login'));
});

test('the same page without geometry (plain HTML) agrees on text and hidden elements', () => {
  const html = parseLayout(readFileSync(new URL('../fixtures/dom/page.html', import.meta.url), 'utf8'));
  for (const id of ['title', 'greet', 'login', 'reset', 'help']) assert.equal(query(html, { id })[0]!.text, byId(id).text, id);
  for (const id of ['none', 'attr-hidden']) assert.equal(query(html, { id }).length, 0, id);
});

test('a value that is not a snapshot is refused clearly', () => {
  assert.throws(() => fromDomSnapshot({} as DomSnapshot, { width: 1, height: 1 }), (e: unknown) => BoxflowError.is(e) && e.code === 'INVALID_ARGUMENT');
});
