// The order flows start in when several workers share the queue: the slowest first, by how long each
// took in earlier runs, as Jest's test sequencer orders test files. Workers that take flows from one
// queue then end close together, instead of one running the longest flow alone at the end. Flows
// never timed go first (they may be the long ones); ties keep the file order. The durations live in
// the project's node_modules/.cache/boxflow (where tools keep caches; the project of the config's
// folder, else of the working dir); a project without
// node_modules, or a cache that cannot be read or written, runs in file order and says nothing.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Flows kept in the cache: the most recent ones when there are more. */
const kMaxEntries = 2000;

export type Durations = Record<string, number>;

/** The cache file for a project at `rootDir`: in the nearest node_modules above it, if any. */
export function durationsFile(rootDir: string): string | undefined {
  for (let dir = rootDir; ; dir = dirname(dir)) {
    if (statSync(join(dir, 'node_modules'), { throwIfNoEntry: false })?.isDirectory()) return join(dir, 'node_modules', '.cache', 'boxflow', 'flow-durations.json');
    if (dirname(dir) === dir) return undefined;
  }
}

export async function readDurations(file: string | undefined): Promise<Durations> {
  if (!file) return {};
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as unknown;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
    return Object.fromEntries(Object.entries(data).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]) && e[1] >= 0));
  } catch {
    return {};
  }
}

/** `items` slowest first by `known` durations; those without one first of all; ties in their order. */
export function slowestFirst<T>(items: readonly T[], idOf: (item: T) => string, known: Durations): T[] {
  return items
    .map((item, i) => ({ item, i, ms: known[idOf(item)] ?? Infinity }))
    .sort((a, b) => (a.ms === b.ms ? a.i - b.i : b.ms - a.ms))
    .map((x) => x.item);
}

/** Adds this run's durations to `known` and writes the cache (whole, or not at all). */
export async function saveDurations(file: string | undefined, known: Durations, ran: { id: string; durationMs: number }[]): Promise<void> {
  if (!file || !ran.length) return;
  const merged: Durations = { ...known };
  for (const r of ran) {
    delete merged[r.id]; // re-added last: the newest entries are the ones kept
    merged[r.id] = r.durationMs;
  }
  const entries = Object.entries(merged).slice(-kMaxEntries);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(tmp, JSON.stringify(Object.fromEntries(entries)));
    await rename(tmp, file);
  } catch {
    // A read-only checkout keeps file order; nothing to say.
  }
}
