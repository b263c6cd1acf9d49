// boxflow studio on a Linux box (boxflow serve in this process, its Chromium), writing a Maestro
// file: a path typed into "open" is written as the absolute URL Maestro needs (resolved against the
// app's URL), and runs; the studio page, in a real browser, shows the layout's hidden elements greyed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import type { Box } from '../../src/api/schemas.js';
import { resolveConfig } from '../../src/cli/config.js';
import { startStudioServer } from '../../src/studio/server.js';
import { useLocalServer } from '../support/localServer.js';
import { waitFor } from '../support/waitFor.js';

const local = useLocalServer('studiolinks');
const dir = mkdtempSync(join(tmpdir(), 'boxflow-studio-links-'));
let app: Server;
let base: string;
let box: Box | undefined;
let context: BrowserContext | undefined;

const kLogin = '<!doctype html><title>Login</title><h1 id="title">Sign in</h1><p id="note" style="display:none">signed out</p><button id="go">Go</button>';

before(async () => {
  app = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url === '/login' ? kLogin : '<!doctype html><title>Home</title><h1>Home</h1>');
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
});

after(async () => {
  await context?.close();
  if (box) await local.client.terminateBox(box.id).catch(() => {});
  await new Promise<void>((r) => app.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

test('a Maestro file: "open /login" writes openLink with the app\'s absolute URL, runs it, and the page greys the hidden element', async () => {
  const file = join(dir, 'login.yaml');
  const r = resolveConfig({ paths: [] }, { appBaseUrl: base }, undefined, dir);
  box = await local.client.createLinuxBox({ wait: true });
  const studio = await startStudioServer({ file, client: local.client, box: { id: box.id, type: 'linux' }, options: { ...r.options, outputDir: join(dir, 'out'), screenshots: { phases: [], delay: '0ms' } } });
  try {
    const token = new URL(studio.url).searchParams.get('token')!;
    const open = await fetch(new URL('/api/open', studio.url), { method: 'POST', headers: { 'x-studio-token': token, 'content-type': 'application/json' }, body: JSON.stringify({ url: '/login' }) });
    const answer = (await open.json()) as { ok: boolean; steps: { status: string; message?: string }[] };
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.equal(readFileSync(file, 'utf8'), `url: ${base}\nname: "login"\n---\n- openLink: "${base}login"\n`);

    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: process.env.BOXFLOW_CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(studio.url);
    const row = (id: string) => page.locator('[data-testid=tree-node]', { has: page.locator('.id', { hasText: `#${id}` }) });
    await waitFor(async () => (await row('note').count()) === 1 && (await row('go').count()) === 1, { what: 'the layout tree shows #note and #go' });
    const look = (id: string) => row(id).locator('.id').evaluate((e) => getComputedStyle(e).color);
    // The hidden paragraph's id reads in the tree's grey; the visible button's keeps the id colour.
    assert.equal(await look('note'), 'rgb(179, 184, 192)');
    assert.notEqual(await look('go'), await look('note'));
  } finally {
    await studio.close();
  }
});
