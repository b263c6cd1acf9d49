// File descriptors that a program started by the server would inherit: those without close-on-exec.
// Node and libuv open every descriptor of their own with O_CLOEXEC, so such a descriptor came from
// whoever started the server (a pipe, a file, a socket of the parent; Node marks those up to fd 16
// at its start, not the ones above), or from a native module:
// node-pty's pty masters are not marked. Through one, a box's Chromium or command could read or
// write what it leads to: the parent's pipe, or another box's terminal.
import type { StdioOptions } from 'node:child_process';
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';

const kCloexec = 0o2000000;

const info = Buffer.alloc(256); // fdinfo starts "pos:\t0\nflags:\t0102002\n": well within

/**
 * Descriptors above stderr that a child started now would inherit (none known without /proc).
 * Read with one open, read and close per descriptor (about 12 µs each): it runs before every spawn.
 */
export function inheritableFds(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fdinfo');
  } catch {
    return [];
  }
  const fds: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!(fd > 2)) continue;
    let file: number;
    try {
      file = openSync(`/proc/self/fdinfo/${name}`, 'r');
    } catch {
      continue; // closed meanwhile: the descriptor readdirSync itself used
    }
    try {
      const flags = /\nflags:\s*([0-7]+)/.exec(info.toString('latin1', 0, readSync(file, info, 0, info.length, 0)))?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & kCloexec) === 0) fds.push(fd);
    } catch {
      // unreadable: not ours to judge
    } finally {
      closeSync(file);
    }
  }
  return fds;
}

/** The descriptor of Node's IPC channel to the parent (fork(), tsx), which Node itself reads. */
function ipcChannelFd(): number | undefined {
  const fd = (process.channel as { fd?: unknown } | undefined)?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

let closedOnce = false;

/**
 * Closes every descriptor this process inherited (above stderr, without close-on-exec) but Node's
 * IPC channel, so that none reaches a box. Only the first call does: later ones (a second server
 * in the same process) would close the pty masters of the first one's terminals. Call it before
 * anything opens a descriptor of its own without close-on-exec. Returns the descriptors closed.
 */
export function closeInheritedFds(): number[] {
  if (closedOnce) return [];
  closedOnce = true;
  const channel = ipcChannelFd();
  const closed = inheritableFds().filter((fd) => fd !== channel);
  for (const fd of closed) {
    try {
      closeSync(fd);
    } catch {
      // already gone
    }
  }
  return closed;
}

let devNull: number | undefined;

/**
 * `stdio` for child_process.spawn, extended so that the child gets none of inheritableFds(): each
 * such descriptor that `stdio` does not set is replaced, in the child only, by /dev/null (libuv
 * dup2()s every numbered entry into place before the exec; the server's own descriptor is left
 * as it is). Node has no fcntl to mark them close-on-exec. Call it right before spawn, in the same
 * tick: a pty opened in between would not be covered.
 */
export function sealedStdio(stdio: Exclude<StdioOptions, string>): Exclude<StdioOptions, string> {
  const leaked = inheritableFds();
  if (!leaked.length) return stdio;
  devNull ??= openSync('/dev/null', 'r+');
  const out = [...stdio];
  for (const fd of leaked) {
    const set = out[fd];
    if (fd < out.length && set !== undefined && set !== null && set !== 'ignore') continue;
    while (out.length < fd) out.push('ignore');
    out[fd] = devNull;
  }
  return out;
}
