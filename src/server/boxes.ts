// The box registry: records (api-facts §3.19), tenancy, per-box serialisation, lifetimes.
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, statfs } from 'node:fs/promises';
import { availableParallelism, totalmem } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { BoxflowError } from '../errors.js';
import { parseDuration } from '../api/duration.js';
import type { Box, BoxStatus, CreateBoxBody, ListBoxesQuery, Resolution } from '../api/schemas.js';
import { LinuxBox } from './chromium/linuxBox.js';

export const kDefaultResolution: Resolution = { width: 1280, height: 800 };

export interface BoxEntry {
  record: Box;
  tenant: string;
  /** <dataDir>/boxes/<id>: profile and working dir; removed on terminate. */
  dir: string;
  linux: LinuxBox;
  scale: number;
  /** Tail of this box's queue: requests for one box run one at a time. */
  tail: Promise<unknown>;
  expiryTimer?: NodeJS.Timeout;
  /** Closed when the browser goes away, so CDP proxies reconnect to the next one. */
  onBrowserGone: Set<() => void>;
}

interface HostInfo {
  cpu: number;
  memory: number;
  storage: number;
  osVersion: string;
}

export class BoxRegistry {
  readonly #boxesDir: string;
  readonly #executablePath: string;
  readonly #entries = new Map<string, BoxEntry>();
  #host: HostInfo | undefined;

  constructor(opts: { dataDir: string; executablePath: string }) {
    this.#boxesDir = join(opts.dataDir, 'boxes');
    this.#executablePath = opts.executablePath;
  }

  async create(tenant: string, type: 'linux', body: CreateBoxBody): Promise<BoxEntry> {
    const cfg = body.config ?? {};
    const id = randomUUID();
    const dir = join(this.#boxesDir, id);
    const defaultWork = join(dir, 'work');
    const workingDir = cfg.workingDir ? resolve(defaultWork, cfg.workingDir) : defaultWork;
    const inside = relative(dir, workingDir);
    if (inside.startsWith('..') || isAbsolute(inside)) {
      throw new BoxflowError('INVALID_REQUEST', `/config/workingDir must stay inside the box's directory; "${cfg.workingDir}" resolves to ${workingDir}`);
    }
    await mkdir(workingDir, { recursive: true });
    await mkdir(join(dir, 'profile'), { recursive: true });
    const host = await this.#hostInfo();
    const now = new Date().toISOString();
    const expiresMs = cfg.expiresIn ? parseDuration(cfg.expiresIn, '/config/expiresIn') : undefined;
    const record: Box = {
      id,
      type,
      status: 'pending',
      reason: null,
      createdAt: now,
      updatedAt: now,
      expiresAt: expiresMs === undefined ? null : new Date(Date.now() + expiresMs).toISOString(),
      config: {
        cpu: host.cpu,
        memory: host.memory,
        storage: host.storage,
        envs: { ...(cfg.envs ?? {}) },
        labels: { ...(cfg.labels ?? {}) },
        os: { version: host.osVersion },
        deviceType: cfg.deviceType ?? 'container',
        workingDir,
        publicIp: '127.0.0.1',
      },
    };
    const linux = new LinuxBox({ executablePath: this.#executablePath, userDataDir: join(dir, 'profile'), cwd: workingDir, resolution: cfg.resolution ?? kDefaultResolution, env: { ...process.env, ...(cfg.envs ?? {}) } });
    const entry: BoxEntry = { record, tenant, dir, linux, scale: 1, tail: Promise.resolve(), onBrowserGone: new Set() };
    linux.onBrowserGone = () => {
      for (const fn of [...entry.onBrowserGone]) fn();
    };
    this.#entries.set(id, entry);
    if (expiresMs !== undefined) entry.expiryTimer = setTimeout(() => void this.terminate(entry, 'expired'), Math.min(expiresMs, 2 ** 31 - 1)).unref();
    const started = this.run(entry, async () => {
      try {
        await linux.ensureBrowser();
        if (record.status === 'pending') this.#setStatus(entry, 'running');
      } catch (err) {
        this.#setStatus(entry, 'error', (err as Error).message);
        throw err;
      }
    });
    if (body.wait === false) started.catch(() => {});
    else await started;
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

  /** Runs `fn` after every earlier request for this box has finished. */
  run<T>(entry: BoxEntry, fn: () => Promise<T>): Promise<T> {
    const result = entry.tail.then(fn, fn);
    entry.tail = result.catch(() => {});
    return result;
  }

  requireRunning(entry: BoxEntry): void {
    if (entry.record.status === 'terminated') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} is terminated`);
    if (entry.record.status === 'error') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} failed to start: ${entry.record.reason ?? 'unknown reason'}`);
  }

  async terminate(entry: BoxEntry, reason: string | null = null): Promise<void> {
    if (entry.record.status === 'terminated') return;
    this.#setStatus(entry, 'terminated', reason);
    clearTimeout(entry.expiryTimer);
    await entry.linux.closeBrowser();
    for (const fn of [...entry.onBrowserGone]) fn();
    await rm(entry.dir, { recursive: true, force: true, maxRetries: 3 });
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => this.terminate(e, 'server stopped')));
    await rm(this.#boxesDir, { recursive: true, force: true, maxRetries: 3 });
  }

  #setStatus(entry: BoxEntry, status: BoxStatus, reason: string | null = null): void {
    entry.record.status = status;
    entry.record.reason = reason;
    entry.record.updatedAt = new Date().toISOString();
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
