// A URL a tenant gives the server to download (an APK to install) never reaches the server's own
// machine or networks: the body would land on the tenant's device, where its shell reads it. Real
// HTTP against `boxflow serve`, with the fake adb server (a TEST DOUBLE of a device) behind it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxApiError, BoxClient } from '../../src/api/client.js';
import type { Box } from '../../src/api/schemas.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { getPublicUrl, isInnerAddress } from '../../src/server/http/publicUrl.js';
import { FakeAdbServer, packagesFromFixture, type FakeDevice } from '../support/fakeAdbServer.js';

const kSecret = 'public-url-secret-0123456789abcdef';
const kApk = readFileSync(join(import.meta.dirname, '../fixtures/android/split-apk/base.apk'));

let dataDir: string;
let fake: FakeAdbServer;
let dev: FakeDevice;
let server: { baseUrl: string; close(): Promise<void> };
let client: BoxClient;
let box: Box;
let site: Server;
let port: number;
const hits: string[] = [];

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-public-url-'));
  fake = await FakeAdbServer.start();
  dev = fake.addDevice('emulator-5554', (d) => {
    d.packages = packagesFromFixture();
  });
  // What only the server's machine can reach: a loopback service holding an APK (or anything).
  site = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/to-inner') return void res.writeHead(302, { location: `http://127.0.0.1:${port}/app.apk` }).end();
    res.writeHead(200, { 'content-type': 'application/vnd.android.package-archive' }).end(kApk);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as { port: number }).port;
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {}, adb: fake.socketSpec });
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'tenant'), maxRetries: 0 });
  box = await client.createAndroidBox();
});

after(async () => {
  await client?.close();
  await server?.close();
  await fake?.close();
  await new Promise((r) => site?.close(r));
  rmSync(dataDir, { recursive: true, force: true });
});

const forbidden = (err: unknown) => {
  assert.ok(err instanceof BoxApiError, String(err));
  assert.equal(err.httpStatus, 403);
  assert.equal(err.serverCode, 'FORBIDDEN');
  assert.match(err.message, /public addresses/);
  return true;
};

test('install from a URL on the server\'s loopback is 403 FORBIDDEN, by literal, by name and as a mapped IPv6 address', async () => {
  const installs = dev.installs.length;
  for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]', '127.1']) {
    await assert.rejects(client.installPackage(box.id, { apk: `http://${host}:${port}/app.apk` }), forbidden, host);
  }
  assert.deepEqual(hits, [], 'the loopback service was never asked');
  assert.equal(dev.installs.length, installs, 'nothing was installed');
  assert.equal((await client.getBox(box.id)).status, 'running');
});

test('the cloud metadata address and private networks are refused before any connection', async () => {
  for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/app.apk', 'http://192.168.1.1/app.apk', 'http://[fd00::1]/app.apk', 'http://0.0.0.0/app.apk']) {
    await assert.rejects(getPublicUrl(new URL(url)), (e: Error & { code?: string }) => e.code === 'FORBIDDEN', url);
  }
});

test('redirects are followed up to a bound (each hop goes through the same address check)', async () => {
  await assert.rejects(getPublicUrl(new URL(`http://127.0.0.1:${port}/to-inner`), { allowInner: true, maxRedirects: 0 }), /more than 0 redirects/);
  const res = await getPublicUrl(new URL(`http://127.0.0.1:${port}/to-inner`), { allowInner: true });
  res.resume();
  assert.equal(res.statusCode, 200, 'with inner addresses allowed (a trusted server), redirects are followed');
});

test('address classification', () => {
  for (const a of ['127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd12::1', '::ffff:10.0.0.1', 'not-an-ip']) {
    assert.equal(isInnerAddress(a), true, a);
  }
  for (const a of ['8.8.8.8', '172.32.0.1', '1.1.1.1', '2606:4700::1111', '::ffff:8.8.8.8']) assert.equal(isInnerAddress(a), false, a);
});
