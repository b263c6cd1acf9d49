// POST /boxes/{id}/commands (docs/api.md): run a command in the box, `{exitCode, stdout,
// stderr}` (+ `truncated` when a stream passed 1 MiB). Android boxes: one `adb shell` request with
// stdout and stderr apart (devices/android/commands.ts). Linux boxes: as the box's own user, without
// network, in the box's working dir (devices/linux/commands.ts). A command still running at `timeout`
// (default 30s) is cut off and answers exit code 124, as GNU `timeout` and GBOX do.
// With the call's `output` (the command websocket, commandSocket.ts) the output is streamed there
// as it comes, under the same bounds, instead of coming back in the answer.
import { bodyOf } from '../requestChecks.js';
import { endpoints, type CommandBody, type EndpointName } from '../../../api/schemas.js';
import type { BoxEntry } from '../../boxes/boxEntry.js';
import type { BoxCall } from './boxRoute.js';
import type { Answer, Call } from '../call.js';
import { facet } from '../../devices/index.js';
import { commandSocketUrls } from './commandSocket.js';

export interface CommandDeps {
  boxCall: BoxCall<Call>;
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
    /** The two websockets of commandSocket.ts, for a box with a shell. */
    websocketUrl: (call: Call) =>
      deps.boxCall('websocketUrl', call, async (entry): Promise<Answer> => {
        facet(entry, 'shell', 'websocketUrl');
        return { status: 200, body: commandSocketUrls(call.origin, entry.record.id) };
      }),
    runCommand: (call: Call) =>
      inTurn(deps.boxCall, 'runCommand', call, async (entry): Promise<Answer> => {
        const body = bodyOf(endpoints.runCommand.body, call.body) as CommandBody;
        return { status: 200, body: await facet(entry, 'shell', 'runCommand').run(body, call.signal, call.output) };
      }),
  };
}
