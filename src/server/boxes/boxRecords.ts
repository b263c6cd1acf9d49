// What of a box outlives its server: one file per box, <dataDir>/records/<id>.json (root-only, as
// all of the data dir but boxes/), naming its record, tenant, kind, settings and where its files
// and users are. A serve restarted on the data dir lists these boxes as `stopped` (boxLifecycle.ts).
// Each write goes to a temporary file, is flushed to disk and renamed over the old one, so a crash
// in the middle of a write leaves the old file or the new one, never a torn one.
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Box, Resolution } from '../../api/schemas.js';
import type { BoxUser } from '../host/boxUser.js';

/** Where a box's device comes from: Chromium on this machine, a Selenium Grid session, an adb device. */
export type BoxKind = 'local' | 'grid' | 'android';

export interface SavedBox {
  v: 1;
  record: Box;
  tenant: string;
  kind: BoxKind;
  /** The action scale (`updateSettings`). */
  scale: number;
  /** The screen size the box asked for (Linux: its browser window; Android: `config.resolution`, if any). */
  resolution: Resolution | null;
  /** Local boxes: the box's directory (its root) and the real path of its working dir. */
  dir: string;
  workDir: string;
  /** Local boxes on an isolating server: the uids its files belong to. */
  user: BoxUser | null;
  /** Android boxes: the serial of the device they claim again at start. */
  serial: string | null;
}

const kRecordsDir = 'records';

function isSaved(v: unknown): v is SavedBox {
  const s = v as SavedBox;
  return (
    typeof s === 'object' && s !== null && s.v === 1 &&
    typeof s.record?.id === 'string' && /^[A-Za-z0-9-]+$/.test(s.record.id) &&
    typeof s.tenant === 'string' && ['local', 'grid', 'android'].includes(s.kind) &&
    typeof s.scale === 'number' && typeof s.dir === 'string' && typeof s.workDir === 'string'
  );
}

/** The box records of one data dir. Writes of one box are serialised; an unchanged record is not written again. */
export class BoxRecords {
  readonly #dir: string;
  readonly #writing = new Map<string, Promise<void>>();
  readonly #written = new Map<string, string>();
  #seq = 0;

  constructor(dataDir: string) {
    this.#dir = join(dataDir, kRecordsDir);
  }

  /** Writes the box's file when it changed since the last write. Never rejects: a failed write is tried again at the next change. */
  save(box: SavedBox): Promise<void> {
    const id = box.record.id;
    const text = JSON.stringify(box);
    if (this.#written.get(id) === text) return this.#writing.get(id) ?? Promise.resolve();
    this.#written.set(id, text);
    const tmp = join(this.#dir, `.${id}.${process.pid}.${++this.#seq}.tmp`);
    const write = (this.#writing.get(id) ?? Promise.resolve()).then(async () => {
      if (this.#written.get(id) !== text) return; // a later save or a remove came first
      await mkdir(this.#dir, { recursive: true, mode: 0o700 });
      const file = await open(tmp, 'w', 0o600);
      try {
        await file.writeFile(text);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(tmp, join(this.#dir, `${id}.json`));
    }).catch(async () => {
      await unlink(tmp).catch(() => {});
      if (this.#written.get(id) === text) this.#written.delete(id);
    });
    this.#writing.set(id, write);
    return write;
  }

  /** The box is terminated: nothing of it comes back. */
  async remove(id: string): Promise<void> {
    this.#written.set(id, '');
    await this.#writing.get(id);
    await unlink(join(this.#dir, `${id}.json`)).catch(() => {});
    this.#writing.delete(id);
    this.#written.delete(id);
  }

  /** Every readable record; unreadable ones are reported through `onBad` and left for a person to look at. */
  async load(onBad: (name: string, why: string) => void): Promise<SavedBox[]> {
    let names: string[];
    try {
      names = await readdir(this.#dir);
    } catch {
      return [];
    }
    const found: SavedBox[] = [];
    for (const name of names) {
      const file = join(this.#dir, name);
      // What a crash left half-written: the record it was replacing is still there.
      if (name.endsWith('.tmp')) {
        await unlink(file).catch(() => {});
        continue;
      }
      if (!name.endsWith('.json')) continue;
      try {
        const saved: unknown = JSON.parse(await readFile(file, 'utf8'));
        if (!isSaved(saved) || `${saved.record.id}.json` !== name) throw new Error('not a box record');
        this.#written.set(saved.record.id, JSON.stringify(saved));
        found.push(saved);
      } catch (err) {
        onBad(name, (err as Error).message);
      }
    }
    return found;
  }
}
