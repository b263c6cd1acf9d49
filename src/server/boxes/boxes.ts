// The box registry: records (docs/api.md), tenancy, per-box serialisation, lifetimes.
import { randomUUID } from 'node:crypto';
import { channel } from 'node:diagnostics_channel';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, statfs } from 'node:fs/promises';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { BoxflowError } from '../../errors.js';
import { parseDuration } from '../../api/duration.js';
import type { Box, BoxStatus, CreateBoxBody, ListBoxesQuery, Resolution } from '../../api/schemas.js';
import { boxPath, boxPathOf, realOf } from '../host/boxFs.js';
import { checkBoxEnvs, claimBoxUser, isolationAvailable, kLaunchDir, reapUidClaims, releaseBoxUser, releaseUid, type BoxUser } from '../host/boxUser.js';
import type { BoxEntry, LinuxEntry } from './boxEntry.js';
import type { AdbBackend } from '../devices/android/backend.js';
import type { GridClient } from '../devices/grid/client.js';
import { createAndroidEntry } from './androidEntry.js';
import { BoxLedger, claimDataDir, kOutsideBoxesPrefix, reapDataDir } from './reaper.js';
import { BoxRecords } from './boxRecords.js';
import { bootLinux, gridLinux, localLinux, savedOf, startBox, stopBox, stopped, wireLinux, type LifecycleDeps } from './boxLifecycle.js';
import { restoreBoxes } from './boxRestore.js';

/** Published when a box's work joins its queue: `{boxId, what}` (BoxRegistry.run). */
const kQueued = channel('boxflow:box:queued');

export const kDefaultResolution: Resolution = { width: 1280, height: 800 };
/** The default working dir, as a box path: the box's directory is its root "/". */
export const kDefaultWorkingDir = '/work';
/** What of the data dir a box user may touch: nothing but `boxes/` (searchable, not listable). */
const kRootOnly = 0o700;
/** Live boxes one API key may hold at once (`serve --max-boxes-per-key`). */
export const kDefaultMaxBoxesPerKey = 32;
const kSearchOnly = 0o711;

interface HostInfo {
  cpu: number;
  memory: number;
  storage: number;
  osVersion: string;
}

export class BoxRegistry {
  readonly #dataDir: string;
  /** <dataDir>/boxes, or a passable directory under $TMPDIR when that is out of box users' reach. */
  #boxesDir: string;
  readonly #entries = new Map<string, BoxEntry>();
  readonly #isolate: boolean;
  /** Data dir prepared, and what a dead server's boxes left reaped: awaited before the first box. */
  readonly #ready: Promise<void>;
  #host: HostInfo | undefined;
  #unreachable = false;
  readonly #log: (entry: Record<string, unknown>) => void;
  readonly #android: AdbBackend | undefined;
  /** With a grid, every Linux box is a session of it: no Chromium, directory or user on this machine. */
  readonly #grid: GridClient | undefined;
  readonly #maxBoxesPerKey: number;
  /** Boxes being created, per tenant: they count against the cap before they are registered. */
  readonly #creating = new Map<string, number>();
  readonly #records: BoxRecords;
  readonly #lifecycle: LifecycleDeps;

  constructor(opts: { dataDir: string; executablePath: string; log?: (entry: Record<string, unknown>) => void; isolate?: boolean; cdpTimeoutMs?: number; android?: AdbBackend; grid?: GridClient; maxBoxesPerKey?: number }) {
    this.#android = opts.android;
    this.#grid = opts.grid;
    this.#maxBoxesPerKey = opts.maxBoxesPerKey ?? kDefaultMaxBoxesPerKey;
    this.#dataDir = opts.dataDir;
    this.#boxesDir = join(opts.dataDir, 'boxes');
    this.#isolate = opts.isolate ?? isolationAvailable();
    const log = (this.#log = opts.log ?? (() => {}));
    this.#records = new BoxRecords(opts.dataDir);
    this.#lifecycle = {
      executablePath: opts.executablePath,
      cdpTimeoutMs: opts.cdpTimeoutMs,
      android: opts.android,
      grid: opts.grid,
      log,
      records: this.#records,
      setStatus: (entry, status, reason) => this.#setStatus(entry, status, reason),
      run: (entry, fn, what) => this.run(entry, fn, what),
    };
    if (!this.#isolate && !this.#grid) log({ level: 'warn', msg: 'boxes run as the server\'s own user: they are not isolated from the server or from each other (a box\'s browser or terminal can read the data dir, the secret included); run boxflow serve as root to give each box its own user' });
    this.#ready = this.#prepare();
  }

  /** Resolves once the data dir is prepared and a dead server's leftovers are reaped. */
  get ready(): Promise<void> {
    return this.#ready;
  }

  /** Whether each box runs as its own user. */
  get isolated(): boolean {
    return this.#isolate;
  }

  async #prepare(): Promise<void> {
    try {
      await mkdir(this.#boxesDir, { recursive: true, mode: kRootOnly });
      if (this.#isolate) await this.#closeDataDir();
    } catch (err) {
      // Fail closed: no box starts in a data dir whose modes could not be set.
      this.#unreachable = true;
      this.#log({ level: 'error', msg: 'preparing the data dir failed; no box can start', error: (err as Error)?.stack ?? String(err) });
    }
    try {
      await claimDataDir(this.#dataDir);
      const saved = await this.#records.load((name, why) => this.#log({ level: 'error', msg: `box record ${name} is unreadable (${why}); it is left in place`, }));
      const kept = new Set(saved.filter((b) => b.record.status !== 'terminated').map((b) => b.record.id));
      // Processes of a dead server's boxes are killed and their uids freed; the directories of its boxes that have a record stay.
      await reapDataDir(this.#dataDir, releaseUid, (id) => kept.has(id));
      if (this.#isolate) await reapUidClaims();
      const restored = await restoreBoxes(this.#lifecycle, saved, { dataDir: this.#dataDir, isolated: this.#isolate, dispose: (dir, user, ledger) => this.#dispose(dir, user, ledger) });
      for (const entry of restored) {
        this.#entries.set(entry.record.id, entry);
        this.#expireAt(entry);
        await this.#save(entry);
      }
    } catch (err) {
      this.#log({ level: 'error', msg: "reaping a dead server's boxes failed", error: (err as Error)?.stack ?? String(err) });
    }
  }

  /** Terminates the box at its `expiresAt` (a stopped box too: its lifetime runs on). */
  #expireAt(entry: BoxEntry): void {
    if (!entry.record.expiresAt) return;
    const ms = Math.max(0, Date.parse(entry.record.expiresAt) - Date.now());
    entry.expiryTimer = setTimeout(() => void this.terminate(entry, 'expired'), Math.min(ms, 2 ** 31 - 1)).unref();
  }

  /** The data dir is passable so a box user reaches boxes/<id>; all else in it is root-only. */
  async #closeDataDir(): Promise<void> {
    await chmod(this.#dataDir, kSearchOnly);
    await chmod(this.#boxesDir, kSearchOnly);
    await mkdir(join(this.#dataDir, 'objects'), { recursive: true, mode: kRootOnly });
    for (const name of await readdir(this.#dataDir)) {
      if (name === 'boxes') continue;
      const st = await stat(join(this.#dataDir, name)).catch(() => undefined);
      if (st && st.mode & 0o077) await chmod(join(this.#dataDir, name), st.mode & kRootOnly);
    }
    const blocked = await firstUnsearchableAncestor(this.#boxesDir);
    if (!blocked) return;
    // Box users must pass through every parent of their directory; e.g. /root is closed to them.
    const outside = await mkdtemp(join(tmpdir(), kOutsideBoxesPrefix));
    await chmod(outside, kSearchOnly);
    const alsoBlocked = await firstUnsearchableAncestor(outside);
    if (alsoBlocked) {
      await rm(outside, { recursive: true, force: true });
      this.#unreachable = true;
      this.#log({ level: 'error', msg: `neither ${blocked} nor ${alsoBlocked} is passable by other users (mode o+x), so no box user could reach its directory; choose a data dir under e.g. /var/lib or /srv` });
      return;
    }
    this.#boxesDir = outside;
    this.#log({ level: 'info', msg: `${blocked} is not passable by other users: box directories live in ${outside} instead` });
  }

  /**
   * Runs a box creation for `tenant` if the tenant has fewer live boxes (every box not terminated:
   * one in `error` still holds its directory, uids and processes; and those being created) than the
   * cap; else TOO_MANY_BOXES, before anything is started.
   */
  async #capped<T>(tenant: string, create: () => Promise<T>): Promise<T> {
    const creating = this.#creating.get(tenant) ?? 0;
    let live = creating;
    for (const e of this.#entries.values()) if (e.tenant === tenant && e.record.status !== 'terminated') live++;
    if (live >= this.#maxBoxesPerKey) throw new BoxflowError('TOO_MANY_BOXES', `this API key already has ${live} live boxes, the most this server allows one key (${this.#maxBoxesPerKey}); terminate one first`);
    this.#creating.set(tenant, creating + 1);
    try {
      return await create();
    } finally {
      const left = (this.#creating.get(tenant) ?? 1) - 1;
      if (left > 0) this.#creating.set(tenant, left);
      else this.#creating.delete(tenant);
    }
  }

  /** The kind of the Linux boxes this server makes: grid with --grid, else local. */
  get linuxKind(): 'local' | 'grid' {
    return this.#grid ? 'grid' : 'local';
  }

  create(tenant: string, type: 'linux', body: CreateBoxBody): Promise<BoxEntry> {
    checkBoxEnvs(body.config?.envs);
    if (this.#grid) return this.#capped(tenant, () => this.#createOnGrid(tenant, type, body, this.#grid!));
    return this.#capped(tenant, () => this.#createLinux(tenant, type, body));
  }

  /**
   * A Linux box whose browser is a session of the grid (src/server/grid): the same LinuxBox, with the
   * grid as its browser source. It has no directory, user or processes here, so what needs the box's
   * own machine (environment, working dir; terminal and files) is GRID_UNSUPPORTED, as its kind declares (devices/kinds.ts).
   */
  async #createOnGrid(tenant: string, type: 'linux', body: CreateBoxBody, grid: GridClient): Promise<BoxEntry> {
    const cfg = body.config ?? {};
    await this.#ready;
    const id = randomUUID();
    // The node is the grid's choice, made per session: its size is unknown here (0, as for Android devices).
    const { record, expiresMs } = pendingRecord(id, type, cfg, { cpu: 0, memory: 0, storage: 0, envs: {}, labels: { ...(cfg.labels ?? {}), 'boxflow/grid': grid.where }, os: { version: 'linux' }, deviceType: cfg.deviceType ?? 'container' });
    const linux = gridLinux(this.#lifecycle, id, cfg.resolution ?? kDefaultResolution);
    // No directory and no processes here: the ledger is never written (the grid ends an abandoned session at its own timeout).
    const ledger = new BoxLedger(this.#dataDir, { boxId: id, uid: null, dir: '' });
    const entry: LinuxEntry = { record, tenant, kind: 'grid', dir: '', workDir: '', user: undefined, ledger, linux, scale: 1, tail: Promise.resolve(), onBrowserGone: new Set() };
    return this.#startLinux(entry, body, expiresMs);
  }

  async #createLinux(tenant: string, type: 'linux', body: CreateBoxBody): Promise<BoxEntry> {
    await this.#ready;
    if (this.#unreachable) throw new BoxflowError('INTERNAL', "this server's data dir is not reachable by box users; its log says why");
    const cfg = body.config ?? {};
    if (cfg.workingDir?.includes('\0')) throw new BoxflowError('INVALID_REQUEST', '/config/workingDir must not contain a NUL character');
    const id = randomUUID();
    const dir = join(this.#boxesDir, id);
    const workingDir = boxPath(kDefaultWorkingDir, cfg.workingDir ?? '.');
    const workDir = realOf(dir, workingDir);
    const host = await this.#hostInfo();
    const { record, expiresMs } = pendingRecord(id, type, cfg, {
      cpu: host.cpu,
      memory: host.memory,
      storage: host.storage,
      envs: { ...(cfg.envs ?? {}) },
      labels: { ...(cfg.labels ?? {}) },
      os: { version: host.osVersion },
      deviceType: cfg.deviceType ?? 'container',
      workingDir,
      publicIp: '127.0.0.1',
    });
    const user = this.#isolate ? await claimBoxUser(id) : undefined;
    const ledger = new BoxLedger(this.#dataDir, { boxId: id, uid: user?.uid ?? null, browserUid: user?.browserUid ?? null, dir });
    try {
      await ledger.open();
      await this.#makeBoxDir(dir, workDir, user);
    } catch (err) {
      await this.#dispose(dir, user, ledger);
      throw err;
    }
    const linux = localLinux(this.#lifecycle, { dir, workDir, user, ledger, resolution: cfg.resolution ?? kDefaultResolution });
    const entry: LinuxEntry = { record, tenant, kind: 'local', dir, workDir, user, ledger, linux, scale: 1, tail: Promise.resolve(), onBrowserGone: new Set() };
    return this.#startLinux(entry, body, expiresMs);
  }

  /** Registers a Linux box and starts its browser (waits for it unless `wait: false`). */
  async #startLinux(entry: LinuxEntry, body: CreateBoxBody, expiresMs: number | undefined): Promise<BoxEntry> {
    wireLinux(this.#lifecycle, entry);
    this.#entries.set(entry.record.id, entry);
    await this.#save(entry);
    if (expiresMs !== undefined) entry.expiryTimer = setTimeout(() => void this.terminate(entry, 'expired'), Math.min(expiresMs, 2 ** 31 - 1)).unref();
    await bootLinux(this.#lifecycle, entry, body.wait !== false);
    return entry;
  }

  /** An Android box: a free online device claimed from the adb backend (src/server/adb). */
  createAndroid(tenant: string, body: CreateBoxBody): Promise<BoxEntry> {
    checkBoxEnvs(body.config?.envs);
    return this.#capped(tenant, () => this.#createAndroid(tenant, body));
  }

  async #createAndroid(tenant: string, body: CreateBoxBody): Promise<BoxEntry> {
    if (!this.#android) throw new BoxflowError('ANDROID_UNAVAILABLE', 'this server has no Android backend');
    const entry = await createAndroidEntry(this.#android, randomUUID(), tenant, body, (e, reason) => {
      if (e.record.status === 'running') this.#setStatus(e, 'error', reason);
    });
    this.#entries.set(entry.record.id, entry);
    await this.#save(entry);
    const expiresMs = body.config?.expiresIn ? parseDuration(body.config.expiresIn, '/config/expiresIn') : undefined;
    if (expiresMs !== undefined) entry.expiryTimer = setTimeout(() => void this.terminate(entry, 'expired'), Math.min(expiresMs, 2 ** 31 - 1)).unref();
    return entry;
  }

  /** Any tenant's box (for pre-signed URLs, which carry no API key). */
  find(id: string): BoxEntry | undefined {
    return this.#entries.get(id);
  }

  /** The caller's box, or BOX_NOT_FOUND; another tenant's box is indistinguishable from none. */
  get(tenant: string, id: string): BoxEntry {
    const entry = this.#entries.get(id);
    if (!entry || entry.tenant !== tenant) throw new BoxflowError('BOX_NOT_FOUND', `no box "${id}"`);
    return entry;
  }

  list(tenant: string, q: ListBoxesQuery & { labels?: Record<string, string> }): { data: Box[]; page: number; pageSize: number; total: number } {
    const types = q.type?.includes('all') ? undefined : q.type;
    const statuses = q.status?.includes('all') ? undefined : q.status;
    const all = [...this.#entries.values()]
      .filter((e) => e.tenant === tenant)
      .map((e) => e.record)
      .filter((b) => (!types?.length || types.includes(b.type)) && (!statuses?.length || statuses.includes(b.status)))
      .filter((b) => Object.entries(q.labels ?? {}).every(([k, v]) => b.config.labels[k] === v))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    const page = q.page ?? 1;
    const pageSize = q.pageSize ?? 20;
    return { data: all.slice((page - 1) * pageSize, page * pageSize), page, pageSize, total: all.length };
  }

  /**
   * Runs `fn` after every earlier request for this box has finished. `what` names the work on the
   * `boxflow:box:queued` diagnostics channel (as undici and fastify publish theirs), for whoever
   * watches a box's queue: a message is published when the work joins the queue.
   */
  run<T>(entry: BoxEntry, fn: () => Promise<T>, what = 'work'): Promise<T> {
    if (kQueued.hasSubscribers) kQueued.publish({ boxId: entry.record.id, what });
    // What the work changed (the scale, the screen size, the status) is on disk before it answers.
    const result = entry.tail.then(fn, fn).finally(() => this.#save(entry));
    entry.tail = result.catch(() => {});
    return result;
  }

  /** Writes the box's record file when it changed (boxRecords.ts); never rejects. */
  #save(entry: BoxEntry): Promise<void> {
    return entry.record.status === 'terminated' ? Promise.resolve() : this.#records.save(savedOf(entry));
  }

  /** Stops the box (boxLifecycle.ts); a stopped box answers as it is. */
  async stop(entry: BoxEntry): Promise<Box> {
    await stopBox(this.#lifecycle, entry);
    return entry.record;
  }

  /** Starts a stopped box (waits until it runs unless `wait: false`); a running one answers as it is. */
  async start(entry: BoxEntry, wait = true): Promise<Box> {
    if (entry.record.status !== 'stopped') {
      this.requireUsable(entry);
      return entry.record;
    }
    await startBox(this.#lifecycle, entry, wait);
    return entry.record;
  }

  /**
   * A box a request may act on: BOX_CRASHED when its Chromium went away on its own (the box is in
   * `error`, and says so rather than "failed to start"), else what requireRunning answers.
   */
  requireUsable(entry: BoxEntry): void {
    if (entry.record.status !== 'terminated' && entry.kind !== 'android' && entry.linux.crashed) throw new BoxflowError('BOX_CRASHED', `box ${entry.record.id} is broken: ${entry.linux.crashed}; terminate it and create another`);
    this.requireRunning(entry);
  }

  requireRunning(entry: BoxEntry): void {
    if (entry.record.status === 'error' && entry.kind === 'android' && entry.android?.goneReason) throw new BoxflowError('DEVICE_OFFLINE', `box ${entry.record.id}: ${entry.record.reason}`);
    if (entry.record.status === 'terminated') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} is terminated`);
    if (entry.record.status === 'stopped') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} is stopped; POST /boxes/${entry.record.id}/start brings it back`);
    if (entry.record.status === 'error') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} failed to start: ${entry.record.reason ?? 'unknown reason'}`);
  }

  async terminate(entry: BoxEntry, reason: string | null = null): Promise<void> {
    if (entry.record.status === 'terminated') return;
    this.#setStatus(entry, 'terminated', reason);
    clearTimeout(entry.expiryTimer);
    await stopped(entry);
    try {
      if (entry.kind === 'android') {
        const device = entry.android;
        entry.android = undefined;
        if (device) await this.#android!.release(device);
        for (const fn of [...entry.onBrowserGone]) fn();
        return;
      }
      await entry.linux.closeBrowser({ final: true });
      for (const fn of [...entry.onBrowserGone]) fn();
      // A grid box's closeBrowser ended its session; it has nothing on this machine to remove.
      if (entry.kind === 'grid') return;
      await this.#dispose(entry.dir, entry.user, entry.ledger);
    } finally {
      await this.#records.remove(entry.record.id);
    }
  }

  /**
   * The box's directory (its root), working dir and profile, closed to everyone but the box's users.
   * The root is root's, group-writable and sticky: both box users create files in it, but neither can
   * move the other's entries, so the shell cannot swap `profile` (which the server clears as root)
   * for a link. Below it the working dir is the box user's (set-gid, so the browser's downloads land
   * in the box's group); the profile is the browser user's alone.
   */
  async #makeBoxDir(dir: string, workDir: string, user: BoxUser | undefined): Promise<void> {
    await mkdir(dir, { mode: kRootOnly });
    try {
      await mkdir(workDir, { recursive: true, mode: kRootOnly });
    } catch (err) {
      throw new BoxflowError('INVALID_REQUEST', `/config/workingDir: cannot create ${boxPathOf(dir, workDir)} in the box (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const profile = join(dir, 'profile');
    await mkdir(profile, { mode: kRootOnly });
    if (!user) return;
    for (let d = workDir; d.startsWith(dir) && d !== dir; d = dirname(d)) {
      await chown(d, user.uid, user.gid);
      await chmod(d, 0o2770);
    }
    await chown(dir, 0, user.gid);
    await chmod(dir, 0o1770);
    await chown(profile, user.browserUid, user.gid);
    await mkdir(join(dir, kLaunchDir), { mode: 0o711 });
  }

  /**
   * Kills what still runs as the box's users (until none is left, see killUid), frees the uids,
   * removes the directory and the ledger. The directory is removed as root only once no process of
   * the box can act in it (so none can swap a folder for a link mid-walk), after it has been moved out
   * of reach of new lookups; when that cannot be shown, it stays for the reaping that follows a
   * restart, and the log says so.
   */
  async #dispose(dir: string, user: BoxUser | undefined, ledger: BoxLedger): Promise<void> {
    if (user) {
      try {
        await releaseBoxUser(user);
      } catch (err) {
        this.#log({ level: 'error', msg: `a box's processes could not all be ended; its directory is kept: ${(err as Error).message}` });
        return;
      }
    }
    const gone = `${dirname(dir)}/.removing-${basename(dir)}`;
    const moved = await rename(dir, gone).then(() => true, () => false);
    if (moved) await chmod(gone, kRootOnly).catch(() => {});
    await rm(moved ? gone : dir, { recursive: true, force: true, maxRetries: 3 });
    await ledger.remove();
  }

  /**
   * Ends every box and removes the box directories; with `keep` (an upgrade, a restart of `boxflow
   * serve`) stops them instead, so the next server on the data dir lists them stopped.
   */
  async closeAll(opts: { keep?: boolean } = {}): Promise<void> {
    if (opts.keep) {
      const live = [...this.#entries.values()].filter((e) => e.record.status !== 'terminated');
      await Promise.all(live.map((e) => stopBox(this.#lifecycle, e, 'boxflow serve stopped').catch(() => {})));
      this.#android?.close();
      return;
    }
    await Promise.all([...this.#entries.values()].map((e) => this.terminate(e, 'server stopped')));
    this.#android?.close();
    await rm(this.#boxesDir, { recursive: true, force: true, maxRetries: 3 });
    await rm(join(this.#dataDir, 'boxes'), { recursive: true, force: true, maxRetries: 3 });
  }

  #setStatus(entry: BoxEntry, status: BoxStatus, reason: string | null = null): void {
    entry.record.status = status;
    entry.record.reason = reason;
    entry.record.updatedAt = new Date().toISOString();
    void this.#save(entry);
  }

  async #hostInfo(): Promise<HostInfo> {
    if (this.#host) return this.#host;
    await mkdir(this.#boxesDir, { recursive: true });
    let storage = 0;
    try {
      const fs = await statfs(this.#boxesDir);
      storage = Math.round((fs.blocks * fs.bsize) / 2 ** 30);
    } catch {
      // statfs is unavailable on some file systems; 0 means unknown
    }
    let osVersion = `${process.platform}`;
    try {
      const text = await readFile('/etc/os-release', 'utf8');
      const field = (k: string) => new RegExp(`^${k}="?([^"\\n]*)"?$`, 'm').exec(text)?.[1];
      const id = field('ID');
      if (id) osVersion = [id, field('VERSION_ID')].filter(Boolean).join('-');
    } catch {
      // not Linux, or no os-release
    }
    this.#host = { cpu: availableParallelism(), memory: Math.round(totalmem() / 2 ** 20), storage, osVersion };
    return this.#host;
  }
}

/** A new box's record, `pending`, with its expiry from `config.expiresIn` (and that bound in ms). */
function pendingRecord(id: string, type: 'linux', cfg: NonNullable<CreateBoxBody['config']>, config: Box['config']): { record: Box; expiresMs: number | undefined } {
  const now = new Date().toISOString();
  const expiresMs = cfg.expiresIn ? parseDuration(cfg.expiresIn, '/config/expiresIn') : undefined;
  const expiresAt = expiresMs === undefined ? null : new Date(Date.now() + expiresMs).toISOString();
  return { record: { id, type, status: 'pending', reason: null, createdAt: now, updatedAt: now, expiresAt, config }, expiresMs };
}

/** The first directory above `dir` that a user other than its owner cannot pass through. */
async function firstUnsearchableAncestor(dir: string): Promise<string | undefined> {
  for (let d = dirname(resolve(dir)); ; d = dirname(d)) {
    const st = await stat(d);
    if (!(st.mode & 0o001)) return d;
    if (d === dirname(d)) return undefined;
  }
}
