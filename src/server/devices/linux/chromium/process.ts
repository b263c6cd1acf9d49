// One Chromium process per Linux box, started by us so that we own its lifetime and its
// DevTools: a pipe only the server holds (cdpPipe.ts), which the pre-signed CDP URL proxies to.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { BoxflowError } from '../../../../errors.js';
import { hidePaths } from '../../../host/boxFs.js';
import { sealedStdio } from '../../../host/inheritedFds.js';
import { CdpPipe } from './cdpPipe.js';
import { realChromium } from './findChromium.js';
import { kSystemPath, prepareProfile } from './profile.js';
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
  // Keyboard and wheel scrolls land at once: one still animating could swallow the next key.
  '--disable-smooth-scrolling',
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

type LaunchOptions = {
  executablePath: string;
  userDataDir: string;
  /** The box's working dir: where its downloads go. */
  cwd: string;
  /** Chromium's HOME (the box's directory). Default: the folder that holds the profile. */
  home?: string;
  width: number;
  height: number;
} & LaunchIdentity;

/**
 * Chromium's temp dir. It must be short: Chromium puts its singleton socket there and aborts when
 * the socket's path is over 107 bytes, which a folder in a box's directory can be.
 */
const kChromiumTmpDir = '/tmp';

/**
 * Chromium's whole environment: fixed, so that no value of a tenant's reaches the browser or
 * whatever a launcher script runs before it (Debian's runs uname and grep from PATH): the
 * system's PATH, HOME the box's directory, the server's LANG and TZ. Nothing of the server's
 * own environment either (secrets, API keys). A box's `config.envs` are for its shells.
 */
export function chromiumEnv(home: string): Record<string, string> {
  const env: Record<string, string> = { PATH: kSystemPath, HOME: home, TMPDIR: kChromiumTmpDir, LANG: process.env.LANG || 'C.UTF-8' };
  if (process.env.TZ) env.TZ = process.env.TZ;
  return env;
}

export async function launchChromium(opts: LaunchOptions): Promise<ChromiumProcess> {
  const user = opts.user;
  const binary = realChromium(opts.executablePath);
  const args = [...binary.args, ...kChromiumFlags, `--user-data-dir=${opts.userDataDir}`, `--window-size=${opts.width},${opts.height}`, '--no-startup-window'];
  // Downloads land in the box's working directory (where fs/rename sees them), without a prompt.
  await prepareProfile(opts.userDataDir, opts.cwd, user);
  // detached: its own process group, so that kill(-pid) also reaches renderers and the zygote.
  // With a uid, libuv also drops the server's supplementary groups; it enters `cwd` before that,
  // as root, so not the working dir (its user may have swapped it for a link). sealedStdio: no
  // descriptor of the server's but the DevTools pipe (fds 3 and 4) reaches it.
  const child = spawn(binary.file, args, { cwd: '/', detached: true, stdio: sealedStdio(['ignore', 'ignore', 'pipe', 'pipe', 'pipe']), env: chromiumEnv(opts.home ?? dirname(opts.userDataDir)), ...(user ? { uid: user.uid, gid: user.gid } : {}) });
  if (child.pid) opts.onSpawn?.(child.pid);
  // A child that could not be spawned (no such file) has no pid and never emits 'exit'.
  const exited = child.pid ? new Promise<void>((resolve) => child.once('exit', () => void removeSingletonDir(opts.userDataDir, kChromiumTmpDir, user).finally(resolve))) : Promise.resolve();
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
