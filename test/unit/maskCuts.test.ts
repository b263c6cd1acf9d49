// Text that messages and snapshots cut short is masked first: a secret cut in two is one the
// masker can no longer find, so cutting first would leave most of it readable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoxflowError } from '../../src/errors.js';
import { centre, describeNode, parseLayout, serializeTree } from '../../src/layout/index.js';
import { Masker } from '../../src/mask.js';

const kToken = 'tok_9f3c1d7a5b2e8f4a6c0d9e7b3a1f5c8d2e6b'; // 40 characters
const pieces = Array.from({ length: kToken.length - 7 }, (_, i) => kToken.slice(i, i + 8));
const noPiece = (text: string, what: string) => {
  for (const piece of pieces) assert.ok(!text.includes(piece), `${what} shows ${piece}: ${text}`);
};
const mask = (t: string) => new Masker([kToken]).text(t);

test('describeNode() and centre()\'s error mask a node\'s text and desc before cutting them to 60 characters', () => {
  // No geometry (plain HTML): the node has no bounds, so centre() names it in its error.
  const tree = parseLayout(`<button aria-label="Key ${'d'.repeat(40)} ${kToken}">Token: ${'x'.repeat(30)} ${kToken}</button>`);
  const node = tree.nodes.find((n) => n.tag === 'button')!;
  const described = describeNode(node, mask);
  assert.match(described, /^button "Token: x+ \*\*\*" desc="Key d+ \*\*\*"$/);
  noPiece(described, 'describeNode');
  assert.throws(() => centre(node, mask), (err: unknown) => {
    assert.ok(BoxflowError.is(err));
    assert.equal(err.code, 'GEOMETRY_UNAVAILABLE');
    assert.match(err.message, /"Token: x+ \*\*\*"/);
    noPiece(mask(err.message), 'centre()\'s error, masked again as the runner does');
    return true;
  });
});

test('serializeTree() masks text and attribute values before cutting them to 200 characters', () => {
  const tree = parseLayout(`<p title="${'t'.repeat(190)}${kToken}">${'y'.repeat(190)}${kToken}</p>`);
  const json = JSON.stringify(new Masker([kToken]).deep(serializeTree(tree, mask)));
  assert.match(json, /"text":"y{190}\*\*\*"/);
  noPiece(json, 'the snapshot');
});
