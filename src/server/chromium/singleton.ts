// When the profile's path is too long for a socket, Chromium keeps its singleton socket in a folder
// of its temp dir, and removes it only on a clean exit: every killed box browser left one in /tmp.
import { lstat, readlink, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Removes the singleton folder a profile links to. The profile's link is the box user's to rewrite,
 * so only a folder of Chromium's own name, right in `tmpDir` and owned by `uid`, goes (a link inside
 * it is unlinked, never followed).
 */
export async function removeSingletonDir(userDataDir: string, tmpDir: string, uid: number | undefined): Promise<void> {
  try {
    const dir = dirname(await readlink(join(userDataDir, 'SingletonSocket')));
    if (dirname(dir) !== tmpDir || !/^org\.chromium\.Chromium\.\w+$/.test(basename(dir))) return;
    const st = await lstat(dir);
    if (st.isDirectory() && st.uid === uid) await rm(dir, { recursive: true, force: true });
  } catch {
    // no link (a short profile path keeps the socket in the profile), or already gone
  }
}
