// The file-system endpoints on an Android box. The box is the whole device (the tenant has `adb
// shell` on it), so paths are device paths as on GBOX: `/sdcard/DCIM`, `/sdcard/Download/a.txt`; a
// relative path starts at `workingDir`, itself relative to the box's working dir on the device. What
// is reachable is what the device's shell user may reach: the device itself answers. The files move
// over adb's sync service (STAT, LIST, RECV, SEND); `mkdir -p`, `rm -rf` and `ls` go through the
// device shell with the path quoted (shellQuote.ts). Sync's STAT and LIST cannot tell "not there"
// from "may not" (adbd answers a failed lstat with zeros and a folder it cannot open with no
// entries), so when they come back empty the device's `ls` is asked why, and its own message is the
// answer: `Permission denied` a 403, anything else a 404. A path with a NUL, or longer than adbd's
// sync takes (1,024 bytes), is 400 before any device request.
import { createReadStream } from 'node:fs';
import { posix } from 'node:path';
import { Readable } from 'node:stream';
import { BoxflowError } from '../../../errors.js';
import { kFsLimits, type FsEntry, type FsExistsResult, type FsListQuery, type FsListResult, type FsPathBody, type FsPathQuery } from '../../../api/schemas.js';
import type { AndroidBox } from './androidBox.js';
import { sh } from '../../../api/shellQuote.js';
import { entryOf, tooLargeToRead, type Info, type WriteRequest } from '../fsEntries.js';
import { noNul } from '../commandOutput.js';

/** adbd's sync refuses a longer path ("path too long"). */
const kSyncPathBytes = 1024;
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;

/** A device path: `path` resolved against `workingDir`, which is resolved against the box's working dir. */
function androidPath(android: AndroidBox, path: string, workingDir: string | undefined): string {
  const base = posix.resolve(android.workDir, noNul(workingDir ?? '.', '/workingDir'));
  const full = posix.resolve(base, noNul(path, '/path'));
  if (Buffer.byteLength(full) > kSyncPathBytes) throw new BoxflowError('INVALID_REQUEST', `/path: ${full.slice(0, 100)}… is ${Buffer.byteLength(full)} bytes; adb's file service takes paths of up to ${kSyncPathBytes}`);
  return full;
}

type DeviceStat = { mode: number; size: number; mtime: Date };
const isDir = (mode: number) => (mode & S_IFMT) === S_IFDIR;
const deviceInfo = (st: DeviceStat): Info => [isDir(st.mode) ? 'd' : 'f', st.mode, st.size, st.mtime.getTime()];

/** The device's message (a line or two) as this API's error: permission 403, else `otherwise`. */
function deviceRefusal(said: string, path: string, what: string, otherwise: 'FILE_NOT_FOUND' | 'UNPROCESSABLE'): BoxflowError {
  const text = said.trim().split('\n').slice(0, 2).join(' | ').slice(0, 300);
  if (/permission denied|read-only file system|operation not permitted/i.test(text)) return new BoxflowError('FORBIDDEN', `cannot ${what} ${path}: the device's shell user may not (the device says: ${text})`);
  return new BoxflowError(otherwise, otherwise === 'FILE_NOT_FOUND' ? `${path} does not exist on the device (the device says: ${text})` : `cannot ${what} ${path} on the device: ${text}`);
}

/** Why STAT found nothing at `path`, in the device's words (`ls -ld`): 403 or 404. */
async function missing(android: AndroidBox, path: string, what: string): Promise<BoxflowError> {
  const said = await android.shell(sh`ls -ld ${path}`);
  return deviceRefusal(said || `${path}: No such file or directory`, path, what, 'FILE_NOT_FOUND');
}

async function deviceStat(android: AndroidBox, path: string): Promise<DeviceStat | undefined> {
  const st = await android.stat(path);
  return st && st.mode !== 0 ? st : undefined;
}

async function statOrRefusal(android: AndroidBox, path: string, what: string): Promise<DeviceStat> {
  const st = await deviceStat(android, path);
  if (!st) throw await missing(android, path, what);
  return st;
}

/** A device shell line that prints nothing on success; its output is the device's complaint. */
async function deviceQuiet(android: AndroidBox, line: string, path: string, what: string): Promise<void> {
  const out = (await android.shell(line)).trim();
  if (out) throw deviceRefusal(out, path, what, 'UNPROCESSABLE');
}

/** A sync transfer the device refused (`open failed: Permission denied`, `couldn't create file: …`): its message as the answer. */
function transferRefusal(err: unknown, path: string, what: string): unknown {
  if (BoxflowError.is(err) && err.code === 'DEVICE_ERROR' && /permission denied|read-only file system/i.test(err.message)) {
    return deviceRefusal(/(?:open failed|couldn't create file)[^'"\n]*/i.exec(err.message)?.[0] ?? err.message, path, what, 'UNPROCESSABLE');
  }
  return err;
}

export const androidFs = {
  async info(android: AndroidBox, q: FsPathQuery): Promise<FsEntry> {
    const path = androidPath(android, q.path, q.workingDir);
    return entryOf(path, deviceInfo(await statOrRefusal(android, path, 'look at')));
  },
  async exists(android: AndroidBox, q: FsPathBody): Promise<FsExistsResult> {
    const path = androidPath(android, q.path, q.workingDir);
    const st = await deviceStat(android, path);
    if (st) return { exists: true, type: isDir(st.mode) ? 'dir' : 'file' };
    // Not there, or hidden from the shell user: only the second is an error.
    const err = await missing(android, path, 'look at');
    if (err.code === 'FORBIDDEN') throw err;
    return { exists: false };
  },
  async list(android: AndroidBox, q: FsListQuery): Promise<FsListResult> {
    const path = androidPath(android, q.path, q.workingDir);
    const st = await statOrRefusal(android, path, 'list');
    if (!isDir(st.mode)) throw new BoxflowError('UNPROCESSABLE', `cannot list ${path}: it is not a directory`);
    const data: FsEntry[] = [];
    let truncated = false;
    const walk = async (dir: string, depth: number): Promise<void> => {
      const entries = (await android.listDir(dir)).sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
      if (!entries.length && depth === 1) {
        // Empty, or a folder the shell user may not open (sync cannot tell): `ls` says which.
        const said = await android.shell(sh`ls -a ${dir}`);
        if (/permission denied/i.test(said)) throw deviceRefusal(said, dir, 'list', 'UNPROCESSABLE');
      }
      for (const e of entries) {
        if (data.length >= kFsLimits.listEntries) {
          truncated = true;
          return;
        }
        const full = posix.join(dir, e.name);
        data.push(entryOf(full, deviceInfo(e)));
        if (isDir(e.mode) && depth < (q.depth ?? 1)) await walk(full, depth + 1);
      }
    };
    await walk(path, 1);
    return { data, ...(truncated ? { truncated: true } : {}) };
  },
  async read(android: AndroidBox, q: FsPathQuery): Promise<string> {
    const path = androidPath(android, q.path, q.workingDir);
    const st = await statOrRefusal(android, path, 'read');
    if (isDir(st.mode)) throw new BoxflowError('UNPROCESSABLE', `cannot read ${path}: it is a directory`);
    if (st.size > kFsLimits.readBytes) throw tooLargeToRead(path, st.size);
    // The pull counts what comes, not what STAT said (a link to /dev/zero is 9 bytes to STAT).
    const bytes = await android.pull(path, kFsLimits.readBytes, () => tooLargeToRead(path)).catch((err: unknown) => Promise.reject(transferRefusal(err, path, 'read')));
    return bytes.toString('utf8');
  },
  async write(android: AndroidBox, req: WriteRequest): Promise<FsEntry> {
    const path = androidPath(android, req.path, req.workingDir);
    if (path === '/') throw new BoxflowError('UNPROCESSABLE', "/path: the device's root is a directory");
    const existing = await deviceStat(android, path);
    if (existing && isDir(existing.mode)) throw new BoxflowError('UNPROCESSABLE', `cannot write ${path}: it is a directory`);
    await deviceQuiet(android, sh`mkdir -p ${posix.dirname(path)}`, path, 'write');
    const from = req.file ? createReadStream(req.file) : Readable.from([req.text ?? Buffer.alloc(0)], { objectMode: false });
    await android.writeStream(from, path).catch((err: unknown) => Promise.reject(transferRefusal(err, path, 'write')));
    const st = await deviceStat(android, path);
    if (!st) throw new BoxflowError('DEVICE_ERROR', `the device took ${path} but has no such file afterwards`);
    return entryOf(path, deviceInfo(st));
  },
  async remove(android: AndroidBox, q: FsPathBody): Promise<string> {
    const path = androidPath(android, q.path, q.workingDir);
    if (path === '/' || path === android.workDir) throw new BoxflowError('FORBIDDEN', `/path: ${path === '/' ? "the device's root" : `the box's working directory ${path}`} cannot be removed`);
    const st = await statOrRefusal(android, path, 'remove');
    await deviceQuiet(android, sh`rm -rf ${path}`, path, 'remove');
    return `removed ${isDir(st.mode) ? 'the directory ' : ''}${path}`;
  },
};
