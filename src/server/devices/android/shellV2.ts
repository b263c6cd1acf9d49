// adb's shell protocol v2 (the `shell_v2` transport feature, Android 7 and later), which adbkit does
// not speak: the service `shell,v2,raw:<command>` (raw: no pty) runs the command with the device's
// `sh -c`, and both directions carry packets of one id byte, a little-endian u32 length and that many
// bytes. Ids: 0 stdin, 1 stdout, 2 stderr, 3 exit (one byte: the exit status), 4 close stdin, 5 window
// size. The device sends stdout and stderr packets as the command writes, then one exit packet, then
// closes the stream. Whether a device has it is the transport's feature list, which the adb server
// answers to `host-serial:<serial>:features` (comma-separated).
import Protocol from '@devicefarmer/adbkit/dist/src/adb/protocol.js';
import type { DeviceClient } from './adbkit.js';

export const kShellV2Feature = 'shell_v2';

/** The transport features of a device (the intersection of the adb server's and adbd's). */
export async function transportFeatures(device: DeviceClient): Promise<Set<string>> {
  const conn = await device.client.connection();
  try {
    conn.write(Protocol.default.encodeData(`host-serial:${device.serial}:features`));
    const reply = await conn.parser.readAscii(4);
    if (reply !== Protocol.default.OKAY) return await conn.parser.readError();
    return new Set((await conn.parser.readValue()).toString('utf8').split(',').map((f: string) => f.trim()).filter(Boolean));
  } finally {
    conn.end();
  }
}

export type ShellV2Stream = 'stdout' | 'stderr';

/**
 * Reads the device's side of a v2 shell stream: `onData` for each stdout and stderr packet's bytes
 * (in pieces as they arrive: a packet may span chunks), the exit status once its packet came.
 */
export class ShellV2Reader {
  #buf: Buffer = Buffer.alloc(0);
  /** The packet being read: its id and the bytes of it still to come. */
  #packet: { id: number; left: number } | undefined;
  exitCode: number | undefined;

  constructor(readonly onData: (stream: ShellV2Stream, bytes: Buffer) => void) {}

  push(chunk: Buffer): void {
    let data = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    this.#buf = Buffer.alloc(0);
    while (data.length) {
      if (!this.#packet) {
        if (data.length < 5) {
          this.#buf = Buffer.from(data);
          return;
        }
        this.#packet = { id: data[0]!, left: data.readUInt32LE(1) };
        data = data.subarray(5);
      }
      const p = this.#packet;
      const part = data.subarray(0, p.left);
      data = data.subarray(part.length);
      p.left -= part.length;
      if (p.id === 1 || p.id === 2) {
        if (part.length) this.onData(p.id === 1 ? 'stdout' : 'stderr', part);
      } else if (p.id === 3 && part.length) {
        this.exitCode = part[0];
      }
      if (p.left === 0) this.#packet = undefined;
    }
  }
}
