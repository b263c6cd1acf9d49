// One text-matching rule for every place a flow compares text: selector text/id/desc/class,
// assertLayout's expected text, openTab's expect, assertUrl and assertTitle. This table pins it, and
// the load-time check of `/regex/flags` (file:line:col) that shares its parser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoxflowError } from '../../src/errors.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { flowLoadError } from '../support/flowErrors.js';
import { matchText, parseRegexLiteral } from '../../src/layout/index.js';

// [pattern, value, matches, why]
const kTable: [string, string, boolean, string][] = [
  // Literal text: the whole value, after collapsing whitespace on both sides; case-sensitive.
  ['Sign in', 'Sign in', true, 'exact'],
  ['Sign in', 'Sign in now', false, 'a literal is a full match, not a substring'],
  ['Sign in', 'Sign', false, 'nor a prefix'],
  ['Sign in', 'sign in', false, 'literal text is case-sensitive'],
  ['Sign in', '  Sign\n\t in ', true, 'whitespace runs collapse and ends are trimmed'],
  ['  Sign   in ', 'Sign in', true, 'on the pattern side too'],
  ['3 items', '3\u00a0items', true, 'NBSP is whitespace'],
  ['10:45', '10:45\u202f', true, 'so is U+202F (Android clocks)'],
  ['a.b', 'axb', false, 'a literal has no regex metacharacters'],
  ['Price (USD)', 'Price (USD)', true, 'parentheses are literal'],
  ['/usr/bin', '/usr/bin', true, 'a trailing part that is not flags: literal text'],
  ['//', '//', true, 'an empty pattern is not a regex'],
  ['/a/x', '/a/x', true, 'x is not a flag, so this is literal'],
  // /regex/flags: a search (anchor with ^ and $), case by the i flag.
  ['/Sign/', 'Please Sign in', true, 'a regex searches'],
  ['/^Sign in$/', 'Please Sign in', false, 'anchors make it a full match'],
  ['/sign/', 'Sign in', false, 'a regex is case-sensitive without i'],
  ['/sign/i', 'Sign in', true, 'i ignores case'],
  ['/^a b$/', 'a\n  b', true, 'a regex also sees the collapsed text'],
  ['/^a\\nb$/', 'a\nb', true, 'and the raw text'],
  ['/a.b/', 'a\nb', true, 'the collapsed text has a space where the newline was'],
  ['/^a.b$/s', 'a\nb', true, 's lets . match a newline'],
  ['/x/g', 'x', true, 'g is dropped (it would make matching stateful)'],
  ['/^\\/welcome$/', '/welcome', true, 'an escaped slash inside the pattern'],
  ['/\\p{Lu}/u', 'Ä', true, 'u enables Unicode property escapes'],
];

for (const [pattern, value, want, why] of kTable) {
  test(`${JSON.stringify(pattern)} ${want ? 'matches' : 'does not match'} ${JSON.stringify(value)}: ${why}`, () => {
    assert.equal(matchText(pattern, value), want);
  });
}

test('the same value matched twice gives the same answer (no lastIndex state)', () => {
  for (const p of ['/x/g', '/x/y', '/x/gy']) assert.ok(matchText(p, 'x') && matchText(p, 'x') && matchText(p, 'ax'), p);
});

test('a string of the /re/flags shape that does not compile is an INVALID_ARGUMENT error, not literal text', () => {
  for (const p of ['/(/', '/[/', '/a{2,1}/', '/\\p{Nope}/u']) {
    assert.throws(() => matchText(p, 'x'), (e: unknown) => BoxflowError.is(e) && e.code === 'INVALID_ARGUMENT' && e.message.includes(p), p);
  }
  assert.equal(parseRegexLiteral('plain'), null);
});

const loadError = (yaml: string): { message: string; at: string } => flowLoadError(yaml, '/flows/re.flow.yaml');

test('an invalid /regex/ is a load-time error at its file:line:col wherever text is matched', () => {
  const cases: [string, string, string][] = [
    ['  - assertVisible: "/(a/"', '2:20', 'assertVisible'],
    ['  - tap: { id: "/[/" }', '2:16', 'tap.id'],
    ['  - tap: { desc: "/[/" }', '2:18', 'tap.desc'],
    ['  - tap: { class: "/[/" }', '2:19', 'tap.class'],
    ['  - tap: { text: OK, below: { text: "/(/" } }', '2:37', 'tap.below.text'],
    ['  - tap: { css: li, containsChild: { id: "/(/" } }', '2:42', 'tap.containsChild.id'],
    ['  - tap: { css: li, containsDescendants: [Buy, { text: "/(/" }] }', '2:56', 'tap.containsDescendants[1].text'],
    ['  - assertLayout: { selector: Total, text: "/(/" }', '2:44', 'assertLayout.text'],
    ['  - assertUrl: "/(/"', '2:16', 'assertUrl'],
    ['  - assertTitle: "/(/"', '2:18', 'assertTitle'],
    ['  - openTab: { url: /a, expect: { title: "/(/" } }', '2:42', 'openTab.expect.title'],
  ];
  for (const [step, at, path] of cases) {
    const err = loadError(`steps:\n${step}\n`);
    assert.equal(err.at, at, `${step}: ${err.message}`);
    assert.ok(err.message.startsWith(`/flows/re.flow.yaml:${at}: steps[0].${path}: "`), err.message);
    assert.match(err.message, /is not a valid regular expression: Invalid regular expression/, step);
  }
});

test('a regex holding ${NAME} is checked when it runs, after the variable is filled in', () => {
  assert.doesNotThrow(() => parseFlowYaml('env: { N: "3" }\nsteps:\n  - assertVisible: "/^item ${N}$/u"\n', '/flows/re.flow.yaml'));
});

test('literal text that merely looks like a path loads and is matched as text', () => {
  assert.doesNotThrow(() => parseFlowYaml('steps:\n  - assertVisible: /usr/bin\n  - assertUrl: /login/x\n', '/flows/re.flow.yaml'));
});
