// Commands on a Linux box (POST /boxes/{id}/commands, and run-code through it). A command is the
// tenant's own shell line, so it is not restricted; what keeps it inside the box is who runs it. When
// the server runs as root it runs as the box's own user (never the browser's: a box's shell cannot
// signal, trace or read its Chromium), in network and pid namespaces of its own (no network; a /proc
// that shows only its own processes), with the box's environment and nothing of the server's
// (isolatedLaunch, boxUser.ts). The command is the first process of its pid namespace: when it ends,
// at its timeout (exit code 124, as GNU `timeout` and GBOX answer), when the request goes away or
// when the box ends, the kernel kills everything it left, whatever group or session that joined.
// Without root it runs as the server's user with the box's environment (not isolated, as the web
// terminal), as a process group of its own. stdout and stderr are kept apart, each cut at
// kCommandOutputMax bytes and said so; a box runs at most kMaxCommandsPerBox at once.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { realpath, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { BoxflowError } from '../../../errors.js';
import { parseDuration } from '../../../api/duration.js';
import { kCommandOutputMax, type CommandBody, type CommandResult } from '../../../api/schemas.js';
import type { LinuxHeld } from '../held.js';
import { boxPath, boxPathOf, realOf } from '../../host/boxFs.js';
import { boxEnv, checkBoxEnvs, isolatedLaunch, type IsolatedLaunch } from '../../host/boxUser.js';
import { noNul, type OutputSink } from '../commandOutput.js';

export { noNul } from '../commandOutput.js';
import { killLedGroup, type ProcessIdentity } from '../../host/processes.js';
import { sealedStdio } from '../../host/inheritedFds.js';
import { Backpressure, commandResult, Output } from '../commandOutput.js';

/** Commands (and run-code) one box runs at the same time; one more is 429 RATE_LIMITED. */
export const kMaxCommandsPerBox = 4;
/** After its shell has exited, how long a command's output may take to drain before the answer goes. */
const kDrainMs = 2_000;
const running = new WeakMap<LinuxHeld, number>();

/** The real path of a Linux box's directory: what box paths are resolved in. */
export async function boxRoot(entry: LinuxHeld): Promise<string> {
  if (!entry.dir) throw new BoxflowError('GRID_UNSUPPORTED', "this box's browser runs on a Selenium Grid node, so it has no shell or files on this server; create a box on a server without --grid for that");
  return realpath(entry.dir);
}


/**
 * A request's working dir: `workingDir` as a box path (relative to the box's own working dir), an
 * existing directory that no symbolic link leads out of the box from. Its real path, for the box's
 * user to enter.
 */
export async function commandDir(entry: LinuxHeld, workingDir: string | undefined, field = '/workingDir'): Promise<string> {
  const realRoot = await boxRoot(entry);
  const box = boxPath(entry.record.config.workingDir ?? '/', noNul(workingDir ?? '.', field));
  let real: string;
  try {
    real = await realpath(realOf(realRoot, box));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new BoxflowError('FILE_NOT_FOUND', `${field}: ${box} does not exist in the box`);
    throw new BoxflowError('FORBIDDEN', `${field}: ${box} cannot be reached (${code ?? 'error'})`);
  }
  if (boxPathOf(realRoot, real) === undefined) throw new BoxflowError('FORBIDDEN', `${field}: ${box} leads outside the box through a symbolic link`);
  if (!(await stat(real)).isDirectory()) throw new BoxflowError('INVALID_REQUEST', `${field}: ${box} is not a directory`);
  return real;
}

export interface LinuxRun {
  /** The program and its arguments (the box user's PATH finds a bare name). */
  argv: string[];
  /** On top of the box's own `config.envs`; checked like them (checkBoxEnvs). */
  envs?: Record<string, string>;
  timeoutMs: number;
  /** A box path; default: the box's working dir. */
  workingDir?: string;
  /** Written to the program's stdin, which is then closed; without it stdin is /dev/null. */
  stdin?: Buffer;
  /** Bytes kept of stdout and of stderr each; default kCommandOutputMax. */
  outputMax?: number;
  /** The output goes here as it comes (the answer's stdout and stderr are then empty); see OutputSink. */
  output?: OutputSink;
}

/**
 * Runs a program in a Linux box as its user (see the top of this file) and answers
 * `{exitCode, stdout, stderr}`: 124 at the timeout, 128+N when a signal N ended it. The request
 * going away (`signal`) or the box ending kills it too. With `run.output` the output is streamed
 * there (the same bounds and notes), and the command is not read from while its reader lags behind.
 */
export async function runInLinuxBox(entry: LinuxHeld, run: LinuxRun, signal?: AbortSignal): Promise<CommandResult> {
  checkBoxEnvs(run.envs, '/envs');
  for (const a of run.argv) noNul(a, '/command');
  const cwd = await commandDir(entry, run.workingDir);
  const user = entry.user;
  const env = boxEnv(entry.dir, { ...entry.record.config.envs, ...run.envs });

  const now = running.get(entry) ?? 0;
  if (now >= kMaxCommandsPerBox) throw new BoxflowError('RATE_LIMITED', `box ${entry.record.id} already runs ${now} commands, the most it may run at once; wait for one to end`);
  running.set(entry, now + 1);
  let launch: IsolatedLaunch | undefined;
  try {
    signal?.throwIfAborted();
    // `sh -c <line>` runs as the launch's own shell (eval), so the line is on no command line.
    const [a0, a1, a2, ...rest] = run.argv;
    const command = a0 === '/bin/sh' && a1 === '-c' && a2 !== undefined && !rest.length ? { shellScript: a2 } : { argv: run.argv };
    launch = user ? await isolatedLaunch(user, entry.dir, env, command, cwd) : undefined;
    const [file, ...args] = launch ? launch.argv : run.argv;
    // detached: the command leads a session and process group of its own.
    const child = spawn(file!, args, { cwd: launch ? '/' : cwd, env: launch ? launch.rootEnv : env, detached: true, stdio: sealedStdio([run.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe']) });
    const max = run.outputMax ?? kCommandOutputMax;
    const sink = run.output;
    const stdout = new Output(max, sink && ((text) => sink.write('stdout', text)));
    const stderr = new Output(max, sink && ((text) => sink.write('stderr', text)));
    const pressure = new Backpressure(sink, [child.stdout!, child.stderr!]);
    child.stdout!.on('data', (d: Buffer) => {
      stdout.add(d);
      pressure.check();
    });
    child.stderr!.on('data', (d: Buffer) => {
      stderr.add(d);
      pressure.check();
    });
    if (run.stdin) {
      child.stdin!.on('error', () => {}); // a program that does not read its stdin
      child.stdin!.end(run.stdin);
    }
    const failed = new Promise<never>((_, reject) => child.once('error', reject));
    failed.catch(() => {});
    const exited = new Promise<{ code: number | null; sig: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, sig) => resolve({ code, sig })));
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));

    const pid = child.pid;
    // Read in the tick of the spawn: node has not reaped the child yet, so the pid is still its own.
    const leader = pid === undefined ? undefined : identity(pid);
    // For reaping after a crash of the server. An isolated box's processes are all reaped by its uid,
    // so its commands stay out of the ledger, which keeps only its latest 64 entries (the browser's must stay).
    if (pid !== undefined && !user) void entry.ledger.add(pid);
    let sweeping: Promise<void> | undefined;
    const kill = () => {
      // Until node has reaped the launcher its pid is still ours, so it and its group can be named by it.
      if (pid !== undefined && child.exitCode === null && child.signalCode === null) {
        // Isolated: the namespace's first process; its end takes every process of the namespace along.
        const first = launch?.programPid(pid);
        for (const target of [-pid, first]) {
          try {
            if (target !== undefined) process.kill(target, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
      }
      if (!launch) sweeping ??= leader ? killLedGroup(leader).catch(() => {}) : Promise.resolve();
    };
    let timedOut = false;
    const deadline = performance.now() + run.timeoutMs;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, run.timeoutMs);
    const onAbort = () => kill();
    signal?.addEventListener('abort', onAbort, { once: true });
    const onGone = () => {
      if (entry.record.status === 'terminated') kill();
    };
    entry.onBrowserGone.add(onGone);
    try {
      const { code, sig } = await Promise.race([exited, failed]);
      // Not isolated: whatever the shell left in its group ends with it (detached output included).
      if (!launch) sweeping ??= leader ? killLedGroup(leader).catch(() => {}) : Promise.resolve();
      await sweeping;
      // A streamed command's reader that lags behind keeps the output coming until the timeout.
      for (let done = false; !done; ) {
        const drained = new AbortController();
        done = await Promise.race([closed.then(() => true), sleep(kDrainMs, false, { signal: drained.signal }).catch(() => true)]);
        drained.abort();
        if (!(pressure.paused && performance.now() < deadline)) break;
      }
      child.stdout!.destroy();
      child.stderr!.destroy();
      if (signal?.aborted) throw signal.reason;
      if (entry.record.status === 'terminated') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} was terminated while the command ran`);
      if (timedOut) return commandResult(124, stdout, stderr, `timed out after ${run.timeoutMs} ms; the command's processes were killed`);
      return commandResult(code ?? 128 + (sig ? (constants.signals[sig] ?? 0) : 0), stdout, stderr);
    } catch (err) {
      kill();
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'E2BIG') throw new BoxflowError('INVALID_REQUEST', 'the command, its arguments and its environment are too large for one program (the system limit is some 128 KiB per value, 2 MiB together)');
      if (code && /^E[A-Z]+$/.test(code)) throw new BoxflowError('UNPROCESSABLE', `the command could not be started in the box (${code})`);
      throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      entry.onBrowserGone.delete(onGone);
    }
  } finally {
    await launch?.done();
    const left = (running.get(entry) ?? 1) - 1;
    if (left > 0) running.set(entry, left);
    else running.delete(entry);
  }
}

/** POST /boxes/{id}/commands on a Linux box: the body's command line, run by `/bin/sh -c`. */
export function runLinuxCommand(entry: LinuxHeld, body: CommandBody, signal?: AbortSignal, output?: OutputSink): Promise<CommandResult> {
  return runInLinuxBox(entry, { argv: ['/bin/sh', '-c', body.command], ...(body.envs ? { envs: body.envs } : {}), timeoutMs: parseDuration(body.timeout ?? '30s', '/timeout'), ...(body.workingDir !== undefined ? { workingDir: body.workingDir } : {}), ...(output ? { output } : {}) }, signal);
}

/** A process's pid and start time (zombies too), or undefined when /proc does not have it. */
function identity(pid: number): ProcessIdentity | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const start = text.slice(text.lastIndexOf(')') + 2).split(' ')[19];
    return start ? { pid, start } : undefined;
  } catch {
    return undefined;
  }
}
