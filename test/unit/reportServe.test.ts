// `boxflow show-report`'s server (reporters/html/serve.ts): a report folder's files with the byte ranges
// a video player seeks with, errors as `{ code, message }` as every boxflow server answers, and nothing
// outside the folder, by `..` or through a symbolic link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveReport } from '../../reporters/html/serve.js';
import { assertRefused, escapePaths } from '../support/fileEscapes.js';
import { tempDir } from '../support/tmp.js';

const kSecret = 'the secret outside the report';
const video = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
let server: Awaited<ReturnType<typeof serveReport>>;

before(async () => {
  const parent = tempDir('boxflow-report-serve-');
  const dir = join(parent, 'report');
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>report</title>');
  writeFileSync(join(dir, 'data', 'video.webm'), video);
  writeFileSync(join(parent, 'secret.txt'), kSecret);
  symlinkSync(join(parent, 'secret.txt'), join(dir, 'data', 'leak.txt'));
  symlinkSync(parent, join(dir, 'up'));
  symlinkSync(join(dir, 'data', 'video.webm'), join(dir, 'same.webm'));
  server = await serveReport(dir);
});
after(() => server.close());

test('a video is served in the byte ranges its player asks for', async () => {
  const part = await fetch(new URL('data/video.webm', server.url), { headers: { range: 'bytes=100-199' } });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get('content-range'), 'bytes 100-199/1000');
  assert.equal(part.headers.get('content-type'), 'video/webm');
  assert.deepEqual(Buffer.from(await part.arrayBuffer()), video.subarray(100, 200));
  const tail = await fetch(new URL('data/video.webm', server.url), { headers: { range: 'bytes=-10' } });
  assert.equal(tail.status, 206);
  assert.deepEqual(Buffer.from(await tail.arrayBuffer()), video.subarray(990));
  const whole = await fetch(new URL('data/video.webm', server.url));
  assert.equal(whole.headers.get('accept-ranges'), 'bytes');
  assert.deepEqual(Buffer.from(await whole.arrayBuffer()), video);
});

test('errors are { code, message }: a range past the end (416, with the size), a file that is not there (404)', async () => {
  const past = await fetch(new URL('data/video.webm', server.url), { headers: { range: 'bytes=5000-' } });
  assert.equal(past.status, 416);
  assert.equal(past.headers.get('content-range'), 'bytes */1000');
  assert.equal(((await past.json()) as { code: string }).code, 'HTTP_ERROR');
  const missing = await fetch(new URL('data/none.png', server.url));
  assert.equal(missing.status, 404);
  const body = (await missing.json()) as { code: string; message: string };
  assert.equal(body.code, 'NOT_FOUND');
  assert.match(body.message, /\S/);
});

test('nothing outside the report folder is served: not by `..`, not through a symbolic link', async () => {
  await assertRefused(server.url, [...escapePaths('/', 'secret.txt'), '/data/leak.txt', '/up/secret.txt'], kSecret);
  // A link that stays inside the folder is served.
  const same = await fetch(new URL('same.webm', server.url));
  assert.equal(same.status, 200);
  assert.deepEqual(Buffer.from(await same.arrayBuffer()), video);
});
