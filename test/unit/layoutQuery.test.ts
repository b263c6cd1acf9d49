import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRegexLiteral, matchText, normaliseText, describeSelector, describeNode, query, centre, nearMatches, parseLayout } from '../../src/layout/index.js';
import type { LayoutNode, LayoutTree } from '../../src/layout/types.js';
import { BoxflowError } from '../../src/errors.js';

const isCode = (code: string) => (e: unknown) => BoxflowError.is(e) && e.code === code;

test('the /regex/flags form is recognised in one place', () => {
  assert.deepEqual(parseRegexLiteral('/^Log in$/i'), /^Log in$/i);
  assert.equal(parseRegexLiteral('Log in'), null);
  assert.equal(parseRegexLiteral('/usr/bin'), null, 'no closing slash with valid flags: plain text');
  assert.equal(parseRegexLiteral('/'), null);
  assert.equal(parseRegexLiteral('//'), null);
  assert.equal(parseRegexLiteral('/a/g')!.flags, '', 'g and y would make matching stateful');
  assert.throws(() => parseRegexLiteral('/(/'), isCode('INVALID_ARGUMENT'));
});

test('text matching: exact after whitespace normalisation, or a regex search', () => {
  assert.equal(normaliseText('  a\n\t b\u202fc\u00a0 '), 'a b c');
  assert.ok(matchText('Sign in', ' Sign\n  in '));
  assert.ok(!matchText('Sign in', 'Sign in now'));
  assert.ok(!matchText('sign in', 'Sign in'), 'exact text is case-sensitive');
  assert.ok(matchText('/sign/i', 'Sign in now'));
  assert.ok(matchText('/^a b$/', 'a\nb'), 'a regex also sees the normalised text');
  const re = '/x/g';
  assert.ok(matchText(re, 'x') && matchText(re, 'x'), 'repeatable');
});

test('describeSelector prints what the user wrote', () => {
  assert.equal(describeSelector('Log in'), '"Log in"');
  assert.equal(describeSelector('/^Log/i'), '/^Log/i');
  assert.equal(describeSelector({ below: { id: 'email' }, text: 'Log in', enabled: true, index: 0 }), '{text: "Log in", index: 0, enabled: true, below: {id: "email"}}');
  assert.equal(
    describeSelector({ containsDescendants: ['A', { id: 'b' }], size: { width: 48, height: 48 }, traits: ['square'], index: -1 }),
    '{traits: ["square"], size: {width: 48, height: 48}, index: -1, containsDescendants: ["A", {id: "b"}]}',
  );
});

function node(tag: string, extra: Partial<LayoutNode> = {}): LayoutNode {
  return { tag, text: '', id: '', desc: '', attributes: {}, visible: true, state: { enabled: true, checked: false, selected: false, focused: false, clickable: false, scrollable: false }, children: [], parent: null, order: 0, ...extra };
}

test('queries work on a tree built by hand (no parser, orders left at 0)', () => {
  const root = node('hierarchy');
  const list = node('android.widget.ListView', { bounds: { left: 0, top: 0, right: 100, bottom: 300 }, parent: root });
  const a = node('android.widget.TextView', { text: 'Second', bounds: { left: 0, top: 100, right: 100, bottom: 200 }, parent: list });
  const b = node('android.widget.TextView', { text: 'First', bounds: { left: 0, top: 0, right: 100, bottom: 100 }, parent: list });
  const c = node('android.widget.TextView', { text: 'Hidden', visible: false, bounds: { left: 0, top: 200, right: 100, bottom: 300 }, parent: list });
  list.children.push(a, b, c);
  root.children.push(list);
  const tree: LayoutTree = { format: 'android', root, nodes: [root, list, a, b, c], hasGeometry: true, screen: { width: 100, height: 300 } };
  assert.deepEqual(query(tree, { class: 'TextView' }).map((n) => n.text), ['First', 'Second']);
  assert.deepEqual(query(tree, { class: 'TextView', index: 0 }).map((n) => n.text), ['First']);
  assert.deepEqual(query(tree, { childOf: { class: 'ListView' } }).length, 2);
  assert.deepEqual(query(tree, { below: 'First' }).map((n) => n.text), ['Second']);
  assert.deepEqual(query(tree, { text: 'Hidden' }), []);
  assert.deepEqual(query(tree, { xpath: '//node[@text]' }), [], 'hand-built nodes have no raw text attribute');
  assert.deepEqual(query(tree, { xpath: '/hierarchy/node/node' }).length, 2);
});

test('bad selectors fail with INVALID_ARGUMENT and say why', () => {
  const t = parseLayout('<p>x</p>');
  assert.throws(() => query(t, { txt: 'x' } as never), (e: unknown) => isCode('INVALID_ARGUMENT')(e) && /unknown selector key "txt"/.test((e as Error).message));
  assert.deepEqual(query(t, { index: -1 }).map((n) => n.tag), ['p'], 'a negative index counts from the end');
  for (const bad of [
    { traits: 'text' }, { traits: [] }, { traits: ['round'] }, { size: {} }, { size: { width: -1 } }, { size: { width: 1, depth: 2 } },
    { containsChild: ['x'] }, { containsDescendants: 'x' }, { containsDescendants: [] }, { containsDescendants: [{ txt: 1 }] },
  ]) assert.throws(() => query(t, bad as never), isCode('INVALID_ARGUMENT'), JSON.stringify(bad));
  assert.throws(() => query(t, { traits: ['round'] } as never), (e: unknown) => /selector key "traits" takes a non-empty list of text, long-text, square/.test((e as Error).message));
  assert.throws(() => query(t, { index: 1.5 }), isCode('INVALID_ARGUMENT'));
  assert.throws(() => query(t, { enabled: 'yes' } as never), isCode('INVALID_ARGUMENT'));
  assert.throws(() => query(t, { text: 3 } as never), isCode('INVALID_ARGUMENT'));
  assert.throws(() => query(t, null as never), isCode('INVALID_ARGUMENT'));
  assert.throws(() => query(t, { childOf: { bogus: 1 } } as never), isCode('INVALID_ARGUMENT'));
  assert.throws(() => query(t, { text: '/[/' }), isCode('INVALID_ARGUMENT'));
  assert.deepEqual(query(t, { text: undefined, class: 'p' }).length, 1, 'undefined keys are ignored');
  assert.throws(() => parseLayout(42 as never), isCode('INVALID_ARGUMENT'));
});

test('xpath errors and non-element results are refused', () => {
  const t = parseLayout('<hierarchy><node text="a" bounds="[0,0][1,1]"/></hierarchy>');
  assert.throws(() => query(t, { xpath: '//node[' }), isCode('INVALID_ARGUMENT'));
  assert.throws(() => query(t, { xpath: 'count(//node)' }), isCode('INVALID_ARGUMENT'));
  assert.equal(query(t, { xpath: '//node[@text="a"]' }).length, 1);
  assert.deepEqual(query(t, { xpath: '/hierarchy' }), [], 'the root is never a match');
});

test('centre rounds to whole pixels and refuses a node without bounds', () => {
  assert.deepEqual(centre(node('x', { bounds: { left: 42, top: 45, right: 146, bottom: 88 } })), { x: 94, y: 67 });
  assert.throws(() => centre(node('div')), isCode('GEOMETRY_UNAVAILABLE'));
});

test('describeNode gives a short line for messages', () => {
  const t = parseLayout('<hierarchy><node class="android.widget.Button" text="Just once" resource-id="android:id/button_once" enabled="false" bounds="[72,2124][538,2178]"/></hierarchy>');
  assert.equal(describeNode(t.nodes[1]!), 'Button "Just once" #android:id/button_once [72,2124][538,2178] disabled');
});

test('near matches for a selector without strings are its hidden matches', () => {
  const t = parseLayout('<button id="a" hidden>A</button><button id="b">B</button>');
  assert.deepEqual(query(t, { css: '#a' }), []);
  assert.deepEqual(nearMatches(t, { css: '#a' }).map((n) => n.id), ['a']);
  assert.deepEqual(nearMatches(t, { bogus: 1 } as never), []);
});

test('parse edge cases: empty content, a bare <node> fragment, a second <hierarchy>', () => {
  assert.equal(parseLayout('').nodes.length, 1);
  const frag = parseLayout('<node class="a.B" bounds="[0,0][5,5]"/>', { format: 'android' });
  assert.equal(frag.root.tag, 'hierarchy');
  assert.deepEqual(query(frag, { class: 'B' }).length, 1);
  const two = parseLayout('<hierarchy><node text="one" bounds="[0,0][5,5]"/></hierarchy><hierarchy><node text="two" bounds="[0,5][5,10]"/></hierarchy>');
  assert.deepEqual(two.root.children.map((n) => n.text), ['one', 'two']);
  assert.deepEqual(two.screen, { width: 5, height: 10 });
});
