// POST /boxes/{id}/commands (docs/api.md): run a command in the box, `{exitCode, stdout,
// stderr}`. Android boxes: one `adb shell` line. The command is the tenant's own (it is their
// device), so it is not restricted; it reaches the device's sh as ONE single-quoted word of
// `sh -c`, and so do every env value and the working dir (shellQuote.ts), env names being checked
// names. Plain `shell:` carries no exit code (no shell_v2 here), so the line ends with an `echo`
// of a marker and `$?`, read back and cut off; stdout and stderr arrive as one stream, all of it in
// `stdout`. A command still running at `timeout` (default 30s) is cut off and answers exit code 124,
// as GNU `timeout` and GBOX do. Output past 1 MiB is cut and said so.
// Linux boxes: as the box's own user, without network, in the box's working dir (linuxCommands.ts).
// With the call's `output` (the command websocket, commandSocket.ts) the output is streamed there
// as it comes, under the same bounds, instead of coming back in the answer.
import type { Duplex } from 'node:stream';
import { BoxflowError } from '../../errors.js';
import { parseDuration } from '../../api/duration.js';
import { endpoints, kCommandOutputMax, type CommandBody, type CommandResult, type EndpointName } from '../../api/schemas.js';
import type { AndroidBox } from '../adb/androidBox.js';
import { shQuote } from '../../api/shellQuote.js';
import type { BoxEntry } from '../boxEntry.js';
import type { Answer, Call, OutputSink } from '../call.js';
import { Backpressure, Output } from './commandOutput.js';
import { ExitMarkerScanner, kExitMarker } from './exitMarker.js';
import { commandSocketUrls } from './commandSocket.js';
import { runLinuxCommand } from './linuxCommands.js';

export interface CommandDeps {
  boxCall: <T>(name: EndpointName, call: Call, work: (entry: BoxEntry) => Promise<T>) => Promise<T>;
  validated: <T>(schema: unknown, body: unknown) => T;
}

/** Bytes of the output's end kept for the message when the exit code does not come back. */
const kTailBytes = 200;

/** The last kTailBytes of `tail` and then `chunk`, copied (not a view that keeps the chunk alive). */
function lastBytes(tail: Buffer, chunk: Buffer): Buffer {
  return chunk.length >= kTailBytes ? Buffer.from(chunk.subarray(-kTailBytes)) : Buffer.concat([tail, chunk]).subarray(-kTailBytes);
}

/** The device's shell line for a command: `sh -c '<cd, exports, command>'; echo boxflow-exit:$?`. */
export function androidCommandLine(body: CommandBody): string {
  let inner = body.command;
  for (const [name, value] of Object.entries(body.envs ?? {}).reverse()) inner = `export ${name}=${shQuote(value)}; ${inner}`;
  if (body.workingDir) inner = `cd ${shQuote(body.workingDir)} || exit 1; ${inner}`;
  return `sh -c ${shQuote(inner)}; echo ${kExitMarker}$?`;
}

/**
 * A streamed command or code (the call has an `output`, commandSocket.ts): it waits for its turn in
 * the box's queue (so it starts after what was asked before it) and then runs beside the queue,
 * which it does not hold: a stream may last its whole timeout while the box takes other requests.
 * Without an `output` the work runs in the queue as any request.
 */
export async function inTurn<T>(boxCall: CommandDeps['boxCall'], name: EndpointName, call: Call, work: (entry: BoxEntry) => Promise<T>): Promise<T> {
  if (!call.output) return boxCall(name, call, work);
  const { running } = await boxCall(name, call, async (entry) => {
    const started = work(entry);
    started.catch(() => {});
    return { running: started };
  });
  return running;
}

/**
 * Runs a line of androidCommandLine on the device: the output up to the exit marker (stdout and
 * stderr as one stream, in `stdout`), its exit code; 124 at `timeoutMs`, when the device's shell
 * stream is closed. Output past kCommandOutputMax is cut and said so (the rest is read and
 * dropped, counted, until the marker); only the marker line's length is held back at its end
 * (ExitMarkerScanner). With `output` it is streamed there, and the device is not read from while
 * the reader lags behind. The request going away (`signal`) or the box being terminated closes
 * the stream too.
 */
export async function runAndroidLine(entry: BoxEntry, android: AndroidBox, line: string, timeoutMs: number, what: string, signal?: AbortSignal, output?: OutputSink): Promise<CommandResult> {
  signal?.throwIfAborted();
  const started = performance.now();
  const stream: Duplex = await android.shellStream(line);
  const out = new Output(kCommandOutputMax, output && ((text) => output.write('stdout', text)));
  const pressure = new Backpressure(output, [stream]);
  const marker = new ExitMarkerScanner();
  /** The output's last bytes, for the message when the marker does not come. */
  let tail: Buffer = Buffer.alloc(0);
  let timedOut = false;
  const ended = new Promise<void>((resolve, reject) => {
    stream.on('data', (chunk: Buffer) => {
      tail = lastBytes(tail, chunk);
      out.add(marker.push(chunk));
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
    out.add(marker.held);
    const stdout = out.text();
    const note = `[boxflow: timed out after ${timeoutMs} ms; the ${what}'s shell stream to the device was closed]`;
    output?.write('stderr', note);
    return { exitCode: 124, stdout, stderr: output ? '' : note };
  }
  const code = marker.end();
  if (code === undefined) throw new BoxflowError('DEVICE_ERROR', `device ${android.info.serial}: the ${what}'s exit code did not come back (its output: ${tail.toString('utf8').trim() || 'none'})`);
  return { exitCode: code, stdout: out.text(), stderr: '' };
}

export function createCommandHandlers(deps: CommandDeps) {
  return {
    /** The two websockets of commandSocket.ts; a grid box has no shell here. */
    websocketUrl: (call: Call) =>
      deps.boxCall('websocketUrl', call, async (entry): Promise<Answer> => {
        if (!entry.android && !entry.dir) throw new BoxflowError('GRID_UNSUPPORTED', "this box's browser runs on a Selenium Grid node, so it has no shell on this server; create a box on a server without --grid for that");
        return { status: 200, body: commandSocketUrls(call.origin, entry.record.id) };
      }),
    runCommand: (call: Call) =>
      inTurn(deps.boxCall, 'runCommand', call, async (entry): Promise<Answer> => {
        const body = deps.validated<CommandBody>(endpoints.runCommand.body, call.body);
        const android = entry.android;
        if (!android) return { status: 200, body: await runLinuxCommand(entry, body, call.signal, call.output) };
        const timeoutMs = parseDuration(body.timeout ?? '30s', '/timeout');
        return { status: 200, body: await runAndroidLine(entry, android, androidCommandLine(body), timeoutMs, 'command', call.signal, call.output) };
      }),
  };
}
