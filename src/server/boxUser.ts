// Who a box's processes run as, and with what environment. As root, each box gets two unprivileged
// uids and a gid of its own (no passwd entries needed): `uid` owns the box's directory and runs its
// shells, `browserUid` runs its Chromium (and owns only the profile), both in the box's group. So
// neither can read the server's secret or another box's files, whatever URL or command a tenant
// gives them, and a box's shell cannot ptrace, signal or read the memory of any browser, its own
// included. Uids are claimed machine-wide (/run/boxflow/uids/<uid>) so two servers never hand out
// the same one. Without root, boxes run as the server's user: not isolated.
import { randomInt } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BoxflowError } from '../errors.js';
import { isAlive, killUid, selfIdentity, type ProcessIdentity } from './reaper.js';

export interface BoxUser {
  /** Owns the box's directory; its shells and file operations run as it. */
  uid: number;
  /** The box's group: both users are in it, so the browser can write downloads into the box. */
  gid: number;
  /** Runs the box's Chromium; owns its profile and nothing else. */
  browserUid: number;
}

export const kUidBase = 200_000;
const kUidSpan = 100_000_000;
const kClaimDir = '/run/boxflow/uids';
const kDefaultPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const kUtilLinux = ['/usr/bin', '/bin'];

/** Boxes get their own users only when the server can create them: as root on Linux. */
export function isolationAvailable(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0;
}

interface Claim {
  owner: ProcessIdentity;
  boxId: string;
}

/** Two fresh uids for `boxId` (gid = uid), claimed for as long as this process lives. */
export async function claimBoxUser(boxId: string): Promise<BoxUser> {
  const uid = await claimUid(boxId);
  try {
    return { uid, gid: uid, browserUid: await claimUid(boxId) };
  } catch (err) {
    await releaseUid(uid);
    throw err;
  }
}

async function claimUid(boxId: string): Promise<number> {
  await mkdir(kClaimDir, { recursive: true, mode: 0o700 });
  const claim: Claim = { owner: selfIdentity(), boxId };
  for (let attempt = 0; attempt < 20; attempt++) {
    const uid = kUidBase + randomInt(kUidSpan);
    try {
      await writeFile(join(kClaimDir, String(uid)), JSON.stringify(claim), { flag: 'wx', mode: 0o600 });
      return uid;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new BoxflowError('INTERNAL', 'could not claim a free uid for the box');
}

/** Kills whatever still runs as the box's users and frees their uids. */
export async function releaseBoxUser(user: BoxUser): Promise<void> {
  await Promise.all([releaseUid(user.uid), releaseUid(user.browserUid)]);
}

/** Kills whatever still runs as `uid` and frees it. */
export async function releaseUid(uid: number): Promise<void> {
  await killUid(uid);
  await unlink(join(kClaimDir, String(uid))).catch(() => {});
}

/** Frees the uids of dead servers, killing what their boxes left running. */
export async function reapUidClaims(): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(kClaimDir)).filter((n) => /^\d+$/.test(n) && Number(n) >= kUidBase);
  } catch {
    return;
  }
  for (const name of names) {
    try {
      const claim = JSON.parse(await readFile(join(kClaimDir, name), 'utf8')) as Claim;
      if (await isAlive(claim.owner)) continue;
    } catch {
      // unreadable claim: its owner cannot be told, treat it as dead
    }
    await releaseUid(Number(name));
  }
}

/**
 * The whole environment of a box's processes: nothing of the server's (no secret, no API keys)
 * but PATH, LANG and TZ; HOME is the box's directory; the box's own `config.envs` win.
 */
export function boxEnv(home: string, envs: Record<string, string> = {}, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH || kDefaultPath, HOME: home, LANG: process.env.LANG || 'C.UTF-8' };
  if (process.env.TZ) env.TZ = process.env.TZ;
  return { ...env, ...extra, ...envs };
}

const found = new Map<string, string | undefined>();
function utilLinux(name: string): string {
  if (!found.has(name)) {
    found.set(
      name,
      kUtilLinux.map((d) => `${d}/${name}`).find((p) => {
        try {
          accessSync(p, constants.X_OK);
          return true;
        } catch {
          return false;
        }
      }),
    );
  }
  const bin = found.get(name);
  if (!bin) throw new BoxflowError('WEB_TERMINAL_UNAVAILABLE', `isolated boxes need ${name} (util-linux) to start a shell as the box's user; install util-linux`);
  return bin;
}

/**
 * How to start `command` as a box's shell: in a network namespace of its own (no network at all, so
 * it cannot reach the server or anything listening on the machine), as the box's user, with no
 * supplementary groups and no way back up. Each step execs the next, so the pid stays the shell's.
 * (node-pty's own uid/gid switch would keep root's supplementary groups.)
 *
 * No tenant value reaches a process while it is still root: `unshare` and `setpriv` run with
 * `rootEnv` (PATH alone); the box's environment is applied by `env -i` once the uid has dropped.
 */
export function isolatedShell(user: BoxUser, env: Record<string, string>, command: string[], cwd?: string): { argv: string[]; rootEnv: Record<string, string> } {
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  // The working dir is entered as the box user (`env -C`), never by root: a tenant who swapped it
  // for a link must not get a shell inside a folder its user could not reach.
  return {
    argv: [utilLinux('unshare'), '--net', '--', utilLinux('setpriv'), `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--', utilLinux('env'), '-i', ...(cwd ? ['-C', cwd] : []), ...assignments, ...command],
    rootEnv: { PATH: kDefaultPath },
  };
}

/**
 * Variables that change what a program loads or runs before its own code: the dynamic loader's,
 * glibc's (those it drops for set-uid programs) and the common runtimes'. A box may not set them.
 */
const kLoaderVars = /^(LD_.*|GCONV_PATH|GETCONF_DIR|HOSTALIASES|LOCALDOMAIN|LOCPATH|MALLOC_.*|NIS_PATH|NLSPATH|RESOLV_HOST_CONF|RES_OPTIONS|TZDIR|NODE_OPTIONS|NODE_PATH|NODE_REPL_EXTERNAL_MODULE|PYTHON(PATH|HOME|STARTUP|INSPECT|USERBASE)|PERL5?LIB|PERL5OPT|PERLIO|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|BASH_FUNC_.*|GLIBC_TUNABLES|OPENSSL_CONF|OPENSSL_ENGINES|GIO_MODULE_DIR|GTK_PATH|GTK_MODULES|QT_PLUGIN_PATH)$/i;
const kEnvName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Refuses a box environment that is not plain names with plain values, or that sets a loader variable. */
export function checkBoxEnvs(envs: Record<string, string> | undefined, path = '/config/envs'): void {
  for (const [name, value] of Object.entries(envs ?? {})) {
    if (!kEnvName.test(name)) throw new BoxflowError('INVALID_REQUEST', `${path}: "${name.slice(0, 60)}" is not a variable name (letters, digits and _, not starting with a digit)`);
    if (kLoaderVars.test(name)) throw new BoxflowError('INVALID_REQUEST', `${path}/${name}: a box may not set ${name}: it changes what programs load before their own code; set it inside the box's shell instead`);
    if (value.includes('\0')) throw new BoxflowError('INVALID_REQUEST', `${path}/${name}: a value may not hold a NUL character`);
  }
}
