// A box's Chromium profile is its browser user's: that user (so a page that took over its browser,
// or anything the browser user ran) can swap any entry of it for a symbolic link at any moment.
// So the server never touches the profile by path as root: it prepares and clears it through a
// short shell run as the browser user, whose every step the kernel checks against that user's own
// rights. A link followed there leads only where the browser user could go anyway. Without box
// users (not root) the shell runs as the server's user, as the browser does.
import { spawn } from 'node:child_process';
import { sealedStdio } from '../../../host/inheritedFds.js';

/** The system's default PATH: the programs of these shells, and the only PATH a box's Chromium gets. */
export const kSystemPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface ProfileOwner {
  uid: number;
  gid: number;
}

/** Runs `/bin/sh -c script sh ...args` as `owner` (else as the server's user) with a fixed environment; resolves whether it exited 0. */
export function runAsOwner(owner: ProfileOwner | undefined, script: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    // With a uid, libuv also drops the server's supplementary groups.
    const child = spawn('/bin/sh', ['-c', script, 'sh', ...args], { env: { PATH: kSystemPath }, cwd: '/', stdio: sealedStdio(['ignore', 'ignore', 'ignore']), ...(owner ? { uid: owner.uid, gid: owner.gid } : {}) });
    child.once('error', () => resolve(false));
    child.once('close', (code) => resolve(code === 0));
  });
}

// `set -C`: the preferences are written only where there are none yet (a profile kept from an earlier start keeps its own).
const kPrepareScript = 'umask 077; mkdir -p -- "$1/Default" || exit 1; set -C; printf %s "$2" >"$1/Default/Preferences" 2>/dev/null; exit 0';

/**
 * Makes `profile/Default/Preferences` send downloads to `downloadDir` without a prompt: contexts
 * the box's own code opens are told over CDP (linuxBox.ts), this covers those a tenant opens over
 * its CDP URL.
 */
export async function prepareProfile(userDataDir: string, downloadDir: string, owner: ProfileOwner | undefined): Promise<void> {
  const prefs = JSON.stringify({ download: { default_directory: downloadDir, prompt_for_download: false }, savefile: { default_directory: downloadDir } });
  await runAsOwner(owner, kPrepareScript, [userDataDir, prefs]);
}

// find -P (its default) never follows a link, the profile itself included; -delete goes depth first.
const kClearScript = 'find "$1" -mindepth 1 -delete 2>/dev/null; exit 0';

/** Removes everything in the profile; the directory itself stays, with its owner. */
export async function clearProfile(userDataDir: string, owner: ProfileOwner | undefined): Promise<void> {
  await runAsOwner(owner, kClearScript, [userDataDir]);
}
