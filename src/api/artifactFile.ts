// A run's output folder keeps every image once, under its content address: `data/<sha1>.<ext>`.
// The runner writes there, and so does an embedded boxflow serve started for that one run
// (startServer({artifactsDir})), which then names the file in its answer (`artifact`) instead of
// the runner downloading the image and writing it again.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const kArtifactDataDir = 'data';
/** What an answer's `artifact` may be: nothing but a content address in the data folder. */
export const kArtifactPath = /^data\/[0-9a-f]{40}\.[a-z0-9]{1,8}$/;

/**
 * Writes `bytes` to `<outputDir>/data/<sha1>.<ext>` unless that file is already there whole;
 * returns its relative path and whether this call wrote it.
 *
 * Written synchronously: an image is written in well under a millisecond, and fs's thread pool
 * costs several times that per file. Created exclusively under its content address, so a copy
 * already there (an earlier run, a parallel shard, the server of this run) is kept; one of another
 * size was torn by a crash mid-write, and is replaced whole (a temporary name, then a rename).
 */
export function writeArtifact(outputDir: string, bytes: Uint8Array, ext: string): { rel: string; written: boolean } {
  const rel = `${kArtifactDataDir}/${createHash('sha1').update(bytes).digest('hex')}.${ext}`;
  const abs = join(outputDir, rel);
  try {
    create(abs, bytes, join(outputDir, kArtifactDataDir));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (statSync(abs, { throwIfNoEntry: false })?.size === bytes.byteLength) return { rel, written: false };
    const tmp = `${abs}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, bytes);
    renameSync(tmp, abs);
  }
  return { rel, written: true };
}

/** Creates the file, never over an existing one; the data folder is made at the first miss. */
function create(abs: string, bytes: Uint8Array, dir: string): void {
  try {
    writeFileSync(abs, bytes, { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dir, { recursive: true });
    writeFileSync(abs, bytes, { flag: 'wx' });
  }
}
