// Processes a box leaves behind when its server dies without closing (SIGKILL, OOM, power cut).
// Each box keeps a small ledger, <dataDir>/procs/<boxId>.json, naming its server and the processes
// it started (pid + start time from /proc/<pid>/stat, so a recycled pid is never taken for ours).
// The next server on that data dir, and the next `boxflow test` (for the temporary data dirs of
// earlier runs), kill what a dead server's boxes left and remove their directories, but for those of
// boxes that outlive their server (a record in boxRecords.ts: they come back stopped).
import { readdir, readFile, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { removeSingletonDir } from '../devices/linux/chromium/singleton.js';
import { reapAndroidLeftovers } from '../devices/android/leftovers.js';
import { isAlive, killLedGroup, killUid, kOutsideBoxesPrefix, kOwnerFile, kProcsDir, selfIdentity, type LedgerFile, type ProcessIdentity } from '../host/processes.js';

export { BoxLedger, kOutsideBoxesPrefix } from '../host/processes.js';

/**
 * Kills the processes of boxes whose server is dead and removes their directories. `release` frees
 * a box's uid once its processes are gone. Android boxes of dead servers are reaped too: their
 * ledgers live in their scratch dirs in $TMPDIR, not in the data dir (see devices/android/leftovers.ts); their
 * install uploads are removed, and their device dirs through adb when it answers. Returns the
 * number of the data dir's (Linux) boxes reaped.
 */
export async function reapDataDir(dataDir: string, release?: (uid: number) => Promise<void>, keep?: (boxId: string) => boolean): Promise<number> {
  const [reaped] = await Promise.all([reapLedgers(dataDir, release, keep), reapAndroidLeftovers(isAlive).catch(() => [])]);
  return reaped;
}

/**
 * `keep`: the boxes that outlive their server (boxRecords.ts): their processes are killed and their
 * uids freed as any other's, but their directory stays, for the box to start again.
 */
async function reapLedgers(dataDir: string, release?: (uid: number) => Promise<void>, keep?: (boxId: string) => boolean): Promise<number> {
  const dir = join(dataDir, kProcsDir);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json'));
  } catch {
    return 0;
  }
  let reaped = 0;
  for (const name of names) {
    const file = join(dir, name);
    let ledger: LedgerFile;
    try {
      ledger = JSON.parse(await readFile(file, 'utf8')) as LedgerFile;
    } catch {
      await unlink(file).catch(() => {});
      continue;
    }
    if (await isAlive(ledger.owner)) continue;
    try {
      for (const p of ledger.procs ?? []) await killLedGroup(p);
      for (const uid of [ledger.uid, ledger.browserUid]) {
        if (typeof uid !== 'number') continue;
        await killUid(uid);
        await release?.(uid);
      }
    } catch {
      // Its processes could not all be shown gone: its directory stays (removing it as root while one
      // of them acts in it could follow a link it made); the next reaping tries again.
      continue;
    }
    if (typeof ledger.dir === 'string' && isBoxDir(dataDir, ledger.dir)) {
      // Its Chromium was killed with its server: nothing removed the singleton folder it keeps in /tmp.
      const browserUid = typeof ledger.browserUid === 'number' ? ledger.browserUid : ledger.uid;
      await removeSingletonDir(join(ledger.dir, 'profile'), '/tmp', typeof browserUid === 'number' ? browserUid : process.getuid?.());
      if (keep?.(ledger.boxId)) {
        await unlink(file).catch(() => {});
        continue;
      }
      await rm(ledger.dir, { recursive: true, force: true, maxRetries: 3 });
      if (dirname(ledger.dir) !== join(dataDir, 'boxes')) await rmdir(dirname(ledger.dir)).catch(() => {});
    }
    await unlink(file).catch(() => {});
    reaped++;
  }
  return reaped;
}

/** A ledger names only directories of boxes: <dataDir>/boxes/<id> or $TMPDIR/boxflow-boxes-…/<id>. */
export function isBoxDir(dataDir: string, dir: string): boolean {
  const parent = dirname(dir);
  return parent === join(dataDir, 'boxes') || (dirname(parent) === tmpdir() && basename(parent).startsWith(kOutsideBoxesPrefix));
}

/** Marks a data dir as served by this process (for cleanStaleServeDirs). */
export async function claimDataDir(dir: string): Promise<void> {
  await writeFile(join(dir, kOwnerFile), JSON.stringify(selfIdentity()), { mode: 0o600 });
}

/**
 * Removes `<parent>/<prefix>*` directories (the embedded server's temporary data dirs) whose
 * server process is dead, after reaping the processes their boxes left running. A dir that names
 * no server (yet) is left alone: it may be one being set up right now.
 */
export async function cleanStaleServeDirs(parent: string, prefix: string, release?: (uid: number) => Promise<void>): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(parent)).filter((n) => n.startsWith(prefix));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const dir = join(parent, name);
    try {
      const st = await stat(dir);
      if (!st.isDirectory() || st.uid !== process.getuid?.()) continue;
      let owner: ProcessIdentity;
      try {
        owner = JSON.parse(await readFile(join(dir, kOwnerFile), 'utf8')) as ProcessIdentity;
      } catch {
        continue;
      }
      if (await isAlive(owner)) continue;
      await reapDataDir(dir, release);
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      removed.push(name);
    } catch {
      // raced with its owner or another cleaner: the next start tries again
    }
  }
  return removed;
}
