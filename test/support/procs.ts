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

/** Where a process's main thread sleeps in the kernel now ('' while it runs). */
export function wchanOf(pid: number): string {
  return readFileSync(`/proc/${pid}/wchan`, 'utf8').replace(/^0$/, '');
}

/**
 * The bytes the kernel holds, received and not yet read, on the loopback TCP socket from
 * `localPort` to `remotePort` (IPv4 /proc/net/tcp); undefined when there is no such socket.
 */
export function tcpUnread(localPort: number, remotePort: number): number | undefined {
  const hex = (p: number) => p.toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, local, remote, , queues] = line.trim().split(/\s+/);
    if (local?.endsWith(`:${hex(localPort)}`) && remote?.endsWith(`:${hex(remotePort)}`)) return parseInt(queues!.split(':')[1]!, 16);
  }
  return undefined;
}
