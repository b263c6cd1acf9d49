// The one masker (src/mask.ts): short, overlapping and prefix secrets, every form a secret takes
// in JSON, URLs and markup, layout snapshots that still parse, and pre-signed URLs cut to the path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Masker, kMaskToken, redactPresignedUrls } from '../../src/mask.js';
import { parseLayout, query } from '../../src/layout/index.js';

const m = (secrets: string[], text: string) => new Masker(secrets).text(text);

test('a one-character secret is hidden wherever it appears; nothing else changes', () => {
  assert.equal(m(['x'], 'box xyz'), 'bo*** ***yz');
  assert.equal(m(['x'], 'nothing here'), 'nothing here');
  assert.equal(m(['7'], 'pin 7, 77 and 1777'), 'pin ***, *** and 1***');
});

test('a secret inside a longer text or a longer secret never leaves a piece behind', () => {
  assert.equal(m(['hunter2'], 'typed hunter22'), 'typed ***2', 'hunter2 inside hunter22');
  assert.equal(m(['hunter2', 'hunter22'], 'typed hunter22 and hunter2'), 'typed *** and ***');
  assert.equal(m(['ab', 'abc'], 'abcd ab abc'), '***d *** ***', 'prefix secrets, longest wins');
  assert.equal(m(['abc', 'ab'], 'abcd'), '***d', 'the order they are given in does not matter');
  // Overlapping secrets: every character either covers is hidden, as one token.
  assert.equal(m(['ab', 'bc'], 'abc'), '***');
  assert.equal(m(['aba'], 'ababa'), '***', 'overlapping occurrences of one secret');
  assert.equal(m(['s3cr3t'], 's3cr3ts3cr3t!'), '***!');
});

test('empty and missing values are no secrets; adding one later takes effect', () => {
  const masker = new Masker(['', undefined, null]);
  assert.equal(masker.size, 0);
  assert.equal(masker.text('a b'), 'a b');
  masker.add(['b']);
  assert.equal(masker.text('a b'), 'a ***');
  const more = masker.with(['a']);
  assert.equal(more.text('a b'), '*** ***');
  assert.equal(masker.text('a b'), 'a ***', 'with() leaves the original alone');
});

test('the forms a secret takes in JSON, a URL or markup are hidden too', () => {
  const secret = 'p"a&s s<w>';
  const masker = new Masker([secret]);
  for (const form of [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), 'p&quot;a&amp;s s&lt;w&gt;', 'p"a&amp;s s&lt;w&gt;']) {
    const out = masker.text(`before ${form} after`);
    assert.equal(out, `before ${kMaskToken} after`, form);
  }
});

test('a secret with no URI form (a lone surrogate) is still a secret', () => {
  assert.equal(m(['a\ud800b'], 'x a\ud800b y'), 'x *** y');
});

test('deep() masks every string of a JSON-like value and keeps its keys and other values', () => {
  const masker = new Masker(['hunter2']);
  assert.deepEqual(masker.deep({ text: 'hunter2', n: 5, list: ['x=hunter2', true, null], hunter2: 'key stays' }), { text: '***', n: 5, list: ['x=***', true, null], hunter2: 'key stays' });
});

test('markup(): text and attribute values are masked, the HTML still parses with the same elements', () => {
  const html = '<html><body><form><input id="password" type="password" value="hunter2"><input id=pin value=hunter2><p title=\'hunter2!\'>Hello hunter2</p><!-- hunter2 --></form></body></html>';
  const out = new Masker(['hunter2']).markup(html);
  assert.doesNotMatch(out, /hunter2/);
  assert.match(out, /<input id="password" type="password" value="\*\*\*">/);
  assert.match(out, /<input id=pin value=\*\*\*>/);
  assert.match(out, /<p title='\*\*\*!'>Hello \*\*\*<\/p><!-- \*\*\* -->/);
  // A one-letter secret that is also in every tag name does not break the document.
  const oneLetter = new Masker(['p']).markup(html);
  const tree = parseLayout(oneLetter);
  assert.equal(query(tree, { css: 'input' }).length, 2, 'the inputs are still there');
  assert.equal(query(tree, { css: 'form > p' }).length, 1, 'and the paragraph');
  const values = [...oneLetter.matchAll(/=("[^"]*"|'[^']*'|[^\s>]+)/g)].map((x) => x[1]!);
  assert.deepEqual(values.filter((v) => v.includes('p')), [], 'no "p" in an attribute value');
  assert.match(oneLetter, /id="\*\*\*assword" type="\*\*\*assword"/);
});

test('markup(): Android XML text and attribute values are masked', () => {
  const xml = '<?xml version="1.0"?><hierarchy rotation="0"><node index="0" text="hunter2" resource-id="com.app:id/password" password="true" bounds="[0,0][10,10]"/></hierarchy>';
  const out = new Masker(['hunter2']).markup(xml);
  assert.equal(out, xml.replace('text="hunter2"', 'text="***"'));
});

test('pre-signed URLs keep scheme, host and path and lose the signature; other URLs stay', () => {
  assert.equal(redactPresignedUrls('ws://127.0.0.1:9/cdp/box-1?exp=1795368481&sig=xfj81Pw-yNMG'), 'ws://127.0.0.1:9/cdp/box-1');
  assert.equal(redactPresignedUrls('open http://h/terminal/b?exp=1&sig=abc#x now'), 'open http://h/terminal/b now');
  assert.equal(redactPresignedUrls('https://s3/x.png?X-Amz-Signature=deadbeef&X-Amz-Date=1'), 'https://s3/x.png');
  assert.equal(redactPresignedUrls('http://127.0.0.1:4173/search?q=shoes'), 'http://127.0.0.1:4173/search?q=shoes');
  assert.equal(new Masker().text('{"url":"http://h/objects/a.png?exp=1&sig=zz"}'), '{"url":"http://h/objects/a.png"}');
});
