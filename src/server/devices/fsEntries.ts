// What the file-system endpoints answer on every kind of box: an entry (FsEntry) from a file's type,
// mode, size and time, the 413 of a read past the limit, and fs/write's request once its parts are read.
import { posix } from 'node:path';
import { BoxflowError } from '../../errors.js';
import { kFsLimits, type FsEntry } from '../../api/schemas.js';
import { humanSize, modeString } from '../host/boxFs.js';

/** A file's [type d|f, st_mode, size, mtimeMs]. */
export type Info = ['d' | 'f', number, number, number];

export function entryOf(path: string, [t, mode, size, mtimeMs]: Info): FsEntry {
  const common = { name: path === '/' ? '/' : posix.basename(path), path, mode: modeString(mode, t === 'd'), lastModified: new Date(mtimeMs).toISOString() };
  return t === 'd' ? { type: 'dir', ...common } : { type: 'file', size: humanSize(size), ...common };
}

export function tooLargeToRead(box: string, size?: number): BoxflowError {
  return new BoxflowError('FILE_TOO_LARGE', `${box}${size ? ` is ${humanSize(size)}; ` : ' is too large: '}fs/read answers at most ${kFsLimits.readBytes / 2 ** 20} MiB; read it in parts with a command (e.g. \`tail -c +N | head -c M\`)`);
}

/** fs/write's request, its parts read. */
export interface WriteRequest {
  path: string;
  workingDir?: string;
  /** A text part's content. */
  text?: Buffer;
  /** A file part's content, spooled to the server's disk. */
  file?: string;
}
