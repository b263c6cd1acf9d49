// The text a Maestro flow matches, as `boxflow convert maestro` writes it and as the studio writes
// Maestro: in the form a person keeps. Maestro's text is a whole-string regex (case-insensitive,
// dot-all) that also matches its own text; plain text is already a regex of itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maestroToBoxflow } from '../../src/flow/index.js';
import { elementSteps, openSteps } from '../../src/studio/steps.js';

const converted = (text: string): unknown => {
  const { doc } = maestroToBoxflow(`appId: http://127.0.0.1:4173/\n---\n- assertVisible: ${JSON.stringify(text)}\n`, '/flows/a.yaml', { idiomatic: true });
  return ((doc.steps as Record<string, { text: string }>[])[0]!.assertVisible as { text: string }).text;
};

test('convert: plain text stays one readable pattern, a pattern that matches its own text stays that pattern', () => {
  assert.equal(converted('Sign in'), '/^Sign in$/i');
  assert.equal(converted('Welcome, .+'), '/^Welcome, .+$/is');
  assert.equal(converted('Welcome, demo@example.com'), '/^Welcome, demo@example.com$/is');
  assert.equal(converted('Sign in failed.*'), '/^Sign in failed.*$/is');
  assert.equal(converted('3/4 done'), '/^3\\/4 done$/i');
  // A pattern that does not compile is text (Maestro escapes it too).
  assert.equal(converted('Price [sale'), '/^Price \\[sale$/i');
  // Both readings only where the pattern misses its own text.
  assert.equal(converted('Log in (beta)'), '/^(?:Log in (beta)|Log in \\(beta\\))$/i');
});

// Maestro: the regex matches the whole text, case-insensitively, or the text equals the pattern.
test('convert: the written patterns match what Maestro matches', () => {
  for (const [maestro, screen, want] of [
    ['sign in', 'Sign in', true],
    ['Welcome, .+', 'Welcome, Ada', true],
    ['Welcome, .+', 'Welcome, ', false],
    ['Log in (beta)', 'Log in (beta)', true],
    ['Log in (beta)', 'Log in beta', true],
    ['Price [sale', 'Price [sale', true],
    ['3/4 done', '3/4 done', true],
  ] as const) {
    const re = converted(maestro) as string;
    const m = /^\/(.*)\/([a-z]*)$/s.exec(re)!;
    assert.equal(new RegExp(m[1]!, m[2]).test(screen), want, `${maestro} on ${screen}`);
  }
});

test('the studio writes Maestro text and ids escaped only where a regex needs it, and openLink absolute', () => {
  assert.deepEqual(elementSteps('maestro', 'assertText', { id: 'total' }, { text: 'Total: 3/4 items' }), [{ assertVisible: { id: 'total', text: 'Total: 3/4 items' } }]);
  assert.deepEqual(elementSteps('maestro', 'assertText', { id: 'total' }, { text: 'Total (3)' }), [{ assertVisible: { id: 'total', text: 'Total \\(3\\)' } }]);
  assert.deepEqual(openSteps('maestro', '/login', [undefined, 'http://127.0.0.1:4173/shop/']), [{ openLink: 'http://127.0.0.1:4173/login' }]);
  assert.deepEqual(openSteps('maestro', 'cart', ['http://127.0.0.1:4173/shop/']), [{ openLink: 'http://127.0.0.1:4173/shop/cart' }]);
  assert.deepEqual(openSteps('maestro', 'https://example.com/a', []), [{ openLink: 'https://example.com/a' }]);
  assert.match(String(openSteps('maestro', '/login', [undefined, 'com.example.app'])), /absolute URLs only.*"\/login"/);
  // boxflow's openTab resolves a path against appBaseUrl when it runs.
  assert.deepEqual(openSteps('boxflow', '/login', ['http://127.0.0.1:4173/']), [{ openTab: '/login' }]);
});
