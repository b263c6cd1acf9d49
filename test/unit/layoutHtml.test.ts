import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLayout, query, nearMatches } from '../../src/layout/index.js';
import { BoxflowError } from '../../src/errors.js';

const kPage = `<!doctype html>
<html><head><title>Shop</title><style>.x { color: red }</style><script>var secret = "Sign in";</script></head>
<body>
  <nav id="top" aria-label="Main">
    <a href="/" class="brand">Acme&nbsp;Shop</a>
    <a href="/cart" title="Your cart"><img src="cart.png" alt="Cart"></a>
  </nav>
  <main>
    <h1>Sign   in</h1>
    <form id="login">
      <label for="email">Email</label> <input id="email" name="email" placeholder="you@example.com" value="demo@example.com">
      <input id="pw" type="password" value="hunter22">
      <input type="hidden" name="csrf" value="t0k3n">
      <input id="remember" type="checkbox" checked> Remember me
      <select id="lang"><option>English</option><option selected>Türkçe</option></select>
      <button id="go" type="submit" autofocus>Log <b>in</b></button>
      <button id="reset" disabled>Reset</button>
      <div role="button" aria-label="More options">…</div>
    </form>
    <ul class="items"><li>Item</li><li class="special">Item</li><li>Item</li></ul>
    <p>Hello<br>world, <span>how   are</span> you?</p>
    <div hidden>Hidden by attribute</div>
    <div aria-hidden="true">Decorative</div>
    <div style="display: none"><span>Inside display none</span></div>
    <div style="color: red; visibility:hidden">Invisible text</div>
    <template><p>Template content</p></template>
    <noscript>Enable JavaScript</noscript>
    <p onclick="go()">Click me</p>
  </main>
</body></html>`;

const t = parseLayout(kPage);

test('HTML is detected and parsed without geometry; tags are lower-case', () => {
  assert.equal(t.format, 'html');
  assert.equal(t.hasGeometry, false);
  assert.equal(t.screen, undefined);
  assert.equal(t.root.tag, '#document');
  assert.equal(parseLayout('<HTML><BODY><DIV ID="a">x</DIV></BODY></HTML>').nodes.find((n) => n.id === 'a')!.tag, 'div');
  assert.ok(t.nodes.every((n, i) => n.order === i));
  assert.ok(t.nodes.every((n) => n.bounds === undefined));
});

test('text is the rendered text: descendants, whitespace collapsed, hidden parts and scripts left out', () => {
  assert.equal(query(t, { css: 'h1' })[0]!.text, 'Sign in');
  assert.equal(query(t, { id: 'go' })[0]!.text, 'Log in');
  assert.equal(query(t, { css: 'main > p' })[0]!.text, 'Hello\nworld, how are you?', 'innerText: <br> is a line break');
  assert.equal(query(t, { css: 'a.brand' })[0]!.text, 'Acme\u00a0Shop');
  assert.deepEqual(query(t, 'Acme Shop').map((n) => n.tag), ['a'], 'NBSP matches a typed space');
  const main = query(t, { css: 'main' })[0]!;
  assert.ok(!main.text.includes('Hidden by attribute'));
  assert.ok(!main.text.includes('Inside display none'));
  assert.ok(!main.text.includes('Template content'));
  assert.ok(main.text.includes('Remember me'));
  assert.equal(query(t, { css: 'head' }, { visibleOnly: false })[0]!.visible, false);
  // The script's "Sign in" is not text at all; the visible heading is the one match.
  assert.deepEqual(query(t, 'Sign in', { visibleOnly: false }).map((n) => n.tag), ['h1']);
});

test('form controls: value as text, password masked, live states from attributes', () => {
  const email = query(t, { id: 'email' })[0]!;
  assert.equal(email.text, 'demo@example.com');
  assert.deepEqual(query(t, 'you@example.com'), [email], 'placeholder is the hint a text selector reads');
  const pw = query(t, { id: 'pw' })[0]!;
  assert.equal(pw.text, '••••••••');
  assert.ok(!JSON.stringify({ ...pw, parent: null, children: [] }).includes('hunter22'), 'the password appears nowhere in the node');
  assert.equal(pw.attributes.value, '••••••••');
  assert.deepEqual(query(t, { css: 'input[type=hidden]' }), []);
  assert.equal(query(t, { css: 'input[type=hidden]' }, { visibleOnly: false }).length, 1);
  assert.equal(query(t, { id: 'remember', checked: true }).length, 1);
  assert.equal(query(t, { id: 'lang' })[0]!.text, 'Türkçe');
  assert.deepEqual(query(t, { class: 'option', selected: true }).map((n) => n.text), ['Türkçe']);
  assert.deepEqual(query(t, { focused: true }).map((n) => n.id), ['go']);
  assert.deepEqual(query(t, { class: 'button', enabled: false }).map((n) => n.id), ['reset']);
  assert.deepEqual(query(t, { clickable: true, class: 'a' }).length, 2);
  assert.equal(query(t, 'Click me')[0]!.state.clickable, true);
  assert.equal(query(t, { desc: 'More options' })[0]!.state.clickable, true);
  assert.equal(query(t, { css: 'h1' })[0]!.state.clickable, false);
  assert.ok(t.nodes.every((n) => !n.state.scrollable));
});

test('desc is aria-label, else alt, else title', () => {
  assert.equal(query(t, { id: 'top' })[0]!.desc, 'Main');
  assert.equal(query(t, { desc: 'Cart' })[0]!.tag, 'img');
  assert.equal(query(t, { desc: 'Your cart' })[0]!.tag, 'a');
  assert.equal(query(t, 'Your cart')[0]!.tag, 'a', 'a text selector also reads desc');
});

test('hidden: hidden attr, aria-hidden, display:none and visibility:hidden inline, head/template/noscript, and their subtrees', () => {
  for (const s of ['Hidden by attribute', 'Decorative', 'Inside display none', 'Invisible text', 'Enable JavaScript']) {
    assert.deepEqual(query(t, s), [], s);
    assert.ok(query(t, s, { visibleOnly: false }).length >= 1, `${s} is still in the tree`);
  }
  assert.equal(query(t, { css: 'template p' }, { visibleOnly: false })[0]!.visible, false);
  assert.equal(query(t, { css: 'title' }, { visibleOnly: false })[0]!.text, 'Shop');
});

test('text selectors keep the innermost match on HTML; css keeps every match', () => {
  assert.deepEqual(query(t, 'Item').map((n) => n.tag), ['li', 'li', 'li']);
  assert.deepEqual(query(t, { textContains: 'Item' }).map((n) => n.tag), ['li', 'li', 'li']);
  assert.deepEqual(query(t, { text: 'Item', index: 1 }).map((n) => n.attributes.class), ['special']);
  // A key that only the outer node satisfies keeps the outer node.
  assert.deepEqual(query(t, { textContains: 'Log in', class: 'button' }).map((n) => n.id), ['go']);
  assert.deepEqual(query(t, { textContains: 'Log', clickable: true }).map((n) => n.id), ['go']);
  assert.equal(query(t, { css: 'main, main *', textContains: 'Item' }).length, 3);
  assert.equal(query(t, { css: 'ul li' }).length, 3);
  assert.deepEqual(query(t, { css: 'li:nth-child(2)' }).map((n) => n.attributes.class), ['special']);
  assert.deepEqual(query(t, { css: 'form > input:not([type])' }).map((n) => n.id), ['email']);
  assert.deepEqual(query(t, { css: '#login button:first-of-type' }).map((n) => n.id), ['go']);
  assert.deepEqual(query(t, { css: 'li', childOf: { css: 'ul.items' } }).length, 3);
  assert.deepEqual(query(t, { class: 'LI' }).length, 3);
});

test('css/xpath/positional keys say clearly where they do not apply', () => {
  const android = parseLayout('<?xml version="1.0"?><hierarchy><node class="android.widget.Button" text="OK" bounds="[0,0][10,10]"/></hierarchy>');
  assert.throws(() => query(android, { css: 'button' }), (e: unknown) => BoxflowError.is(e) && e.code === 'INVALID_ARGUMENT' && /HTML/.test(e.message));
  assert.throws(() => query(t, { xpath: '//li' }), (e: unknown) => BoxflowError.is(e) && e.code === 'INVALID_ARGUMENT' && /Android/.test(e.message));
  assert.throws(() => query(t, { below: 'Sign in' }), (e: unknown) => BoxflowError.is(e) && e.code === 'GEOMETRY_UNAVAILABLE');
  assert.throws(() => query(t, { css: 'li[' }), (e: unknown) => BoxflowError.is(e) && e.code === 'INVALID_ARGUMENT');
  assert.throws(() => query(t, { size: { width: 10 } }), (e: unknown) => BoxflowError.is(e) && e.code === 'GEOMETRY_UNAVAILABLE' && /"size"/.test(e.message));
  assert.throws(() => query(t, { traits: ['square'] }), (e: unknown) => BoxflowError.is(e) && e.code === 'GEOMETRY_UNAVAILABLE' && /square/.test(e.message));
});

test('containsChild / containsDescendants look at every match, not only the innermost; traits text works without geometry', () => {
  const page = parseLayout('<ul id="a"><li><span>Foo</span></li></ul><ul id="b"><li>Bar</li><li></li></ul><p>  </p>');
  assert.deepEqual(query(page, 'Foo').map((n) => n.tag), ['span']);
  assert.deepEqual(query(page, { css: 'ul', containsChild: 'Foo' }).map((n) => n.id), ['a'], 'the <li> reads "Foo" too');
  assert.deepEqual(query(page, { css: 'ul', containsDescendants: [{ css: 'span' }, 'Foo'] }).map((n) => n.id), ['a']);
  assert.deepEqual(query(page, { css: 'li', containsDescendants: ['Foo'] }).length, 1);
  assert.deepEqual(query(page, { css: 'span', containsDescendants: ['Foo'] }), [], 'a node is not its own descendant');
  assert.deepEqual(query(page, { css: 'li, p', traits: ['text'] }).map((n) => n.text), ['Foo', 'Bar'], 'whitespace only is no text');
  assert.deepEqual(query(page, { traits: ['text'] }).map((n) => n.tag), ['span', 'li'], 'like text keys, the innermost element with text');
  assert.deepEqual(query(page, { css: 'li', index: -1 }).map((n) => n.text), ['']);
});

test('without geometry, index counts in document order', () => {
  const page = parseLayout('<div><p>b</p><p id="x">a</p></div><p>c</p>');
  assert.deepEqual(query(page, { class: 'p' }).map((n) => n.text), ['b', 'a', 'c']);
  assert.deepEqual(query(page, { class: 'p', index: 2 }).map((n) => n.text), ['c']);
  assert.deepEqual(query(page, { class: 'p', index: -3 }).map((n) => n.text), ['b']);
});

test('near matches on HTML name the innermost element', () => {
  const near = nearMatches(t, 'Log inn');
  assert.equal(near[0]!.id, 'go');
  assert.ok(!near.some((n) => n.tag === 'form' || n.tag === 'main'));
});
