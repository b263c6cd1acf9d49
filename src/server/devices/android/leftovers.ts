// What an Android box leaves behind when its server dies without releasing it (SIGKILL, OOM): on the
// server, its scratch directory $TMPDIR/boxflow-android-XXXXXX (install uploads spooled there, up
// to 512 MB each, and the APKs of a ZIP); on the device, its working dir /data/local/tmp/boxflow/<box>.
//
// The scratch directory holds the box's ledger, ledger.json: its server (pid and start time), the
// adb server, the device serial and the device dir. It is written before the device dir is made,
// and removed with the directory when the box is released. reapAndroidLeftovers (called by every
// reaping, src/server/boxes/reaper.ts) removes the directories whose server is dead and, through adb,
// their device dirs; an adb server or device that does not answer within a few seconds does not
// stop it.
import { lstat, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { Duplex } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Adb, readBounded } from './adbkit.js';
import { sh } from '../../../api/shellQuote.js';

export const kAndroidScratchPrefix = 'boxflow-android-';
const kLedger = 'ledger.json';
/** The only device dirs a ledger may name (the box's working dir, see AndroidBox.workDir). */
const kDeviceDir = /^\/data\/local\/tmp\/boxflow\/[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/** A scratch dir without a readable ledger this old was left by a server killed while creating it. */
const kOrphanMs = 60_000;

/** A process as host/processes.ts identifies it (pid and start time). */
export interface Owner {
  pid: number;
  start: string;
}

export interface AndroidLedger {
  boxId: string;
  owner: Owner;
  adb: { host: string; port: number };
  serial: string;
  /** The box's working dir on the device. */
  deviceDir: string;
}

/** An Android box's scratch directory on the server, with its ledger. */
export class AndroidScratch {
  private constructor(readonly dir: string) {}

  /** Creates the directory (0700) and writes the ledger (atomically) before the box touches the device. */
  static async create(ledger: AndroidLedger, parent = tmpdir()): Promise<AndroidScratch> {
    const dir = await mkdtemp(join(parent, kAndroidScratchPrefix));
    try {
      const tmp = join(dir, `${kLedger}.tmp`);
      await writeFile(tmp, JSON.stringify(ledger), { mode: 0o600 });
      await rename(tmp, join(dir, kLedger));
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    return new AndroidScratch(dir);
  }

  /** A fresh directory for one install: the spooled upload and the APKs of a ZIP. */
  installDir(): Promise<string> {
    return mkdtemp(join(this.dir, 'install-'));
  }

  /** The box was released: nothing is left to reap. */
  remove(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

function readLedger(text: string): AndroidLedger | undefined {
  try {
    const l = JSON.parse(text) as AndroidLedger;
    const ok =
      typeof l.owner?.pid === 'number' &&
      typeof l.owner.start === 'string' &&
      typeof l.adb?.host === 'string' &&
      Number.isInteger(l.adb.port) &&
      l.adb.port > 0 &&
      l.adb.port < 65536 &&
      typeof l.serial === 'string' &&
      /^[\x21-\x7e]+$/.test(l.serial) &&
      typeof l.deviceDir === 'string';
    return ok ? l : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `rm -rf` of the ledger's device dir through the adb server it names. Never starts an adb server;
 * gives up after `timeoutMs` (an unreachable adb server or device must not hold up reaping).
 */
export async function removeDeviceDir(ledger: AndroidLedger, timeoutMs = 5_000): Promise<void> {
  if (!kDeviceDir.test(ledger.deviceDir)) throw new Error(`not a box's device dir: ${ledger.deviceDir}`);
  const client = Adb.createClient({ host: ledger.adb.host, port: ledger.adb.port, bin: '/nonexistent/boxflow-never-starts-adb' });
  let stream: Duplex | undefined;
  let timer: NodeJS.Timeout | undefined;
  let expired = false;
  const work = (async () => {
    const s = (stream = await client.getDevice(ledger.serial).shell(sh`rm -rf ${ledger.deviceDir}`));
    if (expired) s.destroy();
    await readBounded(s, 2 ** 20); // rm's complaints, if any; a device that sends more is cut off
  })();
  work.catch(() => {});
  try {
    await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          expired = true;
          reject(new Error(`adb ${ledger.adb.host}:${ledger.adb.port} gave no answer within ${timeoutMs} ms`));
        }, timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    stream?.destroy();
  }
}

export interface ReapedAndroidBox {
  boxId: string | undefined;
  /** Whether the device dir was removed; false when adb or the device did not answer (or no ledger). */
  deviceDirRemoved: boolean;
}

/**
 * Removes the Android scratch dirs in `parent` (default $TMPDIR) whose server is dead, after
 * removing their device dirs through adb where it answers. Only this user's dirs are touched; a dir
 * whose ledger names a live server is left alone, and so is one without a ledger for its first minute
 * (its server may be writing it).
 */
export async function reapAndroidLeftovers(isAlive: (owner: Owner) => Promise<boolean>, parent = tmpdir(), timeoutMs = 5_000): Promise<ReapedAndroidBox[]> {
  let names: string[];
  try {
    names = (await readdir(parent)).filter((n) => n.startsWith(kAndroidScratchPrefix));
  } catch {
    return [];
  }
  const reaped: ReapedAndroidBox[] = [];
  for (const name of names) {
    const dir = join(parent, name);
    try {
      const st = await lstat(dir);
      if (!st.isDirectory() || st.uid !== process.getuid?.()) continue;
      const ledger = readLedger(await readFile(join(dir, kLedger), 'utf8').catch(() => ''));
      let deviceDirRemoved = false;
      if (!ledger) {
        if (Date.now() - st.mtimeMs < kOrphanMs) continue;
      } else {
        if (await isAlive(ledger.owner)) continue;
        deviceDirRemoved = await removeDeviceDir(ledger, timeoutMs).then(
          () => true,
          () => false,
        );
      }
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      reaped.push({ boxId: ledger?.boxId, deviceDirRemoved });
    } catch {
      // raced with another reaper, or unreadable: the next start tries again
    }
  }
  return reaped;
}
