// A temporary folder that is gone when the test process exits (node:test runs each file in its own process).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirs: string[] = [];

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (dirs.push(dir) === 1) process.once('exit', () => dirs.forEach((d) => rmSync(d, { recursive: true, force: true, maxRetries: 3 })));
  return dir;
}
