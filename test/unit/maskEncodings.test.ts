// The masker finds a secret in every form a URL (and JSON, and markup) can give it, character by
// character and in any mix: percent-encoded UTF-8 bytes of any character, in either hex case, `+`
// for a space, a Latin-1 byte, escape()'s %uXXXX, JSON escapes, character references.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Masker, kMaskToken } from '../../src/mask.js';

const kPw = "it's a Secr3t";
const m = (secrets: string[], text: string) => new Masker(secrets).text(text);

/** Every UTF-8 byte of every character percent-encoded, as no encoder does by default. */
const everyByte = (s: string, lower = false) => [...new TextEncoder().encode(s)].map((b) => `%${b.toString(16).padStart(2, '0')[lower ? 'toLowerCase' : 'toUpperCase']()}`).join('');

test('a secret in a URL query is hidden however the URL encoded it', () => {
  const forms = [
    'it%27s%20a%20Secr3t', // what Chromium shows for ?t=it's a Secr3t
    "it's%20a%20Secr3t", // encodeURIComponent
    'it%27s+a+Secr3t', // URLSearchParams, HTML forms
    "it's+a+Secr3t",
    everyByte(kPw), // characters encodeURIComponent leaves alone, encoded
    everyByte(kPw, true),
    'i%74%27s a%20S%65cr3%74', // some characters encoded, some not
    new URL(`http://host/?t=${kPw}`).search.slice(3),
    new URLSearchParams({ t: kPw }).toString().slice(2),
  ];
  for (const form of forms) assert.equal(m([kPw], `http://host/?t=${form}&u=1`), `http://host/?t=${kMaskToken}&u=1`, form);
});

test('either hex case, and both mixed in one secret', () => {
  const secret = 'a/b:c?d';
  for (const form of ['a%2Fb%3Ac%3Fd', 'a%2fb%3ac%3fd', 'a%2fb%3Ac%3Fd', '%61%2f%62%3A%63%3f%64']) {
    assert.equal(m([secret], `x=${form};`), `x=${kMaskToken};`, form);
  }
});

test('a space as %20 or + and the plus sign itself stay distinct', () => {
  assert.equal(m(['a b'], '?q=a+b'), `?q=${kMaskToken}`);
  assert.equal(m(['a b'], '?q=a%20b'), `?q=${kMaskToken}`);
  assert.equal(m(['a+b'], '?q=a%2Bb'), `?q=${kMaskToken}`);
  assert.equal(m(['a+b'], '?q=a+b'), `?q=${kMaskToken}`, 'a literal + in the secret');
  // The text says "a b" or "a+b" for a different secret: nothing to hide.
  assert.equal(m(['a+b'], 'x a b y'), 'x a b y');
  assert.equal(m(['a+b', 'q'], '?x=a%20b'), '?x=a%20b');
});

test('non-ASCII characters: UTF-8 bytes in either case, a Latin-1 byte, escape() units', () => {
  const secret = 'pässwörd🔑';
  for (const form of [encodeURIComponent(secret), encodeURIComponent(secret).toLowerCase(), everyByte(secret), 'p%E4ssw%F6rd🔑', 'p%u00E4ssw%u00f6rd%uD83D%uDD11', escape(secret)]) {
    assert.equal(m([secret], `<${form}>`), `<${kMaskToken}>`, form);
  }
});

test('JSON escapes and character references, also mixed with percent-encoding', () => {
  const secret = 'a"b\'c<d&e\\f';
  for (const form of [
    JSON.stringify(secret).slice(1, -1),
    'a\\u0022b\\u0027c\\u003Cd\\u0026e\\u005cf',
    'a&quot;b&#39;c&lt;d&amp;e\\f',
    'a&#34;b&apos;c&#x3c;d&#X26;e&#92;f',
    'a%22b&#39;c\\u003cd%26e%5Cf',
  ]) {
    assert.equal(m([secret], `[${form}]`), `[${kMaskToken}]`, form);
  }
});

test('a secret that holds %, & or \\ is found as itself and encoded, once or twice in a text', () => {
  const secret = '50%&\\off';
  assert.equal(m([secret], `a ${secret} b 50%25%26%5Coff c`), `a ${kMaskToken} b ${kMaskToken} c`);
  assert.equal(m([secret], 'a 50%25&amp;\\\\off b'), `a ${kMaskToken} b`);
});

test('other text with escapes is left as it was', () => {
  const text = 'http://host/?q=it%27s%20a%20Secret&next=%2Fhome+page&amp;x=&#39;y&#39;\\u0041';
  assert.equal(m([kPw, 'hunter2'], text), text);
  assert.equal(m([kPw], `${text} it%27s+a+Secr3t`), `${text} ${kMaskToken}`, 'the secret itself next to them is hidden');
});

test('reveals() and markup() see encoded secrets too', () => {
  const masker = new Masker([kPw]);
  assert.equal(masker.reveals('/login?t=it%27s%20a%20Secr3t'), true);
  assert.equal(masker.reveals('/login?t=its%20a%20Secr3t'), false);
  assert.equal(masker.markup('<a href="/login?t=it%27s+a+Secr3t">it&#39;s a Secr3t</a>'), `<a href="/login?t=${kMaskToken}">${kMaskToken}</a>`);
});

test('a long secret and many secrets: every one hidden in URL form', () => {
  let long = '';
  for (let i = 0; i < 20_000; i++) long += String.fromCharCode(32 + ((i * 7919) % 95));
  assert.equal(m([long], `?k=${encodeURIComponent(long)}&j=${JSON.stringify(long)}`), `?k=${kMaskToken}&j="${kMaskToken}"`);

  const many = Array.from({ length: 300 }, (_, i) => `tok en/${i}:${(i * 2654435761) % 1e9}`);
  const masker = new Masker(many);
  for (const [i, s] of many.entries()) {
    const form = i % 3 === 0 ? encodeURIComponent(s) : i % 3 === 1 ? new URLSearchParams({ s }).toString().slice(2) : everyByte(s, true);
    assert.equal(masker.text(`http://h/?s=${form}#f`), `http://h/?s=${kMaskToken}#f`, s);
  }
});

test('seeded fuzz: any mix of forms, character by character, is hidden whole', () => {
  let seed = 19;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const chars = "aZ09 '\"%&+\\/<>?#=;:é€😀\n\t";
  const forms = (ch: string): string[] => {
    const cp = ch.codePointAt(0)!;
    const units = Array.from({ length: ch.length }, (_, i) => ch.charCodeAt(i).toString(16).padStart(4, '0'));
    const out = [ch, everyByte(ch), everyByte(ch, true), JSON.stringify(ch).slice(1, -1), units.map((u) => `%u${u}`).join(''), units.map((u) => `\\u${u}`).join(''), `&#${cp};`, `&#x${cp.toString(16)};`];
    if (ch === ' ') out.push('+');
    if (cp >= 0x80 && cp <= 0xff) out.push(`%${cp.toString(16)}`);
    if (ch === '&') out.push('&amp;');
    if (ch === "'") out.push('&apos;', '&#39;');
    return out;
  };
  const alphabet = [...chars];
  for (let round = 0; round < 500; round++) {
    const secret = Array.from({ length: 1 + rnd(12) }, () => alphabet[rnd(alphabet.length)]!).join('');
    const written = [...secret].map((ch) => {
      const f = forms(ch);
      return f[rnd(f.length)]!;
    }).join('');
    assert.equal(m([secret], `[${written}]`), `[${kMaskToken}]`, `${JSON.stringify(secret)} written ${JSON.stringify(written)}`);
  }
});
