// Closing a Linux box's browser discards its profile, so the next browser (the next flow's on that
// box) starts with no cookies and no storage of the last one. Real HTTP, real Chromium.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BoxClient } from '../../src/api/client.js';
import { createApiKey, startServer } from '../../src/server/index.js';

const kSecret = 'browser-reset-secret-0123456789abcdef';
// The page shows what it found, then leaves a cookie and a localStorage entry behind.
const kPage = `<!doctype html><body><script>
  const seen = 'storage=' + (localStorage.getItem('k') ?? 'none') + ' cookie=' + (document.cookie || 'none');
  document.body.textContent = seen;
  localStorage.setItem('k', 'kept');
  document.cookie = 'c=kept; max-age=3600; path=/';
</script></body>`;

const dataDir = mkdtempSync(join(tmpdir(), 'boxflow-reset-srv-'));
chmodSync(dataDir, 0o755);
let site: Server;
let siteUrl: string;
let server: Awaited<ReturnType<typeof startServer>>;
let client: BoxClient;

before(async () => {
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(kPage));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {} });
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'reset'), maxRetries: 0, timeoutMs: 30_000 });
});
after(async () => {
  await client?.close();
  await server?.close();
  site?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Until the box's browser has written the page's localStorage entry (k = kept) into its profile on
 * disk, where Chromium puts it a few seconds after the change: what a next browser on the same
 * profile would read back.
 */
async function storageOnDisk(boxId: string): Promise<void> {
  const dir = join(dataDir, 'boxes', boxId, 'profile', 'Default', 'Local Storage', 'leveldb');
  // LevelDB's record of the entry: the key "_<origin>\0" + "\x01k" (Latin-1), then the value "\x01kept".
  const origin = new URL(siteUrl).origin;
  const key = Buffer.from(`_${origin}\x00\x01k`, 'latin1');
  const value = Buffer.from('\x01kept', 'latin1');
  const until = performance.now() + 60_000;
  for (;;) {
    const files = existsSync(dir) ? readdirSync(dir).filter((n) => /\.(log|ldb)$/.test(n)) : [];
    for (const name of files) {
      const bytes = (() => {
        try {
          return readFileSync(join(dir, name));
        } catch {
          return Buffer.alloc(0); // compacted away meanwhile
        }
      })();
      const at = bytes.indexOf(key);
      if (at >= 0 && bytes.indexOf(value, at + key.length) >= 0) return;
    }
    if (performance.now() > until) assert.fail(`the browser never wrote localStorage of ${origin} to ${dir}`);
    await sleep(100);
  }
}

async function seen(boxId: string): Promise<string> {
  await client.openTab(boxId, { url: siteUrl });
  const m = /storage=[^\s<]+ cookie=[^\s<]+/.exec((await client.screenLayout(boxId)).content);
  assert.ok(m, 'the page shows what it found');
  return m[0];
}

test('a closed browser comes back without the cookies and storage of the last one', async () => {
  const box = await client.createLinuxBox();
  try {
    assert.equal(await seen(box.id), 'storage=none cookie=none');
    assert.equal(await seen(box.id), 'storage=kept cookie=c=kept', 'within one browser, state is kept');
    // Chromium writes storage to the profile a few seconds after a change; before the fix the next
    // browser read it back from there.
    await storageOnDisk(box.id);
    await client.closeBrowser(box.id);
    assert.equal(await seen(box.id), 'storage=none cookie=none');
    assert.equal((await client.getBox(box.id)).status, 'running');
  } finally {
    await client.terminateBox(box.id);
  }
});

/** Pids of the box's Chromium browser processes (not renderers), by the profile each runs on. */
function browsersOf(boxId: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const dir = argv.find((a) => a.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length);
      if (dir?.includes(boxId) && !argv.some((a) => a.startsWith('--type='))) found.set(dir.slice(dir.lastIndexOf('/') + 1), Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

test('after a close the next browser is already started on the other profile; each is clean; the box ending ends both', { skip: !existsSync('/proc/self/cmdline') && 'needs /proc' }, async () => {
  const box = await client.createLinuxBox();
  try {
    assert.deepEqual([...browsersOf(box.id).keys()], ['profile'], 'a box that never closed its browser keeps no spare');
    for (let round = 0; round < 3; round++) {
      assert.equal(await seen(box.id), 'storage=none cookie=none', `round ${round}: a clean browser`);
      assert.equal(await seen(box.id), 'storage=kept cookie=c=kept');
      await client.closeBrowser(box.id);
      // The next flow's browser runs before anything asks for it: the one on the other profile.
      const next = round % 2 ? 'profile' : 'profile-2';
      assert.deepEqual([...browsersOf(box.id).keys()], [next], `round ${round}: the next browser is ready on ${next}`);
    }
  } finally {
    await client.terminateBox(box.id);
  }
  assert.equal(browsersOf(box.id).size, 0, 'no browser of the box is left');
});
