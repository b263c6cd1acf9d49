// POST /boxes/{id}/commands (docs/api.md): run a command in the box, `{exitCode, stdout,
// stderr}` (+ `truncated` when a stream passed 1 MiB). Android boxes: one `adb shell` request with
// stdout and stderr apart (androidCommands.ts). Linux boxes: as the box's own user, without
// network, in the box's working dir (linuxCommands.ts). A command still running at `timeout`
// (default 30s) is cut off and answers exit code 124, as GNU `timeout` and GBOX do.
// With the call's `output` (the command websocket, commandSocket.ts) the output is streamed there
// as it comes, under the same bounds, instead of coming back in the answer.
import { bodyOf } from '../requestChecks.js';
import { BoxflowError } from '../../errors.js';
import { parseDuration } from '../../api/duration.js';
import { endpoints, type CommandBody, type EndpointName } from '../../api/schemas.js';
import { deviceOf, isAndroid, type BoxEntry } from '../boxEntry.js';
import type { Answer, Call } from '../call.js';
import { androidScript, runAndroidScript } from './androidCommands.js';
import { commandSocketUrls } from './commandSocket.js';
import { runLinuxCommand } from './linuxCommands.js';

export interface CommandDeps {
  boxCall: <T>(name: EndpointName, call: Call, work: (entry: BoxEntry) => Promise<T>) => Promise<T>;
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

export function createCommandHandlers(deps: CommandDeps) {
  return {
    /** The two websockets of commandSocket.ts; a grid box has no shell here. */
    websocketUrl: (call: Call) =>
      deps.boxCall('websocketUrl', call, async (entry): Promise<Answer> => {
        if (!isAndroid(entry) && !entry.dir) throw new BoxflowError('GRID_UNSUPPORTED', "this box's browser runs on a Selenium Grid node, so it has no shell on this server; create a box on a server without --grid for that");
        return { status: 200, body: commandSocketUrls(call.origin, entry.record.id) };
      }),
    runCommand: (call: Call) =>
      inTurn(deps.boxCall, 'runCommand', call, async (entry): Promise<Answer> => {
        const body = bodyOf(endpoints.runCommand.body, call.body) as CommandBody;
        if (!isAndroid(entry)) return { status: 200, body: await runLinuxCommand(entry, body, call.signal, call.output) };
        const android = deviceOf(entry);
        const timeoutMs = parseDuration(body.timeout ?? '30s', '/timeout');
        return { status: 200, body: await runAndroidScript(entry, android, androidScript(android, body), timeoutMs, 'command', '/command', call.signal, call.output) };
      }),
  };
}
