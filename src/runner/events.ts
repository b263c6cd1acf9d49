// The run's event stream on disk: <output>/results.jsonl gets one JSON line per RunEvent,
// written synchronously as it happens, so a run killed (even by SIGKILL) keeps every event it
// had emitted; and the final results.json. Reading them back: eventsRead.ts; merging: eventsMerge.ts.
import { closeSync, mkdirSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RunEvent, RunResult } from './types.js';

export const kEventsFile = 'results.jsonl';
export const kResultsFile = 'results.json';

export class EventLog {
  readonly file: string;
  private _fd: number | undefined;

  /** Opens <outputDir>/results.jsonl, truncating it unless `append` is set. */
  constructor(outputDir: string, options: { append?: boolean } = {}) {
    mkdirSync(outputDir, { recursive: true });
    this.file = join(outputDir, kEventsFile);
    this._fd = openSync(this.file, options.append ? 'a' : 'w');
  }

  append(event: RunEvent): void {
    if (this._fd === undefined) return;
    // writeSync hands the line to the kernel before returning: SIGKILL cannot lose it.
    writeSync(this._fd, `${JSON.stringify(event)}\n`);
  }

  close(): void {
    if (this._fd === undefined) return;
    closeSync(this._fd);
    this._fd = undefined;
  }
}

/** Writes <outputDir>/results.json (atomically: a reader never sees half a file). Returns its path. */
export function writeResultsJson(outputDir: string, result: RunResult): string {
  return writeJsonAtomic(join(outputDir, kResultsFile), result);
}

/** Writes pretty JSON through a temp file and a rename, so a reader never sees half a file. */
export function writeJsonAtomic(file: string, value: unknown): string {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}
