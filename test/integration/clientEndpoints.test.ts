// Every endpoint of the contract, as the client puts it on the wire and as it reads the answer:
// method, raw path and query, headers, JSON/multipart body, and each kind of success response.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { BoxClient, BoxApiError } from '../../src/api/client.js';
import { endpoints, type EndpointName } from '../../src/api/schemas.js';
import { startFakeService, sendJson, sendEmpty, parseMultipart, type FakeService, type Recorded } from './clientFakeService.js';

const kKey = 'bf_test_key_7d1c2a9e';
let service: FakeService;
let client: BoxClient;
let dir: string;

before(async () => {
  service = await startFakeService();
  client = new BoxClient({ baseUrl: service.baseUrl, apiKey: kKey, retryBaseMs: 1 }, {});
  dir = await mkdtemp(join(tmpdir(), 'boxflow-client-'));
});
after(async () => {
  await client.close();
  await service.close();
  await rm(dir, { recursive: true, force: true });
});

const actionResult = { actionId: 'act-1', message: 'done' };
const pkg = { name: 'Example', packageName: 'com.example.app', apkPath: '/data/app/base.apk', version: '1.2.3', pkgType: 'thirdParty', isRunning: false };
const tab = { id: 't1', title: 'Example', url: 'https://example.com/', favicon: '', active: true, loading: false };
const box = {
  id: 'box-1',
  type: 'linux',
  status: 'running',
  createdAt: '2025-01-01T00:00:00Z',
  updatedAt: '2025-01-01T00:00:00Z',
  expiresAt: null,
  config: { cpu: 2, memory: 2048, storage: 10, envs: {}, labels: { team: 'qa' }, os: { version: 'ubuntu-22.04' }, workingDir: '/root', publicIp: '10.0.0.1' },
};
const album = { name: 'Ferien 2025', path: '/sdcard/Pictures/Ferien 2025', mediaCount: 2, lastModified: '2025-01-01T00:00:00Z' };
const photo = { type: 'photo', name: 'IMG 1.jpg', path: '/sdcard/DCIM/Camera/IMG 1.jpg', size: '1.2 MB', mimeType: 'image/jpeg', lastModified: '2025-01-01T00:00:00Z' };
const fsFile = { type: 'file', name: 'notes.txt', path: '/work/a b/notes.txt', size: '1.5 KB', mode: '-rw-r--r--', lastModified: '2025-01-01T00:00:00Z' };
const installResult = { packageName: 'com.example.app', apkPath: '/data/app/base.apk', pkgType: 'thirdParty', activities: [{ name: 'Main', className: 'com.example.app.Main', packageName: 'com.example.app', isExported: true, isMain: true, isLauncher: true }] };

interface Case {
  call: (c: BoxClient) => Promise<unknown>;
  method: string;
  path: string;
  query?: string;
  /** JSON body expected on the wire; undefined means no body and no content-type. */
  body?: unknown;
  status: number;
  /** undefined: answer with an empty body. */
  response?: unknown;
  /** What the call resolves to (defaults to `response`). */
  result?: unknown;
}

/** Endpoints with tests of their own below: multipart bodies (install, albums), a binary answer (media download). */
const kOwnTests = ['installPackage', 'createAlbum', 'updateAlbum', 'downloadMedia', 'writeFile'] as const;

// One row per endpoint but those.
const cases: Record<Exclude<EndpointName, (typeof kOwnTests)[number]>, Case> = {
  drag: {
    call: (c) => c.drag('b1', { start: { x: 10, y: 20 }, end: 'Settings icon', duration: '300ms', options: { model: 'gelato', screenshot: { phases: ['after'], delay: '1s' } } }),
    method: 'POST', path: '/boxes/b1/actions/drag',
    body: { start: { x: 10, y: 20 }, end: 'Settings icon', duration: '300ms', options: { model: 'gelato', screenshot: { phases: ['after'], delay: '1s' } } },
    status: 200, response: { ...actionResult, actual: { start: { x: 10, y: 20 }, end: { x: 300, y: 400 }, duration: '300ms' } },
  },
  pressKey: {
    call: (c) => c.pressKey('b1', { keys: ['control', 'c'], combination: true }),
    method: 'POST', path: '/boxes/b1/actions/press-key', body: { keys: ['control', 'c'], combination: true }, status: 200, response: actionResult,
  },
  type: {
    call: (c) => c.type('b1', { text: 'héllo wörld ✓', mode: 'replace', pressEnter: true }),
    method: 'POST', path: '/boxes/b1/actions/type', body: { text: 'héllo wörld ✓', mode: 'replace', pressEnter: true }, status: 200,
    response: { ...actionResult, screenshot: { after: { uri: 'data:image/png;base64,iVBORw0KGgo=' } } },
  },
  screenLayout: {
    call: (c) => c.screenLayout('b1'), method: 'GET', path: '/boxes/b1/actions/screen-layout', status: 200, response: { content: '<hierarchy rotation="0"/>' },
  },
  updateSettings: {
    call: (c) => c.updateSettings('b1', { scale: 0.5 }), method: 'PUT', path: '/boxes/b1/actions/settings', body: { scale: 0.5 }, status: 200, response: { scale: 0.5 },
  },
  getSettings: { call: (c) => c.getSettings('b1'), method: 'GET', path: '/boxes/b1/actions/settings', status: 200, response: { scale: 1 } },
  resetSettings: { call: (c) => c.resetSettings('b1'), method: 'DELETE', path: '/boxes/b1/actions/settings', status: 200, response: { scale: 1 } },
  screenshot: {
    call: (c) => c.screenshot('b1'), method: 'POST', path: '/boxes/b1/actions/screenshot', body: {}, status: 200, response: { uri: 'data:image/png;base64,iVBORw0KGgo=' },
  },
  listPackages: {
    call: (c) => c.listPackages('b1', { pkgType: ['system', 'thirdParty'], runningFilter: ['running'] }),
    method: 'GET', path: '/boxes/b1/android/packages', query: 'pkgType=system%2CthirdParty&runningFilter=running', status: 200, response: { data: [pkg] },
  },
  getPackage: {
    call: (c) => c.getPackage('b1', 'com.example.app'), method: 'GET', path: '/boxes/b1/android/packages/com.example.app', status: 200, response: pkg,
  },
  listApps: {
    call: (c) => c.listApps('b1'), method: 'GET', path: '/boxes/b1/android/apps', status: 200,
    response: { data: [{ packageName: 'com.example.app', activityName: 'Main', activityClassName: 'com.example.app.Main' }] },
  },
  closeAllApps: { call: (c) => c.closeAllApps('b1'), method: 'POST', path: '/boxes/b1/android/packages/close-all', status: 204, result: undefined },
  openApp: { call: (c) => c.openApp('b1', 'com.example.app', { activityName: '.Main' }), method: 'POST', path: '/boxes/b1/android/packages/com.example.app/open', body: { activityName: '.Main' }, status: 204, result: undefined },
  restartApp: { call: (c) => c.restartApp('b1', 'com.example.app'), method: 'POST', path: '/boxes/b1/android/packages/com.example.app/restart', body: {}, status: 204, result: undefined },
  closeApp: { call: (c) => c.closeApp('b1', 'com.example.app'), method: 'POST', path: '/boxes/b1/android/packages/com.example.app/close', status: 204, result: undefined },
  clearAppData: { call: (c) => c.clearAppData('b1', 'com.example.app'), method: 'POST', path: '/boxes/b1/android/packages/com.example.app/clear', status: 204, result: undefined },
  pressButton: {
    call: (c) => c.pressButton('b1', { buttons: ['back', 'home'] }),
    method: 'POST', path: '/boxes/b1/actions/press-button', body: { buttons: ['back', 'home'] }, status: 200, response: actionResult,
  },
  openTab: { call: (c) => c.openTab('b1', { url: 'https://example.com/' }), method: 'POST', path: '/boxes/b1/browser/tabs', body: { url: 'https://example.com/' }, status: 200, response: tab },
  closeBrowser: { call: (c) => c.closeBrowser('b1'), method: 'DELETE', path: '/boxes/b1/browser/close', status: 200, result: undefined },
  cdpUrl: {
    call: (c) => c.cdpUrl('b1'), method: 'POST', path: '/boxes/b1/browser/connect-url/cdp', body: {}, status: 200, response: 'ws://127.0.0.1:9222/devtools/browser/x?sig=abc',
  },
  setResolution: {
    call: (c) => c.setResolution('b1', { width: 1280, height: 720 }), method: 'POST', path: '/boxes/b1/resolution', body: { width: 1280, height: 720 }, status: 200, response: { width: 1280, height: 720 },
  },
  webTerminalUrl: {
    call: (c) => c.webTerminalUrl('b1', { expiresIn: '10m' }), method: 'POST', path: '/boxes/b1/web-terminal-url', body: { expiresIn: '10m' }, status: 201, response: { url: 'https://live.example/t/1' },
  },
  renameFile: {
    call: (c) => c.renameFile('b1', { oldPath: 'a.txt', newPath: 'b c.txt', workingDir: '/root' }),
    method: 'POST', path: '/boxes/b1/fs/rename', body: { oldPath: 'a.txt', newPath: 'b c.txt', workingDir: '/root' }, status: 200,
    response: { type: 'file', name: 'b c.txt', path: '/root/b c.txt', size: '12', mode: '-rw-r--r--', lastModified: '2025-01-01T00:00:00Z' },
  },
  deleteMedia: { call: (c) => c.deleteMedia('b1', 'Camera', 'IMG_001.jpg'), method: 'DELETE', path: '/boxes/b1/media/albums/Camera/media/IMG_001.jpg', status: 204, result: undefined },
  deleteAlbum: { call: (c) => c.deleteAlbum('b1', 'Camera'), method: 'DELETE', path: '/boxes/b1/media/albums/Camera', status: 204, result: undefined },
  listBoxes: {
    call: (c) => c.listBoxes({ page: 2, pageSize: 10, status: ['running', 'pending'], type: ['linux'] }),
    method: 'GET', path: '/boxes', query: 'page=2&pageSize=10&status=running%2Cpending&type=linux', status: 200, response: { data: [box], page: 2, pageSize: 10, total: 11 },
  },
  getBox: { call: (c) => c.getBox('box-1'), method: 'GET', path: '/boxes/box-1', status: 200, response: box },
  createLinuxBox: {
    call: (c) => c.createLinuxBox({ config: { labels: { team: 'qa' }, expiresIn: '1h' }, wait: true }),
    method: 'POST', path: '/boxes/linux', body: { config: { labels: { team: 'qa' }, expiresIn: '1h' }, wait: true }, status: 201, response: box,
  },
  createAndroidBox: {
    call: (c) => c.createAndroidBox(), method: 'POST', path: '/boxes/android', body: {}, status: 201,
    response: { ...box, type: 'android', config: { ...box.config, os: { version: '13' }, deviceType: 'virtual' } },
  },
  terminateBox: { call: (c) => c.terminateBox('box-1', { wait: true }), method: 'POST', path: '/boxes/box-1/terminate', body: { wait: true }, status: 204, result: undefined },
  // the rest of the GBOX vocabulary, with the bodies the reference SDK sends
  click: {
    call: (c) => c.click('b1', { x: 10, y: 20, double: true, button: 'right', modifierKeys: ['shift'] }),
    method: 'POST', path: '/boxes/b1/actions/click', body: { x: 10, y: 20, double: true, button: 'right', modifierKeys: ['shift'] }, status: 200,
    response: { ...actionResult, actual: { button: 'right', double: true, x: 10, y: 20, modifierKeys: ['shift'] } },
  },
  tap: { call: (c) => c.tap('b1', { target: 'Sign in' }), method: 'POST', path: '/boxes/b1/actions/tap', body: { target: 'Sign in' }, status: 200, response: { ...actionResult, actual: { x: 5, y: 6 } } },
  longPress: {
    call: (c) => c.longPress('b1', { x: 1, y: 2, duration: '2s' }), method: 'POST', path: '/boxes/b1/actions/long-press', body: { x: 1, y: 2, duration: '2s' }, status: 200,
    response: { ...actionResult, actual: { duration: '2s', x: 1, y: 2 } },
  },
  move: { call: (c) => c.move('b1', { x: 3, y: 4 }), method: 'POST', path: '/boxes/b1/actions/move', body: { x: 3, y: 4 }, status: 200, response: actionResult },
  scroll: {
    call: (c) => c.scroll('b1', { direction: 'up', distance: 'short' }), method: 'POST', path: '/boxes/b1/actions/scroll', body: { direction: 'up', distance: 'short' }, status: 200,
    response: { ...actionResult, actual: { scrollX: 0, scrollY: 240, x: 640, y: 400 } },
  },
  swipe: {
    call: (c) => c.swipe('b1', { start: { x: 1, y: 2 }, end: 'Inbox', duration: '300ms' }), method: 'POST', path: '/boxes/b1/actions/swipe', body: { start: { x: 1, y: 2 }, end: 'Inbox', duration: '300ms' }, status: 200,
    response: { ...actionResult, actual: { duration: '300ms', start: { x: 1, y: 2 }, end: { x: 50, y: 60 } } },
  },
  touch: {
    call: (c) => c.touch('b1', { points: [{ start: { x: 1, y: 2 }, actions: [{ type: 'move', x: 5, y: 6, duration: '200ms' }, { type: 'wait', duration: '100ms' }] }] }),
    method: 'POST', path: '/boxes/b1/actions/touch', body: { points: [{ start: { x: 1, y: 2 }, actions: [{ type: 'move', x: 5, y: 6, duration: '200ms' }, { type: 'wait', duration: '100ms' }] }] }, status: 200,
    response: { ...actionResult, actual: { points: [{ start: { x: 1, y: 2 }, actions: [{ type: 'move', x: 5, y: 6, duration: '200ms' }, { type: 'wait', duration: '100ms' }] }] } },
  },
  screenRotation: { call: (c) => c.screenRotation('b1', { orientation: 'landscapeLeft' }), method: 'POST', path: '/boxes/b1/actions/screen-rotation', body: { orientation: 'landscapeLeft' }, status: 200, response: actionResult },
  detectElements: {
    call: (c) => c.detectElements('b1'), method: 'POST', path: '/boxes/b1/actions/elements/detect', body: {}, status: 200,
    response: {
      elements: [{ id: '1', x: 10, y: 20, width: 100, height: 40, centerX: 60, centerY: 40, label: 'Sign in', path: '/html/body/button', source: 'browser', type: 'button' }],
      screenshot: { source: { uri: 'data:image/png;base64,AA==' }, marked: { uri: 'boxes/b1/actions/a/marked.png', presignedUrl: 'http://h/storage/x?sig=1' } },
    },
  },
  getClipboard: { call: (c) => c.getClipboard('b1'), method: 'GET', path: '/boxes/b1/actions/clipboard', status: 200, response: 'copied text' },
  setClipboard: { call: (c) => c.setClipboard('b1', 'to paste'), method: 'POST', path: '/boxes/b1/actions/clipboard', body: { content: 'to paste' }, status: 204, result: undefined },
  openBrowser: { call: (c) => c.openBrowser('b1'), method: 'POST', path: '/boxes/b1/browser/open', body: {}, status: 200, response: { cdpUrl: 'ws://h/cdp/b1?sig=1' } },
  listTabs: { call: (c) => c.listTabs('b1'), method: 'GET', path: '/boxes/b1/browser/tabs', status: 200, response: { data: [tab] } },
  updateTab: { call: (c) => c.updateTab('b1', 't1', { url: 'https://example.com/' }), method: 'PUT', path: '/boxes/b1/browser/tabs/t1', body: { url: 'https://example.com/' }, status: 200, response: tab },
  switchTab: { call: (c) => c.switchTab('b1', 't1'), method: 'POST', path: '/boxes/b1/browser/tabs/t1/switch', status: 200, response: tab },
  closeTab: { call: (c) => c.closeTab('b1', 't1'), method: 'DELETE', path: '/boxes/b1/browser/tabs/t1', status: 200, response: { message: 'closed' } },
  startBox: { call: (c) => c.startBox('box-1'), method: 'POST', path: '/boxes/box-1/start', body: {}, status: 200, response: box },
  stopBox: { call: (c) => c.stopBox('box-1'), method: 'POST', path: '/boxes/box-1/stop', body: {}, status: 200, response: { ...box, status: 'stopped' } },
  getDisplay: { call: (c) => c.getDisplay('b1'), method: 'GET', path: '/boxes/b1/display', status: 200, response: { orientation: 'portrait', resolution: { width: 1080, height: 2400 } } },
  startRecording: { call: (c) => c.startRecording('b1'), method: 'POST', path: '/boxes/b1/actions/recording/start', status: 204, result: undefined },
  stopRecording: {
    call: (c) => c.stopRecording('b1'), method: 'POST', path: '/boxes/b1/actions/recording/stop', status: 200,
    response: { presignedUrl: 'https://store.example/v.mp4?sig=x', storageKey: 'storage://a/b/c' },
  },
  liveViewUrl: { call: (c) => c.liveViewUrl('b1'), method: 'POST', path: '/boxes/b1/live-view-url', body: {}, status: 201, response: { url: 'https://h/live-view/b1?sig=1', rawUrl: 'https://h/live-view/b1/raw?sig=1' } },
  runCommand: { call: (c) => c.runCommand('b1', { command: 'getprop ro.build.version.sdk' }), method: 'POST', path: '/boxes/b1/commands', body: { command: 'getprop ro.build.version.sdk' }, status: 200, response: { exitCode: 0, stdout: '33\n', stderr: '' } },
  websocketUrl: { call: (c) => c.websocketUrl('b1'), method: 'GET', path: '/boxes/b1/websocket-url', status: 200, response: { command: 'ws://h/api/v1/boxes/b1/ws/command', runCode: 'ws://h/api/v1/boxes/b1/ws/run-code' } },
  // Android apps and packages, media and storage (docs/api.md)
  getApp: {
    call: (c) => c.getApp('b1', 'com.example.app'), method: 'GET', path: '/boxes/b1/android/apps/com.example.app', status: 200,
    response: { packageName: 'com.example.app', activityName: '.Main', activityClassName: 'com.example.app.Main' },
  },
  listPackagesSimple: {
    call: (c) => c.listPackagesSimple('b1', { pkgType: ['system', 'thirdParty'] }), method: 'GET', path: '/boxes/b1/android/packages/simple', query: 'pkgType=system%2CthirdParty', status: 200,
    response: { data: [{ apkPath: '/data/app/~~a==/com.example.app-b==/base.apk', packageName: 'com.example.app', pkgType: 'thirdParty' }] },
  },
  listActivities: { call: (c) => c.listActivities('b1', 'com.example.app'), method: 'GET', path: '/boxes/b1/android/packages/com.example.app/activities', status: 200, response: { data: installResult.activities } },
  uninstallPackage: { call: (c) => c.uninstallPackage('b1', 'com.example.app'), method: 'DELETE', path: '/boxes/b1/android/packages/com.example.app', body: {}, status: 204, result: undefined },
  getConnectAddress: { call: (c) => c.getConnectAddress('b1'), method: 'GET', path: '/boxes/b1/android/connect-address', status: 200, response: { adb: '127.0.0.1:5555' } },
  listAlbums: { call: (c) => c.listAlbums('b1'), method: 'GET', path: '/boxes/b1/media/albums', status: 200, response: { data: [album] } },
  getAlbum: { call: (c) => c.getAlbum('b1', 'Ferien 2025'), method: 'GET', path: '/boxes/b1/media/albums/Ferien%202025', status: 200, response: album },
  listMedia: { call: (c) => c.listMedia('b1', 'Camera'), method: 'GET', path: '/boxes/b1/media/albums/Camera/media', status: 200, response: { data: [photo, { ...photo, type: 'video', name: 'a.mp4', mimeType: 'video/mp4' }] } },
  getMedia: { call: (c) => c.getMedia('b1', 'Camera', 'IMG 1.jpg'), method: 'GET', path: '/boxes/b1/media/albums/Camera/media/IMG%201.jpg', status: 200, response: photo },
  getMediaSupport: { call: (c) => c.getMediaSupport('b1'), method: 'GET', path: '/boxes/b1/media/support', status: 200, response: { photo: ['jpg', 'png'], video: ['mp4'] } },
  createPresignedUrl: {
    call: (c) => c.createPresignedUrl('b1', { storageKey: 'storage://a/b/c', expiresIn: '1h' }), method: 'POST', path: '/boxes/b1/storage/presigned-url', body: { storageKey: 'storage://a/b/c', expiresIn: '1h' }, status: 200,
    response: 'https://store.example/a/b/c?sig=1',
  },
  // run-code and files (docs/api.md)
  runCode: { call: (c) => c.runCode('b1', 'print(42)'), method: 'POST', path: '/boxes/b1/run-code', body: { code: 'print(42)' }, status: 200, response: { exitCode: 0, stdout: '42\n', stderr: '' } },
  listFiles: {
    call: (c) => c.listFiles('b1', { path: '/work/a b', depth: 2 }), method: 'GET', path: '/boxes/b1/fs/list', query: 'path=%2Fwork%2Fa%20b&depth=2', status: 200,
    response: { data: [{ type: 'dir', name: 'c', path: '/work/a b/c', mode: 'drwxr-xr-x', lastModified: '2025-01-01T00:00:00Z' }, fsFile] },
  },
  readFile: { call: (c) => c.readFile('b1', 'notes.txt'), method: 'GET', path: '/boxes/b1/fs/read', query: 'path=notes.txt', status: 200, response: { content: 'hello' } },
  fileExists: { call: (c) => c.fileExists('b1', { path: 'notes.txt', workingDir: '/work' }), method: 'POST', path: '/boxes/b1/fs/exists', body: { path: 'notes.txt', workingDir: '/work' }, status: 200, response: { exists: true, type: 'file' } },
  fileInfo: { call: (c) => c.fileInfo('b1', '/work/a b/notes.txt'), method: 'GET', path: '/boxes/b1/fs/info', query: 'path=%2Fwork%2Fa%20b%2Fnotes.txt', status: 200, response: fsFile },
  removeFile: { call: (c) => c.removeFile('b1', '/work/old'), method: 'DELETE', path: '/boxes/b1/fs', body: { path: '/work/old' }, status: 200, response: { message: 'removed /work/old' } },
};

test('every endpoint of the contract has a wire case here', () => {
  const covered = [...Object.keys(cases), ...kOwnTests].sort();
  assert.deepEqual(covered, Object.keys(endpoints).sort());
});

function assertCommonHeaders(req: Recorded, hasResponse: boolean) {
  assert.equal(req.headers.authorization, `Bearer ${kKey}`);
  assert.equal(req.headers.accept, hasResponse ? 'application/json' : '*/*');
  assert.match(String(req.headers['user-agent']), /^boxflow\//);
  assert.equal(req.headers.connection ?? 'keep-alive', 'keep-alive');
}

for (const [name, c] of Object.entries(cases)) {
  test(`${name}: ${c.method} ${c.path} as sent and as answered`, async () => {
    service.reset();
    service.handle((_req, res) => {
      if (c.response === undefined) sendEmpty(res, c.status);
      else sendJson(res, c.status, c.response);
    });
    const result = await c.call(client);
    assert.deepEqual(result, 'result' in c ? c.result : c.response);
    assert.equal(service.requests.length, 1);
    const req = service.requests[0]!;
    assert.equal(req.method, c.method);
    assert.equal(req.path, c.path);
    assert.equal(req.query, c.query ?? '');
    const ep = endpoints[name as EndpointName];
    assert.equal(req.method, ep.method, 'the endpoint table and the wire agree');
    assertCommonHeaders(req, 'response' in ep);
    if (c.body === undefined) {
      assert.equal(req.body.length, 0, 'no body');
      assert.equal(req.headers['content-type'], undefined, 'no content-type without a body');
    } else {
      assert.equal(req.headers['content-type'], 'application/json');
      assert.deepEqual(JSON.parse(req.body.toString('utf8')), c.body);
    }
  });
}

// ------------------------------------------------------------------ query strings

test('query arrays: comma-joined then encoded, one item has no comma, an empty array drops the key', async () => {
  service.handle((_req, res) => sendJson(res, 200, { data: [] }));
  service.reset();
  await client.listPackages('b1', { pkgType: ['system', 'thirdParty'] });
  await client.listPackages('b1', { pkgType: ['thirdParty'] });
  await client.listPackages('b1', { pkgType: [], runningFilter: ['notRunning'] });
  await client.listPackages('b1', { pkgType: [] });
  await client.listPackages('b1');
  assert.deepEqual(service.requests.map((r) => r.url), [
    '/api/v1/boxes/b1/android/packages?pkgType=system%2CthirdParty',
    '/api/v1/boxes/b1/android/packages?pkgType=thirdParty',
    '/api/v1/boxes/b1/android/packages?runningFilter=notRunning',
    '/api/v1/boxes/b1/android/packages',
    '/api/v1/boxes/b1/android/packages',
  ]);
});

// ------------------------------------------------------------------ path parameters

test('path parameters with spaces, slashes and unicode are percent-encoded as one segment', async () => {
  service.reset();
  service.handle((req, res) => (req.method === 'GET' ? sendJson(res, 200, pkg) : sendEmpty(res, 204)));
  await client.getPackage('box 1', 'com.example/app name');
  await client.deleteMedia('b1', 'Ferien/Sommer 2025', 'Strand ☀ ü.jpg');
  await client.deleteAlbum('b1', 'Ålbum ✓');
  await client.getPackage('b1', "it's+a=b&c?d#e%f");
  assert.deepEqual(service.requests.map((r) => r.path), [
    '/boxes/box%201/android/packages/com.example%2Fapp%20name',
    '/boxes/b1/media/albums/Ferien%2FSommer%202025/media/Strand%20%E2%98%80%20%C3%BC.jpg',
    '/boxes/b1/media/albums/%C3%85lbum%20%E2%9C%93',
    "/boxes/b1/android/packages/it's%2Ba%3Db%26c%3Fd%23e%25f",
  ]);
  assert.deepEqual(service.requests.map((r) => r.query), ['', '', '', '']);
});

test('a path parameter "." or ".." or empty is refused before sending', async () => {
  service.reset();
  const attempts: Array<[string, () => Promise<unknown>]> = [
    ['..', () => client.getPackage('b1', '..')],
    ['.', () => client.deleteAlbum('b1', '.')],
    ['..', () => client.deleteMedia('b1', 'Camera', '..')],
    ['..', () => client.screenLayout('..')],
    ['', () => client.getPackage('b1', '')],
  ];
  for (const [value, call] of attempts) {
    await assert.rejects(call(), (err: unknown) => {
      assert.ok(err instanceof BoxApiError);
      assert.equal(err.code, 'INVALID_ARGUMENT');
      if (value) assert.ok(err.message.includes(`"${value}"`), err.message);
      return true;
    });
  }
  assert.equal(service.requests.length, 0);
});

// ------------------------------------------------------------------ install (multipart)

test('install from a file: multipart with `apk` as a file part streamed from disk and `open` as text', async () => {
  const bytes = Buffer.concat([Buffer.from('PK\u0003\u0004'), randomBytes(256 * 1024)]);
  const file = join(dir, 'my app (1).apk');
  await writeFile(file, bytes);
  service.reset();
  service.handle((_req, res) => sendJson(res, 200, installResult));
  assert.deepEqual(await client.installPackage('b1', { apk: file, open: true }), installResult);
  await client.installPackage('b1', { apk: pathToFileURL(file).href, open: false });
  await client.installPackage('b1', { apk: file });

  assert.equal(service.requests.length, 3);
  for (const [i, req] of service.requests.entries()) {
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/boxes/b1/android/packages');
    assert.equal(req.headers.authorization, `Bearer ${kKey}`);
    assert.match(String(req.headers['content-type']), /^multipart\/form-data; boundary=/);
    const parts = parseMultipart(req.body, req.headers['content-type']);
    const apk = parts.find((p) => p.name === 'apk');
    assert.ok(apk, 'apk part present');
    assert.equal(apk.filename, 'my app (1).apk');
    assert.ok(apk.data.equals(bytes), 'the file arrives byte for byte');
    const open = parts.find((p) => p.name === 'open');
    if (i === 2) assert.equal(open, undefined, '`open` left out when not given');
    else {
      assert.equal(open?.filename, undefined, '`open` is a text part');
      assert.equal(open?.data.toString(), i === 0 ? 'true' : 'false');
    }
  }
});

test('install from a URL: still multipart, `apk` is a text part holding the URL', async () => {
  service.reset();
  service.handle((_req, res) => sendJson(res, 200, installResult));
  await client.installPackage('b1', { apk: 'https://cdn.example.com/app-release.apk?sig=1', open: true });
  const req = service.requests[0]!;
  assert.match(String(req.headers['content-type']), /^multipart\/form-data; boundary=/);
  const parts = parseMultipart(req.body, req.headers['content-type']);
  assert.deepEqual(parts.map((p) => [p.name, p.filename, p.data.toString()]), [
    ['apk', undefined, 'https://cdn.example.com/app-release.apk?sig=1'],
    ['open', undefined, 'true'],
  ]);
});

// ------------------------------------------------------------------ fs/write (multipart)

test('writeFile: multipart, `path` and `workingDir` as text parts, `content` as a file part named by the path (a string too, so its line breaks arrive as they are)', async () => {
  service.reset();
  service.handle((_req, res) => sendJson(res, 200, fsFile));
  assert.deepEqual(await client.writeFile('b1', { path: '/work/a b/notes.txt', content: 'line 1\nline 2\n', workingDir: '/work' }), fsFile);
  await client.writeFile('b1', { path: 'bytes.bin', content: Buffer.from([0, 255, 10]) });
  const [text, bytes] = service.requests;
  for (const req of [text!, bytes!]) {
    assert.deepEqual([req.method, req.path, req.query], ['POST', '/boxes/b1/fs/write', '']);
    assert.match(String(req.headers['content-type']), /^multipart\/form-data; boundary=/);
    assertCommonHeaders(req, true);
  }
  const parts = parseMultipart(text!.body, text!.headers['content-type']);
  assert.deepEqual(parts.map((p) => [p.name, p.filename, p.data.toString('utf8')]), [['path', undefined, '/work/a b/notes.txt'], ['workingDir', undefined, '/work'], ['content', 'notes.txt', 'line 1\nline 2\n']]);
  const bin = parseMultipart(bytes!.body, bytes!.headers['content-type']);
  assert.deepEqual(bin.map((p) => [p.name, p.filename]), [['path', undefined], ['content', 'bytes.bin']]);
  assert.deepEqual([...bin[1]!.data], [0, 255, 10]);
});

// ------------------------------------------------------------------ albums (multipart) and media download (binary)

test('createAlbum and updateAlbum: multipart, `name` as text and each file as a `media[]` file part (a path streamed from disk, or bytes), as the SDK sends them', async () => {
  const bytes = randomBytes(50_000);
  const file = join(dir, 'beach day.jpg');
  await writeFile(file, bytes);
  service.reset();
  service.handle((_req, res) => sendJson(res, 201, album));
  assert.deepEqual(await client.createAlbum('b1', { name: 'Ferien 2025', media: [file, { name: 'b.png', data: Buffer.from('png') }] }), album);
  await client.createAlbum('b1', { name: 'Leer' });
  service.handle((_req, res) => sendJson(res, 200, album));
  assert.deepEqual(await client.updateAlbum('b1', 'Ferien 2025', { media: [pathToFileURL(file).href] }), album);
  const [create, empty, update] = service.requests;
  assert.deepEqual([create!.method, create!.path, update!.method, update!.path], ['POST', '/boxes/b1/media/albums', 'PATCH', '/boxes/b1/media/albums/Ferien%202025']);
  for (const req of service.requests) {
    assert.match(String(req.headers['content-type']), /^multipart\/form-data; boundary=/);
    assert.equal(req.headers.accept, 'application/json');
  }
  const parts = (req: Recorded) => parseMultipart(req.body, req.headers['content-type']).map((p) => [p.name, p.filename, p.filename ? p.data.length : p.data.toString()]);
  assert.deepEqual(parts(create!), [['name', undefined, 'Ferien 2025'], ['media[]', 'beach day.jpg', bytes.length], ['media[]', 'b.png', 3]]);
  assert.deepEqual(parts(empty!), [['name', undefined, 'Leer']], 'no media: only the name');
  assert.deepEqual(parts(update!), [['media[]', 'beach day.jpg', bytes.length]]);
  await assert.rejects(client.createAlbum('b1', { name: 'x', media: [join(dir, 'missing.jpg')] }), (err: unknown) => err instanceof BoxApiError && err.code === 'INVALID_ARGUMENT');
});

test('downloadMedia: GET with Accept application/octet-stream, the bytes back; a refusal is a BoxApiError with its code', async () => {
  const bytes = randomBytes(70_000);
  service.reset();
  service.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': bytes.length });
    res.end(bytes);
  });
  assert.ok((await client.downloadMedia('b1', 'Camera', 'IMG 1.jpg')).equals(bytes));
  const req = service.requests[0]!;
  assert.deepEqual([req.method, req.path, req.query, req.headers.accept, req.headers.authorization], ['GET', '/boxes/b1/media/albums/Camera/media/IMG%201.jpg/download', '', 'application/octet-stream', `Bearer ${kKey}`]);
  assert.equal(req.body.length, 0);
  service.handle((_req, res) => sendJson(res, 404, { code: 'FILE_NOT_FOUND', message: 'no such photo' }));
  await assert.rejects(client.downloadMedia('b1', 'Camera', 'x.jpg'), (err: unknown) => err instanceof BoxApiError && err.httpStatus === 404 && err.serverCode === 'FILE_NOT_FOUND');
  await assert.rejects(client.downloadMedia('b1', 'Camera', '..'), (err: unknown) => err instanceof BoxApiError && err.code === 'INVALID_ARGUMENT');
});

// ------------------------------------------------------------------ response kinds

test('cdpUrl: a JSON string literal and a text/plain body both resolve to the URL string', async () => {
  service.handle((_req, res) => sendJson(res, 200, 'ws://h/devtools/browser/1'));
  assert.equal(await client.cdpUrl('b1', { expiresIn: '5m' }), 'ws://h/devtools/browser/1');
  service.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ws://h/devtools/browser/2');
  });
  assert.equal(await client.cdpUrl('b1'), 'ws://h/devtools/browser/2');
});

test('void endpoints ignore whatever body a 200 carries', async () => {
  service.handle((_req, res) => sendJson(res, 200, { ok: true }));
  assert.equal(await client.closeBrowser('b1'), undefined);
  assert.equal(await client.closeAllApps('b1'), undefined);
});

test('unknown response fields pass through', async () => {
  service.handle((_req, res) => sendJson(res, 200, { content: '<html/>', extra: 1 }));
  assert.deepEqual(await client.screenLayout('b1'), { content: '<html/>', extra: 1 });
});

test('a JSON content-type with an empty body is INVALID_RESPONSE', async () => {
  service.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end();
  });
  await assert.rejects(client.screenLayout('b1'), (err: unknown) => {
    assert.ok(err instanceof BoxApiError);
    assert.equal(err.code, 'INVALID_RESPONSE');
    assert.equal(err.httpStatus, 200);
    assert.match(err.message, /^GET \/boxes\/b1\/actions\/screen-layout \(box b1\): /);
    return true;
  });
});

test('a response that fails the schema is INVALID_RESPONSE naming the JSON path', async () => {
  service.handle((_req, res) => sendJson(res, 200, { data: [{ ...pkg, isRunning: 'yes' }] }));
  await assert.rejects(client.listPackages('b1'), (err: unknown) => {
    assert.ok(err instanceof BoxApiError);
    assert.equal(err.code, 'INVALID_RESPONSE');
    assert.match(err.message, /\/data\/0\/isRunning/);
    return true;
  });
  service.handle((_req, res) => sendJson(res, 200, { message: 'ok' }));
  await assert.rejects(client.pressKey('b1', { keys: ['enter'] }), (err: unknown) => err instanceof BoxApiError && err.code === 'INVALID_RESPONSE' && err.message.includes('/actionId'));
});

test('validateResponses: false hands back what the service sent', async () => {
  const lax = new BoxClient({ baseUrl: service.baseUrl, apiKey: kKey, validateResponses: false }, {});
  service.handle((_req, res) => sendJson(res, 200, { content: 42 }));
  try {
    assert.deepEqual(await lax.screenLayout('b1'), { content: 42 });
  } finally {
    await lax.close();
  }
});

test('fetchObject downloads a pre-signed URL byte for byte, without the API key', async () => {
  const png = randomBytes(40_000);
  service.reset();
  service.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
    res.end(png);
  });
  const got = await client.fetchObject(`http://127.0.0.1:${service.port}/objects/shot%201.png?sig=abc&exp=9`);
  assert.ok(got.equals(png));
  const req = service.requests[0]!;
  assert.equal(req.method, 'GET');
  assert.equal(req.url, '/objects/shot%201.png?sig=abc&exp=9');
  assert.equal(req.headers.authorization, undefined, 'pre-signed URLs carry their own signature');
});

// ------------------------------------------------------------------ keep-alive, base URL, env

test('keep-alive: two sequential requests reuse one connection; back-to-back ones reuse the pool', async () => {
  const fresh = await startFakeService((_req, res) => sendJson(res, 200, { content: 'x' }));
  const c = new BoxClient({ baseUrl: fresh.baseUrl, apiKey: kKey }, {});
  try {
    await c.screenLayout('b1');
    await new Promise((resolve) => setImmediate(resolve));
    await c.screenLayout('b1');
    assert.deepEqual(fresh.requests.map((r) => r.socket), [1, 1]);
    assert.equal(fresh.connections, 1);
    // With no pause at all undici hands the next request to a second pooled socket while the
    // first is still being released, so 10 calls use at most 2 connections, never 10.
    for (let i = 0; i < 10; i++) await c.screenLayout('b1');
    assert.equal(fresh.requests.length, 12);
    assert.ok(fresh.connections <= 2, `${fresh.connections} connections for 12 requests`);
  } finally {
    await c.close();
    await fresh.close();
  }
});

test('base URL: must end in /api/v1, a trailing slash is fine and does not double the slash', async () => {
  service.reset();
  service.handle((_req, res) => sendJson(res, 200, { content: 'x' }));
  const slash = new BoxClient({ baseUrl: `${service.baseUrl}/`, apiKey: kKey }, {});
  assert.equal(slash.baseUrl, service.baseUrl);
  await slash.screenLayout('b1');
  await slash.close();
  assert.equal(service.requests[0]!.url, '/api/v1/boxes/b1/actions/screen-layout');

  for (const bad of [`http://127.0.0.1:${service.port}`, `http://127.0.0.1:${service.port}/api`, `http://127.0.0.1:${service.port}/api/v2`, 'not a url']) {
    assert.throws(() => new BoxClient({ baseUrl: bad, apiKey: kKey }, {}), (err: unknown) => err instanceof Error && (err as { code?: string }).code === 'INVALID_ARGUMENT' && /\/api\/v1/.test(err.message));
  }
});

test('env: BOXFLOW_* first, then the reference service\'s GBOX_*; options beat both', async () => {
  service.reset();
  service.handle((_req, res) => sendJson(res, 200, { content: 'x' }));
  const other = `http://127.0.0.1:1/api/v1`;
  const clients = [
    new BoxClient({}, { BOXFLOW_BASE_URL: service.baseUrl, BOXFLOW_API_KEY: 'from-boxflow', GBOX_BASE_URL: other, GBOX_API_KEY: 'from-gbox' }),
    new BoxClient({}, { GBOX_BASE_URL: service.baseUrl, GBOX_API_KEY: 'from-gbox' }),
    new BoxClient({ baseUrl: service.baseUrl, apiKey: 'from-options' }, { BOXFLOW_BASE_URL: other, BOXFLOW_API_KEY: 'from-boxflow' }),
  ];
  for (const c of clients) {
    await c.screenLayout('b1');
    await c.close();
  }
  assert.deepEqual(service.requests.map((r) => r.headers.authorization), ['Bearer from-boxflow', 'Bearer from-gbox', 'Bearer from-options']);

  assert.throws(() => new BoxClient({}, {}), (err: unknown) => (err as { code?: string }).code === 'INVALID_ARGUMENT' && /BOXFLOW_BASE_URL/.test((err as Error).message));
  assert.throws(() => new BoxClient({}, { BOXFLOW_BASE_URL: service.baseUrl }), (err: unknown) => (err as { code?: string }).code === 'INVALID_ARGUMENT' && /BOXFLOW_API_KEY/.test((err as Error).message));
});
