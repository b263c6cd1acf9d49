// Commands and run-code on an Android box (POST /commands, /run-code and their websocket). The
// command is the tenant's own (it is their device), so it is not restricted; it reaches the device's
// sh as ONE single-quoted word of `sh -c`, and so do every env value and the working dir
// (shellQuote.ts), env names being checked names. Without `workingDir` it runs in the box's working
// dir on the device. How the output comes back depends on the device (docs/server.md, "Android
// commands"): with adb's shell protocol v2 (`shell_v2`, Android 7+) stdout, stderr and the exit
// status come apart as the device sends them (shellV2.ts). Older devices have only the legacy
// `shell:` stream, which carries stdout and stderr as one: there the command's stderr goes to a file
// in the box's working dir, the line ends with an `echo` of a marker and `$?` (read back and cut
// off, exitMarker.ts), and the file is read over sync (and removed) once the command has ended.
// A command still running at `timeout` is cut off and answers exit code 124, as GNU `timeout` and
// GBOX do. Each stream is cut at kCommandOutputMax and said so (commandOutput.ts).
import { posix } from 'node:path';
import type { Duplex } from 'node:stream';
import { BoxflowError } from '../../../errors.js';
import { kCommandOutputMax, type CommandBody, type CommandResult } from '../../../api/schemas.js';
import type { AndroidBox } from './androidBox.js';
import { ShellV2Reader } from './shellV2.js';
import { sh, shQuote } from '../../../api/shellQuote.js';
import type { HeldBox } from '../held.js';
import type { OutputSink } from '../commandOutput.js';
import { Backpressure, commandResult, Output } from '../commandOutput.js';
import { ExitMarkerScanner, kExitMarker } from '../exitMarker.js';
import { noNul } from '../commandOutput.js';

/** One service request: adbd's v1 request is limited to 4 KiB, the service name included. */
const kLineBytes = 4_000;
/** Bytes of the output's end kept for the message when the exit code does not come back. */
const kTailBytes = 200;
let stderrFiles = 0;

/** The last kTailBytes of `tail` and then `chunk`, copied (not a view that keeps the chunk alive). */
function lastBytes(tail: Buffer, chunk: Buffer): Buffer {
  return chunk.length >= kTailBytes ? Buffer.from(chunk.subarray(-kTailBytes)) : Buffer.concat([tail, chunk]).subarray(-kTailBytes);
}

/** What the device's `sh -c` runs: `cd <dir> || exit 1; export …; <command>`, the dir the box's working dir unless given. */
export function androidScript(android: AndroidBox, body: CommandBody): string {
  let inner = body.command;
  for (const [name, value] of Object.entries(body.envs ?? {}).reverse()) inner = `export ${name}=${shQuote(value)}; ${inner}`;
  const dir = posix.resolve(android.workDir, noNul(body.workingDir ?? '.', '/workingDir'));
  return `cd ${shQuote(dir)} || exit 1; ${inner}`;
}

/** The streams a run reads and how it ends. */
interface Reading {
  stream: Duplex;
  /** Takes one chunk of the device's stream. */
  take: (chunk: Buffer) => void;
  /** At the stream's end: the exit code, undefined when it did not come back. */
  exitCode: () => number | undefined;
  /** After a timeout: what is still held back goes out. */
  flush: () => void;
}

/**
 * Runs `script` (androidScript) on the device with `sh -c` and answers `{exitCode, stdout, stderr}`
 * as the top of this file says; 124 at `timeoutMs`, when the device's shell stream is closed. With
 * `output` it is streamed there, and the device is not read from while the reader lags behind. The
 * request going away (`signal`) or the box being terminated closes the stream too. `field` names
 * the request's field in the message of a line too long for adb.
 */
export async function runAndroidScript(entry: HeldBox, android: AndroidBox, script: string, timeoutMs: number, what: string, field: string, signal?: AbortSignal, output?: OutputSink): Promise<CommandResult> {
  signal?.throwIfAborted();
  const started = performance.now();
  const v2 = await android.hasShellV2();
  const errFile = v2 ? undefined : `${android.workDir}/.boxflow-stderr-${process.pid}-${++stderrFiles}`;
  const line = v2 ? `sh -c ${shQuote(script)}` : `sh -c ${shQuote(script)} 2>${shQuote(errFile!)}; echo ${kExitMarker}$?`;
  const bytes = Buffer.byteLength(line) + 'shell,v2,raw:'.length;
  if (bytes > kLineBytes) {
    throw new BoxflowError('INVALID_REQUEST', `${field}: with its quoting, argv and envs the device's command line is ${bytes} bytes; adb takes at most ${kLineBytes}. Write it to a file with fs/write and run that file`);
  }
  const stdout = new Output(kCommandOutputMax, output && ((text) => output.write('stdout', text)));
  const stderr = new Output(kCommandOutputMax, output && ((text) => output.write('stderr', text)));
  let reading: Reading;
  if (v2) {
    const reader = new ShellV2Reader((s, b) => (s === 'stdout' ? stdout : stderr).add(b));
    reading = { stream: await android.shellV2Stream(line), take: (c) => reader.push(c), exitCode: () => reader.exitCode, flush: () => {} };
  } else {
    const marker = new ExitMarkerScanner();
    reading = { stream: await android.shellStream(line), take: (c) => stdout.add(marker.push(c)), exitCode: () => marker.end(), flush: () => stdout.add(marker.held) };
  }
  const { stream } = reading;
  const pressure = new Backpressure(output, [stream]);
  /** The output's last bytes, for the message when the exit code does not come. */
  let tail: Buffer = Buffer.alloc(0);
  let timedOut = false;
  const ended = new Promise<void>((resolve, reject) => {
    stream.on('data', (chunk: Buffer) => {
      tail = lastBytes(tail, chunk);
      reading.take(chunk);
      pressure.check();
    });
    stream.once('end', () => resolve());
    stream.once('error', reject);
    stream.once('close', () => reject(new Error('the stream closed before its end')));
  });
  const close = () => stream.destroy();
  const timer = setTimeout(() => {
    timedOut = true;
    close();
  }, Math.max(0, timeoutMs - (performance.now() - started)));
  const onGone = () => {
    if (entry.record.status === 'terminated') close();
  };
  entry.onBrowserGone.add(onGone);
  signal?.addEventListener('abort', close, { once: true });
  try {
    await ended;
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (entry.record.status === 'terminated') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} was terminated while the ${what} ran`);
    if (!timedOut) {
      if (android.goneReason) throw new BoxflowError('DEVICE_OFFLINE', `device ${android.info.serial} ${android.goneReason}`, { cause: err });
      throw new BoxflowError('DEVICE_ERROR', `device ${android.info.serial}: the ${what}'s output stopped before its end: ${(err as Error).message}`, { cause: err });
    }
  } finally {
    clearTimeout(timer);
    entry.onBrowserGone.delete(onGone);
    signal?.removeEventListener('abort', close);
    stream.destroy();
  }
  if (timedOut) {
    reading.flush();
    return commandResult(124, stdout, stderr, `timed out after ${timeoutMs} ms; the ${what}'s shell stream to the device was closed`);
  }
  const code = reading.exitCode();
  if (code === undefined) throw new BoxflowError('DEVICE_ERROR', `device ${android.info.serial}: the ${what}'s exit code did not come back (its output: ${tail.toString('utf8').trim() || 'none'})`);
  if (errFile) await readStderrFile(android, errFile, stderr, signal);
  return commandResult(code, stdout, stderr);
}

/** The legacy path's stderr: the file's bytes over sync (at most the cap; the rest is counted from its size), then the file removed. */
async function readStderrFile(android: AndroidBox, file: string, stderr: Output, signal?: AbortSignal): Promise<void> {
  try {
    const st = await android.stat(file);
    if (!st || !st.size) return;
    const take = Math.min(st.size, kCommandOutputMax + 4);
    for await (const chunk of await android.readStream(file, take)) {
      signal?.throwIfAborted();
      stderr.add(chunk as Buffer);
    }
    stderr.skip(st.size - take);
  } finally {
    await android.shell(sh`rm -f ${file}`);
  }
}
