// The machine's live processes as /proc shows them, for tests that check what a box left running.
import { readdirSync, readFileSync } from 'node:fs';

export interface Proc {
  pid: number;
  uid: number;
  /** NUL-separated, as /proc/<pid>/cmdline holds it. */
  cmdline: string;
  /** Where it sleeps in the kernel (/proc/<pid>/wchan), e.g. a pipe or socket write. */
  wchan: string;
}

/** Every live (non-zombie) process; one that exits while it is read is left out. */
export function liveProcesses(): Proc[] {
  const out: Proc[] = [];
  for (const n of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const status = readFileSync(`/proc/${n}/status`, 'utf8');
      if (/^State:\s+Z/m.test(status)) continue;
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      out.push({ pid: Number(n), uid, cmdline: readFileSync(`/proc/${n}/cmdline`, 'utf8'), wchan: readFileSync(`/proc/${n}/wchan`, 'utf8') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
