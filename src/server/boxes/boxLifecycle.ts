// Stopping and starting a box, and boxes that outlive their server (docs/server.md, "Stopping and
// starting a box"). A stopped box keeps its record, files and settings and holds nothing: a local
// box's Chromium and every process of its uids are ended (its uids stay claimed: its files are
// theirs), a grid box's session is ended, an Android box's device is given back for other boxes.
// Start brings back what it held: a new Chromium or grid session, the same device when it is free.
import { BoxflowError } from '../../errors.js';
import type { BoxStatus, Resolution } from '../../api/schemas.js';
import type { BoxEntry, LinuxEntry } from './boxEntry.js';
import type { BoxRecords, SavedBox } from './boxRecords.js';
import { LinuxBox } from '../devices/linux/chromium/linuxBox.js';
import { join } from 'node:path';
import type { BoxUser } from '../host/boxUser.js';
import type { BoxLedger } from '../host/processes.js';
import type { AdbBackend } from '../devices/android/backend.js';
import type { GridClient } from '../devices/grid/client.js';
import { gridChromium } from '../devices/grid/source.js';

export interface LifecycleDeps {
  executablePath: string;
  cdpTimeoutMs: number | undefined;
  android: AdbBackend | undefined;
  grid: GridClient | undefined;
  log: (entry: Record<string, unknown>) => void;
  records: BoxRecords;
  setStatus: (entry: BoxEntry, status: BoxStatus, reason?: string | null) => void;
  run: <T>(entry: BoxEntry, fn: () => Promise<T>, what?: string) => Promise<T>;
}

/** What stopping a box still has to do: start, terminate and a second stop wait for it. */
const stopping = new WeakMap<BoxEntry, Promise<void>>();

/** Resolves once a stop under way has given back what the box held. */
export function stopped(entry: BoxEntry): Promise<void> {
  return stopping.get(entry) ?? Promise.resolve();
}

/** A local box's browser: Chromium under the box's browser uid, on the box's profile, in its working dir. */
export function localLinux(deps: LifecycleDeps, box: { dir: string; workDir: string; user: BoxUser | undefined; ledger: BoxLedger; resolution: Resolution }): LinuxBox {
  const { user, ledger } = box;
  return new LinuxBox({
    executablePath: deps.executablePath,
    userDataDir: join(box.dir, 'profile'),
    cwd: box.workDir,
    resolution: box.resolution,
    identity: { ...(user ? { user: { uid: user.browserUid, gid: user.gid } } : {}), onSpawn: (pid) => void ledger.add(pid) },
    ...(deps.cdpTimeoutMs ? { cdpTimeoutMs: deps.cdpTimeoutMs } : {}),
  });
}

/** A grid box's browser: a session of the grid, started anew at each start. */
export function gridLinux(deps: LifecycleDeps, id: string, resolution: Resolution): LinuxBox {
  const grid = deps.grid;
  const source = grid
    ? gridChromium(grid, { name: `boxflow box ${id}`, log: deps.log })
    : { kind: 'grid' as const, start: () => Promise.reject(new BoxflowError('BOX_NOT_RUNNING', `box ${id} is a grid box and this server has no grid (serve --grid)`)) };
  return new LinuxBox({ source, resolution, ...(deps.cdpTimeoutMs ? { cdpTimeoutMs: deps.cdpTimeoutMs } : {}) });
}

/** The box as its record file keeps it. */
export function savedOf(entry: BoxEntry): SavedBox {
  const common = { v: 1 as const, record: entry.record, tenant: entry.tenant, kind: entry.kind, scale: entry.scale };
  if (entry.kind === 'android') return { ...common, resolution: entry.deviceResolution ?? null, dir: '', workDir: '', user: null, serial: entry.serial ?? null };
  return { ...common, resolution: entry.linux.resolution, dir: entry.dir ?? '', workDir: entry.workDir ?? '', user: entry.user ?? null, serial: null };
}

/** Hooks a Linux box's browser events to its record: a crash puts a running box in `error`. */
export function wireLinux(deps: LifecycleDeps, entry: LinuxEntry): void {
  entry.linux.onCrash = (reason) => {
    if (entry.record.status === 'running' || entry.record.status === 'pending') deps.setStatus(entry, 'error', reason);
  };
  entry.linux.onBrowserGone = () => {
    for (const fn of [...entry.onBrowserGone]) fn();
  };
}

/** Starts a Linux box's browser in its queue: `running` once it answers, `error` (and the error thrown) when it does not. */
export async function bootLinux(deps: LifecycleDeps, entry: LinuxEntry, wait: boolean): Promise<void> {
  const started = deps.run(entry, async () => {
    // Stopped (or terminated) while this waited in the queue: no browser is started for it.
    if (entry.record.status !== 'pending') return;
    try {
      await entry.linux.ensureBrowser();
      if (entry.record.status === 'pending') deps.setStatus(entry, 'running');
    } catch (err) {
      deps.setStatus(entry, 'error', (err as Error).message);
      throw err;
    }
  }, 'start');
  if (!wait) started.catch(() => {});
  else await started;
}

/**
 * Stops the box: `stopped` at once (what comes next is refused with 409 BOX_NOT_RUNNING), then what
 * it holds is given back. A box in `error` may be stopped too: it gives back what it still holds.
 */
export async function stopBox(deps: LifecycleDeps, entry: BoxEntry, reason: string | null = null): Promise<void> {
  const status = entry.record.status;
  if (status === 'terminated') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} is terminated`);
  if (status === 'stopped') return stopped(entry);
  deps.setStatus(entry, 'stopped', reason);
  const work = (async () => {
    if (entry.kind === 'android') {
      const device = entry.android;
      entry.android = undefined;
      if (device) await deps.android?.release(device);
    } else {
      await entry.linux.closeBrowser({ final: true });
      // A grid box has nothing on this machine; a local one ends whatever its uids still run (shells, commands).
      if (entry.kind === 'local') await entry.ledger.endAll();
    }
    for (const fn of [...entry.onBrowserGone]) fn();
    await deps.records.save(savedOf(entry));
  })();
  stopping.set(entry, work.catch(() => {}));
  // Requests queued before the stop find the box stopped; a start queues after the giving back.
  entry.tail = Promise.all([entry.tail, work]).catch(() => {});
  try {
    await work;
  } catch (err) {
    deps.log({ level: 'error', msg: 'stopping a box did not end all it ran', boxId: entry.record.id, error: (err as Error)?.stack ?? String(err) });
    throw new BoxflowError('INTERNAL', `box ${entry.record.id} is stopped, but not all it ran could be shown ended; the server log says why`);
  }
}

/** Starts a stopped box: a new browser (local or grid) or the same device again. */
export async function startBox(deps: LifecycleDeps, entry: BoxEntry, wait: boolean): Promise<void> {
  await stopped(entry);
  if (entry.record.status !== 'stopped') return;
  const id = entry.record.id;
  if (entry.kind === 'android') {
    const backend = deps.android;
    if (!backend) throw new BoxflowError('ANDROID_UNAVAILABLE', `box ${id} is an Android box and this server has no Android backend (serve --adb)`);
    deps.setStatus(entry, 'pending');
    try {
      const device = await backend.claim(id, { deviceSerial: entry.serial }, (reason) => {
        if (entry.record.status === 'running') deps.setStatus(entry, 'error', reason);
      });
      if (entry.deviceResolution) await device.setResolution(entry.deviceResolution).catch(async (err: unknown) => {
        await backend.release(device);
        throw err;
      });
      entry.android = device;
      deps.setStatus(entry, 'running');
      await deps.records.save(savedOf(entry));
    } catch (err) {
      deps.setStatus(entry, 'stopped', `the last start failed: ${(err as Error).message}`);
      if (BoxflowError.is(err) && err.code === 'NO_DEVICE_AVAILABLE') throw new BoxflowError('NO_DEVICE_AVAILABLE', `box ${id} cannot start: its device ${entry.serial} is not free (${err.message}); it stays stopped`, { cause: err });
      throw err;
    }
    return;
  }
  if (entry.kind === 'grid' && !deps.grid) throw new BoxflowError('BOX_NOT_RUNNING', `box ${id} is a grid box and this server has no grid (serve --grid); it stays stopped`);
  if (entry.linux.crashed) {
    // A browser that crashed never starts again in the same LinuxBox: the box gets a fresh one.
    const resolution = entry.linux.resolution;
    entry.linux = entry.kind === 'grid' ? gridLinux(deps, id, resolution) : localLinux(deps, { dir: entry.dir, workDir: entry.workDir, user: entry.user, ledger: entry.ledger, resolution });
    wireLinux(deps, entry);
  }
  deps.setStatus(entry, 'pending');
  if (entry.kind === 'local') await entry.ledger.open();
  await bootLinux(deps, entry, wait);
}
