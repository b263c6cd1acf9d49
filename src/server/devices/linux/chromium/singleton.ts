// Chromium keeps its singleton socket in a folder of its temp dir (linked from the profile), and
// removes it only on a clean exit: every killed box browser left one in /tmp.
import { readlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { runAsOwner, type ProfileOwner } from './profile.js';

/**
 * Removes the singleton folder a profile links to. The link is the browser user's to rewrite, so
 * only a folder of Chromium's own name right in `tmpDir` is considered, and it is removed as that
 * user (`rm -rf` never follows a link inside; the kernel stops it at anything the user could not
 * remove itself, another box's folder included). `owner` is the browser user, or its uid alone.
 */
export async function removeSingletonDir(userDataDir: string, tmpDir: string, owner: ProfileOwner | number | undefined): Promise<void> {
  let dir: string;
  try {
    dir = dirname(await readlink(join(userDataDir, 'SingletonSocket')));
  } catch {
    return; // no link, or already gone
  }
  if (dirname(dir) !== tmpDir || !/^org\.chromium\.Chromium\.\w+$/.test(basename(dir))) return;
  // A bare uid (a dead server's ledger) is enough: in sticky /tmp and in a 0700 folder of its own, only the uid counts.
  const as = typeof owner === 'number' ? (owner === process.getuid?.() ? undefined : { uid: owner, gid: owner }) : owner;
  await runAsOwner(as, 'exec rm -rf -- "$1"', [dir]);
}
