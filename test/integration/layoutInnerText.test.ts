// An element's text is what Chromium's own innerText says, on varied markup: each case is laid out
// by a real Chromium, captured with DOMSnapshot as the runner does, and compared with innerText.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { fromDomSnapshot, parseHtml, query, normaliseText } from '../../src/layout/index.js';
import type { DomSnapshot } from '../../src/layout/index.js';

const kCases: string[] = [
  '<strong>3</strong><span> </span><span>items</span><span> left</span>',
  '<span>a</span> <span>b</span>',
  '<span>a</span>\n   <span>b</span>',
  '<div>a</div><div>b</div>',
  '<div>a</div>   <span>  b  </span>   <div>c</div>',
  '<p>a</p><p>b</p>',
  '<p>x</p>\n\n<p>y</p>',
  '<div>a<p>b</p>c</div>',
  'a<br>b',
  '<div>line1<br><br>line3</div>',
  '   leading and    trailing   ',
  '<pre>  x\n    y  </pre>',
  '<span style="white-space:pre">a   b</span> c',
  '<span style="white-space:pre-line">a    b\nc</span>',
  '<ul><li>one</li><li>two</li></ul>',
  '<ol><li><p>x</p></li><li>y</li></ol>',
  '<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>',
  '<table><tr><th> Name </th><th>Qty</th></tr><tr><td>Tea</td><td> 2 </td></tr></table>',
  '<div style="display:none">hidden</div>shown',
  '<span style="visibility:hidden">ghost</span>seen',
  '<div hidden>attr</div>text',
  '<div style="display:inline">a</div><div style="display:inline">b</div>',
  '<span style="display:block">a</span>b',
  '<b>bold</b><i>italic</i>',
  'a <b> b </b> c',
  '<div><div>nested</div></div>text',
  '<h1>Title</h1><p>Para</p>',
  '<span style="display:inline-block">a</span><span style="display:inline-block">b</span>',
  '<div style="display:flex"><span>a</span><span>b</span></div>',
  '<div style="display:grid"><span>1</span> <span>2</span></div>',
  '<button>Go</button> now',
  'a&nbsp;&nbsp;b &nbsp; c',
  'a<!-- comment -->b',
  '<div>  <span>x</span>  </div>',
  '<label>Email <span>(required)</span></label>',
  '<script>var x = 1;</script>after script',
  '<div>a<span style="display:block"></span>b</div>',
  '<div>x<span style="position:absolute">abs</span>y</div>',
  '<span style="float:left">f</span>rest',
  '<section><h2>Todo</h2><ul><li><label>Buy milk</label></li></ul><footer><span><strong>1</strong> item left</span></footer></section>',
  '<a href="#">link</a>, <em>emph</em>.',
  '<details open><summary>More</summary>inside</details>',
];

let context: BrowserContext;
let page: Page;
let profile: string;

before(async () => {
  profile = mkdtempSync(join(tmpdir(), 'boxflow-innertext-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.BOXFLOW_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1000, height: 4000 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  const body = kCases.map((c, i) => `<div id="case${i}" class="case">${c}</div>`).join('\n');
  await page.setContent(`<!doctype html><html><body>${body}</body></html>`);
});

after(async () => {
  await context?.close();
  rmSync(profile, { recursive: true, force: true });
});

test(`the text of ${kCases.length} markup cases is Chromium's innerText`, async () => {
  assert.ok(kCases.length >= 30);
  const cdp = await context.newCDPSession(page);
  const snapshot = (await cdp.send('DOMSnapshot.captureSnapshot', {
    computedStyles: ['display', 'visibility', 'opacity', 'white-space'],
    includeDOMRects: true,
  })) as unknown as DomSnapshot;
  const tree = fromDomSnapshot(snapshot, { width: 1000, height: 4000 });
  const want = await page.evaluate(() => [...document.querySelectorAll('.case')].map((e) => (e as HTMLElement).innerText));
  const wrong: string[] = [];
  kCases.forEach((markup, i) => {
    const node = query(tree, { id: `case${i}` }, { visibleOnly: false })[0]!;
    if (node.text !== want[i]) wrong.push(`${JSON.stringify(markup)}: ${JSON.stringify(node.text)} != innerText ${JSON.stringify(want[i])}`);
  });
  assert.deepEqual(wrong, []);
});

test('without computed styles (plain HTML) the text agrees with innerText up to whitespace', async () => {
  const want = await page.evaluate(() => [...document.querySelectorAll('.case')].map((e) => (e as HTMLElement).innerText));
  // Plain HTML knows no CSS: only cases whose look comes from markup alone are comparable.
  const markupOnly = kCases.map((c, i) => [c, i] as const).filter(([c]) => !c.includes('style=') && !c.includes('<script'));
  for (const [markup, i] of markupOnly) {
    const tree = parseHtml(`<html><body><div id="c">${markup}</div></body></html>`);
    assert.equal(normaliseText(query(tree, { id: 'c' }, { visibleOnly: false })[0]!.text), normaliseText(want[i]!), markup);
  }
});

test('textContains finds "3 items left" across inline elements, as a user reads it', () => {
  const tree = parseHtml('<html><body><footer><strong>3</strong><span> </span><span>items</span><span> left</span></footer></body></html>');
  assert.equal(query(tree, { textContains: '3 items left' }).length > 0, true);
});
