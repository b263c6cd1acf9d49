// Stopping and starting a grid box (`boxflow serve --grid`, a real Selenium Grid 4 on loopback:
// gridSupport.ts): a stopped box gives its grid session back, start takes a new one with the box's
// settings; a serve killed with SIGKILL and started again on its data dir lists the box as stopped.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { decodePng } from '../../src/visual/index.js';
import { rejects } from '../support/apiErrors.js';
import { waitFor } from '../support/waitFor.js';
import { gridUnavailable, startGrid, type LocalGrid } from './gridSupport.js';

const skip = gridUnavailable();
if (skip) process.stderr.write(`grid tests skipped: ${skip}\n`);

const dir = mkdtempSync(join(tmpdir(), 'boxflow-grid-lifecycle-'));
let grid: LocalGrid | undefined;
before(async () => {
  if (!skip) grid = await startGrid({ maxSessions: 2 });
});
after(async () => {
  await grid?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function screenSize(client: BoxClient, boxId: string): Promise<[number, number]> {
  const shot = await client.screenshot(boxId, { outputFormat: 'base64' });
  const png = decodePng(Buffer.from(shot.uri.replace(/^data:image\/png;base64,/, ''), 'base64'));
  return [png.width, png.height];
}

test('a stopped grid box gives its session back to the grid and refuses its actions; start takes a new session with its settings', { skip }, async () => {
  const secret = randomBytes(16).toString('hex');
  const server = await startServer({ port: 0, dataDir: join(dir, 'srv'), secret, log: () => {}, grid: { url: grid!.url, chromiumBinary: '/usr/bin/chromium', sessionTimeoutMs: 60_000, heartbeatMs: 1_000 } });
  const client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'grid'), maxRetries: 0 });
  try {
    const box = await client.createLinuxBox({ wait: true });
    await client.setResolution(box.id, { width: 1024, height: 700 });
    const [first] = await grid!.sessions();
    assert.ok(first, 'the box holds a grid session');

    assert.equal((await client.stopBox(box.id)).status, 'stopped');
    assert.deepEqual(await grid!.sessions(), [], 'its session is deleted');
    await rejects(client.openTab(box.id, { url: 'data:text/html,<h1>no</h1>' }), 409, 'BOX_NOT_RUNNING');
    assert.deepEqual(await grid!.sessions(), [], 'a refused action took no session');

    assert.equal((await client.startBox(box.id)).status, 'running');
    const sessions = await grid!.sessions();
    assert.equal(sessions.length, 1);
    assert.notEqual(sessions[0]!.id, first.id, 'a new session');
    assert.deepEqual(await screenSize(client, box.id), [1024, 700], 'the screen size it had');
    await client.openTab(box.id, { url: 'data:text/html,<h1>back on the grid</h1>' });
    assert.match((await client.screenLayout(box.id)).content, /back on the grid/);
    await client.terminateBox(box.id);
    assert.deepEqual(await grid!.sessions(), []);
  } finally {
    await client.close();
    await server.close();
  }
});

test('a grid box outlives a serve killed with SIGKILL: the next serve on the data dir lists it stopped, and start takes a new session', { skip }, async () => {
  const dataDir = join(dir, 'cli');
  const main = join(import.meta.dirname, '../../src/cli/main.ts');
  const serve = async (): Promise<{ child: ChildProcess; baseUrl: string }> => {
    const env = { ...process.env };
    delete env.BOXFLOW_SERVER_SECRET;
    const child = spawn(process.execPath, ['--import', 'tsx', main, 'serve', '--port', '0', '--data-dir', dataDir, '--grid', grid!.url, '--grid-chromium', '/usr/bin/chromium'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('\n') || child.exitCode !== null, { what: 'serve to print its address', timeoutMs: 60_000, intervalMs: 50 });
    assert.equal(child.exitCode, null, 'serve runs');
    return { child, baseUrl: (JSON.parse(out.split('\n')[0]!) as { baseUrl: string }).baseUrl };
  };
  let { child, baseUrl } = await serve();
  const clients: BoxClient[] = [];
  try {
    const apiKey = await createApiKey(readFileSync(join(dataDir, 'server-secret'), 'utf8').trim(), 'grid-restart');
    const first = new BoxClient({ baseUrl, apiKey, maxRetries: 0 });
    clients.push(first);
    const box = await first.createLinuxBox({ wait: true });
    await first.setResolution(box.id, { width: 900, height: 600 });
    const [orphan] = await grid!.sessions();
    child.kill('SIGKILL');
    await once(child, 'exit');

    ({ child, baseUrl } = await serve());
    const second = new BoxClient({ baseUrl, apiKey, maxRetries: 0 });
    clients.push(second);
    assert.deepEqual((await second.listBoxes()).data.map((b) => [b.id, b.status]), [[box.id, 'stopped']]);
    // The killed server's session is the grid's to end (at its own timeout); the next start does not reuse it.
    assert.equal((await second.startBox(box.id)).status, 'running');
    const now = (await grid!.sessions()).map((s) => s.id);
    assert.equal(now.length, 2);
    assert.ok(now.includes(orphan!.id));
    assert.deepEqual(await screenSize(second, box.id), [900, 600]);
    await second.terminateBox(box.id);
    assert.deepEqual((await grid!.sessions()).map((s) => s.id), [orphan!.id]);
    await fetch(`${grid!.url}/session/${orphan!.id}`, { method: 'DELETE' });
  } finally {
    for (const c of clients) await c.close();
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
});
