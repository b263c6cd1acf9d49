// Who a box's processes run as, and with what environment. As root, each box gets two unprivileged
// uids and a gid of its own (no passwd entries needed): `uid` owns the box's directory and runs its
// shells, `browserUid` runs its Chromium (and owns only the profile), both in the box's group. So
// neither can read the server's secret or another box's files, whatever URL or command a tenant
// gives them, and a box's shell cannot ptrace, signal or read the memory of any browser, its own
// included. Uids are claimed machine-wide (/run/boxflow/uids/<uid>) so two servers never hand out
// the same one. Without root, boxes run as the server's user: not isolated.
import { randomBytes, randomInt } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import { mkdir, open, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BoxflowError } from '../../errors.js';
import { shQuote } from '../../api/shellQuote.js';
import { isAlive, killUid, selfIdentity, type ProcessIdentity } from './processes.js';

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
const kUtilLinux = ['/usr/bin', '/bin', '/usr/sbin', '/sbin'];

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

/**
 * Claims the uids of a box that outlived its server (its files are theirs) for this process again;
 * throws when another live box holds one of them (the claim of a dead server is freed first).
 */
export async function reclaimBoxUser(user: BoxUser, boxId: string): Promise<void> {
  await mkdir(kClaimDir, { recursive: true, mode: 0o700 });
  for (const uid of new Set([user.uid, user.browserUid])) {
    const file = join(kClaimDir, String(uid));
    const held = await readFile(file, 'utf8').then((t) => JSON.parse(t) as Claim, () => undefined);
    if (held && held.boxId !== boxId && (await isAlive(held.owner))) throw new BoxflowError('INTERNAL', `uid ${uid} of box ${boxId} is claimed by box ${held.boxId}`);
    if (held) await releaseUid(uid);
    await writeFile(file, JSON.stringify({ owner: selfIdentity(), boxId } satisfies Claim), { flag: 'wx', mode: 0o600 });
  }
}

/** Kills whatever still runs as the box's users and frees their uids. */
export async function releaseBoxUser(user: BoxUser): Promise<void> {
  await Promise.all([releaseUid(user.uid), releaseUid(user.browserUid)]);
}

/** Kills whatever still runs as `uid` and frees it; throws (and keeps the claim) when that cannot be shown. */
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
    await releaseUid(Number(name)).catch(() => {}); // tried again at the next start
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

/** Processes (threads included, as the kernel counts them) that all processes of one box user may hold. */
export const kBoxMaxProcesses = 512;
/**
 * A root-owned folder in each isolated box's directory (0711): the launch files of its shells and
 * commands. The box's directory is sticky, so its users can neither replace nor enter-and-write it.
 */
export const kLaunchDir = '.boxflow';

/** A program (`exec`: it replaces the launch's shell; only for a shell, which reaps as the first process must) or a shell line. */
export type LaunchCommand = { argv: string[]; exec?: boolean } | { shellScript: string };

export interface IsolatedLaunch {
  argv: string[];
  /** The environment of the root steps: PATH alone. */
  rootEnv: Record<string, string>;
  /** The pid of the launched program as the server sees it (the namespace's first process), while it runs. */
  programPid(launcherPid: number): number | undefined;
  /** Removes the launch file; call once the program has ended. */
  done(): Promise<void>;
}

/**
 * How to start `command` as a box's user, isolated:
 * - `bash` closes every descriptor but stdio (node-pty's pty masters have no close-on-exec);
 * - `unshare --net --pid --fork --mount-proc`: a network namespace with no network (not the server,
 *   not the machine), and a pid namespace with a /proc of its own, so the box sees its own processes
 *   and none of another box or of the server; when the namespace's first process ends, the kernel
 *   kills every process left in it, also those that left its group or session (`setsid`);
 * - `prlimit --nproc`: at most kBoxMaxProcesses processes for the box's user, so a fork bomb stays in its box;
 * - `setpriv`: the box's uid and gid, no supplementary groups, no way back up, no capabilities;
 * - `/bin/sh` as that user sources the launch file: the box's environment, entering the working dir
 *   (as that user: a directory swapped for a link leads nowhere the user could not go anyway), then
 *   the program.
 * No tenant value reaches a root step, nor any command line: the environment and the command are in
 * the launch file (0400, the box user's, in the box's root-only kLaunchDir), which no other box's
 * user can read; /proc/<pid>/cmdline shows only its path. (node-pty's own uid switch would keep
 * root's supplementary groups, and a pty has no spare descriptor to hand the file over on.)
 */
export async function isolatedLaunch(user: BoxUser, boxDir: string, env: Record<string, string>, command: LaunchCommand, cwd?: string): Promise<IsolatedLaunch> {
  const lines = ['set --', ...Object.entries(env).map(([k, v]) => `export ${checkedName(k)}=${shQuote(v)}`)];
  if (cwd) lines.push(`cd -- ${shQuote(cwd)} || exit 125`);
  // The launch's shell stays the namespace's first process (no exec): it reaps what the program
  // leaves behind, which would otherwise stay as zombies counting against kBoxMaxProcesses.
  if ('argv' in command) lines.push(command.exec ? `exec ${command.argv.map(shQuote).join(' ')}` : `${command.argv.map(shQuote).join(' ')}\nexit $?`);
  else lines.push(`eval ${shQuote(command.shellScript)}`);
  const file = join(boxDir, kLaunchDir, `launch-${randomBytes(9).toString('base64url')}`);
  // O_EXCL: a new file, never a link followed; kLaunchDir is root's, so nothing else can be there.
  const fh = await open(file, 'wx', 0o400);
  try {
    await fh.chown(user.uid, user.gid);
    await fh.writeFile(`${lines.join('\n')}\n`);
  } finally {
    await fh.close();
  }
  return {
    argv: [
      // A root step with no tenant value: closes every descriptor but stdio, those node-pty leaves
      // without close-on-exec (other terminals' pty masters) included, which no box may hold.
      kBash(), '--norc', '--noprofile', '-c', kCloseFds, 'boxflow-closefds',
      utilLinux('unshare'), '--net', '--pid', '--fork', '--kill-child', '--mount-proc', '--',
      utilLinux('prlimit'), `--nproc=${kBoxMaxProcesses}:${kBoxMaxProcesses}`, '--',
      utilLinux('setpriv'), `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--',
      '/bin/sh', '-c', '. "$1"', 'sh', file,
    ],
    rootEnv: { PATH: kDefaultPath },
    programPid: (launcherPid) => forkedChild(launcherPid),
    done: () => unlink(file).catch(() => {}),
  };
}

const kCloseFds = 'for f in /proc/$$/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done; exec "$@"';
const kBash = () => utilLinux('bash');

/** The one child `unshare --fork` made (the first process of the new namespaces), if any yet. */
function forkedChild(pid: number): number | undefined {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

function checkedName(name: string): string {
  if (!kEnvName.test(name)) throw new BoxflowError('INVALID_REQUEST', `"${name.slice(0, 60)}" is not a variable name`);
  return name;
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
