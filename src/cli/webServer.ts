// The config's webServer (the app under test): reused when something already answers at its URL
// (and reuseExistingServer allows it), else started in its own process group and waited for.
// `boxflow test` and `boxflow studio` start it alike; the returned function stops what was started.
import { spawn } from 'node:child_process';
import { BoxflowError } from '../errors.js';

/** Starts (or reuses) the webServer; resolves with its stop once its URL answers below 500. */
export async function startWebServer(web: { command: string; url: string; timeoutMs: number; reuseExistingServer: boolean; cwd: string }): Promise<() => Promise<void>> {
  const answers = async () => {
    try {
      const res = await fetch(web.url, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      return res.status < 500;
    } catch {
      return false;
    }
  };
  if (await answers()) {
    if (web.reuseExistingServer) return async () => {};
    throw new BoxflowError('CONFIG_INVALID', `webServer: something already answers at ${web.url} and reuseExistingServer is false; stop it or set reuseExistingServer: true`);
  }
  const child = spawn(web.command, { shell: true, cwd: web.cwd, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const stop = async () => {
    if (child.exitCode !== null || !child.pid) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  const deadline = performance.now() + web.timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) {
      const clash = /EADDRINUSE|address already in use/i.test(stderr) ? ` (its port is taken: another server is running on ${new URL(web.url).host})` : '';
      throw new BoxflowError('WEB_SERVER_FAILED', `webServer "${web.command}" exited with ${child.exitCode}${clash}: ${stderr.trim()}`);
    }
    if (await answers()) return stop;
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new BoxflowError('WEB_SERVER_FAILED', `webServer "${web.command}" did not answer at ${web.url} within ${web.timeoutMs} ms`);
}
