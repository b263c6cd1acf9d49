// The GBOX pointer actions, rotation, clipboard and screenshot options on a Linux box of a real
// `boxflow serve` (real Chromium), sent as the reference SDK sends them, each checked by its effect
// in the page: the events it fired, how far the page scrolled, what the clipboard holds.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import type { Page } from 'playwright-core';
import type { Box } from '../../src/api/schemas.js';
import { waitFor } from '../support/waitFor.js';

const srv = useGboxServer('gbox-actions');
const local = { get client() { return srv.client('a'); } };
const other = { get client() { return srv.client('b'); } };

// A tall, wide page that writes every input event it sees into #log (as text the layout shows).
const kPage = `<!doctype html><html><head><title>gbox</title><style>
body { margin: 0; width: 3000px; height: 6000px; font: 16px sans-serif }
#btn { position: absolute; left: 100px; top: 100px; width: 200px; height: 80px }
#hover { position: absolute; left: 400px; top: 100px; width: 200px; height: 80px; background: #eee }
#field { position: absolute; left: 100px; top: 300px; width: 300px }
#copy { position: absolute; left: 100px; top: 400px }
#pad { position: absolute; left: 700px; top: 100px; width: 400px; height: 400px; background: #def; touch-action: none }
</style></head><body>
<button id="btn">Press me</button><div id="hover">Hover me</div><input id="field"><p id="copy">copied words</p><div id="pad"></div>
<script>
window.events = [];
const t0 = performance.now();
const note = (e) => events.push({ type: e.type, target: e.target.id || e.target.tagName, button: e.button, detail: e.detail, shift: e.shiftKey, ctrl: e.ctrlKey,
  pointerType: e.pointerType, touches: e.touches ? e.touches.length : undefined, at: Math.round(performance.now() - t0) });
for (const t of ['click', 'dblclick', 'contextmenu', 'auxclick', 'mousedown', 'mouseover', 'pointerdown', 'pointerup', 'touchstart', 'touchend', 'touchcancel', 'copy']) addEventListener(t, note, true);
document.addEventListener('paste', note);
</script></body></html>`;

let siteUrl: string;
let box: Box;

before(async () => {
  await srv.ready();
  siteUrl = await srv.site((req, res) => {
    if (req.url?.startsWith('/page')) return void res.writeHead(200, { 'content-type': 'text/html' }).end(kPage);
    res.writeHead(404).end();
  });
  box = await local.client.createLinuxBox({ config: { resolution: { width: 1280, height: 800 } } });
});

interface Ev { type: string; target: string; button: number; detail: number; shift: boolean; ctrl: boolean; pointerType?: string; touches?: number; at: number }

/** A fresh page, scrolled to the top; its event log emptied. */
async function fresh(): Promise<void> {
  await local.client.resetSettings(box.id);
  await local.client.openTab(box.id, { url: `${siteUrl}/page?${Math.random()}` });
}

/**
 * Runs `use` on the active tab's page, reached through the box's own CDP URL (not the actions under
 * test, and held up by none of them once found).
 */
async function withActivePage<T>(use: (page: Page) => Promise<T>): Promise<T> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.connectOverCDP(await local.client.cdpUrl(box.id));
  try {
    const tabs = await local.client.listTabs(box.id);
    const active = tabs.data.find((t) => t.active)!;
    for (const page of browser.contexts()[0]!.pages()) {
      const s = await page.context().newCDPSession(page);
      const { targetInfo } = (await s.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
      await s.detach();
      if (targetInfo.targetId === active.id) return await use(page);
    }
    throw new Error('no active page');
  } finally {
    await browser.close();
  }
}

/** Runs a script in the active tab. */
const evaluate = <T>(expression: string): Promise<T> => withActivePage(async (page) => (await page.evaluate(expression)) as T);

const events = () => evaluate<Ev[]>('events.splice(0)');

test('click: left, double (dblclick fires), right (contextmenu), with a modifier held; actual carries the defaults applied', async () => {
  await fresh();
  const one = await local.client.click(box.id, { x: 200, y: 140 });
  assert.match(one.actionId, /^act_/);
  assert.deepEqual(one.actual, { button: 'left', double: false, x: 200, y: 140 });
  assert.equal(one.screenshot, undefined, 'no screenshot asked, none sent');
  let ev = await events();
  assert.deepEqual(ev.filter((e) => e.type === 'click').map((e) => [e.target, e.button, e.detail]), [['btn', 0, 1]]);
  assert.equal(ev.filter((e) => e.type === 'dblclick').length, 0);

  const two = await local.client.click(box.id, { x: 200, y: 140, double: true });
  assert.deepEqual(two.actual, { button: 'left', double: true, x: 200, y: 140 });
  assert.match(two.message, /double-clicked \(200, 140\)/);
  ev = await events();
  assert.deepEqual(ev.filter((e) => e.type === 'click').map((e) => e.detail), [1, 2]);
  assert.deepEqual(ev.filter((e) => e.type === 'dblclick').map((e) => e.target), ['btn']);

  const right = await local.client.click(box.id, { x: 200, y: 140, button: 'right' });
  assert.equal(right.actual.button, 'right');
  ev = await events();
  assert.deepEqual(ev.filter((e) => e.type === 'contextmenu').map((e) => [e.target, e.button]), [['btn', 2]]);
  assert.equal(ev.filter((e) => e.type === 'click').length, 0, 'a right click is no click');

  const shift = await local.client.click(box.id, { x: 200, y: 140, modifierKeys: ['shift', 'control'] });
  assert.deepEqual(shift.actual.modifierKeys, ['shift', 'control']);
  ev = await events();
  const click = ev.find((e) => e.type === 'click')!;
  assert.deepEqual([click.shift, click.ctrl], [true, true]);
});

test('click, tap and long-press at a text target and at a DetectedElement; images and the action id as for drag', async () => {
  await fresh();
  const byText = await local.client.click(box.id, { target: 'Press me', options: { screenshot: { phases: ['before', 'after', 'trace'], delay: '0ms' } } });
  assert.deepEqual([byText.actual.x, byText.actual.y], [200, 140]);
  for (const phase of ['before', 'after', 'trace'] as const) assert.match(byText.screenshot?.[phase]?.uri ?? '', /^data:image\/png;base64,/, phase);
  const element = { id: 'e1', x: 100, y: 100, width: 200, height: 80, centerX: 200, centerY: 140, label: 'Press me', path: '/html/body/button', source: 'browser', type: 'button' };
  const tap = await local.client.tap(box.id, { target: element });
  assert.deepEqual(tap.actual, { x: 200, y: 140 });
  const ev = await events();
  const clicks = ev.filter((e) => e.type === 'click');
  assert.deepEqual(clicks.map((e) => e.target), ['btn', 'btn']);
  assert.equal(ev.find((e) => e.type === 'pointerdown' && e.pointerType === 'touch')?.target, 'btn', 'a tap is a touch');
  const missing = await rejects(local.client.tap(box.id, { target: 'No such words' }), 422, 'TARGET_NOT_FOUND');
  assert.match(missing.message, /\/target: no visible element/);

  const long = await local.client.longPress(box.id, { x: 200, y: 140, duration: '600ms' });
  assert.deepEqual(long.actual, { duration: '600ms', x: 200, y: 140 });
  const held = await events();
  const down = held.find((e) => e.type === 'pointerdown')!;
  const up = held.find((e) => e.type === 'pointerup')!;
  assert.ok(up.at - down.at >= 550, `held ${up.at - down.at} ms`);
  const dflt = await local.client.longPress(box.id, { target: 'Press me' });
  assert.equal(dflt.actual.duration, '1s', 'the default hold');
});

test('move hovers without clicking; it has no actual', async () => {
  await fresh();
  const r = await local.client.move(box.id, { x: 500, y: 140 });
  assert.equal((r as { actual?: unknown }).actual, undefined);
  assert.equal(r.message, 'moved to (500, 140)');
  const ev = await events();
  assert.ok(ev.some((e) => e.type === 'mouseover' && e.target === 'hover'), JSON.stringify(ev));
  assert.ok(!ev.some((e) => e.type === 'click' || e.type === 'mousedown'));
});

test('a key that scrolls has scrolled when its action answers, so the next key is never lost in an animation', async () => {
  await fresh();
  // Chromium animates a keyboard scroll by default; a key pressed while one still runs could be
  // lost (End, then Control+Home, left the page at its bottom). The box's Chromium does not animate them.
  const bottom = 6000 - 800;
  for (let i = 0; i < 3; i++) {
    await local.client.pressKey(box.id, { keys: ['end'] });
    assert.equal(await evaluate<number>('scrollY'), bottom, `round ${i + 1}: End is at the bottom at once`);
    await local.client.pressKey(box.id, { keys: ['control', 'home'], combination: true });
    assert.equal(await evaluate<number>('scrollY'), 0, `round ${i + 1}: Control+Home is at the top at once`);
  }
});

test('scroll: the advanced form scrolls by its deltas; the simple form reports itself in advanced terms (up reveals what is below)', async () => {
  await fresh();
  const scrollY = () => evaluate<number>('scrollY');
  const scrollX = () => evaluate<number>('scrollX');
  const left = await local.client.scroll(box.id, { direction: 'left', distance: 'tiny', location: 'Hover me' });
  assert.deepEqual(left.actual, { scrollX: 128, scrollY: 0, x: 500, y: 140 }, 'from the element named by location');
  await waitFor(scrollX, { what: 'scrollX after left tiny', accept: (x) => x === 128, timeoutMs: 2_000, intervalMs: 50 });
  const adv = await local.client.scroll(box.id, { scrollX: 0, scrollY: 400, x: 640, y: 400 });
  assert.deepEqual(adv.actual, { scrollX: 0, scrollY: 400, x: 640, y: 400 });
  await waitFor(scrollY, { what: 'scrollY after scrollY: 400', accept: (y) => y === 400, timeoutMs: 2_000, intervalMs: 50 });

  const up = await local.client.scroll(box.id, { direction: 'up' });
  assert.deepEqual(up.actual, { scrollX: 0, scrollY: 400, x: 640, y: 400 }, 'from the centre to the edge: half the screen');
  await waitFor(scrollY, { what: 'scrollY after up', accept: (y) => y === 800, timeoutMs: 2_000, intervalMs: 50 });
  const down = await local.client.scroll(box.id, { direction: 'down', distance: 300, duration: '100ms' });
  assert.deepEqual(down.actual, { scrollX: 0, scrollY: -300, x: 640, y: 400 });
  await waitFor(scrollY, { what: 'scrollY after down 300', accept: (y) => y === 500, timeoutMs: 2_000, intervalMs: 50 });
});

test('swipe: the direction form moves a finger from the centre and scrolls the page; the coordinate form reports what it did', async () => {
  await fresh();
  const scrollY = () => evaluate<number>('scrollY');
  const up = await local.client.swipe(box.id, { direction: 'up', distance: 300, duration: '300ms' });
  assert.deepEqual(up.actual, { duration: '300ms', start: { x: 640, y: 400 }, end: { x: 640, y: 100 } });
  const y1 = await waitFor(scrollY, { what: 'scrollY after a swipe up', accept: (y) => y > 100, timeoutMs: 2_000, intervalMs: 50 });
  const adv = await local.client.swipe(box.id, { start: { x: 640, y: 600 }, end: { x: 640, y: 200 } });
  assert.deepEqual(adv.actual, { duration: '500ms', start: { x: 640, y: 600 }, end: { x: 640, y: 200 } });
  await waitFor(scrollY, { what: 'scrollY after the second swipe', accept: (y) => y > y1 + 100, timeoutMs: 2_000, intervalMs: 50 });
  const ev = await events();
  assert.ok(ev.some((e) => e.type === 'touchstart'), 'a swipe is a touch');
  const corner = await local.client.swipe(box.id, { direction: 'downRight' });
  assert.deepEqual(corner.actual, { duration: '500ms', start: { x: 640, y: 400 }, end: { x: 1280, y: 800 } }, 'a diagonal goes to the corner');
});

test('touch: two fingers at once, each with its moves and waits; actual holds the points with the defaults applied', async () => {
  await fresh();
  const r = await local.client.touch(box.id, {
    points: [
      { start: { x: 750, y: 200 }, actions: [{ type: 'move', x: 750, y: 300, duration: '100ms' }, { type: 'wait', duration: '50ms' }] },
      { start: { x: 1000, y: 200 }, actions: [{ type: 'move', x: 1000, y: 350 } as { type: string; x: number; y: number }] },
    ],
  });
  assert.deepEqual(r.actual.points, [
    { start: { x: 750, y: 200 }, actions: [{ type: 'move', x: 750, y: 300, duration: '100ms' }, { type: 'wait', duration: '50ms' }] },
    { start: { x: 1000, y: 200 }, actions: [{ type: 'move', x: 1000, y: 350, duration: '200ms' }] },
  ]);
  assert.match(r.message, /2 fingers for 200ms/);
  const ev = await events();
  assert.equal(Math.max(...ev.filter((e) => e.type === 'touchstart').map((e) => e.touches!)), 2, 'both fingers were down together');
  assert.equal(ev.filter((e) => e.type === 'touchend').length, 2);
});

test('screen-rotation swaps the viewport between portrait and landscape; display says so', async () => {
  await fresh();
  assert.deepEqual(await local.client.getDisplay(box.id), { orientation: 'landscapeLeft', resolution: { width: 1280, height: 800 } });
  const r = await local.client.screenRotation(box.id, { orientation: 'portrait' });
  assert.match(r.message, /portrait \(800×1280\)/);
  assert.deepEqual(await local.client.getDisplay(box.id), { orientation: 'portrait', resolution: { width: 800, height: 1280 } });
  assert.deepEqual(await evaluate('[innerWidth, innerHeight, matchMedia("(orientation: portrait)").matches]'), [800, 1280, true]);
  await local.client.screenRotation(box.id, { orientation: 'landscapeRight' });
  assert.deepEqual(await local.client.getDisplay(box.id), { orientation: 'landscapeRight', resolution: { width: 1280, height: 800 } });
  assert.deepEqual(await evaluate('[innerWidth, innerHeight]'), [1280, 800]);
  await local.client.screenRotation(box.id, { orientation: 'landscapeLeft' });
});

test('clipboard: set then get round-trips; the page pastes what was set and its copy is read back', async () => {
  await fresh();
  const text = 'héllo ✓ "quoted" \n second line';
  assert.equal(await local.client.setClipboard(box.id, { content: text }), undefined);
  assert.equal(await local.client.getClipboard(box.id), text);
  await evaluate('(events.length = 0, undefined)');
  // The page pastes it: Control+V in a focused field.
  await local.client.click(box.id, { x: 250, y: 310 });
  await local.client.setClipboard(box.id, 'pasted by the page');
  await local.client.pressKey(box.id, { keys: ['control', 'v'], combination: true });
  assert.equal(await evaluate('document.getElementById("field").value'), 'pasted by the page');
  // The page copies: its selection, Control+C; GET reads it; nothing got pasted into the field.
  await evaluate('(() => { const r = document.createRange(); r.selectNodeContents(document.getElementById("copy")); getSelection().removeAllRanges(); getSelection().addRange(r); })()');
  await local.client.pressKey(box.id, { keys: ['control', 'c'], combination: true });
  assert.equal(await local.client.getClipboard(box.id), 'copied words');
  assert.equal(await evaluate('document.getElementById("field").value'), 'pasted by the page', 'reading the clipboard inserts nothing');
  // The read's paste event is stopped where it starts (window, capture): the document never sees it.
  const pageSaw = (await events()).filter((e) => e.type === 'paste').length;
  assert.equal(pageSaw, 1, 'only the page\'s own paste reached the document');
  // On a page that is not a secure context too.
  await local.client.openTab(box.id, { url: 'about:blank' });
  await local.client.setClipboard(box.id, 'on a blank page');
  assert.equal(await local.client.getClipboard(box.id), 'on a blank page');
});

test('clipboard on the wire: GET answers a JSON string, POST 204 with no body', async () => {
  await local.client.setClipboard(box.id, 'wire');
  const get = await srv.raw('a', 'GET', `/boxes/${box.id}/actions/clipboard`);
  assert.match(get.contentType, /^application\/json/);
  assert.equal(get.text, '"wire"');
  const set = await srv.raw('a', 'POST', `/boxes/${box.id}/actions/clipboard`, { content: 'x' });
  assert.equal(set.status, 204);
  assert.equal(set.text, '');
  assert.match(set.actionId ?? '', /^act_/);
});

test('screenshot: scrollCapture is the page from its top as tall as maxHeight; saveToAlbum is 422; with clip it is 400', async () => {
  await fresh();
  const tall = await local.client.screenshot(box.id, { scrollCapture: { maxHeight: 2000, scrollBack: true } });
  const png = PNG.sync.read(Buffer.from(tall.uri.split(',')[1]!, 'base64'));
  assert.deepEqual([png.width, png.height], [1280, 2000]);
  await local.client.updateSettings(box.id, { scale: 0.5 });
  const half = await local.client.screenshot(box.id, { scrollCapture: {} });
  const small = PNG.sync.read(Buffer.from(half.uri.split(',')[1]!, 'base64'));
  assert.deepEqual([small.width, small.height], [640, 3000], 'the whole 6000 px page at half scale');
  // A small scale does not make Chromium render more than 16384 pixels of the page.
  await local.client.openTab(box.id, { url: `data:text/html,${encodeURIComponent('<body style="margin:0;height:40000px">')}` });
  await local.client.updateSettings(box.id, { scale: 0.1 });
  const capped = await local.client.screenshot(box.id, { scrollCapture: { maxHeight: 16_384 } });
  const tiny = PNG.sync.read(Buffer.from(capped.uri.split(',')[1]!, 'base64'));
  assert.deepEqual([tiny.width, tiny.height], [128, 1638]);
  await local.client.resetSettings(box.id);
  // The SDK's wrapper sends its own `path` key along: ignored.
  const plain = await local.client.screenshot(box.id, { outputFormat: 'base64', path: '/tmp/x.png' } as never);
  assert.match(plain.uri, /^data:image\/png;base64,/);
  await rejects(local.client.screenshot(box.id, { saveToAlbum: true }), 422, 'UNPROCESSABLE');
  await rejects(local.client.screenshot(box.id, { scrollCapture: {}, clip: { x: 0, y: 0, width: 10, height: 10 } }), 400, 'INVALID_REQUEST');
  await rejects(local.client.screenshot(box.id, { scrollCapture: { maxHeight: 20_000 } }), 400, 'INVALID_REQUEST');
});

test('settings: GET reads, DELETE resets to 1 and answers the JSON body', async () => {
  await local.client.updateSettings(box.id, { scale: 0.5 });
  assert.deepEqual(await local.client.getSettings(box.id), { scale: 0.5 });
  const del = await srv.raw('a', 'DELETE', `/boxes/${box.id}/actions/settings`);
  assert.equal(del.status, 200);
  assert.match(del.contentType, /^application\/json/);
  assert.deepEqual(JSON.parse(del.text), { scale: 1 });
});

test('actions in the action scale: coordinates are divided by the scale, actual and points stay in it', async () => {
  await fresh();
  await local.client.updateSettings(box.id, { scale: 0.5 });
  const r = await local.client.click(box.id, { x: 100, y: 70, double: true });
  assert.deepEqual([r.actual.x, r.actual.y], [100, 70]);
  const ev = await events();
  assert.deepEqual(ev.filter((e) => e.type === 'dblclick').map((e) => e.target), ['btn'], 'real (200, 140) is the button');
  const s = await local.client.scroll(box.id, { direction: 'up' });
  assert.deepEqual(s.actual, { scrollX: 0, scrollY: 200, x: 320, y: 200 });
  await waitFor(() => evaluate<number>('scrollY'), { what: 'a 200-unit scroll at scale 0.5 is 400 px', accept: (y) => y === 400, timeoutMs: 2_000, intervalMs: 50 });
  await local.client.resetSettings(box.id);
});

test('as an attacker: another tenant\'s box is 404, out-of-range values are 400 before anything runs', async () => {
  const theirs = box.id;
  await rejects(other.client.click(theirs, { x: 1, y: 1 }), 404, 'BOX_NOT_FOUND');
  await rejects(other.client.getClipboard(theirs), 404, 'BOX_NOT_FOUND');
  await rejects(other.client.setClipboard(theirs, 'x'), 404, 'BOX_NOT_FOUND');
  await rejects(other.client.touch(theirs, { points: [{ start: { x: 1, y: 1 } }] }), 404, 'BOX_NOT_FOUND');
  await rejects(other.client.screenRotation(theirs, { orientation: 'portrait' }), 404, 'BOX_NOT_FOUND');
  await rejects(other.client.getDisplay(theirs), 404, 'BOX_NOT_FOUND');
  await rejects(other.client.startBox(theirs), 404, 'BOX_NOT_FOUND');
  await rejects(local.client.click(box.id, { x: 1e9, y: 1 }), 400, 'INVALID_REQUEST');
  await rejects(local.client.scroll(box.id, { scrollX: 0, scrollY: 1e300, x: 1, y: 1 }), 400, 'INVALID_REQUEST');
  await rejects(local.client.longPress(box.id, { x: 1, y: 1, duration: '61s' }), 400, 'INVALID_DURATION');
  await rejects(local.client.swipe(box.id, { direction: 'up', duration: '10m' }), 400, 'INVALID_DURATION');
  await rejects(local.client.click(box.id, { target: 'x'.repeat(1001) }), 400, 'INVALID_REQUEST');
  await rejects(local.client.click(box.id, { x: 1, y: 1, modifierKeys: Array(17).fill('shift') }), 400, 'INVALID_REQUEST');
  await rejects(local.client.setClipboard(box.id, 'x'.repeat(100_001)), 400, 'INVALID_REQUEST');
  const eleven = Array.from({ length: 11 }, () => ({ start: { x: 1, y: 1 } }));
  await rejects(local.client.touch(box.id, { points: eleven }), 400, 'INVALID_REQUEST');
  const long = [{ start: { x: 1, y: 1 }, actions: Array.from({ length: 40 }, () => ({ type: 'wait', duration: '2s' })) }];
  await rejects(local.client.touch(box.id, { points: long }), 400, 'INVALID_DURATION');
  await rejects(local.client.touch(box.id, { points: [{ start: { x: 1, y: 1 }, actions: [{ type: 'move', x: 5 }] }] }), 400, 'INVALID_REQUEST');
  await rejects(local.client.screenRotation(box.id, { orientation: 'sideways' as never }), 400, 'INVALID_REQUEST');
});

test('a long press is cancelled when its request goes away: the finger is lifted and the box serves the next request', async () => {
  await fresh();
  const ac = new AbortController();
  // The page is found first: finding it asks the box, which the long press then holds.
  const pending = await withActivePage(async (page) => {
    const press = local.client.longPress(box.id, { x: 200, y: 140, duration: '20s' }, { signal: ac.signal });
    press.catch(() => {}); // awaited below, once aborted
    // Abort once the finger is down: the box is inside the long press.
    await page.waitForFunction(() => (window as unknown as { events: Ev[] }).events.some((e) => e.type === 'touchstart'));
    return { press };
  });
  ac.abort();
  await assert.rejects(pending.press);
  const started = performance.now();
  await local.client.tap(box.id, { x: 500, y: 140 });
  assert.ok(performance.now() - started < 5_000, 'the box was free again');
  const ev = await events();
  assert.ok(ev.some((e) => e.type === 'touchcancel'), `the held finger was lifted: ${JSON.stringify(ev.map((e) => e.type))}`);
});
