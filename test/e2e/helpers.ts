// Runs the built CLI as a user does, in a temporary project that has boxflow in node_modules.
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { RunResult } from '../../src/runner/types.js';
import { tempDir } from '../support/tmp.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const cliPath = join(repoRoot, 'dist/src/cli/main.js');

export function tempProject(files: Record<string, string>): string {
  const dir = tempDir('boxflow-e2e-');
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(repoRoot, join(dir, 'node_modules', 'boxflow'), 'dir');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], opts: { cwd: string; env?: Record<string, string | undefined> }): Promise<CliRun> {
  return new Promise((resolvePromise) => {
    const env = { ...process.env, BOXFLOW_BASE_URL: undefined, BOXFLOW_API_KEY: undefined, GBOX_BASE_URL: undefined, GBOX_API_KEY: undefined, ...opts.env };
    const child = spawn(process.execPath, [cliPath, ...args], { cwd: opts.cwd, env: env as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

export function readResults(dir: string): RunResult {
  return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as RunResult;
}

export function hasResults(dir: string): boolean {
  return existsSync(join(dir, 'results.json'));
}

/** The demo app of flows/app on a free loopback port. */
export async function startDemoApp(): Promise<{ url: string; close(): Promise<void> }> {
  const mod = (await import(join(repoRoot, 'flows/app/server.mjs'))) as { createDemoServer(): import('node:http').Server };
  const server = mod.createDemoServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
