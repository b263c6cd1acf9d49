// One Chromium process per Linux box, started by us so that we own its lifetime and its
// DevTools: a pipe only the server holds (cdpPipe.ts), which the pre-signed CDP URL proxies to.
import { spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { BoxflowError } from '../../errors.js';
import { hidePaths } from '../boxFs.js';
import { boxEnv } from '../boxUser.js';
import { CdpPipe } from './cdpPipe.js';
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
  '--remote-debugging-pipe',
];

export interface ChromiumProcess {
  /** The server's own DevTools endpoints for this Chromium (a Unix socket only the server can open). */
  devtools: CdpPipe;
  child: ChildProcess;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
  kill(): Promise<void>;
}

const kStartTimeoutMs = 30_000;

export interface LaunchIdentity {
  /** Run as this uid and gid (the server must be root: the box's browser user); else as the server's user. */
  user?: { uid: number; gid: number };
  /** Told the pid as soon as Chromium is spawned, so a dead server's successor can reap it. */
  onSpawn?: (pid: number) => void;
}

type LaunchOptions = { executablePath: string; userDataDir: string; cwd: string; width: number; height: number; env?: NodeJS.ProcessEnv } & LaunchIdentity;

export async function launchChromium(opts: LaunchOptions): Promise<ChromiumProcess> {
  const args = [...kChromiumFlags, `--user-data-dir=${opts.userDataDir}`, `--window-size=${opts.width},${opts.height}`, '--no-startup-window'];
  // Downloads land in the box's working directory (where fs/rename sees them), without a prompt.
  const prefsDir = join(opts.userDataDir, 'Default');
  await mkdir(prefsDir, { recursive: true });
  const prefs = join(prefsDir, 'Preferences');
  await writeFile(prefs, JSON.stringify({ download: { default_directory: opts.cwd, prompt_for_download: false }, savefile: { default_directory: opts.cwd } }), { flag: 'wx' }).catch(() => {});
  const user = opts.user;
  if (user) for (const p of [prefsDir, prefs]) await chown(p, user.uid, user.gid).catch(() => {});
  // detached: its own process group, so that kill(-pid) also reaches renderers and the zygote.
  // With a uid, libuv also drops the server's supplementary groups.
  const child = spawn(opts.executablePath, args, { cwd: opts.cwd, detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], env: opts.env ?? boxEnv(opts.cwd), ...(user ? { uid: user.uid, gid: user.gid } : {}) });
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
  let devtools: CdpPipe | undefined;
  try {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => (seen = (seen + chunk.toString('utf8')).slice(-8192)));
    let timer: NodeJS.Timeout | undefined;
    const failed = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new BoxflowError('BROWSER_ERROR', `Chromium did not answer over DevTools within ${kStartTimeoutMs / 1000}s`)), kStartTimeoutMs);
      child.once('error', (err) => reject(new BoxflowError('BROWSER_ERROR', `cannot start Chromium: ${hidePaths(err.message)}`, { cause: err })));
      child.once('exit', (code, signal) => {
        const tail = hidePaths(seen.trim().split('\n').slice(-3).join(' | '));
        reject(new BoxflowError('BROWSER_ERROR', `Chromium exited (${signal ?? code}) before it was ready${tail ? `: ${tail}` : ''}`));
      });
    });
    failed.catch(() => {});
    try {
      await Promise.race([
        (async () => {
          devtools = await CdpPipe.open(child.stdio[3] as Writable, child.stdio[4] as Readable);
          await devtools.version();
        })(),
        failed,
      ]);
    } finally {
      clearTimeout(timer);
    }
    void exited.then(() => devtools!.close());
    return { devtools: devtools!, child, exited, kill };
  } catch (err) {
    devtools?.close();
    await kill();
    throw err;
  }
}
