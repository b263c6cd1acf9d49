// boxflow serve's web terminal: a pre-signed page with xterm.js in a real Chromium, a real shell on
// a pty behind its websocket. One server and one box for the whole file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { WebSocket } from 'ws';
import { chromium, type Browser, type Page } from 'playwright-core';
import { BoxClient, BoxApiError } from '../../src/api/client.js';
import type { Box } from '../../src/api/schemas.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { presign } from '../../src/server/http/secret.js';
import { liveProcesses } from '../support/procs.js';
import { waitFor } from '../support/waitFor.js';

const kSecret = 'terminal-test-secret-0123456789abcdef';
const kChromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let dataDir: string;
let server: { baseUrl: string; close(): Promise<void> };
let key: string;
let client: BoxClient;
let box: Box;
let browser: Browser;
const savedSecretEnv = process.env.BOXFLOW_SERVER_SECRET;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-terminal-test-'));
  // Set in the server's environment: the box's shell must not inherit it.
  process.env.BOXFLOW_SERVER_SECRET = kSecret;
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {} });
  key = await createApiKey(kSecret, 'tenant-t');
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0 });
  const [created, launched] = await Promise.all([
    client.createLinuxBox({ config: { workingDir: 'proj/sub', envs: { GREETING: 'hi-from-box' } } }),
    chromium.launch({ executablePath: process.env.BOXFLOW_CHROMIUM ?? '/usr/bin/chromium', args: kChromiumArgs }),
  ]);
  box = created;
  browser = launched;
});

after(async () => {
  if (savedSecretEnv === undefined) delete process.env.BOXFLOW_SERVER_SECRET;
  else process.env.BOXFLOW_SERVER_SECRET = savedSecretEnv;
  await browser?.close().catch(() => {});
  await client?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface TermWindow {
  term: { cols: number; rows: number; buffer: { active: { length: number; getLine(i: number): { translateToString(trim: boolean): string } | undefined } } };
}

/** Opens the terminal page and waits until its websocket is open and the shell has printed something. */
async function openTerminal(url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1000, height: 600 } });
  const res = await page.goto(url);
  assert.equal(res?.status(), 200);
  await page.waitForSelector('#status[data-state="open"]');
  await page.waitForFunction(() => {
    const b = (window as unknown as TermWindow).term.buffer.active;
    for (let i = 0; i < b.length; i++) if (b.getLine(i)?.translateToString(true).trim()) return true;
    return false;
  });
  await page.click('#term');
  return page;
}

/** Types a command line like a user and waits for an output line matching `want`; returns that line. */
async function run(page: Page, command: string, want: RegExp): Promise<string> {
  await page.keyboard.type(command);
  await page.keyboard.press('Enter');
  const handle = await page.waitForFunction(
    (source) => {
      const re = new RegExp(source);
      const b = (window as unknown as TermWindow).term.buffer.active;
      for (let i = 0; i < b.length; i++) {
        const line = b.getLine(i)?.translateToString(true).trim() ?? '';
        if (re.test(line)) return line;
      }
      return false;
    },
    want.source,
    { timeout: 15_000 },
  );
  return (await handle.jsonValue()) as string;
}

/** A zombie counts as dead: orphans wait for init to reap them. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/**
 * The host pids of what the box's shells run: isolated (as root), the box user's processes (a shell
 * sees its own pid namespace, where `$$` is 1); else the pids the shell names.
 */
function shellPids(named: number[]): number[] {
  if (process.getuid?.() !== 0) return named;
  const uid = statSync(join(dataDir, 'boxes', box.id, 'work')).uid;
  return liveProcesses()
    .filter((p) => p.uid === uid)
    .map((p) => p.pid);
}

async function wsRefusal(url: string): Promise<{ status: number; body: { code?: string } }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'));
    ws.on('open', () => {
      ws.close();
      reject(new Error('the websocket upgrade was accepted'));
    });
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { code?: string } }));
    });
    ws.on('error', (err) => reject(err));
  });
}

function withQuery(url: string, edit: (q: URLSearchParams) => void): string {
  const u = new URL(url);
  edit(u.searchParams);
  return u.href;
}

test('the web terminal URL is pre-signed, holds no API key and expires after 180m by default', async () => {
  const { url } = await client.webTerminalUrl(box.id);
  const u = new URL(url);
  assert.equal(`${u.protocol}//${u.host}`, new URL(server.baseUrl).origin);
  assert.equal(u.pathname, `/terminal/${box.id}`);
  assert.ok(!url.includes(key), 'the URL must not carry the API key');
  assert.deepEqual([...u.searchParams.keys()].sort(), ['exp', 'sig']);
  const exp = Number(u.searchParams.get('exp'));
  assert.ok(Math.abs(exp - (Date.now() / 1000 + 180 * 60)) < 60, `exp ${exp} is not about 180 minutes away`);

  const short = new URL((await client.webTerminalUrl(box.id, { expiresIn: '5m' })).url);
  assert.ok(Math.abs(Number(short.searchParams.get('exp')) - (Date.now() / 1000 + 300)) < 60);
});

test('another tenant cannot get a terminal URL for the box', async () => {
  const other = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'tenant-other'), maxRetries: 0 });
  try {
    await assert.rejects(other.webTerminalUrl(box.id), (err: unknown) => err instanceof BoxApiError && err.httpStatus === 404 && err.serverCode === 'BOX_NOT_FOUND');
  } finally {
    await other.close();
  }
});

test('typing into the page runs commands in a real shell in the box working dir with the box envs', async () => {
  const { url } = await client.webTerminalUrl(box.id);
  const page = await openTerminal(url);
  try {
    assert.equal(await run(page, 'echo hello-$((6*7))', /^hello-42$/), 'hello-42');
    assert.equal(box.config.workingDir, '/work/proj/sub');
    assert.equal(await run(page, 'pwd', /^\/.*\/proj\/sub$/), join(dataDir, 'boxes', box.id, 'work/proj/sub'));
    assert.equal(await run(page, 'echo "greeting=$GREETING"', /^greeting=/), 'greeting=hi-from-box');
    assert.equal(await run(page, 'echo "secret=[${BOXFLOW_SERVER_SECRET:-none}]"', /^secret=\[/), 'secret=[none]');

    // Resizing the page resizes the pty.
    const before = await page.evaluate(() => (window as unknown as TermWindow).term.cols);
    await page.setViewportSize({ width: 640, height: 360 });
    await page.waitForFunction((cols) => (window as unknown as TermWindow).term.cols !== cols, before);
    const size = await page.evaluate(() => ({ cols: (window as unknown as TermWindow).term.cols, rows: (window as unknown as TermWindow).term.rows }));
    assert.ok(size.cols < before);
    assert.equal(await run(page, 'stty size', /^\d+ \d+$/), `${size.rows} ${size.cols}`);

    // Closing the page kills the shell and its background jobs, even one that ignores SIGHUP.
    const pid = Number((await run(page, 'echo "pid=$$"', /^pid=\d+$/)).slice(4));
    const job = Number((await run(page, 'nohup sleep 600 >/dev/null 2>&1 & echo "job=$!"', /^job=\d+$/)).slice(4));
    const [shell, ...jobs] = shellPids([pid, job]);
    assert.ok(shell !== undefined && jobs.length >= 1 && [shell, ...jobs].every(alive), 'the shell and its job run while the page is open');
    await page.close();
    await waitFor(() => !alive(shell), { what: `the shell ${shell} to end with its page`, intervalMs: 50 });
    for (const j of jobs) await waitFor(() => !alive(j), { what: `the background job ${j} to end with its page`, intervalMs: 50 });
  } finally {
    if (!page.isClosed()) await page.close();
  }
});

test('a tampered URL gets 403 PRESIGN_INVALID for the page and for the websocket upgrade', async () => {
  const { url } = await client.webTerminalUrl(box.id);
  const sig = new URL(url).searchParams.get('sig')!;
  const tampered = withQuery(url, (q) => q.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1)));
  const laterExp = withQuery(url, (q) => q.set('exp', String(Number(q.get('exp')) + 3600)));
  const otherBox = url.replace(box.id, '00000000-0000-4000-8000-000000000000');
  const unsigned = url.split('?')[0]!;

  const page = await browser.newPage();
  try {
    const res = await page.goto(tampered);
    assert.equal(res?.status(), 403);
    assert.equal(JSON.parse(await page.innerText('body')).code, 'PRESIGN_INVALID');
  } finally {
    await page.close();
  }
  for (const bad of [tampered, laterExp, otherBox, unsigned]) {
    const r = await request(bad);
    assert.equal(r.statusCode, 403, bad);
    assert.equal(((await r.body.json()) as { code: string }).code, 'PRESIGN_INVALID');
    const w = await wsRefusal(bad);
    assert.equal(w.status, 403, bad);
    assert.equal(w.body.code, 'PRESIGN_INVALID');
  }
});

test('an expired URL gets 403 PRESIGN_EXPIRED for the page and for the websocket upgrade', async () => {
  const path = `/terminal/${box.id}`;
  const expired = `${new URL(server.baseUrl).origin}${path}?${presign(kSecret, path, Date.now() - 60_000)}`;
  const page = await browser.newPage();
  try {
    const res = await page.goto(expired);
    assert.equal(res?.status(), 403);
    assert.equal(JSON.parse(await page.innerText('body')).code, 'PRESIGN_EXPIRED');
  } finally {
    await page.close();
  }
  const w = await wsRefusal(expired);
  assert.equal(w.status, 403);
  assert.equal(w.body.code, 'PRESIGN_EXPIRED');
});

test('terminating the box kills its shells and closes their pages', async () => {
  const { url } = await client.webTerminalUrl(box.id);
  const page = await openTerminal(url);
  try {
    const pids = shellPids([Number((await run(page, 'echo "pid=$$"', /^pid=\d+$/)).slice(4))]);
    assert.ok(pids.length >= 1);
    await client.terminateBox(box.id);
    for (const pid of pids) await waitFor(() => !alive(pid), { what: `the shell ${pid} to end with its box`, intervalMs: 50 });
    await page.waitForSelector('#status[data-state="closed"]');
    assert.match(await page.innerText('#status'), /terminated/);
    const r = await request(url);
    assert.equal(r.statusCode, 409);
    assert.equal(((await r.body.json()) as { code: string }).code, 'BOX_NOT_RUNNING');
  } finally {
    await page.close();
  }
});
