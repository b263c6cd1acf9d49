// Who a box's processes run as, and with what environment. As root, each box gets its own
// unprivileged uid/gid (no passwd entry needed) that owns the box's directory and nothing else, so
// its Chromium and its shells cannot read the server's secret or another box's files, whatever URL
// or command a tenant gives them. Uids are claimed machine-wide (/run/boxflow/uids/<uid>) so two
// servers never hand out the same one. Without root, boxes run as the server's user: not isolated.
import { randomInt } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BoxflowError } from '../errors.js';
import { isAlive, killUid, selfIdentity, type ProcessIdentity } from './reaper.js';

export interface BoxUser {
  uid: number;
  gid: number;
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

/** A fresh uid (gid = uid) for `boxId`, claimed for as long as this process lives. */
export async function claimBoxUser(boxId: string): Promise<BoxUser> {
  await mkdir(kClaimDir, { recursive: true, mode: 0o700 });
  const claim: Claim = { owner: selfIdentity(), boxId };
  for (let attempt = 0; attempt < 20; attempt++) {
    const uid = kUidBase + randomInt(kUidSpan);
    try {
      await writeFile(join(kClaimDir, String(uid)), JSON.stringify(claim), { flag: 'wx', mode: 0o600 });
      return { uid, gid: uid };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new BoxflowError('INTERNAL', 'could not claim a free uid for the box');
}

/** Kills whatever still runs as the box's user and frees its uid. */
export async function releaseBoxUser(uid: number): Promise<void> {
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
    await releaseBoxUser(Number(name));
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
 * The argv prefix that starts a box's shell: in a network namespace of its own (no network at all,
 * so it cannot reach any box's unauthenticated DevTools port, nor the server), as `user`, with no
 * supplementary groups and no way back up. Each step execs the next, so the pid stays the shell's.
 * (node-pty's own uid/gid switch would keep root's supplementary groups.)
 */
export function isolatedShellPrefix(user: BoxUser): string[] {
  return [utilLinux('unshare'), '--net', '--', utilLinux('setpriv'), `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--'];
}
