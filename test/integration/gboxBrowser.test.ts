// The GBOX browser and box endpoints on a Linux box of a real `boxflow serve` (real Chromium):
// browser/open, the tab list, update, switch and close, start and display; and the endpoints a local
// server does not offer, which answer 501 NOT_OFFERED_LOCALLY, after the key and the box.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import type { Box } from '../../src/api/schemas.js';

const srv = useGboxServer('gbox-browser');
const client = () => srv.client('a');

let siteUrl: string;
let box: Box;

before(async () => {
  await srv.ready();
  siteUrl = await srv.site((req, res) => {
    const name = (req.url ?? '/').slice(1) || 'home';
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${name}</title><h1>page ${name}</h1>`);
  });
  box = await client().createLinuxBox();
});

test('browser/open answers {cdpUrl} that Playwright connects to; size sets the screen, maximize wins over it', async () => {
  const { cdpUrl } = await client().openBrowser(box.id, { size: '1024x700', showControls: false });
  assert.match(cdpUrl, /^ws:\/\/.+\/cdp\/.+\?exp=\d+&sig=/);
  const browser = await chromium.connectOverCDP(cdpUrl);
  assert.ok(browser.contexts().length >= 1);
  await browser.close();
  assert.deepEqual((await client().getDisplay(box.id)).resolution, { width: 1024, height: 700 });
  await client().openBrowser(box.id, { maximize: true, size: '800x600' });
  assert.deepEqual((await client().getDisplay(box.id)).resolution, { width: 1024, height: 700 }, 'maximize keeps the screen as it is');
  // Open is idempotent, also after the browser was closed: it starts again.
  await client().closeBrowser(box.id);
  const again = await client().openBrowser(box.id);
  assert.match(again.cdpUrl, /^ws:/);
  await rejects(client().openBrowser(box.id, { size: '99x700' }), 400, 'INVALID_REQUEST');
  await rejects(client().openBrowser(box.id, { size: '1024 x 700' }), 400, 'INVALID_REQUEST');
  await client().setResolution(box.id, { width: 1280, height: 800 });
});

test('tabs: list, switch (the screen follows), update a tab that is not active, close; ids are those of the list', async () => {
  const first = await client().openTab(box.id, { url: `${siteUrl}/one` });
  const second = await client().openTab(box.id, { url: `${siteUrl}/two` });
  let { data } = await client().listTabs(box.id);
  assert.deepEqual(data.map((t) => [t.id, t.title, t.active]), [[first.id, 'one', false], [second.id, 'two', true]]);
  assert.equal(data[0]!.url, `${siteUrl}/one`);

  const switched = await client().switchTab(box.id, first.id);
  assert.deepEqual([switched.id, switched.active, switched.url], [first.id, true, `${siteUrl}/one`]);
  assert.match((await client().screenLayout(box.id)).content, /page one/, 'actions now see the first tab');
  ({ data } = await client().listTabs(box.id));
  assert.deepEqual(data.map((t) => t.active), [true, false]);

  const updated = await client().updateTab(box.id, second.id, { url: `${siteUrl}/three` });
  assert.deepEqual([updated.id, updated.title, updated.active, updated.loading], [second.id, 'three', false, updated.loading]);
  assert.match((await client().screenLayout(box.id)).content, /page one/, 'updating a tab does not switch to it');

  assert.deepEqual(await client().closeTab(box.id, first.id), { message: `closed tab ${first.id}` });
  ({ data } = await client().listTabs(box.id));
  assert.deepEqual(data.map((t) => [t.id, t.active]), [[second.id, true]], 'the last tab left is the active one');
  assert.match((await client().screenLayout(box.id)).content, /page three/);
  await rejects(client().switchTab(box.id, first.id), 404, 'TAB_NOT_FOUND');
  await rejects(client().closeTab(box.id, first.id), 404, 'TAB_NOT_FOUND');
  await rejects(client().updateTab(box.id, second.id, { url: 'javascript:alert(1)' }), 400, 'INVALID_URL');
  await rejects(client().updateTab(box.id, second.id, { url: 'file:///etc/passwd' }), 403, 'FORBIDDEN');
  await rejects(client().updateTab(box.id, second.id, { url: 'http://127.0.0.1:1/' }), 422, 'URL_UNREACHABLE');
});

test('tabs on the wire: switch takes no body, close answers JSON {message}', async () => {
  const tab = await client().openTab(box.id, { url: `${siteUrl}/wire` });
  const sw = await srv.raw('a', 'POST', `/boxes/${box.id}/browser/tabs/${tab.id}/switch`);
  assert.equal(sw.status, 200);
  assert.equal(JSON.parse(sw.text).id, tab.id);
  const list = await srv.raw('a', 'GET', `/boxes/${box.id}/browser/tabs`);
  assert.ok(Array.isArray(JSON.parse(list.text).data));
  const closed = await srv.raw('a', 'DELETE', `/boxes/${box.id}/browser/tabs/${tab.id}`);
  assert.equal(closed.status, 200);
  assert.match(closed.contentType, /^application\/json/);
  assert.deepEqual(JSON.parse(closed.text), { message: `closed tab ${tab.id}` });
});

test('a tab of another box, or another tenant\'s box, is never reached', async () => {
  const mine = await client().openTab(box.id, { url: `${siteUrl}/mine` });
  const otherBox = await srv.client('b').createLinuxBox();
  try {
    await rejects(srv.client('b').listTabs(box.id), 404, 'BOX_NOT_FOUND');
    await rejects(srv.client('b').switchTab(box.id, mine.id), 404, 'BOX_NOT_FOUND');
    await rejects(srv.client('b').closeTab(box.id, mine.id), 404, 'BOX_NOT_FOUND');
    await rejects(srv.client('b').updateTab(box.id, mine.id, { url: 'about:blank' }), 404, 'BOX_NOT_FOUND');
    await rejects(srv.client('b').openBrowser(box.id), 404, 'BOX_NOT_FOUND');
    // Their own box with my tab's id: no such tab there.
    await rejects(srv.client('b').switchTab(otherBox.id, mine.id), 404, 'TAB_NOT_FOUND');
    await rejects(srv.client('b').closeTab(otherBox.id, mine.id), 404, 'TAB_NOT_FOUND');
    assert.ok((await client().listTabs(box.id)).data.some((t) => t.id === mine.id), 'my tab is still open');
    await rejects(client().switchTab(box.id, 'x'.repeat(101)), 414, 'URI_TOO_LONG');
    await rejects(client().switchTab(box.id, "'; rm -rf / #"), 404, 'TAB_NOT_FOUND');
  } finally {
    await srv.client('b').terminateBox(otherBox.id);
  }
});

test('start answers the running box (a local box runs until terminated); display gives orientation and resolution', async () => {
  const started = await client().startBox(box.id);
  assert.deepEqual([started.id, started.status], [box.id, 'running']);
  assert.deepEqual(await client().getDisplay(box.id), { orientation: 'landscapeLeft', resolution: { width: 1280, height: 800 } });
  const gone = await client().createLinuxBox({ wait: true });
  await client().terminateBox(gone.id);
  await rejects(client().startBox(gone.id), 409, 'BOX_NOT_RUNNING');
  assert.equal((await client().getBox(gone.id)).status, 'terminated', 'a terminated box stays readable, as the SDK re-GETs it');
});

const kNotOffered: Array<[string, string]> = [
  ['POST', '/boxes/{box}/actions/extract'],
  ['GET', '/boxes/{box}/proxy'],
  ['POST', '/boxes/{box}/proxy'],
  ['DELETE', '/boxes/{box}/proxy'],
  ['GET', '/boxes/{box}/browser/proxy'],
  ['POST', '/boxes/{box}/browser/proxy'],
  ['DELETE', '/boxes/{box}/browser/proxy'],
  ['POST', '/boxes/{box}/actions/recording/rewind'],
  ['DELETE', '/boxes/{box}/actions/recording/rewind'],
  ['POST', '/boxes/{box}/actions/recording/rewind/extract'],
  ['POST', '/snapshots/{box}'],
  ['GET', '/snapshots'],
  ['GET', '/snapshots/my-snap'],
  ['DELETE', '/snapshots/my-snap'],
  ['GET', '/devices'],
  ['GET', '/devices/dev-1'],
  ['POST', '/devices/dev-1/box'],
  ['POST', '/model'],
];

test('cloud-account features, the browser proxy and the rewind: 501 NOT_OFFERED_LOCALLY, after the key and the box', async () => {
  for (const [method, path] of kNotOffered) {
    const json = method === 'POST' ? (path.endsWith('/model') ? { action: { type: 'click', target: 'x' }, screenshot: 'data:image/png;base64,' } : { name: 'snap', force: true }) : undefined;
    const mine = await srv.raw('a', method, path.replace('{box}', box.id), json);
    assert.equal(mine.status, 501, `${method} ${path}: ${mine.text}`);
    const body = JSON.parse(mine.text) as { code: string; message: string };
    assert.equal(body.code, 'NOT_OFFERED_LOCALLY');
    assert.match(body.message, /boxflow serve does not offer it/);
    if (path.includes('{box}')) {
      const theirs = await srv.raw('b', method, path.replace('{box}', box.id), json);
      assert.equal(theirs.status, 404, `${method} ${path} for another tenant`);
      assert.equal(JSON.parse(theirs.text).code, 'BOX_NOT_FOUND');
    }
  }
  const res = await fetch(`${srv.baseUrl}/devices`);
  assert.equal(res.status, 401, 'no key, no answer about what is offered');
  assert.equal((await client().getBox(box.id)).status, 'running', 'stop stopped nothing');
  // The two that are not the cloud account's alone say why.
  const proxy = JSON.parse((await srv.raw('a', 'POST', `/boxes/${box.id}/browser/proxy`, { httpServer: 'http://10.0.0.1:3128', httpsServer: '', socks5Server: '', pacUrl: 'file:///etc/passwd' })).text) as { message: string };
  assert.match(proxy.message, /browser proxy.*outside the URL checks/);
  const rewind = JSON.parse((await srv.raw('a', 'POST', `/boxes/${box.id}/actions/recording/rewind/extract`, { duration: '30s' })).text) as { message: string };
  assert.match(rewind.message, /recording rewind.*recording\/start and \/stop/);
});
