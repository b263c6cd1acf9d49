// Paths as a tenant sees them: the box's directory is its root "/", so `/work` is
// <dataDir>/boxes/<id>/work. Every path the API takes or gives is such a box path; the server's
// own paths never reach a tenant. fs/rename checks every component, symlinks included.
import { spawn } from 'node:child_process';
import { lstat, realpath, rename, stat } from 'node:fs/promises';
import { sealedStdio } from './inheritedFds.js';
import { basename, isAbsolute, join, posix, relative, sep } from 'node:path';
import { BoxflowError } from '../../errors.js';
import type { FsEntry, RenameBody } from '../../api/schemas.js';
import type { BoxUser } from './boxUser.js';

/** A box path (absolute from the box root, or relative to `base`), normalised: never above "/". */
export function boxPath(base: string, p: string): string {
  return posix.resolve('/', base, p);
}

/** The real path of a box path, lexically (no symlink is looked at). */
export function realOf(root: string, box: string): string {
  return join(root, box);
}

/** The box path of a real path inside `root`, else undefined. */
export function boxPathOf(root: string, real: string): string | undefined {
  const rel = relative(root, real);
  if (rel === '') return '/';
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return `/${rel.split(sep).join('/')}`;
}

/** `text` with every absolute file path replaced, for messages a tenant may read. */
export function hidePaths(text: string): string {
  return text.replace(/(?<![\w:/.])\/[^\s'"(),:;]+/g, '<path>');
}

const isInside = (root: string, real: string) => boxPathOf(root, real) !== undefined;

interface Checked {
  /** The box path, for messages and answers. */
  box: string;
  /** Real path: the real parent directory plus the leaf, which is never followed. */
  real: string;
  /** lstat of the leaf; undefined when nothing is there. */
  leaf: Awaited<ReturnType<typeof lstat>> | undefined;
}

/**
 * Resolves one side of a rename: the parent directory through realpath (every symlink on the way
 * must land inside the box), the leaf by lstat only. A leaf that is a symlink must point inside the
 * box too (it is renamed as a link, but one to /etc or a dangling one is refused all the same).
 */
async function checkSide(realRoot: string, box: string, field: string, missingParent: string): Promise<Checked> {
  if (box === '/') throw new BoxflowError('FORBIDDEN', `${field}: the box's root directory cannot be renamed`);
  let parent: string;
  try {
    parent = await realpath(realOf(realRoot, posix.dirname(box)));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new BoxflowError('FILE_NOT_FOUND', `${field}: ${missingParent} ${posix.dirname(box)} does not exist`);
    throw new BoxflowError('FORBIDDEN', `${field}: ${box} cannot be reached (${code ?? 'error'})`);
  }
  if (!isInside(realRoot, parent)) throw new BoxflowError('FORBIDDEN', `${field}: ${box} leads outside the box through a symbolic link`);
  const real = join(parent, posix.basename(box));
  const leaf = await lstat(real).catch(() => undefined);
  if (leaf?.isSymbolicLink()) {
    const target = await realpath(real).catch(() => undefined);
    if (!target || !isInside(realRoot, target)) throw new BoxflowError('FORBIDDEN', `${field}: ${box} is a symbolic link that leads outside the box or nowhere`);
  }
  return { box, real, leaf };
}

/**
 * POST /fs/rename for a box whose directory is `root` and whose working dir (a box path) is
 * `workingDir`. Refuses with FORBIDDEN anything that would touch a file outside the box.
 */
export async function renameInBox(root: string, workingDir: string, body: RenameBody, user?: BoxUser): Promise<FsEntry> {
  const realRoot = await realpath(root);
  const base = boxPath(workingDir, body.workingDir ?? '.');
  const from = await checkSide(realRoot, boxPath(base, body.oldPath), '/oldPath', 'the directory');
  const to = await checkSide(realRoot, boxPath(base, body.newPath), '/newPath', 'the parent directory');
  if (!from.leaf) throw new BoxflowError('FILE_NOT_FOUND', `/oldPath: ${from.box} does not exist`);
  if (to.leaf) throw new BoxflowError('FILE_EXISTS', `/newPath: ${to.box} already exists`);
  try {
    await renameAs(user, from.real, to.real);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BoxflowError('FILE_NOT_FOUND', `/oldPath: ${from.box} does not exist`);
    if (code === 'EACCES' || code === 'EPERM') throw new BoxflowError('FORBIDDEN', `cannot rename ${from.box} to ${to.box}: the box's user may not (permission denied)`);
    throw new BoxflowError('UNPROCESSABLE', `cannot rename ${from.box} to ${to.box}: ${code ?? 'error'}`);
  }
  const st = await lstat(to.real);
  const linkTarget = st.isSymbolicLink() ? await stat(to.real).catch(() => undefined) : undefined;
  const shown = linkTarget ?? st;
  const common = { name: basename(to.box), path: boxPathOf(realRoot, to.real) ?? to.box, mode: modeString(shown.mode, shown.isDirectory()), lastModified: shown.mtime.toISOString() };
  return shown.isDirectory() ? { type: 'dir', ...common } : { type: 'file', size: humanSize(shown.size), ...common };
}

const kRenameScript = "try{require('fs').renameSync(process.argv[1],process.argv[2])}catch(e){process.stderr.write(String(e.code||'EIO'));process.exit(1)}";

/**
 * rename(2) as the box's user when there is one: a tenant with a shell could swap a checked
 * directory for a symlink before the rename, and then only the kernel's permissions for the box's
 * user stand between it and the server's files. Without a box user (or when that user cannot run
 * node), the server renames.
 */
async function renameAs(user: BoxUser | undefined, from: string, to: string): Promise<void> {
  if (!user) return rename(from, to);
  const outcome = await new Promise<{ spawned: boolean; code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['-e', kRenameScript, from, to], { uid: user.uid, gid: user.gid, env: {}, cwd: '/', stdio: sealedStdio(['ignore', 'ignore', 'pipe']) });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-200)));
    child.once('error', () => resolve({ spawned: false, code: null, stderr }));
    child.once('close', (code) => resolve({ spawned: true, code, stderr }));
  });
  if (!outcome.spawned) return rename(from, to);
  if (outcome.code !== 0) throw Object.assign(new Error('rename failed'), { code: /^E[A-Z]+$/.test(outcome.stderr.trim()) ? outcome.stderr.trim() : 'EIO' });
}

/** `drwxr-x---` from a stat mode. */
export function modeString(mode: number, dir: boolean): string {
  const bits = 'rwxrwxrwx';
  let out = dir ? 'd' : '-';
  for (let i = 0; i < 9; i++) out += mode & (1 << (8 - i)) ? bits[i] : '-';
  return out;
}

/** `1.5 KB`, as the spec's fs answers show sizes. */
export function humanSize(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${n.toFixed(1)} ${units[u]}`;
}
