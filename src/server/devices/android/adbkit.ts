// adbkit is CommonJS with an `exports.default`; under NodeNext the default import is module.exports.
import adbkit, { type DeviceClient } from '@devicefarmer/adbkit';
import syncCommand from '@devicefarmer/adbkit/dist/src/adb/command/host-transport/sync.js';
import type { Readable } from 'node:stream';
export type { Client, DeviceClient } from '@devicefarmer/adbkit';

export const Adb = adbkit.Adb;

/** A stream that carried more than its reader's bound; the reader destroyed it (for adb: closed its connection). */
export class OverBound extends Error {
  constructor(readonly max: number) {
    super(`more than ${max} bytes`);
  }
}

/**
 * A stream's bytes, all of them, but at most `max`: the chunks are kept in a list and joined once
 * at the end (adbkit's readAll joins them again on every chunk). The stream is destroyed as soon as
 * it passes `max` (leaving the loop does it), and the read rejects with OverBound.
 */
export async function readBounded(stream: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new OverBound(max);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * A sync RECV of `path` on a sync connection of its own, which is closed for good when the transfer
 * is destroyed before its end. adbkit's `pull` cannot be stopped: destroying its transfer leaves it
 * reading the connection (a file whose read never ends, a link to /dev/zero, is then read forever),
 * and its `cancel()` stops reading but leaves the connection open. Here the socket itself is
 * destroyed, so the device stops sending.
 */
export async function pullTransfer(device: DeviceClient, path: string): Promise<Readable & { cancel(): boolean }> {
  const transport = await device.transport();
  const sync = await new syncCommand.default(transport).execute();
  const transfer = sync.pull(path);
  transfer.once('end', () => sync.end());
  transfer.once('close', () => {
    if (transfer.readableEnded) return;
    transfer.cancel();
    transport.socket.destroy();
  });
  return transfer;
}
