// `boxflow studio FILE` as a user runs it, for the studio's browser specs: the built CLI (as the
// package ships it: its flow validators compiled ahead of time), on the embedded local box, stopped
// with Ctrl-C.
import { expect, type Page } from '@playwright/test';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath } from './helpers.js';

export interface Running {
  url: string;
  /** The studio's own API (what the page calls). */
  api<T>(path: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

export async function launchStudio(file: string, cwd: string): Promise<Running> {
  const env = { ...process.env, BOXFLOW_BASE_URL: '', BOXFLOW_API_KEY: '', GBOX_BASE_URL: '', GBOX_API_KEY: '' };
  const child = spawn(process.execPath, [cliPath, 'studio', file, '--port', '0', '--no-open'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /boxflow studio: (http\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`boxflow studio exited (${code}): ${err}`)));
  });
  const token = new URL(url).searchParams.get('token')!;
  return {
    url,
    async api<T>(path: string, body?: unknown): Promise<T> {
      const res = await fetch(new URL(path, url), { method: body === undefined ? 'GET' : 'POST', headers: { 'x-studio-token': token, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return (await res.json()) as T;
    },
    async stop() {
      child.kill('SIGINT');
      expect(await exited, err).toBe(0);
    },
  };
}

/** The studio page of `file`, loaded without a page error. */
export async function openStudio(page: Page, file: string, cwd: string): Promise<Running> {
  const studio = await launchStudio(file, cwd);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(studio.url);
    await expect(page.getByTestId('file')).toContainText(file.split('/').pop()!, { timeout: 20_000 });
    expect(errors).toEqual([]);
  } catch (err) {
    // The caller's finally never sees this studio: stop it here, or its box (a browser) outlives the test.
    await studio.stop().catch(() => {});
    throw err;
  }
  return studio;
}

export async function waitIdle(page: Page): Promise<void> {
  await expect(page.getByTestId('busy')).toBeHidden({ timeout: 60_000 });
}

/** The app a studio spec points at (one HTML page on loopback), and a temp folder for its flow files. */
export function studioSite(html: string, prefix: string): { start(): Promise<{ base: string; dir: string }>; stop(): Promise<void> } {
  let app: Server | undefined;
  let dir = '';
  return {
    async start() {
      app = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(html);
      });
      await new Promise<void>((r) => app!.listen(0, '127.0.0.1', r));
      dir = mkdtempSync(join(tmpdir(), prefix));
      return { base: `http://127.0.0.1:${(app.address() as AddressInfo).port}/`, dir };
    },
    async stop() {
      await new Promise<void>((r) => (app ? app.close(() => r()) : r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
