// One Chromium process per Linux box, started by us so that we own its lifetime and its
// DevTools endpoint (which the pre-signed CDP URL proxies to).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { createServer as createNetServer } from 'node:net';
import { chown, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BoxflowError } from '../../errors.js';
import { hidePaths } from '../boxFs.js';
import { boxEnv, type BoxUser } from '../boxUser.js';
import { removeSingletonDir } from './singleton.js';

export const kChromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--no-default-browser-check',
  '--mute-audio',
  '--hide-scrollbars',
  '--remote-debugging-address=127.0.0.1',
];

/**
 * DevTools listens without authentication, and accepts a page of its own origin. So every box's
 * DevTools port comes from one range, and every box's Chromium maps any host on that range to a
 * closed port: no page of any box can open another box's (or its own) DevTools.
 *
 * The range lies below Linux's ephemeral ports (32768-60999), so a server on port 0 (an app under
 * test, a test's own server) never lands in it and becomes unreachable from boxes. It is whole
 * hundreds, so the rule can name it with wildcards.
 */
export const kDevtoolsPorts = { first: 29100, last: 29299 } as const;
const kNoDevtoolsRule = `--host-rules=${Array.from({ length: (kDevtoolsPorts.last + 1 - kDevtoolsPorts.first) / 100 }, (_, i) => `MAP *:${kDevtoolsPorts.first / 100 + i}?? 0.0.0.0:1`).join(', ')}`;
const kPortAttempts = 5;

export interface ChromiumProcess {
  wsEndpoint: string;
  child: ChildProcess;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
  kill(): Promise<void>;
}

const kStartTimeoutMs = 30_000;

export interface LaunchIdentity {
  /** Run as this user (the server must be root); else as the server's user. */
  user?: BoxUser;
  /** Told the pid as soon as Chromium is spawned, so a dead server's successor can reap it. */
  onSpawn?: (pid: number) => void;
}

type LaunchOptions = { executablePath: string; userDataDir: string; cwd: string; width: number; height: number; env?: NodeJS.ProcessEnv } & LaunchIdentity;

/** Thrown when another process took the DevTools port first: launch again on another. */
class PortTaken extends Error {}

export async function launchChromium(opts: LaunchOptions): Promise<ChromiumProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchOnce(opts, await freeDevtoolsPort());
    } catch (err) {
      if (!(err instanceof PortTaken)) throw err;
      if (attempt >= kPortAttempts) throw new BoxflowError('BROWSER_ERROR', 'no free DevTools port for Chromium');
    }
  }
}

/** A port of the DevTools range that nothing listens on right now (a race is caught by PortTaken). */
async function freeDevtoolsPort(): Promise<number> {
  const size = kDevtoolsPorts.last - kDevtoolsPorts.first + 1;
  const offset = randomInt(size);
  for (let i = 0; i < size; i++) {
    const port = kDevtoolsPorts.first + ((offset + i) % size);
    const free = await new Promise<boolean>((resolve) => {
      const probe = createNetServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new BoxflowError('BROWSER_ERROR', `every DevTools port (${kDevtoolsPorts.first}-${kDevtoolsPorts.last}) is in use`);
}

async function launchOnce(opts: LaunchOptions, port: number): Promise<ChromiumProcess> {
  const args = [...kChromiumFlags, `--remote-debugging-port=${port}`, kNoDevtoolsRule, `--user-data-dir=${opts.userDataDir}`, `--window-size=${opts.width},${opts.height}`, 'about:blank'];
  // Downloads land in the box's working directory (where fs/rename sees them), without a prompt.
  const prefsDir = join(opts.userDataDir, 'Default');
  await mkdir(prefsDir, { recursive: true });
  const prefs = join(prefsDir, 'Preferences');
  await writeFile(prefs, JSON.stringify({ download: { default_directory: opts.cwd, prompt_for_download: false }, savefile: { default_directory: opts.cwd } }), { flag: 'wx' }).catch(() => {});
  const user = opts.user;
  if (user) for (const p of [prefsDir, prefs]) await chown(p, user.uid, user.gid).catch(() => {});
  // detached: its own process group, so that kill(-pid) also reaches renderers and the zygote.
  // With a uid, libuv also drops the server's supplementary groups.
  const child = spawn(opts.executablePath, args, { cwd: opts.cwd, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: opts.env ?? boxEnv(opts.cwd), ...(user ? { uid: user.uid, gid: user.gid } : {}) });
  if (child.pid) opts.onSpawn?.(child.pid);
  // A child that could not be spawned (no such file) has no pid and never emits 'exit'.
  const exited = child.pid ? new Promise<void>((resolve) => child.once('exit', () => void removeSingletonDir(opts.userDataDir, opts.env?.TMPDIR ?? '/tmp', user?.uid ?? process.getuid?.()).finally(resolve))) : Promise.resolve();
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
    await exited;
  };
  try {
    const wsEndpoint = await new Promise<string>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new BoxflowError('BROWSER_ERROR', `Chromium did not report a DevTools endpoint within ${kStartTimeoutMs / 1000}s`)), kStartTimeoutMs);
      const onData = (chunk: Buffer) => {
        seen = (seen + chunk.toString('utf8')).slice(-8192);
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
        if (m || /bind\(\) failed|Cannot start http server for devtools/i.test(seen)) {
          clearTimeout(timer);
          if (m && new URL(m[1]!).host === `127.0.0.1:${port}`) resolve(m[1]!);
          else reject(new PortTaken());
        }
      };
      child.stderr!.on('data', onData);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(new BoxflowError('BROWSER_ERROR', `cannot start Chromium: ${hidePaths(err.message)}`, { cause: err }));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        const tail = hidePaths(seen.trim().split('\n').slice(-3).join(' | '));
        reject(new BoxflowError('BROWSER_ERROR', `Chromium exited (${signal ?? code}) before it was ready${tail ? `: ${tail}` : ''}`));
      });
    });
    // Keep draining stderr so the pipe never fills and blocks Chromium.
    child.stderr!.resume();
    return { wsEndpoint, child, exited, kill };
  } catch (err) {
    await kill();
    throw err;
  }
}
