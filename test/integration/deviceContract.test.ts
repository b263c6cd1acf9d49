// One contract for every kind of box (src/server/devices/device.ts), run over the API against each:
// a local Linux box (real Chromium), a grid box (a real Selenium Grid on loopback, gridSupport.ts) and
// an Android box (the fake adb server, a TEST DOUBLE of the adb protocol). Each behaviour of the
// device interface is one named request: a kind either does it, or refuses it with the code and reason
// its declaration (devices/kinds.ts) gives, and nothing else. A kind that lacks a behaviour it does
// not declare fails here by the behaviour's name.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient, type BoxApiError } from '../../src/api/client.js';
import type { Box, EndpointName } from '../../src/api/schemas.js';
import { kKinds, type KindDeclaration } from '../../src/server/devices/index.js';
import { refusal } from '../../src/server/devices/device.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { useGboxServer } from '../support/gboxServer.js';
import { gridUnavailable, startGrid, type LocalGrid } from './gridSupport.js';

const kSerial = 'emulator-5570';
const srv = useGboxServer('contract', [kSerial]);
const page = 'data:text/html,<title>contract</title><h1>Contract</h1><button>Go</button><input id=i autofocus>';
/** An http page on loopback: what a link opens on every kind (a browser tab, or the app that claims http links). */
let site = '';

interface Behaviour {
  /** What the device does, as device.ts names it. */
  name: string;
  endpoint: EndpointName;
  body?: unknown;
  run: (c: BoxClient, box: Box) => Promise<void>;
}

const kBehaviours: Behaviour[] = [
  { name: 'screenshot', endpoint: 'screenshot', run: async (c, box) => assert.match((await c.screenshot(box.id, { outputFormat: 'base64' })).uri, /^data:image\/png;base64,/) },
  { name: 'layout', endpoint: 'screenLayout', run: async (c, box) => assert.ok((await c.screenLayout(box.id)).content.length > 0) },
  { name: 'elements', endpoint: 'detectElements', run: async (c, box) => assert.ok((await c.detectElements(box.id)).elements.length > 0) },
  { name: 'display', endpoint: 'getDisplay', run: async (c, box) => assert.ok((await c.getDisplay(box.id)).resolution.width > 0) },
  { name: 'setResolution', endpoint: 'setResolution', run: async (c, box) => assert.deepEqual(await c.setResolution(box.id, { width: 720, height: 1280 }), { width: 720, height: 1280 }) },
  { name: 'rotate', endpoint: 'screenRotation', run: async (c, box) => assert.match((await c.screenRotation(box.id, { orientation: 'portrait' })).message, /rotated the screen to portrait/) },
  { name: 'perform (a gesture)', endpoint: 'tap', run: async (c, box) => assert.match((await c.tap(box.id, { x: 10, y: 10 })).actionId ?? '', /^act_/) },
  { name: 'drag', endpoint: 'drag', run: async (c, box) => assert.match((await c.drag(box.id, { start: { x: 10, y: 10 }, end: { x: 60, y: 60 } })).actionId ?? '', /^act_/) },
  { name: 'pressKeys', endpoint: 'pressKey', run: async (c, box) => assert.equal((await c.pressKey(box.id, { keys: ['a'] })).message, 'pressed a') },
  { name: 'type', endpoint: 'type', run: async (c, box) => assert.equal((await c.type(box.id, { text: 'hi' })).message, 'typed 2 characters') },
  { name: 'pressButtons (back)', endpoint: 'pressButton', body: { buttons: ['back'] }, run: async (c, box) => assert.match((await c.pressButton(box.id, { buttons: ['back'] })).message, /^pressed back/) },
  { name: 'pressButtons (home)', endpoint: 'pressButton', body: { buttons: ['home'] }, run: async (c, box) => assert.match((await c.pressButton(box.id, { buttons: ['home'] })).message, /^pressed home/) },
  { name: 'openLink', endpoint: 'openTab', body: { url: 'http://127.0.0.1/' }, run: async (c, box) => assert.equal((await c.openTab(box.id, { url: site })).active, true) },
  { name: 'browser: tabs', endpoint: 'listTabs', run: async (c, box) => assert.ok((await c.listTabs(box.id)).data.length > 0) },
  {
    name: 'clipboard',
    endpoint: 'setClipboard',
    run: async (c, box) => {
      await c.setClipboard(box.id, 'copied');
      assert.equal(await c.getClipboard(box.id), 'copied');
    },
  },
  { name: 'shell', endpoint: 'runCommand', run: async (c, box) => assert.equal((await c.runCommand(box.id, { command: 'echo hi' })).exitCode, 0) },
  {
    name: 'files',
    endpoint: 'writeFile',
    run: async (c, box) => {
      await c.writeFile(box.id, { path: 'contract.txt', content: 'kept' });
      assert.equal((await c.readFile(box.id, 'contract.txt')).content, 'kept');
    },
  },
  { name: 'apps', endpoint: 'listApps', run: async (c, box) => assert.ok(Array.isArray((await c.listApps(box.id)).data)) },
];

/** Runs every behaviour on `box`: done, or refused exactly as `decl` says. */
async function contract(decl: KindDeclaration, c: BoxClient, box: Box): Promise<void> {
  const failed: string[] = [];
  for (const b of kBehaviours) {
    const refused = refusal(decl, b.endpoint, b.body ?? {});
    try {
      await b.run(c, box);
      if (refused) failed.push(`${b.name}: done, but the ${decl.kind} kind declares it refused (${refused.code})`);
    } catch (err) {
      const e = err as BoxApiError;
      if (!refused) failed.push(`${b.name}: ${e.serverCode ?? ''} ${e.message}`);
      else if (e.serverCode !== refused.code || e.httpStatus !== refused.status || !e.message.endsWith(refused.message)) failed.push(`${b.name}: refused as ${e.serverCode} ${e.httpStatus} "${e.message}", declared ${refused.code}: "${refused.message}"`);
    }
  }
  assert.deepEqual(failed, [], `the ${decl.kind} box:\n${failed.join('\n')}`);
}

before(async () => {
  await srv.ready();
  site = await srv.site((_req, res) => res.end('<title>site</title><h1>Site</h1>'));
  // The device's answers the fake does not have by default: a rotation in `dumpsys input`, a VIEW intent's activity.
  const dev = srv.fake.device(kSerial);
  dev.on(/^dumpsys input$/, () => 'Input Reader State:\n  Device 3: virtio_input_multi_touch_1\n    SurfaceOrientation: 0\n');
});

test('a local Linux box does every behaviour of the device interface but what its kind declares refused (apps; buttons but back)', async () => {
  const c = srv.client('a');
  const box = await c.createLinuxBox({ wait: true });
  try {
    await c.openTab(box.id, { url: page });
    await contract(kKinds.local, c, box);
  } finally {
    await c.terminateBox(box.id);
  }
});

test('an Android box does every behaviour of the device interface but what its kind declares refused (browser tabs, clipboard)', async () => {
  const c = srv.client('a');
  const box = await c.createAndroidBox();
  try {
    await contract(kKinds.android, c, box);
  } finally {
    await c.terminateBox(box.id);
  }
});

const skip = gridUnavailable();
const dir = mkdtempSync(join(tmpdir(), 'boxflow-contract-'));
let grid: LocalGrid | undefined;
after(async () => {
  await grid?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a grid box does every behaviour of the device interface but what its kind declares refused (shell, files, apps)', { skip }, async () => {
  grid = await startGrid({ maxSessions: 1 });
  const secret = randomBytes(16).toString('hex');
  const server = await startServer({ port: 0, dataDir: join(dir, 'srv'), secret, log: () => {}, grid: { url: grid.url, chromiumBinary: '/usr/bin/chromium', sessionTimeoutMs: 60_000, heartbeatMs: 1_000 } });
  const c = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'contract'), maxRetries: 0 });
  try {
    const box = await c.createLinuxBox({ wait: true });
    await c.openTab(box.id, { url: page });
    await contract(kKinds.grid, c, box);
    await c.terminateBox(box.id);
  } finally {
    await c.close();
    await server.close();
  }
});
