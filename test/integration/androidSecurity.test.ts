// An Android box's tenant as an attacker, over real HTTP against the fake adb server (a TEST DOUBLE
// speaking the real adb protocol: test/support/fakeAdbServer.ts, which reads each command line as
// the device's sh would and records any character it finds outside quotes):
// - package and activity names with shell metacharacters are refused with 400 before any device
//   command, and every value that does reach the device is quoted (the exact lines are asserted);
// - a malformed multipart install body is a 4xx, not 502 BROWSER_ERROR;
// - one `type` request with many lines is a few device commands, and the text arrives in order.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import type { Box } from '../../src/api/schemas.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { FakeAdbServer, packagesFromFixture, type FakeDevice } from '../support/fakeAdbServer.js';
import { rawRequest, type RawResponse } from '../support/rawHttp.js';

const kSecret = 'android-security-secret-0123456789abcdef';
const kApp = 'com.example.app';
let dataDir: string;
let fake: FakeAdbServer;
let server: { baseUrl: string; close(): Promise<void> };
let client: BoxClient;
let key: string;
let dev: FakeDevice;
let box: Box;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-android-sec-'));
  fake = await FakeAdbServer.start();
  dev = fake.addDevice('emulator-5554', (d) => {
    d.packages = [...packagesFromFixture(), { packageName: kApp, apkPath: `/data/app/${kApp}-1/base.apk`, system: false, versionName: '1.0', launcher: '.Main', activities: [`${kApp}.Main`, `${kApp}.Outer$Inner`] }];
  });
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {}, adb: fake.socketSpec });
  key = await createApiKey(kSecret, 'attacker');
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0 });
  box = await client.createAndroidBox();
});

after(async () => {
  await client?.close();
  await server?.close();
  await fake?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const api = () => new URL(server.baseUrl).pathname;

function post(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(server.baseUrl, {
    method: path.startsWith('GET ') ? 'GET' : 'POST',
    path: `${api()}/boxes/${box.id}${path.replace(/^GET /, '')}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });
}

function refused(res: RawResponse, status: number, code: string, message?: RegExp): void {
  assert.equal(res.status, status, res.text);
  const body = JSON.parse(res.text) as { code: string; message: string };
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message']);
  assert.equal(body.code, code, res.text);
  if (message) assert.match(body.message, message);
}

test('package names with shell metacharacters are 400 INVALID_REQUEST on every app route, and nothing reaches the device', async () => {
  const mark = dev.services.length;
  const payloads = ['x%3Bid%20%23', 'x%24(id)', 'x%60id%60', 'com.example.app%3Bid', 'com.example%7Cid', 'com.example%26id', 'com.ex%0Aample', "com.example'x", '..', 'x'];
  for (const p of payloads) {
    refused(await post(`/android/packages/${p}/open`, { activityName: 'a.B' }), 400, 'INVALID_REQUEST', /is not an Android package name/);
    refused(await post(`/android/packages/${p}/restart`, {}), 400, 'INVALID_REQUEST', /is not an Android package name/);
    refused(await post(`/android/packages/${p}/close`), 400, 'INVALID_REQUEST', /is not an Android package name/);
    refused(await post(`/android/packages/${p}/clear`), 400, 'INVALID_REQUEST', /is not an Android package name/);
    refused(await post(`GET /android/packages/${p}`), 400, 'INVALID_REQUEST', /is not an Android package name/);
  }
  // The package is fine, its activity is not.
  for (const activityName of ['a.B;id', 'a.B #', '.B$(id)', '.B`id`', '.B|id', '.B && id', 'com.other.app/.Main', '.B\nid']) {
    refused(await post(`/android/packages/${kApp}/open`, { activityName }), 400, 'INVALID_REQUEST', /activityName .* is not an activity class name|names package/);
    refused(await post(`/android/packages/${kApp}/restart`, { activityName }), 400, 'INVALID_REQUEST');
  }
  assert.deepEqual(dev.services.slice(mark), [], 'a refused name never reaches the device');
  // Terminating runs `am force-stop` of every opened package: none of these was opened.
  assert.deepEqual(dev.unquotedLines, []);
});

test('every value that reaches the device is quoted: the exact command lines, and the values arrive literally', async () => {
  const m = dev.shellCommands.length;
  const extras = { 'k;id': "$(id) `id` 'x'", ' ': '#' };
  assert.equal((await post(`/android/packages/${kApp}/open`, { activityName: '.Outer$Inner', extras })).status, 204);
  assert.equal((await post(`/android/packages/${kApp}/open`, { activityName: `${kApp}/.Main` })).status, 204);
  assert.equal((await post(`/android/packages/${kApp}/open`, {})).status, 204);
  assert.equal((await post(`/android/packages/${kApp}/close`)).status, 204);
  assert.equal((await post(`/android/packages/${kApp}/clear`)).status, 204);
  dev.writeFile('/sdcard/DCIM/Camera/a;b $(id).jpg', 'x');
  await client.deleteMedia(box.id, 'Camera', 'a;b $(id).jpg');
  await client.openTab(box.id, { url: "https://example.com/$(id)?q=`id`&x='y'" });
  const start = 'am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -n';
  assert.deepEqual(dev.shellCommands.slice(m), [
    `${start} 'com.example.app/com.example.app.Outer$Inner' --es 'k;id' '$(id) \`id\` '\\''x'\\''' --es ' ' '#'`,
    `${start} 'com.example.app/com.example.app.Main'`,
    'cmd package query-activities --components -a android.intent.action.MAIN -c android.intent.category.LAUNCHER',
    `${start} 'com.example.app/com.example.app.Main'`,
    "pm path 'com.example.app'",
    "am force-stop 'com.example.app'",
    "pm path 'com.example.app'",
    "pm clear 'com.example.app'",
    "rm -f '/sdcard/DCIM/Camera/a;b $(id).jpg'",
    "am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d 'file:///sdcard/DCIM/Camera/a;b $(id).jpg'",
    "am start -W -a android.intent.action.VIEW -d 'https://example.com/$(id)?q=`id`&x='\\''y'\\'''",
  ]);
  assert.deepEqual(dev.extrasStarted.at(-3), extras, 'the extras arrived as sent');
  assert.ok(!dev.files.has('/sdcard/DCIM/Camera/a;b $(id).jpg'));
  assert.equal(dev.openedLinks.at(-1), "https://example.com/$(id)?q=`id`&x='y'");
  assert.deepEqual(dev.unquotedLines, [], 'no metacharacter outside quotes');
});

test('an activity that does not exist is 422, of a package that is not installed 404 — not 502', async () => {
  refused(await post(`/android/packages/${kApp}/open`, { activityName: '.Nope' }), 422, 'UNPROCESSABLE', /has no activity com\.example\.app\.Nope/);
  refused(await post('/android/packages/no.such.app/open', { activityName: '.Main' }), 404, 'PACKAGE_NOT_FOUND');
});

/** A multipart body from raw parts (each a header block and content), with boundary X. */
function multipart(parts: Array<[string, string | Buffer]>, end = true): Buffer {
  const chunks: Buffer[] = [];
  for (const [head, content] of parts) chunks.push(Buffer.from(`--X\r\n${head}\r\n\r\n`), Buffer.from(content), Buffer.from('\r\n'));
  if (end) chunks.push(Buffer.from('--X--\r\n'));
  return Buffer.concat(chunks);
}
const install = (body: Buffer, type = 'multipart/form-data; boundary=X') => post('/android/packages', body, { 'content-type': type });
const fileHead = (name = 'apk', filename = 'a.apk') => `Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream`;

test('a malformed multipart install body is 400 INVALID_REQUEST with what is wrong, never 502; its upload is removed', async () => {
  const zip = Buffer.from('PK\x03\x04 not really a zip');
  // Cut short: no closing boundary, the file part never ends.
  refused(await install(Buffer.concat([Buffer.from(`--X\r\n${fileHead()}\r\n\r\n`), zip])), 400, 'INVALID_REQUEST', /multipart body is malformed|ended before/);
  // Only a preamble, no part at all.
  refused(await install(Buffer.from('--X\r\nContent-Disposition: form-data; name="apk"')), 400, 'INVALID_REQUEST', /multipart body is malformed/);
  // Two file parts.
  refused(await install(multipart([[fileHead(), zip], [fileHead('apk', 'b.apk'), zip]])), 400, 'INVALID_REQUEST', /more than one file part/);
  refused(await install(multipart([[fileHead(), zip], [fileHead('other', 'b.apk'), zip]])), 400, 'INVALID_REQUEST', /more than one file part/);
  // The apk twice (text parts), and too many parts.
  refused(await install(multipart([['Content-Disposition: form-data; name="apk"', 'http://127.0.0.1:1/a.apk'], ['Content-Disposition: form-data; name="apk"', 'x']])), 403, 'FORBIDDEN');
  refused(await install(multipart([['Content-Disposition: form-data; name="apk"', 'not a url'], ['Content-Disposition: form-data; name="apk"', 'x']])), 400, 'INVALID_URL');
  refused(await install(multipart([[fileHead(), zip], ['Content-Disposition: form-data; name="apk"', 'http://example.com/a.apk']])), 400, 'INVALID_REQUEST', /apk is given twice|not a readable|neither/);
  refused(await install(multipart(Array.from({ length: 6 }, (_, i): [string, string] => [`Content-Disposition: form-data; name="f${i}"`, 'v']))), 400, 'INVALID_REQUEST', /too many parts/);
  // A part named __proto__, a header that does not parse, no boundary at all.
  refused(await install(multipart([['Content-Disposition: form-data; name="__proto__"', 'x']])), 400, 'INVALID_REQUEST', /prototype/);
  refused(await install(Buffer.from('--X\r\nthis is no header\r\n\r\nabc\r\n--X--\r\n')), 400, 'INVALID_REQUEST');
  refused(await install(multipart([[fileHead(), zip]]), 'multipart/form-data'), 400, 'INVALID_REQUEST', /multipart body is malformed/);
  // Nothing of them stays on the server: this box's scratch dir (its ledger names the box; other
  // test files' boxes install at the same time) holds no install dir.
  const ours = (dir: string) => {
    try {
      return (JSON.parse(readFileSync(join(dir, 'ledger.json'), 'utf8')) as { boxId?: string }).boxId === box.id;
    } catch {
      return false;
    }
  };
  const scratch = readdirSync(tmpdir()).filter((n) => n.startsWith('boxflow-android-')).map((n) => join(tmpdir(), n)).filter(ours);
  assert.equal(scratch.length, 1, 'the box has its scratch dir');
  assert.deepEqual(readdirSync(scratch[0]!).filter((n) => n.startsWith('install-')), []);
  assert.equal((await client.getBox(box.id)).status, 'running');
});

test('type: "a\\n" × 5,000 is a few dozen device command lines, not 10,000, and arrives in order', async () => {
  const text = 'a\n'.repeat(5_000);
  const m = dev.shellCommands.length;
  const log = dev.inputLog.length;
  const r = await client.type(box.id, { text });
  assert.match(r.message, /typed/);
  const lines = dev.shellCommands.slice(m);
  assert.ok(lines.length <= 60, `${lines.length} command lines`);
  assert.ok(lines.every((l) => Buffer.byteLength(`shell:${l}`) <= 4_000), 'each line fits one v1 shell request');
  assert.equal(dev.inputLog.slice(log), text);
  // Runs of newlines are one keyevent; quotes and spaces survive the batching.
  const n = dev.shellCommands.length;
  const log2 = dev.inputLog.length;
  await client.type(box.id, { text: "it's a\n\n\nb c", pressEnter: true });
  assert.deepEqual(dev.shellCommands.slice(n), ["input text 'it'\\''s%sa'; input keyevent 66 66 66; input text 'b%sc'; input keyevent 66"]);
  assert.equal(dev.inputLog.slice(log2), "it's a\n\n\nb c\n");
  // A long line without newlines is cut into several `input text` arguments, still in order.
  const long = `${"x' y".repeat(3_000)}end`;
  const log3 = dev.inputLog.length;
  await client.type(box.id, { text: long });
  assert.equal(dev.inputLog.slice(log3), long);
  assert.deepEqual(dev.unquotedLines, []);
});
