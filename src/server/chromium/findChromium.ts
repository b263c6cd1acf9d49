import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { BoxflowError } from '../../errors.js';

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
