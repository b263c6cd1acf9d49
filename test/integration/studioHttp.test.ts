// boxflow studio's HTTP server: errors as `{ code, message }` with the status of the code (the body
// boxflow serve answers), and the images of its output folder served, with nothing outside that
// folder (by `..` or through a symbolic link) and nothing in it but images. The page itself, with a
// failed screenshot's images loading, is driven in test/e2e/studioImages.spec.ts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../../src/cli/config.js';
import { startStudioServer, type StudioServer } from '../../src/studio/server.js';
import { assertRefused, escapePaths } from '../support/fileEscapes.js';
import { useAndroidServer } from '../support/localServer.js';
import { rawRequest } from '../support/rawHttp.js';

const local = useAndroidServer('studio-http', ['emulator-5554']);
const kSecret = 'the secret beside the output folder';
const kImage = Buffer.from('\x89PNG\r\n\x1a\n not decoded by the server');
let studio: StudioServer | undefined;
let token: string;

/** The studio, started by the first test (the local server starts in a hook of its own). */
async function started(): Promise<StudioServer> {
  if (studio) return studio;
  const r = resolveConfig({ paths: [] }, {}, undefined, local.dir);
  const outputDir = join(local.dir, 'out');
  mkdirSync(join(outputDir, 'visual', 'flow-1'), { recursive: true });
  mkdirSync(join(outputDir, 'data'), { recursive: true });
  writeFileSync(join(outputDir, 'visual', 'flow-1', 'home-diff.png'), kImage);
  writeFileSync(join(outputDir, 'data', 'layout.json'), '{"nodes":[]}');
  writeFileSync(join(local.dir, 'secret.png'), kSecret);
  symlinkSync(join(local.dir, 'secret.png'), join(outputDir, 'data', 'leak.png'));
  symlinkSync(local.dir, join(outputDir, 'up'));
  // The studio answers these without the box: a box id the service does not know is enough.
  studio = await startStudioServer({ file: join(local.dir, 'http.flow.yaml'), client: local.client, box: { id: 'box-not-used', type: 'android' }, options: { ...r.options, outputDir }, secrets: [local.key] });
  token = new URL(studio.url).searchParams.get('token')!;
  return studio;
}
after(() => studio?.close());

async function call(path: string, init: { body?: string; token?: string | null } = {}): Promise<{ status: number; body: { code: string; message: string } }> {
  const { url } = await started();
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token !== null) headers['x-studio-token'] = init.token ?? token;
  const res = await fetch(new URL(path, url), { method: init.body === undefined ? 'GET' : 'POST', headers, ...(init.body === undefined ? {} : { body: init.body }) });
  return { status: res.status, body: (await res.json()) as { code: string; message: string } };
}

test('errors are { code, message } with the status of the code', async () => {
  const cases: Array<[string, Awaited<ReturnType<typeof call>>, number, string]> = [
    ['no token', await call('/api/state', { token: null }), 403, 'FORBIDDEN'],
    ['a wrong token', await call('/api/state', { token: 'wrong' }), 403, 'FORBIDDEN'],
    ['an action the studio does not know', await call('/api/act', { body: '{"action":"fly"}' }), 400, 'INVALID_REQUEST'],
    ['a body that is not JSON', await call('/api/type', { body: '{"text":' }), 400, 'INVALID_REQUEST'],
    ['a body that is not an object', await call('/api/type', { body: '["ACME"]' }), 400, 'INVALID_REQUEST'],
    ['a body over the limit', await call('/api/type', { body: JSON.stringify({ text: 'x'.repeat(300 * 1024) }) }), 413, 'BODY_TOO_LARGE'],
    ['a run of a file not written yet', await call('/api/run', { body: '{}' }), 409, 'CONFLICT'],
    ['an API the studio has not', await call('/api/nothing'), 404, 'NOT_FOUND'],
  ];
  for (const [what, res, status, code] of cases) {
    assert.deepEqual({ status: res.status, code: res.body.code }, { status, code }, what);
    assert.match(res.body.message, /\S/, what);
  }
  // A page of another site that a DNS name points at this port sends its own Host.
  const rebound = await rawRequest((await started()).url, { method: 'GET', path: '/api/state', headers: { host: 'evil.example', 'x-studio-token': token } });
  assert.equal(rebound.status, 403);
  assert.equal((JSON.parse(rebound.text) as { code: string }).code, 'FORBIDDEN');
});

test('the images of the output folder are served (a visual diff too), no other site may embed them, and nothing else is', async () => {
  const { url } = await started();
  const diff = await fetch(new URL('/results/visual/flow-1/home-diff.png', url));
  assert.equal(diff.status, 200);
  assert.equal(diff.headers.get('content-type'), 'image/png');
  assert.equal(diff.headers.get('cross-origin-resource-policy'), 'same-origin');
  assert.deepEqual(Buffer.from(await diff.arrayBuffer()), kImage);
  // What is not an image (a layout snapshot) is not served.
  assert.equal((await call('/results/data/layout.json')).body.code, 'NOT_FOUND');
  await assertRefused(url, [...escapePaths('/results/', 'secret.png'), '/results/data/leak.png', '/results/up/secret.png'], kSecret);
});
