// What a run shows over a box's live view (boxflow's `runUrl`, src/api/liveRun.ts): the state PUT
// there reaches the box's viewers at once and a viewer that comes later; the URL is signed for that
// box and that path only, and a malformed state is a 400 `{code, message}`. And the page's "no page
// open" label goes away once the box has a page to show. boxflow serve on loopback, a real Linux box.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { WebSocket } from 'ws';
import { BoxClient } from '../../src/api/client.js';
import type { Box } from '../../src/api/schemas.js';
import type { LiveRunState } from '../../src/api/liveRun.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { waitFor } from '../support/waitFor.js';

const kSecret = randomBytes(16).toString('hex');
let dataDir: string;
let server: { baseUrl: string; close(): Promise<void> };
let client: BoxClient;
let box: Box;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-live-run-'));
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {} });
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'tenant-live-run'), maxRetries: 0 });
  box = await client.createLinuxBox({ config: { resolution: { width: 640, height: 480 } } });
});

after(async () => {
  await client?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A viewer on the websocket: every text message, and the index among them at which each frame came. */
async function viewer(url: string): Promise<{ ws: WebSocket; messages: Record<string, unknown>[]; frameAt: number[] }> {
  const ws = new WebSocket(url);
  const messages: Record<string, unknown>[] = [];
  const frameAt: number[] = [];
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) frameAt.push(messages.length);
    else messages.push(JSON.parse(data.toString()) as Record<string, unknown>);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, messages, frameAt };
}

const put = async (url: string, body: unknown) => {
  const res = await request(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
};

const kState: LiveRunState = {
  flow: { name: 'sign in', file: 'flows/sign-in.flow.yaml', attempt: 1, status: 'running' },
  steps: [
    { id: '1', label: 'openTab https://example.test/', status: 'passed' },
    { id: '2', label: 'tap #email', status: 'passed', actionId: 'act-2' },
    { id: '3', label: 'assertVisible "Welcome"', status: 'running' },
  ],
};

test('live-view-url answers boxflow\'s runUrl; a state PUT there reaches the viewers at once, and a later viewer right after its hello', async () => {
  const urls = await client.liveViewUrl(box.id);
  assert.ok(urls.runUrl, 'boxflow serve answers a runUrl');
  assert.equal(new URL(urls.runUrl).pathname, `/live-view/${box.id}/run`);

  const first = await viewer(urls.websocketUrl!);
  try {
    assert.deepEqual(await put(urls.runUrl, kState), { status: 204, body: undefined });
    const run = await waitFor(() => first.messages.find((m) => m.type === 'run'), { what: 'the run on the first viewer' });
    assert.deepEqual(run, { type: 'run', ...kState });

    const later = await viewer(urls.websocketUrl!);
    try {
      await waitFor(() => later.messages.some((m) => m.type === 'run'), { what: 'the run on a later viewer' });
      const types = later.messages.map((m) => m.type);
      assert.deepEqual(types.slice(types.indexOf('hello'), types.indexOf('run') + 1).filter((t) => t !== 'status'), ['hello', 'run']);
      assert.deepEqual(later.messages.find((m) => m.type === 'run'), { type: 'run', ...kState });
    } finally {
      later.ws.close();
    }
  } finally {
    first.ws.close();
  }
});

test('the run URL is the permission: the page\'s signature, a tampered one, or none is 403; a malformed state is 400 with its path; other methods are not served', async () => {
  const urls = await client.liveViewUrl(box.id);
  const runPath = new URL(urls.runUrl!).pathname;
  const origin = new URL(urls.url).origin;
  // The page's own query does not sign the run path.
  const withPageQuery = await put(`${origin}${runPath}${new URL(urls.url).search}`, kState);
  assert.equal(withPageQuery.status, 403);
  assert.equal(withPageQuery.body?.code, 'PRESIGN_INVALID');
  const tampered = urls.runUrl!.replace(/sig=([^&])/, (_m, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`);
  assert.equal((await put(tampered, kState)).status, 403);
  assert.equal((await put(`${origin}${runPath}`, kState)).status, 403);

  const bad = await put(urls.runUrl!, { ...kState, steps: [{ id: '1', label: 'x', status: 'exploded' }] });
  assert.equal(bad.status, 400);
  assert.equal(bad.body?.code, 'INVALID_REQUEST');
  assert.match(String(bad.body?.message), /steps\/0\/status/);
  const tooMany = await put(urls.runUrl!, { ...kState, steps: Array.from({ length: 201 }, (_, i) => ({ id: String(i + 1), label: 'x', status: 'passed' })) });
  assert.equal(tooMany.status, 400);
  const notJson = await request(urls.runUrl!, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'hello' });
  assert.equal(notJson.statusCode, 400);
  await notJson.body.dump();

  // A GET of the run URL serves no page, and the URL takes no websocket.
  const get = await request(urls.runUrl!);
  assert.equal(get.statusCode, 404);
  await get.body.dump();
});

test('the "no page open" label is told while the box has no page, and taken back before the first frame of the page it opens', async () => {
  const fresh = await client.createLinuxBox({ config: { resolution: { width: 640, height: 480 } } });
  try {
    // A new box shows a blank tab; with its browser closed it has nothing to show.
    await client.closeBrowser(fresh.id);
    const urls = await client.liveViewUrl(fresh.id);
    const v = await viewer(urls.websocketUrl!);
    try {
      await waitFor(() => v.messages.some((m) => m.type === 'status' && /no page open/.test(String(m.text))), { what: 'the "no page open" status', timeoutMs: 20_000 });
      await client.openTab(fresh.id, { url: `data:text/html,${encodeURIComponent('<h1 style="font-size:60px">Hello</h1>')}` });
      await waitFor(() => v.frameAt.length > 0, { what: 'a frame of the page', timeoutMs: 20_000 });
      // Every status message before the first frame: the last one says there is a screen again ('').
      const before = v.messages.slice(0, v.frameAt[0]).filter((m) => m.type === 'status');
      assert.equal(before.at(-1)?.text, '', JSON.stringify(before));
    } finally {
      v.ws.close();
    }
    // A viewer that comes now is told nothing about a missing page.
    const again = await viewer(urls.websocketUrl!);
    try {
      await waitFor(() => again.frameAt.length > 0, { what: 'a frame for the second viewer', timeoutMs: 20_000 });
      assert.ok(!again.messages.some((m) => m.type === 'status' && m.text), JSON.stringify(again.messages));
    } finally {
      again.ws.close();
    }
  } finally {
    await client.terminateBox(fresh.id);
  }
});
