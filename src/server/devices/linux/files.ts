// A local Linux box's files and run-code, as the box's own user: box paths, resolved inside the box
// first, then the I/O done by a short `node` child as the box's user, sizes bounded. Why each rule
// holds against a tenant with a shell: docs/server.md, "Security model" (Commands, run-code and files).
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { Readable } from 'node:stream';
import { BoxflowError } from '../../../errors.js';
import { parseDuration } from '../../../api/duration.js';
import { kFsLimits, type CommandResult, type FsEntry, type FsExistsResult, type FsListQuery, type FsListResult, type FsPathBody, type FsPathQuery, type RunCodeBody, type RunCodeLanguage } from '../../../api/schemas.js';
import type { LinuxHeld } from '../held.js';
import { boxPath, boxPathOf, realOf } from '../../host/boxFs.js';
import type { OutputSink } from '../commandOutput.js';
import { boxRoot, noNul, runInLinuxBox } from './commands.js';
import { entryOf, tooLargeToRead, type Info, type WriteRequest } from '../fsEntries.js';
import { sealedStdio } from '../../host/inheritedFds.js';

const kFsChildMs = 30_000;
const kFsWriteChildMs = 5 * 60_000;

// ---------------------------------------------------------------- Linux: the box user's file operations

/**
 * The child that does a Linux box's file I/O as the box's user (`node -e`, argv: op, real path,
 * args). It answers JSON on stdout (read: the bytes); a failure is the errno code on stderr, exit 1.
 * An entry is [type d|f, mode, size, mtimeMs]; a link is described by what it points to (or by
 * itself when it points nowhere), and a listing does not descend into linked directories.
 */
const kFsScript = String.raw`'use strict';
const fs = require('fs');
const path = require('path');
const [op, target, a, b] = process.argv.slice(1);
const out = (v) => process.stdout.write(JSON.stringify(v));
const fail = (code) => { process.stderr.write(String(code || 'EIO')); process.exit(1); };
const info = (st) => [st.isDirectory() ? 'd' : 'f', st.mode, st.size, st.mtimeMs];
const ops = {
  stat() {
    let st;
    try { st = fs.statSync(target); } catch (e) { if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return out(null); throw e; }
    out(info(st));
  },
  list() {
    const depth = Number(a), max = Number(b), entries = [];
    let truncated = false;
    if (!fs.statSync(target).isDirectory()) fail('ENOTDIR');
    const walk = (dir, rel, d) => {
      let names;
      try { names = fs.readdirSync(dir).sort(); } catch (e) { if (d === 1) throw e; return; }
      for (const name of names) {
        if (entries.length >= max) { truncated = true; return; }
        const full = path.join(dir, name), r = rel ? rel + '/' + name : name;
        let st;
        try { st = fs.lstatSync(full); } catch { continue; }
        const link = st.isSymbolicLink();
        if (link) { try { st = fs.statSync(full); } catch {} }
        entries.push([r, ...info(st)]);
        if (!link && st.isDirectory() && d < depth) walk(full, r, d + 1);
      }
    };
    walk(target, '', 1);
    out({ entries, truncated });
  },
  read() {
    const fd = fs.openSync(target, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (st.isDirectory()) fail('EISDIR');
    if (!st.isFile()) fail('ENOTREG');
    if (st.size > Number(a)) fail('EFBIG ' + st.size);
    fs.createReadStream('', { fd, start: 0, end: Number(a) }).on('error', (e) => fail(e.code)).pipe(process.stdout);
  },
  write() {
    const dir = path.dirname(target);
    fs.mkdirSync(dir, { recursive: true });
    let mode;
    try {
      const st = fs.statSync(target);
      if (st.isDirectory()) fail('EISDIR');
      mode = st.mode & 0o7777;
    } catch (e) { if (e.code !== 'ENOENT') throw e; }
    const tmp = path.join(dir, '.boxflow-write-' + process.pid + '-' + Date.now().toString(36));
    const ws = fs.createWriteStream('', { fd: fs.openSync(tmp, 'wx', 0o666) });
    const undo = (e) => { try { fs.unlinkSync(tmp); } catch {} fail(e && e.code); };
    ws.on('error', undo);
    process.stdin.on('error', undo);
    ws.on('finish', () => {
      try {
        if (mode !== undefined) fs.chmodSync(tmp, mode);
        fs.renameSync(tmp, target);
        out(info(fs.statSync(target)));
      } catch (e) { undo(e); }
    });
    process.stdin.pipe(ws);
  },
  remove() {
    const st = fs.lstatSync(target);
    fs.rmSync(target, { recursive: true });
    out(st.isDirectory() ? 'd' : 'f');
  },
};
try { ops[op](); } catch (e) { fail(e.code); }
`;


/** Thrown for a child's failure: the errno code it reported. */
class FsFailure extends Error {
  constructor(readonly code: string, readonly detail: string) {
    super(code);
  }
}

/** Runs the file child for a Linux box (as its user when isolated); its stdout, at most `maxOut` bytes. */
function fsChild(entry: LinuxHeld, args: string[], opts: { stdin?: Readable; maxOut?: number; timeoutMs?: number } = {}): Promise<Buffer> {
  const user = entry.user;
  const maxOut = opts.maxOut ?? 64 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', kFsScript, ...args], { ...(user ? { uid: user.uid, gid: user.gid } : {}), env: {}, cwd: '/', stdio: sealedStdio([opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe']) });
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? kFsChildMs);
    child.stdout!.on('data', (d: Buffer) => {
      size += d.length;
      if (size > maxOut) {
        over = true;
        child.kill('SIGKILL');
      } else chunks.push(d);
    });
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(0, 200)));
    if (opts.stdin) {
      child.stdin!.on('error', () => {});
      opts.stdin.on('error', () => child.kill('SIGKILL'));
      opts.stdin.pipe(child.stdin!);
    }
    child.once('error', (err) => {
      clearTimeout(timer);
      const code = (err as NodeJS.ErrnoException).code;
      // The box's user cannot run this node (e.g. one under /root): fail closed, never do the I/O as root.
      if (user && (code === 'EACCES' || code === 'ENOENT' || code === 'EPERM')) reject(new BoxflowError('INTERNAL', `file operations run as the box's user, who cannot run this server's node (${code}); install node where every user can run it (e.g. /usr/bin/node)`));
      else reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (timedOut) return reject(new FsFailure('ETIMEDOUT', ''));
      if (over) return reject(new FsFailure('EFBIG', String(size)));
      if (code !== 0) {
        const [errno = 'EIO', ...rest] = stderr.trim().split(' ');
        return reject(new FsFailure(/^E[A-Z0-9]+$/.test(errno) ? errno : 'EIO', rest.join(' ')));
      }
      resolve(Buffer.concat(chunks));
    });
  });
}

/** A file operation's failure in this API's terms; `box` is the path as the tenant named it. */
function fsError(err: unknown, box: string, what: string): unknown {
  if (!(err instanceof FsFailure)) return err;
  switch (err.code) {
    case 'ENOENT':
      return new BoxflowError('FILE_NOT_FOUND', `${box} does not exist in the box`);
    case 'EACCES':
    case 'EPERM':
      return new BoxflowError('FORBIDDEN', `cannot ${what} ${box}: the box's user may not (permission denied)`);
    case 'EISDIR':
      return new BoxflowError('UNPROCESSABLE', `cannot ${what} ${box}: it is a directory`);
    case 'ENOTDIR':
      return new BoxflowError('UNPROCESSABLE', `cannot ${what} ${box}: it, or a folder on its way, is not a directory`);
    case 'ENOTREG':
      return new BoxflowError('UNPROCESSABLE', `cannot ${what} ${box}: it is not a regular file (a device, socket or pipe)`);
    case 'EFBIG':
      return tooLargeToRead(box, Number(err.detail) || undefined);
    case 'EEXIST':
      return new BoxflowError('FILE_EXISTS', `cannot ${what} ${box}: something is in the way`);
    case 'ENOSPC':
    case 'EDQUOT':
      return new BoxflowError('UNPROCESSABLE', `cannot ${what} ${box}: no space left on the box's disk`);
    case 'ENAMETOOLONG':
      return new BoxflowError('INVALID_REQUEST', `cannot ${what} ${box}: a name in it is too long`);
    case 'ETIMEDOUT':
      return new BoxflowError('UNPROCESSABLE', `cannot ${what} ${box}: it did not finish within ${kFsChildMs / 1000} s`);
    default:
      return new BoxflowError('UNPROCESSABLE', `cannot ${what} ${box} (${err.code})`);
  }
}


const inside = (root: string, real: string) => boxPathOf(root, real) !== undefined;

interface Resolved {
  /** The path as a box path, for answers and messages. */
  box: string;
  /** What the child works on. */
  real: string;
}

/**
 * A box path's real path, with fs/rename's rules: every directory on the way is resolved (a link
 * among them must land inside the box), and a link at the end must point inside the box too.
 * `follow`: the end's link is followed (read, list, info, exists, write). `leaf`: it is not (remove
 * removes the link). `create`: folders that do not exist yet are made by the child (write).
 */
async function resolveLinux(entry: LinuxHeld, path: string, workingDir: string | undefined, how: 'follow' | 'leaf' | 'create'): Promise<Resolved> {
  const realRoot = await boxRoot(entry);
  const base = boxPath(entry.record.config.workingDir ?? '/', noNul(workingDir ?? '.', '/workingDir'));
  const box = boxPath(base, noNul(path, '/path'));
  if (box === '/') {
    if (how === 'leaf') throw new BoxflowError('FORBIDDEN', "/path: the box's root directory cannot be removed");
    return { box, real: realRoot };
  }
  const missing: string[] = [];
  let parent: string | undefined;
  for (let at = posix.dirname(box); parent === undefined; at = posix.dirname(at)) {
    try {
      parent = await realpath(realOf(realRoot, at));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && how === 'create' && at !== '/') {
        // Missing, or a link that points nowhere (which would lead the child who knows where).
        if (await lstat(realOf(realRoot, at)).catch(() => undefined)) throw new BoxflowError('FORBIDDEN', `/path: ${box} leads through a symbolic link that points nowhere`);
        missing.unshift(posix.basename(at));
        continue;
      }
      if (code === 'ENOENT') throw new BoxflowError('FILE_NOT_FOUND', `/path: ${box} does not exist in the box`);
      if (code === 'ENOTDIR') throw new BoxflowError(how === 'create' ? 'UNPROCESSABLE' : 'FILE_NOT_FOUND', `/path: ${box} does not exist in the box (a part of it is a file)`);
      throw new BoxflowError('FORBIDDEN', `/path: ${box} cannot be reached (${code ?? 'error'})`);
    }
  }
  if (!inside(realRoot, parent)) throw new BoxflowError('FORBIDDEN', `/path: ${box} leads outside the box through a symbolic link`);
  let real = join(parent, ...missing, posix.basename(box));
  if (!missing.length) {
    const leaf = await lstat(real).catch(() => undefined);
    if (leaf?.isSymbolicLink()) {
      const target = await realpath(real).catch(() => undefined);
      if (!target || !inside(realRoot, target)) throw new BoxflowError('FORBIDDEN', `/path: ${box} is a symbolic link that leads outside the box or nowhere`);
      if (how !== 'leaf') real = target;
    }
  }
  return { box, real };
}


export const linuxFs = {
  async info(entry: LinuxHeld, q: FsPathQuery): Promise<FsEntry> {
    const { box, real } = await resolveLinux(entry, q.path, q.workingDir, 'follow');
    const got = JSON.parse((await fsChild(entry, ['stat', real]).catch((e: unknown) => Promise.reject(fsError(e, box, 'read')))).toString()) as Info | null;
    if (!got) throw new BoxflowError('FILE_NOT_FOUND', `${box} does not exist in the box`);
    return entryOf(box, got);
  },
  async exists(entry: LinuxHeld, q: FsPathBody): Promise<FsExistsResult> {
    let resolved: Resolved;
    try {
      resolved = await resolveLinux(entry, q.path, q.workingDir, 'follow');
    } catch (err) {
      if (BoxflowError.is(err) && err.code === 'FILE_NOT_FOUND') return { exists: false };
      throw err;
    }
    const got = JSON.parse((await fsChild(entry, ['stat', resolved.real]).catch((e: unknown) => Promise.reject(fsError(e, resolved.box, 'look at')))).toString()) as Info | null;
    return got ? { exists: true, type: got[0] === 'd' ? 'dir' : 'file' } : { exists: false };
  },
  async list(entry: LinuxHeld, q: FsListQuery): Promise<FsListResult> {
    const { box, real } = await resolveLinux(entry, q.path, q.workingDir, 'follow');
    const got = JSON.parse((await fsChild(entry, ['list', real, String(q.depth ?? 1), String(kFsLimits.listEntries)]).catch((e: unknown) => Promise.reject(fsError(e, box, 'list')))).toString()) as { entries: Array<[string, ...Info]>; truncated: boolean };
    const data = got.entries.map(([rel, ...info]) => entryOf(posix.join(box, rel), info));
    return { data, ...(got.truncated ? { truncated: true } : {}) };
  },
  async read(entry: LinuxHeld, q: FsPathQuery): Promise<string> {
    const { box, real } = await resolveLinux(entry, q.path, q.workingDir, 'follow');
    const bytes = await fsChild(entry, ['read', real, String(kFsLimits.readBytes)], { maxOut: kFsLimits.readBytes }).catch((e: unknown) => Promise.reject(fsError(e, box, 'read')));
    return bytes.toString('utf8');
  },
  async write(entry: LinuxHeld, req: WriteRequest): Promise<FsEntry> {
    const { box, real } = await resolveLinux(entry, req.path, req.workingDir, 'create');
    if (box === '/') throw new BoxflowError('UNPROCESSABLE', "/path: the box's root is a directory");
    const stdin = req.file ? createReadStream(req.file) : Readable.from([req.text ?? Buffer.alloc(0)], { objectMode: false });
    const got = JSON.parse((await fsChild(entry, ['write', real], { stdin, timeoutMs: kFsWriteChildMs }).catch((e: unknown) => Promise.reject(fsError(e, box, 'write')))).toString()) as Info;
    return entryOf(box, got);
  },
  async remove(entry: LinuxHeld, q: FsPathBody): Promise<string> {
    const { box, real } = await resolveLinux(entry, q.path, q.workingDir, 'leaf');
    const t = JSON.parse((await fsChild(entry, ['remove', real]).catch((e: unknown) => Promise.reject(fsError(e, box, 'remove')))).toString()) as 'd' | 'f';
    return `removed ${t === 'd' ? 'the directory ' : ''}${box}`;
  },
};

// ---------------------------------------------------------------- run-code

interface Interpreter {
  program: string;
  /** One option before the file, or ''. */
  option: string;
  suffix: string;
}

const kInterpreters: Record<RunCodeLanguage, Interpreter> = {
  bash: { program: 'bash', option: '', suffix: '.sh' },
  python: { program: 'python3', option: '', suffix: '.py' },
  typescript: { program: 'node', option: '--experimental-strip-types', suffix: '.ts' },
  javascript: { program: 'node', option: '', suffix: '.js' },
  sh: { program: 'sh', option: '', suffix: '.sh' },
};

/**
 * As the box's user: the code (on stdin) into a fresh folder of the box's directory ($1), run by the
 * interpreter ($3, with option $4) with the request's argv, the folder removed after.
 */
const kRunCodeScript = `d=$(mktemp -d "$1/.boxflow-code-XXXXXX") || exit 125
f="$d/main$2"; p=$3; o=$4; shift 4
if ! cat > "$f"; then rm -rf "$d"; exit 125; fi
if [ -n "$o" ]; then "$p" "$o" "$f" "$@"; else "$p" "$f" "$@"; fi
s=$?; rm -rf "$d"; exit $s`;

/** Which languages the box's user can run, found on its PATH (cached per box and PATH). */
const kDetectLanguages = `for l in bash:bash python:python3 javascript:node sh:sh; do command -v "\${l#*:}" >/dev/null 2>&1 && echo "\${l%%:*}"; done
command -v node >/dev/null 2>&1 && node --experimental-strip-types -e 0 >/dev/null 2>&1 && echo typescript
exit 0`;

const detected = new WeakMap<LinuxHeld, Map<string, Promise<RunCodeLanguage[]>>>();

async function linuxLanguages(entry: LinuxHeld, envs: Record<string, string> | undefined): Promise<RunCodeLanguage[]> {
  const key = envs?.PATH ?? entry.record.config.envs.PATH ?? '';
  let byPath = detected.get(entry);
  if (!byPath) detected.set(entry, (byPath = new Map()));
  let found = byPath.get(key);
  if (!found) {
    found = runInLinuxBox(entry, { argv: ['/bin/sh', '-c', kDetectLanguages], ...(envs ? { envs } : {}), timeoutMs: 10_000 }).then((r) => r.stdout.split('\n').filter((l): l is RunCodeLanguage => l in kInterpreters));
    byPath.set(key, found);
    found.catch(() => byPath.delete(key));
  }
  return found;
}

export async function runCodeLinux(entry: LinuxHeld, body: RunCodeBody, signal?: AbortSignal, output?: OutputSink): Promise<CommandResult> {
  const language = body.language ?? 'python';
  const timeoutMs = parseDuration(body.timeout ?? '30s', '/timeout');
  const have = await linuxLanguages(entry, body.envs);
  if (!have.includes(language)) {
    const { program } = kInterpreters[language];
    const why = language === 'typescript' && have.includes('javascript') ? 'its node cannot strip types (node 22.6 or later can)' : `the box's user finds no ${program} on its PATH`;
    throw new BoxflowError('UNPROCESSABLE', `/language: this box cannot run ${language}: ${why}; it runs ${have.join(', ') || 'none of them'}`);
  }
  const { program, option, suffix } = kInterpreters[language];
  const argv = ['/bin/sh', '-c', kRunCodeScript, 'boxflow-run-code', await boxRoot(entry), suffix, program, option, ...(body.argv ?? [])];
  return runInLinuxBox(entry, { argv, ...(body.envs ? { envs: body.envs } : {}), timeoutMs, ...(body.workingDir !== undefined ? { workingDir: body.workingDir } : {}), stdin: Buffer.from(body.code, 'utf8'), ...(output ? { output } : {}) }, signal);
}

