// The boxes a dead (or stopped) server left on its data dir, back in the registry as `stopped`
// (docs/server.md, "Stopping and starting a box"). By the time this runs, the reaping has killed
// every process of their uids and freed those; here a box whose expiry passed meanwhile is
// terminated (its files removed), and every other one claims its uids again and waits for a start.
import type { BoxEntry } from './boxEntry.js';
import type { SavedBox } from './boxRecords.js';
import { reclaimBoxUser, type BoxUser } from '../host/boxUser.js';
import { clearProfile } from '../devices/linux/chromium/profile.js';
import { BoxLedger, isBoxDir } from './reaper.js';
import { androidEntry } from './androidEntry.js';
import { gridLinux, localLinux, wireLinux, type LifecycleDeps } from './boxLifecycle.js';
import { join } from 'node:path';

export interface RestoreHost {
  dataDir: string;
  /** Whether this server gives boxes their own users: a box that had them needs them again. */
  isolated: boolean;
  /** Removes a local box's directory and frees its uids (BoxRegistry's, as at terminate). */
  dispose: (dir: string, user: BoxUser | undefined, ledger: BoxLedger) => Promise<void>;
}

const kRestarted = 'boxflow serve restarted; POST /boxes/{boxId}/start brings the box back';

/** The entries of the saved boxes that are still alive; the expired ones are terminated on the way. */
export async function restoreBoxes(deps: LifecycleDeps, saved: readonly SavedBox[], host: RestoreHost): Promise<BoxEntry[]> {
  const entries: BoxEntry[] = [];
  for (const box of saved) {
    const id = box.record.id;
    try {
      const local = box.kind === 'local';
      // Only a directory where boxes live is ever removed or reused (a record is root's, but be strict).
      if (local && !isBoxDir(host.dataDir, box.dir)) throw new Error(`its directory ${box.dir} is not a box directory`);
      if (local && !box.workDir.startsWith(`${box.dir}/`) && box.workDir !== box.dir) throw new Error(`its working dir ${box.workDir} is outside its directory`);
      const user = box.user ?? undefined;
      const ledger = new BoxLedger(host.dataDir, { boxId: id, uid: user?.uid ?? null, browserUid: user?.browserUid ?? null, dir: local ? box.dir : '' });
      const expired = box.record.status === 'terminated' || (box.record.expiresAt !== null && Date.parse(box.record.expiresAt) <= Date.now());
      if (expired) {
        if (local) await host.dispose(box.dir, user, ledger);
        await deps.records.remove(id);
        deps.log({ level: 'info', msg: 'box expired while the server was down: terminated', boxId: id });
        continue;
      }
      if (user && !host.isolated) throw new Error('it ran as its own users, which only a server running as root can give it');
      if (user) await reclaimBoxUser(user, id);
      const now = new Date().toISOString();
      const record = { ...box.record, status: 'stopped' as const, reason: kRestarted.replace('{boxId}', id), updatedAt: now };
      if (box.kind === 'android') {
        entries.push(androidEntry(record, box.tenant, box.serial ?? '', box.resolution ?? undefined, box.scale));
        continue;
      }
      const resolution = box.resolution ?? { width: 1280, height: 800 };
      // The profile of a Chromium killed with its server: it goes, as it goes with every browser a box ends.
      if (local) await clearProfile(join(box.dir, 'profile'), user && { uid: user.browserUid, gid: user.gid });
      const linux = local ? localLinux(deps, { dir: box.dir, workDir: box.workDir, user, ledger, resolution }) : gridLinux(deps, id, resolution);
      const entry: BoxEntry = { record, tenant: box.tenant, kind: box.kind, dir: box.dir, workDir: box.workDir, user, ledger, linux, scale: box.scale, tail: Promise.resolve(), onBrowserGone: new Set() };
      wireLinux(deps, entry);
      entries.push(entry);
    } catch (err) {
      // Its record stays on disk: a person can look at it; the box is not listed.
      deps.log({ level: 'error', msg: `box ${id} could not be brought back: ${(err as Error).message}`, boxId: id });
    }
  }
  return entries;
}
