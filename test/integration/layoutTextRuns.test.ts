// A run of text that stands on its own beside element siblings is found by a whole-text selector,
// as Playwright's text engine finds it: each case is laid out by a real Chromium, captured with
// DOMSnapshot as the runner does, and the element our query finds is the one Playwright's finds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAndroid, query } from '../../src/layout/index.js';
import { useSnapshotPage } from '../support/snapshotPage.js';

const shots = useSnapshotPage('boxflow-textruns-');
const snapshot = () => shots.snapshot();

test('a text node the page appends beside a button is found on its own, as Playwright finds it', async () => {
  await shots.page.setContent(
    `<!doctype html><html><body><button onclick="document.body.appendChild(document.createTextNode('clicked'))">Go</button></body></html>`,
  );
  await shots.page.click('button');
  await shots.page.locator('text="clicked"').waitFor();
  const tree = await snapshot();
  const found = query(tree, 'clicked');
  assert.deepEqual(
    found.map((n) => n.tag),
    ['body'],
    'assertVisible: clicked / toShow("clicked") find the element holding the text node, not only its whole text "Goclicked"',
  );
  assert.equal(found[0]!.visible, true);
  assert.deepEqual(
    query(tree, { text: 'Go' }).map((n) => n.tag),
    ['button'],
  );
  // The whole text still matches, and a regex searches the whole text, as Playwright's does.
  assert.deepEqual(
    query(tree, '/^clicked$/').map((n) => n.tag),
    [],
  );
  assert.deepEqual(
    query(tree, { textContains: 'Goclicked' }).map((n) => n.tag),
    ['body'],
  );
});

// [markup, selector text, id of the element boxflow finds (null: none), which Playwright finds too, by
// `text="..."` (a run of text nodes) or `getByText(..., {exact: true})` (the whole text)]
const kCases: [string, string, string | null][] = [
  ['<div id="t">Total: <b>3</b> items</div>', 'items', 't'],
  ['<div id="t">Total: <b>3</b> items</div>', 'Total:', 't'],
  ['<div id="t">Total: <b>3</b> items</div>', 'Total: 3 items', 't'],
  ['<p id="t">sa<!-- a comment does not end a run -->ved<i>!</i></p>', 'saved', 't'],
  ['<div id="t"><span>Name</span>\n   Ada   Lovelace\n</div>', 'Ada Lovelace', 't'],
  ['<div id="t"><span>a</span>same<b id="u">same</b></div>', 'same', 'u'],
  ['<div><span>x</span><span id="t">only<i>y</i></span></div>', 'only', 't'],
  ['<div style="display:none"><b>x</b>ghost</div>', 'ghost', null],
  ['<div><b>x</b><span style="visibility:hidden">unseen</span></div>', 'unseen', null],
];

for (const [markup, text, id] of kCases) {
  test(`${JSON.stringify(text)} in ${JSON.stringify(markup)}`, async () => {
    await shots.page.setContent(`<!doctype html><html><body><main>${markup}</main></body></html>`);
    const ids = (els: Element[]) => els.map((e) => e.id);
    const theirs = [...(await shots.page.locator(`text="${text}"`).evaluateAll(ids)), ...(await shots.page.getByText(text, { exact: true }).evaluateAll(ids))];
    const ours = query(await snapshot(), text).map((n) => n.id);
    assert.deepEqual(ours, id === null ? [] : [id]);
    if (id !== null) assert.ok(theirs.includes(id), `Playwright's text engine finds #${id} too (it found ${JSON.stringify(theirs)})`);
  });
}

test('Android nodes hold their own text already: a ViewGroup is not found by its child TextView\'s text', () => {
  const xml = `<?xml version="1.0"?><hierarchy rotation="0"><node index="0" text="" resource-id="row" class="android.widget.LinearLayout" bounds="[0,0][800,200]" displayed="true"><node index="0" text="Go" class="android.widget.Button" bounds="[0,0][400,200]" displayed="true"/><node index="1" text="clicked" resource-id="status" class="android.widget.TextView" bounds="[400,0][800,200]" displayed="true"/></node></hierarchy>`;
  const tree = parseAndroid(xml);
  assert.deepEqual(
    query(tree, 'clicked').map((n) => n.id),
    ['status'],
  );
});
