import { accessSync, closeSync, constants, openSync, readSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join } from 'node:path';
import { BoxflowError } from '../../../../errors.js';

const kCandidates = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];
const kFixedPaths = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/snap/bin/chromium'];

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** BOXFLOW_CHROMIUM, else Debian's /usr/bin/chromium, else the first of chromium, chromium-browser, google-chrome… on PATH. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.BOXFLOW_CHROMIUM?.trim();
  if (named) {
    const resolved = isAbsolute(named) ? named : searchPath(named, env);
    if (resolved && executable(resolved)) return resolved;
    throw new BoxflowError('CHROMIUM_NOT_FOUND', `BOXFLOW_CHROMIUM is "${named}", which is not an executable file`);
  }
  for (const file of kFixedPaths) if (executable(file)) return file;
  for (const name of kCandidates) {
    const found = searchPath(name, env);
    if (found) return found;
  }
  throw new BoxflowError('CHROMIUM_NOT_FOUND', `no Chromium found (looked for ${kCandidates.join(', ')}); install Debian's chromium or set BOXFLOW_CHROMIUM to its path`);
}

function searchPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    if (executable(file)) return file;
  }
  return undefined;
}

/** A Chromium to exec: its binary and the flags to give it before ours. */
export interface ChromiumBinary {
  file: string;
  args: string[];
}

/**
 * Flags of Debian's launcher (its /etc/chromium.d defaults) that change what a page or the network
 * sees: no hyperlink-auditing pings, no Cast discovery. The others do not apply headless (GPU
 * rasterization, extension UI) or are ours already (--no-default-browser-check,
 * --disable-dev-shm-usage, --disable-background-networking); its API keys serve Google's services,
 * which a box does not use.
 */
const kLauncherFlags = ['--disable-pings', '--media-router=0'];

/**
 * How to start `launcher` with no launcher script in between. A launcher (Debian's
 * /usr/bin/chromium, Google's google-chrome) is a shell script that runs programs from PATH
 * (uname, grep, ...) and sources files before it execs the browser, with the uid and environment
 * it was given. When the launcher's real binary is where its package puts it (Debian's
 * /usr/lib/chromium/chromium, Google's chrome beside its script), that binary is started, with
 * the launcher's flags that matter here; otherwise the launcher itself, which process.ts gives a
 * fixed environment.
 */
export function realChromium(launcher: string): ChromiumBinary {
  let real: string;
  try {
    real = realpathSync(launcher);
  } catch {
    return { file: launcher, args: [] }; // spawn says what is wrong with it
  }
  if (magic(real) !== 'script') return { file: launcher, args: [] };
  const name = basename(real);
  for (const candidate of [join('/usr/lib', name, name), join('/usr/lib64', name, name), join(dirname(real), 'chrome')]) {
    if (candidate !== real && executable(candidate) && magic(candidate) === 'elf') return { file: candidate, args: [...kLauncherFlags] };
  }
  return { file: launcher, args: [] };
}

/** What a file starts with: an ELF binary, a `#!` script, or something else (unreadable too). */
function magic(file: string): 'elf' | 'script' | 'other' {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(4);
    const n = readSync(fd, head, 0, 4, 0);
    if (n === 4 && head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))) return 'elf';
    if (n >= 2 && head[0] === 0x23 && head[1] === 0x21) return 'script';
    return 'other';
  } catch {
    return 'other';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
