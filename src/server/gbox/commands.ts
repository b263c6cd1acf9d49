// POST /boxes/{id}/commands (gbox-api-full.md §2.1): run a command in the box, `{exitCode, stdout,
// stderr}`. Android boxes: one `adb shell` line. The command is the tenant's own (it is their
// device), so it is not restricted; it reaches the device's sh as ONE single-quoted word of
// `sh -c`, and so do every env value and the working dir (shellQuote.ts), env names being checked
// names. Plain `shell:` carries no exit code (no shell_v2 here), so the line ends with an `echo`
// of a marker and `$?`, read back and cut off; stdout and stderr arrive as one stream, all of it in
// `stdout`. A command still running at `timeout` (default 30s) is cut off and answers exit code 124,
// as GNU `timeout` and GBOX do. Output past 1 MiB is cut and said so.
// Linux boxes: as the box's own user, without network, in the box's working dir (linuxCommands.ts).
import { BoxflowError } from '../../errors.js';
import { parseDuration } from '../../api/duration.js';
import { endpoints, kCommandOutputMax, type CommandBody, type EndpointName } from '../../api/schemas.js';
import { shQuote } from '../adb/shellQuote.js';
import type { BoxEntry } from '../boxEntry.js';
import type { Answer, Call } from '../call.js';
import { runLinuxCommand } from './linuxCommands.js';

interface CommandDeps {
  boxCall: <T>(name: EndpointName, call: Call, work: (entry: BoxEntry) => Promise<T>) => Promise<T>;
  validated: <T>(schema: unknown, body: unknown) => T;
}

const kExitMarker = 'boxflow-exit:';

/** The device's shell line for a command: `sh -c '<cd, exports, command>'; echo boxflow-exit:$?`. */
export function androidCommandLine(body: CommandBody): string {
  let inner = body.command;
  for (const [name, value] of Object.entries(body.envs ?? {}).reverse()) inner = `export ${name}=${shQuote(value)}; ${inner}`;
  if (body.workingDir) inner = `cd ${shQuote(body.workingDir)} || exit 1; ${inner}`;
  return `sh -c ${shQuote(inner)}; echo ${kExitMarker}$?`;
}

function capped(text: string): string {
  return Buffer.byteLength(text) <= kCommandOutputMax ? text : `${Buffer.from(text).subarray(0, kCommandOutputMax).toString('utf8')}\n[boxflow: output cut at ${kCommandOutputMax} bytes]`;
}

export function createCommandHandlers(deps: CommandDeps) {
  return {
    runCommand: (call: Call) =>
      deps.boxCall('runCommand', call, async (entry): Promise<Answer> => {
        const body = deps.validated<CommandBody>(endpoints.runCommand.body, call.body);
        const android = entry.android;
        if (!android) return { status: 200, body: await runLinuxCommand(entry, body, call.signal) };
        const timeoutMs = parseDuration(body.timeout ?? '30s', '/timeout');
        const started = performance.now();
        let out: string;
        try {
          out = await android.shell(androidCommandLine(body), timeoutMs);
        } catch (err) {
          // Still running at the timeout: exit code 124, as GNU timeout (and GBOX) answer.
          if (BoxflowError.is(err) && err.code === 'DEVICE_ERROR' && performance.now() - started >= timeoutMs - 50) return { status: 200, body: { exitCode: 124, stdout: '', stderr: `timed out after ${timeoutMs} ms` } };
          throw err;
        }
        const at = out.lastIndexOf(kExitMarker);
        const code = at >= 0 ? Number(/^(\d+)/.exec(out.slice(at + kExitMarker.length))?.[1]) : NaN;
        if (at < 0 || !Number.isInteger(code)) throw new BoxflowError('DEVICE_ERROR', `device ${android.info.serial}: the command's exit code did not come back (its output: ${out.slice(-200).trim() || 'none'})`);
        return { status: 200, body: { exitCode: code, stdout: capped(out.slice(0, at)), stderr: '' } };
      }),
  };
}
