// boxflow's version, read once from its package.json: the CLI's --version and the client's
// user-agent say the same. src/ (tsx) and dist/src/ (built) sit at different depths, so walk up.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let version: string | undefined;

export function boxflowVersion(): string {
  if (version === undefined) version = readVersion(dirname(fileURLToPath(import.meta.url)));
  return version;
}

function readVersion(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'boxflow' && pkg.version) return pkg.version;
    } catch {
      // no package.json here, or not JSON: keep walking
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
