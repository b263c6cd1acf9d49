// POST /boxes/{id}/actions/elements/detect (docs/api.md) on a real `boxflow serve`: a
// Linux box's page in real Chromium, an Android box's uiautomator dump through the fake adb server
// (a TEST DOUBLE of the adb protocol, test/support/fakeAdbServer.ts). The exact elements and wire
// shape, the two images (source and marked, as data URLs or stored objects), the action scale, an
// element handed back as a click or tap target, and what a tenant or a hostile page could try.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { request } from 'undici';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import { waitFor } from '../support/waitFor.js';
import type { FakeDevice } from '../support/fakeAdbServer.js';
import { kDetectMaxElements, type Box, type DetectedElement } from '../../src/api/schemas.js';

const kSerial = 'emulator-5580';
const srv = useGboxServer('gbox-detect', [kSerial]);
const a = () => srv.client('a');

let box: Box;
let android: Box;
let dev: FakeDevice;
let site: string;
const clicks: string[] = [];

// Every element placed absolutely, so its box is known to the pixel. The page also replaces the
// DOM methods the detection uses: it runs in a world of its own, so that changes nothing.
const kPage = `<!doctype html><html><head><style>
* { box-sizing: border-box; } body { margin: 0; font: 14px sans-serif; } .abs { position: absolute; margin: 0; }
</style></head><body>
<a class="abs" href="/next" style="left:10px;top:10px;width:100px;height:20px">Next page</a>
<button class="abs" style="left:10px;top:40px;width:120px;height:30px">Sign in</button>
<label class="abs" for="email" style="left:10px;top:84px">E-mail</label>
<input class="abs" id="email" style="left:80px;top:80px;width:200px;height:24px" placeholder="you@example.com">
<input type="hidden" name="csrf" value="x">
<button class="abs" style="left:300px;top:10px;width:50px;height:20px;display:none">Gone</button>
<button class="abs" style="left:300px;top:40px;width:50px;height:20px;visibility:hidden">Hidden</button>
<button class="abs" style="left:300px;top:70px;width:50px;height:20px;opacity:0">Clear</button>
<button class="abs" disabled style="left:300px;top:100px;width:50px;height:20px">Off</button>
<button class="abs" style="left:400px;top:10px;width:80px;height:30px">Covered</button>
<div class="abs" style="left:390px;top:0;width:120px;height:50px;background:#ddd"></div>
<div class="abs" onclick="void 0" style="left:10px;top:130px;width:150px;height:40px;background:#cde">Card</div>
<span class="abs" role="button" tabindex="0" aria-label="Close dialog" style="left:200px;top:130px;width:60px;height:20px">x</span>
<div class="abs" contenteditable style="left:10px;top:180px;width:200px;height:50px;border:1px solid #999"></div>
<select class="abs" style="left:300px;top:180px;width:100px;height:24px"><option>Red</option><option selected>Blue</option></select>
<textarea class="abs" style="left:420px;top:180px;width:100px;height:40px" placeholder="Notes"></textarea>
<button class="abs" style="left:1230px;top:300px;width:100px;height:40px">Half</button>
<button class="abs" style="left:10px;top:900px;width:100px;height:40px">Below</button>
<div class="abs" id="host" style="left:600px;top:10px;width:100px;height:30px"></div>
<iframe class="abs" srcdoc="<button>Framed</button>" style="left:600px;top:100px;width:200px;height:100px;border:0"></iframe>
<input class="abs" type="checkbox" id="agree" style="left:10px;top:250px;width:16px;height:16px"><label class="abs" for="agree" style="left:40px;top:250px">I agree</label>
<script>
document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '<button style="width:100px;height:30px;margin:0;padding:0;border:0">Shadow</button>';
addEventListener('click', (e) => fetch('/click?' + encodeURIComponent((e.composedPath()[0].textContent || '').trim()) + '&x=' + e.clientX + '&y=' + e.clientY));
Document.prototype.querySelectorAll = () => [];
Element.prototype.getBoundingClientRect = function () { return { left: 0, top: 0, right: 1, bottom: 1, width: 1, height: 1 }; };
</script></body></html>`;

const el = (id: number, x: number, y: number, width: number, height: number, label: string, type: string, path: string): DetectedElement => ({
  id: String(id), x, y, width, height, centerX: x + width / 2, centerY: y + height / 2, label, path, source: 'browser', type,
});

const kExpected: DetectedElement[] = [
  el(1, 10, 10, 100, 20, 'Next page', 'link', '/html/body/a'),
  el(2, 10, 40, 120, 30, 'Sign in', 'button', '/html/body/button[1]'),
  el(3, 80, 80, 200, 24, 'E-mail', 'textbox', '/html/body/input[1]'),
  el(4, 10, 130, 150, 40, 'Card', 'clickable', '/html/body/div[2]'),
  el(5, 200, 130, 60, 20, 'Close dialog', 'button', '/html/body/span'),
  el(6, 10, 180, 200, 50, '', 'textbox', '/html/body/div[3]'),
  el(7, 300, 180, 100, 24, 'Blue', 'combobox', '/html/body/select'),
  el(8, 420, 180, 100, 40, 'Notes', 'textbox', '/html/body/textarea'),
  el(9, 1230, 300, 50, 40, 'Half', 'button', '/html/body/button[7]'),
  el(10, 600, 10, 100, 30, 'Shadow', 'button', '/html/body/div[4]/#shadow-root/button'),
  el(11, 10, 250, 16, 16, 'I agree', 'checkbox', '/html/body/input[3]'),
];

before(async () => {
  await srv.ready();
  dev = srv.fake.device(kSerial);
  site = await srv.site((req, res) => {
    if (req.url?.startsWith('/click?')) clicks.push(decodeURIComponent(req.url.slice(7)));
    res.setHeader('content-type', 'text/html');
    res.end(req.url === '/many' ? manyButtons() : kPage);
  });
  [box, android] = await Promise.all([a().createLinuxBox(), a().createAndroidBox()]);
  await a().openTab(box.id, { url: `${site}/` });
});

function manyButtons(): string {
  const buttons = Array.from({ length: kDetectMaxElements + 100 }, (_, i) => `<button style="position:absolute;left:${(i % 60) * 20}px;top:${Math.floor(i / 60) * 12}px;width:18px;height:10px;padding:0;border:0">${i}</button>`);
  return `<!doctype html><body style="margin:0">${buttons.join('')}</body>`;
}

function decode(uri: string): PNG {
  assert.match(uri, /^data:image\/png;base64,/);
  return PNG.sync.read(Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64'));
}

function pixel(png: PNG, x: number, y: number): [number, number, number] {
  const i = (png.width * y + x) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
}

test('Linux: the interactive elements in the viewport, exactly, with the wire shape of GBOX; the two images as data URLs', async () => {
  const raw = await srv.raw('a', 'POST', `/boxes/${box.id}/actions/elements/detect`, {});
  assert.equal(raw.status, 200);
  assert.match(raw.actionId ?? '', /^act_/);
  const body = JSON.parse(raw.text) as { elements: DetectedElement[]; screenshot: { source: { uri: string }; marked: { uri: string } }; actionId: string };
  assert.deepEqual(Object.keys(body).sort(), ['actionId', 'elements', 'screenshot']);
  assert.equal(body.actionId, raw.actionId);
  assert.deepEqual(body.elements, kExpected);
  assert.deepEqual(Object.keys(body.screenshot).sort(), ['marked', 'source']);
  assert.deepEqual(Object.keys(body.screenshot.source), ['uri']);
  const source = decode(body.screenshot.source.uri);
  const marked = decode(body.screenshot.marked.uri);
  assert.deepEqual([source.width, source.height, marked.width, marked.height], [1280, 800, 1280, 800]);
  // Element 4's box is drawn in the fourth colour (#d97706) on its left edge, its number in a tag of
  // that colour above it; the screenshot there is the page's.
  assert.deepEqual(pixel(marked, 10, 160), [0xd9, 0x77, 0x06]);
  assert.deepEqual(pixel(marked, 12, 120), [0xd9, 0x77, 0x06]);
  assert.notDeepEqual(pixel(source, 10, 160), [0xd9, 0x77, 0x06]);
  // Away from every element the two images agree.
  assert.deepEqual(pixel(marked, 900, 700), pixel(source, 900, 700));
  // The SDK's client validates the answer against the contract.
  assert.deepEqual((await a().detectElements(box.id)).elements, kExpected);
});

test('Linux: in the action scale, as click takes them: an element handed back as a target is clicked at its centre', async () => {
  await a().updateSettings(box.id, { scale: 0.5 });
  try {
    const r = await a().detectElements(box.id);
    const half = kExpected.map((e) => ({ ...e, x: e.x / 2, y: e.y / 2, width: e.width / 2, height: e.height / 2, centerX: e.centerX / 2, centerY: e.centerY / 2 }));
    assert.deepEqual(r.elements, half);
    assert.deepEqual([decode(r.screenshot.marked.uri).width, decode(r.screenshot.source.uri).height], [640, 400]);
    const card = r.elements.find((e) => e.label === 'Card')!;
    const click = await a().click(box.id, { target: card });
    assert.deepEqual(click.actual, { button: 'left', double: false, x: 42.5, y: 75 });
    const shadow = r.elements.find((e) => e.label === 'Shadow')!;
    await a().tap(box.id, { target: shadow });
    await waitFor(() => clicks.length >= 2, { what: 'the page to see both clicks', timeoutMs: 5_000, intervalMs: 50 });
    assert.deepEqual(clicks, ['Card&x=85&y=150', 'Shadow&x=650&y=25']);
  } finally {
    await a().resetSettings(box.id);
  }
});

test('Linux: outputFormat storageKey stores both images under the action id, behind pre-signed URLs', async () => {
  const r = await a().detectElements(box.id, { screenshot: { outputFormat: 'storageKey', presignedExpiresIn: '5m' } });
  assert.ok(r.actionId);
  for (const [name, entry] of Object.entries(r.screenshot)) {
    assert.equal(entry.uri, `boxes/${box.id}/actions/${r.actionId}/${name}.png`);
    const res = await request(entry.presignedUrl!);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/png');
    assert.equal(PNG.sync.read(Buffer.from(await res.body.arrayBuffer())).width, 1280);
  }
  // The key is this box's: the storage endpoint renews it for its tenant only.
  assert.match(await a().createPresignedUrl(box.id, { storageKey: r.screenshot.marked.uri }), /^http:\/\//);
  await rejects(srv.client('b').createPresignedUrl(box.id, { storageKey: r.screenshot.marked.uri }), 404, 'BOX_NOT_FOUND');
});

test(`Linux: a page with more than ${kDetectMaxElements} elements answers the first ${kDetectMaxElements} and says so`, async () => {
  const tab = await a().openTab(box.id, { url: `${site}/many` });
  try {
    const r = await a().detectElements(box.id);
    assert.equal(r.elements.length, kDetectMaxElements);
    assert.equal(r.truncated, true);
    assert.deepEqual([r.elements[0]!.label, r.elements.at(-1)!.label], ['0', String(kDetectMaxElements - 1)]);
  } finally {
    await a().closeTab(box.id, tab.id);
  }
});

test("refusals: another tenant's box is 404, a bad body 400, both before the box is touched", async () => {
  await rejects(srv.client('b').detectElements(box.id), 404, 'BOX_NOT_FOUND');
  const bad = await srv.raw('a', 'POST', `/boxes/${box.id}/actions/elements/detect`, { screenshot: { outputFormat: 'jpeg' } });
  assert.equal(bad.status, 400);
  const long = await srv.raw('a', 'POST', `/boxes/${box.id}/actions/elements/detect`, { screenshot: { outputFormat: 'storageKey', presignedExpiresIn: '7h' } });
  assert.equal(long.status, 400);
  assert.equal(JSON.parse(long.text).code, 'INVALID_DURATION');
});

// ---------------------------------------------------------------- Android

const node = (attrs: Record<string, string>, children = '') => {
  const all = { text: '', 'resource-id': '', class: 'android.view.View', 'content-desc': '', checkable: 'false', clickable: 'false', enabled: 'true', focusable: 'false', 'long-clickable': 'false', password: 'false', ...attrs };
  return `<node ${Object.entries(all).map(([k, v]) => `${k}="${v}"`).join(' ')}>${children}</node>`;
};

const kDump = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">${node({ class: 'android.widget.FrameLayout', bounds: '[0,0][1080,2400]' }, [
  node({ class: 'android.widget.Button', text: 'Sign in', clickable: 'true', bounds: '[100,200][500,300]' }),
  node({ class: 'android.widget.EditText', hint: 'Email', focusable: 'true', bounds: '[100,400][980,500]' }),
  node({ class: 'android.widget.EditText', text: '••••••', password: 'true', 'resource-id': 'com.example:id/password', clickable: 'true', bounds: '[100,550][980,650]' }),
  node({ class: 'android.widget.Button', text: 'Disabled', clickable: 'true', enabled: 'false', bounds: '[100,700][500,800]' }),
  node({ class: 'android.widget.TextView', text: 'Just text', bounds: '[100,850][500,900]' }),
  node({ class: 'android.widget.CheckBox', 'content-desc': 'Remember me', checkable: 'true', clickable: 'true', bounds: '[100,950][200,1050]' }),
  node({ class: 'android.widget.LinearLayout', 'resource-id': 'com.example:id/row', clickable: 'true', bounds: '[0,1400][1080,1600]' }, node({ class: 'android.widget.Switch', text: 'Wi-Fi', checkable: 'true', clickable: 'true', bounds: '[900,1450][1040,1550]' })),
  node({ class: 'android.widget.Button', text: 'Off screen', clickable: 'true', bounds: '[100,2500][500,2600]' }),
  node({ class: 'android.widget.Button', text: 'Edge', clickable: 'true', bounds: '[900,2300][1200,2500]' }),
  node({ class: 'android.widget.ImageButton', 'content-desc': 'Unseen', clickable: 'true', 'visible-to-user': 'false', bounds: '[0,0][100,100]' }),
  node({ class: 'android.widget.ImageView', 'content-desc': 'Photo', 'long-clickable': 'true', bounds: '[600,950][900,1250]' }),
].join(''))}</hierarchy>`;

const ael = (id: number, x: number, y: number, width: number, height: number, label: string, type: string, path: string): DetectedElement => ({
  id: String(id), x, y, width, height, centerX: x + width / 2, centerY: y + height / 2, label, path: `/hierarchy/node[1]/${path}`, source: 'uiautomator', type,
});

const kAndroidExpected: DetectedElement[] = [
  ael(1, 100, 200, 400, 100, 'Sign in', 'button', 'node[1]'),
  ael(2, 100, 400, 880, 100, 'Email', 'textbox', 'node[2]'),
  ael(3, 100, 550, 880, 100, 'password', 'textbox', 'node[3]'),
  ael(4, 100, 950, 100, 100, 'Remember me', 'checkbox', 'node[6]'),
  ael(5, 0, 1400, 1080, 200, 'row', 'clickable', 'node[7]'),
  ael(6, 900, 1450, 140, 100, 'Wi-Fi', 'switch', 'node[7]/node[1]'),
  ael(7, 900, 2300, 180, 100, 'Edge', 'button', 'node[9]'),
  ael(8, 600, 950, 300, 300, 'Photo', 'clickable', 'node[11]'),
];

function blankPng(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  png.data.fill(0xff);
  return PNG.sync.write(png);
}

test('Android: the clickable nodes of the uiautomator dump (what screen-layout reads), in the same shapes; tap at one', async () => {
  dev.on(/^uiautomator dump \/dev\/tty$/, () => `${kDump}UI hierchary dumped to: /dev/tty\n`);
  dev.screen = blankPng(1080, 2400);
  const mark = dev.shellCommands.length;
  const r = await a().detectElements(android.id);
  assert.deepEqual(r.elements, kAndroidExpected);
  assert.deepEqual(dev.shellCommands.slice(mark).filter((l) => !l.startsWith('dumpsys')), ['uiautomator dump /dev/tty']);
  assert.match(r.actionId ?? '', /^act_/);
  const marked = decode(r.screenshot.marked.uri);
  assert.deepEqual([marked.width, marked.height], [1080, 2400]);
  assert.deepEqual(pixel(marked, 101, 250), [0xe1, 0x1d, 0x48], "element 1's box, in the first colour");
  assert.deepEqual(pixel(decode(r.screenshot.source.uri), 101, 250), [255, 255, 255]);
  const tapped = dev.shellCommands.length;
  await a().tap(android.id, { target: r.elements[0]! });
  assert.deepEqual(dev.shellCommands.slice(tapped), ['input tap 300 250']);
  await rejects(srv.client('b').detectElements(android.id), 404, 'BOX_NOT_FOUND');
});

test('Android: the action scale halves every box and the images; a real dump (AdvancedSharpAdbClient capture) parses', async () => {
  await a().updateSettings(android.id, { scale: 0.5 });
  try {
    const r = await a().detectElements(android.id);
    assert.deepEqual(r.elements, kAndroidExpected.map((e) => ({ ...e, x: e.x / 2, y: e.y / 2, width: e.width / 2, height: e.height / 2, centerX: e.centerX / 2, centerY: e.centerY / 2 })));
    assert.equal(decode(r.screenshot.source.uri).width, 540);
  } finally {
    await a().resetSettings(android.id);
  }
  dev.overrides.splice(dev.overrides.findIndex(([re]) => String(re) === String(/^uiautomator dump \/dev\/tty$/)), 1);
  dev.screen = blankPng(1440, 3060);
  const real = await a().detectElements(android.id);
  // The capture has 34 enabled nodes that are clickable, long-clickable, checkable or an EditText, all on its 1440×3060 screen.
  assert.equal(real.elements.length, 34);
  assert.deepEqual(real.elements[0], { id: '1', x: 0, y: 0, width: 1440, height: 549, centerX: 720, centerY: 274.5, label: 'background', path: real.elements[0]!.path, source: 'uiautomator', type: 'clickable' });
  assert.match(real.elements[0]!.path, /^\/hierarchy\/node\[1\](\/node\[\d+\])+$/);
  for (const e of real.elements) assert.ok(e.x >= 0 && e.y >= 0 && e.x + e.width <= 1440 && e.y + e.height <= 3060, JSON.stringify(e));
});
