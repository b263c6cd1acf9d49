// The processes of a box on this machine: who they are (pid + start time from /proc/<pid>/stat, so a
// recycled pid is never taken for ours), how they are ended, and each box's ledger of them
// (<dataDir>/procs/<boxId>.json), which the reaping of a dead server's boxes reads (boxes/reaper.ts).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sealedStdio } from './inheritedFds.js';

/** A process as /proc knows it: a pid alone may name another process once the first has died. */
export interface ProcessIdentity {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot at which the process started. */
  start: string;
}

export interface LedgerFile {
  boxId: string;
  /** The server process the box belongs to. */
  owner: ProcessIdentity;
  /** The box's own uid when boxes are isolated (see boxUser.ts): every process it runs has it. */
  uid: number | null;
  /** The uid its Chromium runs as (isolated boxes); absent in ledgers of older servers. */
  browserUid?: number | null;
  /** The box's directory, removed when the box is reaped. */
  dir: string;
  /** Leaders of the process groups/sessions the box started (Chromium, terminal shells). */
  procs: ProcessIdentity[];
}

export const kProcsDir = 'procs';
/** Where box directories go when the data dir's parents are closed to box users ($TMPDIR/…). */
export const kOutsideBoxesPrefix = 'boxflow-boxes-';
export const kOwnerFile = 'owner.json';
const kMaxProcs = 64;

interface ProcStat {
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  start: string;
}

function parseStat(text: string): ProcStat {
  // pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
  // cutime cstime priority nice num_threads itrealvalue starttime …; comm may hold spaces and ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: f[0]!, ppid: Number(f[1]), pgrp: Number(f[2]), session: Number(f[3]), start: f[19]! };
}

async function procStat(pid: number): Promise<ProcStat | undefined> {
  try {
    return parseStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The identity of a live process, or undefined when it is gone (or there is no /proc). */
export async function identify(pid: number): Promise<ProcessIdentity | undefined> {
  const s = await procStat(pid);
  return s && s.state !== 'Z' ? { pid, start: s.start } : undefined;
}

let self: ProcessIdentity | undefined;
export function selfIdentity(): ProcessIdentity {
  if (!self) {
    let start = '';
    try {
      start = parseStat(readFileSync(`/proc/${process.pid}/stat`, 'utf8')).start;
    } catch {
      // no /proc: liveness then rests on the pid alone
    }
    self = { pid: process.pid, start };
  }
  return self;
}

export async function isAlive(id: ProcessIdentity): Promise<boolean> {
  if (!id.start) {
    try {
      process.kill(id.pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  return (await identify(id.pid))?.start === id.start;
}

interface LiveProcess extends ProcStat {
  pid: number;
  uid: number;
}

/** Reads of /proc/<pid>/… at once during a scan: a scan never holds more descriptors than this. */
const kScanConcurrency = 32;
let scanning: Promise<LiveProcess[]> | undefined;

/**
 * The machine's live (non-zombie) processes. Callers at the same moment share one scan, and a scan
 * opens at most kScanConcurrency files at once, so many boxes ending together cost one bounded walk
 * of /proc, not one each. A process that vanished mid-read is gone; any other failed read (EMFILE,
 * EACCES) is an error: a process that could not be read is never taken for absent.
 */
export function liveProcesses(): Promise<LiveProcess[]> {
  scanning ??= scanProc().finally(() => (scanning = undefined));
  return scanning;
}

async function scanProc(): Promise<LiveProcess[]> {
  const pids = (await readdir('/proc')).filter((n) => /^\d+$/.test(n));
  const found: LiveProcess[] = [];
  let next = 0;
  const worker = async () => {
    while (next < pids.length) {
      const n = pids[next++]!;
      let statText: string;
      let status: string;
      try {
        [statText, status] = await Promise.all([readFile(`/proc/${n}/stat`, 'utf8'), readFile(`/proc/${n}/status`, 'utf8')]);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ESRCH') continue; // exited while we looked
        throw err;
      }
      const s = parseStat(statText);
      if (s.state !== 'Z') found.push({ ...s, pid: Number(n), uid: Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? NaN) });
    }
  };
  await Promise.all(Array.from({ length: Math.min(kScanConcurrency, pids.length) }, worker));
  return found;
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already, or not ours
  }
}

/**
 * The killer: as `uid` itself, `kill(-1, SIGKILL)`, twice. kill(-1) reaches every process the caller
 * may signal, in every pid and user namespace, and the kernel walks the process list while forks
 * wait: no process can hide from it by leaving its group, its session or its namespace, or by forking
 * on, and one that got SIGKILL forks no more. The killer itself is spared by the kernel. (kill(-1)
 * answers success even when it could signal nothing, so it cannot tell whether any process was left.)
 */
const kKillAllScript = 'kill -9 -1 2>/dev/null; kill -9 -1 2>/dev/null; exit 0';

/**
 * SIGKILLs every process running as `uid` and resolves once none is left alive; throws when that
 * cannot be shown (a box's directory must then not be removed as root: something may still act in
 * it). Needs root (to take the uid); it is only used for the box uids of an isolated server.
 */
export async function killUid(uid: number): Promise<void> {
  if (uid === 0 || uid === process.getuid?.()) throw new Error(`refusing to kill every process of uid ${uid}`);
  await new Promise<void>((resolve) => {
    const child = spawn(kSetpriv, [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--no-new-privs', '--', '/bin/sh', '-c', kKillAllScript], { env: { PATH: '/usr/bin:/bin' }, cwd: '/', stdio: sealedStdio(['ignore', 'ignore', 'ignore']) });
    child.once('error', () => resolve());
    child.once('exit', () => resolve());
  });
  // Killed processes take a moment to become zombies; the check reads /proc (a failed read throws).
  for (let pass = 0; pass < 40; pass++) {
    const left = (await liveProcesses()).filter((p) => p.uid === uid);
    if (!left.length) return;
    for (const p of left) kill(p.pid);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`processes of uid ${uid} are still running after SIGKILL`);
}
const kSetpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p)) ?? 'setpriv';

/**
 * SIGKILLs the process group and session led by `leader`. When the leader is gone, its group and
 * session ids stay taken while any member lives, so members are found by those ids; when a live
 * process holds the pid with another start time, the pid was recycled and nothing is killed.
 */
export async function killLedGroup(leader: ProcessIdentity): Promise<void> {
  const now = await identify(leader.pid);
  if (now && leader.start && now.start !== leader.start) return;
  const myUid = process.getuid?.();
  const members = (await liveProcesses()).filter((p) => (p.pgrp === leader.pid || p.session === leader.pid) && p.pid !== process.pid && (myUid === 0 || p.uid === myUid) && (!leader.start || BigInt(p.start) >= BigInt(leader.start)));
  if (now) kill(-leader.pid);
  for (const p of members) kill(p.pid);
}

/** A box's ledger of the processes it started. Writes are serialised and atomic. */
export class BoxLedger {
  readonly #file: string;
  readonly #data: LedgerFile;
  #writing: Promise<void> = Promise.resolve();
  #removed = false;

  constructor(dataDir: string, box: { boxId: string; uid: number | null; browserUid?: number | null; dir: string }) {
    this.#file = join(dataDir, kProcsDir, `${box.boxId}.json`);
    this.#data = { boxId: box.boxId, owner: selfIdentity(), uid: box.uid, browserUid: box.browserUid ?? null, dir: box.dir, procs: [] };
  }

  /** Writes the ledger before the box starts anything. */
  open(): Promise<void> {
    return this.#write();
  }

  /**
   * Records a process group/session leader the box has just started. Never rejects: callers fire it
   * and go on, and a write that fails (EMFILE, a full disk) must not end the server; the entry is kept
   * in memory and goes out with the next write that succeeds.
   */
  async add(pid: number): Promise<void> {
    try {
      const id = await identify(pid);
      if (!id || this.#removed) return;
      this.#data.procs = [...this.#data.procs, id].slice(-kMaxProcs);
      await this.#write();
    } catch {
      // see above
    }
  }

  /**
   * Ends what the box runs (the box is stopped): the groups it started and, on an isolating server,
   * every process of its uids (see killUid); its uids stay claimed and its directory stays. Throws
   * when that cannot be shown.
   */
  async endAll(): Promise<void> {
    for (const p of this.#data.procs) await killLedGroup(p);
    for (const uid of [this.#data.uid, this.#data.browserUid]) if (typeof uid === 'number') await killUid(uid);
    this.#data.procs = [];
    await this.#write().catch(() => {});
  }

  /** The box has ended cleanly: nothing to reap. */
  async remove(): Promise<void> {
    this.#removed = true;
    await this.#writing.catch(() => {});
    await unlink(this.#file).catch(() => {});
  }

  #write(): Promise<void> {
    const text = JSON.stringify(this.#data);
    // A failed write does not stop the ones after it.
    this.#writing = this.#writing.catch(() => {}).then(async () => {
      if (this.#removed) return;
      await mkdir(join(this.#file, '..'), { recursive: true, mode: 0o700 });
      const tmp = `${this.#file}.${process.pid}.tmp`;
      await writeFile(tmp, text, { mode: 0o600 });
      await rename(tmp, this.#file);
    });
    return this.#writing;
  }
}

