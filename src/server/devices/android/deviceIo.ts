// The transport under an Android box (androidBox.ts): `shell:` and `exec:` commands and sync
// transfers over adbkit, each bounded in time and size, with the device's failures as
// DEVICE_OFFLINE or DEVICE_ERROR.
import { createWriteStream } from 'node:fs';
import { Readable, Transform, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BoxflowError } from '../../../errors.js';
import { OverBound, pullTransfer, readBounded, type DeviceClient } from './adbkit.js';
import { kShellV2Feature, transportFeatures } from './shellV2.js';

/**
 * An adbkit error's first line, for a message. adbkit answers a refused connection by starting an adb
 * server with its `bin`, which boxflow never lets it do (it names a file that does not exist): the
 * `spawn <that file> ENOENT` it then reports means the connection was refused.
 */
export function adbErrorText(err: unknown): string {
  const text = String((err as Error)?.message ?? err).split('\n')[0]!;
  return /^spawn \S+ ENOENT$/.test(text) ? 'connect ECONNREFUSED' : text;
}

/** Longest wait for one device command (a uiautomator dump on an animating screen takes ~10 s). */
export const kCommandTimeoutMs = 60_000;
/**
 * Bytes of a shell command's output read whole (a layout dump, a package list: a few MB at most) and
 * of a pulled layout dump. A device that sends more has its stream closed there (502 DEVICE_ERROR).
 */
export const kShellOutputMax = 16 * 2 ** 20;
/** Bytes of an `exec:` command's output read whole: a `screencap -p` PNG of the largest screens is ~33 MB. */
const kExecOutputMax = 64 * 2 ** 20;
/** An install streams up to 512 MB to the device. */
export const kInstallTimeoutMs = 10 * 60_000;
/**
 * Bytes of one `shell:` command line: adbd's v1 service request is limited to 4 KiB, the `shell:`
 * prefix included. Several `input` commands share a line, joined by `; `.
 */
const kLineBytes = 3_800;

/** A bound on the device time of one request: past `at` (performance.now()), nothing more is sent. */
export interface Deadline {
  at: number;
  expired: () => BoxflowError;
}

export class DeviceIo {
  readonly #device: DeviceClient;
  readonly #serial: string;
  /** Why the device is unusable (AndroidBox.goneReason), if it is. */
  readonly #gone: () => string | undefined;
  /** Whether the device speaks adb's shell protocol v2 (asked once, shellV2.ts). */
  #shellV2: Promise<boolean> | undefined;

  constructor(device: DeviceClient, serial: string, gone: () => string | undefined) {
    this.#device = device;
    this.#serial = serial;
    this.#gone = gone;
  }

  /** `fn` on the device: a failure of adb's is DEVICE_OFFLINE (the device went away) or DEVICE_ERROR. */
  async call<T>(what: string, fn: () => PromiseLike<T>): Promise<T> {
    this.#requireOnline();
    try {
      return await fn();
    } catch (err) {
      if (BoxflowError.is(err)) throw err;
      this.#requireOnline();
      const text = adbErrorText(err);
      if (/device (?:offline|'.*' not found|unauthorized)|ECONNREFUSED|ECONNRESET|Premature end|closed/i.test(text)) {
        throw new BoxflowError('DEVICE_OFFLINE', `device ${this.#serial} is not reachable (${what}): ${text}`, { cause: err });
      }
      throw new BoxflowError('DEVICE_ERROR', `device ${this.#serial}: ${what} failed: ${text}`, { cause: err });
    }
  }

  #requireOnline(): void {
    const gone = this.#gone();
    if (gone) throw new BoxflowError('DEVICE_OFFLINE', `device ${this.#serial} ${gone}`);
  }

  /**
   * Runs a `shell:` command line (built with `sh`, shellQuote.ts: the device's sh runs it); its
   * stdout+stderr as text. With a deadline, it is not sent once the deadline has passed, and is cut
   * off when the deadline comes first.
   */
  shell(cmd: string, timeoutMs = kCommandTimeoutMs, deadline?: Deadline): Promise<string> {
    const left = deadline ? Math.floor(deadline.at - performance.now()) : Infinity;
    if (left <= 0) return Promise.reject(deadline!.expired());
    const ms = Math.min(timeoutMs, left);
    return this.call(cmd.split(' ').slice(0, 2).join(' '), () =>
      this.timed(cmd, ms, async (track) => (await this.#readWhole(cmd, track(await this.#device.shell(cmd)), kShellOutputMax)).toString('utf8'), ms < timeoutMs ? deadline?.expired : undefined),
    );
  }

  /** A command's output, read whole up to `max` bytes; past them its stream is closed and the command fails. */
  async #readWhole(cmd: string, stream: Readable, max: number): Promise<Buffer> {
    try {
      return await readBounded(stream, max);
    } catch (err) {
      if (err instanceof OverBound) throw new BoxflowError('DEVICE_ERROR', `\`${cmd.slice(0, 80)}\` wrote more than ${max / 2 ** 20} MiB on ${this.#serial}; its stream was closed there`);
      throw err;
    }
  }

  /**
   * Opens a `shell:` command line and hands back its output as it comes (stdout and stderr as one
   * stream), for a caller that reads it itself (commands, devices/android/commands.ts): it bounds the command's
   * time and destroys the stream to end it.
   */
  shellStream(cmd: string): Promise<Duplex> {
    return this.call(cmd.split(' ').slice(0, 2).join(' '), () => this.timed(cmd, kCommandTimeoutMs, async (track) => track(await this.#device.shell(cmd))));
  }

  /** Whether commands can have their stdout, stderr and exit status apart (adb's `shell_v2` feature). */
  hasShellV2(): Promise<boolean> {
    this.#shellV2 ??= this.call('features', () => this.timed('features', kCommandTimeoutMs, () => transportFeatures(this.#device))).then((f) => f.has(kShellV2Feature));
    this.#shellV2.catch(() => (this.#shellV2 = undefined));
    return this.#shellV2;
  }

  /** As shellStream, over `shell,v2,raw:` (shellV2.ts): the stream carries v2 packets. */
  shellV2Stream(cmd: string): Promise<Duplex> {
    return this.call(cmd.split(' ').slice(0, 2).join(' '), () => this.timed(cmd, kCommandTimeoutMs, async (track) => track(await this.#device.openLocal(`shell,v2,raw:${cmd}`))));
  }

  /** Runs an `exec:` command (raw, binary-safe), optionally streaming `stdin` first. */
  exec(cmd: string, stdin?: NodeJS.ReadableStream, timeoutMs = kCommandTimeoutMs): Promise<Buffer> {
    return this.call(cmd.split(' ').slice(0, 3).join(' '), () =>
      this.timed(cmd, timeoutMs, async (track) => {
        const stream = track(await this.#device.openLocal(`exec:${cmd}`));
        const out = this.#readWhole(cmd, stream, kExecOutputMax);
        if (stdin) stdin.pipe(stream, { end: false });
        return out;
      }),
    );
  }

  /** A device that stops answering is an error after `ms`, not a hung box; its stream is closed. */
  async timed<T>(cmd: string, ms: number, run: (track: <S extends Readable>(s: S) => S) => Promise<T>, onExpiry?: () => BoxflowError): Promise<T> {
    let stream: Readable | undefined;
    let expired = false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        stream?.destroy();
        reject(onExpiry?.() ?? new BoxflowError('DEVICE_ERROR', `\`${cmd.slice(0, 80)}\` gave no answer within ${ms / 1000} s on ${this.#serial}`));
      }, ms);
    });
    const track = <S extends Readable>(s: S): S => {
      stream = s;
      if (expired) s.destroy();
      return s;
    };
    const work = run(track);
    work.catch(() => {});
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A shell command that prints nothing on success; any output is the device's error. */
  async quiet(cmd: string, deadline?: Deadline): Promise<void> {
    const out = (await this.shell(cmd, kCommandTimeoutMs, deadline)).trim();
    if (out) throw new BoxflowError('DEVICE_ERROR', `\`${cmd.slice(0, 80)}\` failed on ${this.#serial}: ${out.split('\n').slice(0, 3).join(' | ')}`);
  }

  /**
   * Quiet commands, as few `shell:` requests as fit: joined by `; ` into lines of up to kLineBytes.
   * Stops at the first line with output (the device's error) or when the deadline has passed.
   */
  async quietBatch(cmds: readonly string[], deadline?: Deadline, sent?: { lines: number; of: number }): Promise<void> {
    const lines: string[] = [];
    for (const cmd of cmds) {
      const last = lines.length ? lines[lines.length - 1]! : undefined;
      if (last !== undefined && Buffer.byteLength(last) + 2 + Buffer.byteLength(cmd) <= kLineBytes) lines[lines.length - 1] = `${last}; ${cmd}`;
      else lines.push(cmd);
    }
    if (sent) sent.of += lines.length;
    for (const line of lines) {
      await this.quiet(line, deadline);
      if (sent) sent.lines++;
    }
  }

  /** A path's sync STAT; undefined when nothing is there. */
  async stat(path: string): Promise<{ mode: number; size: number; mtime: Date } | undefined> {
    try {
      const st = await this.call(`stat ${path}`, async () => { const s = await this.#device.stat(path); return { mode: s.mode, size: Number(s.size), mtime: new Date(s.mtimeMs) }; });
      return st;
    } catch (err) {
      if (BoxflowError.is(err) && err.code === 'DEVICE_ERROR' && /ENOENT/.test(err.message)) return undefined;
      throw err;
    }
  }

  /**
   * A device file's bytes over sync (RECV), read whole, at most `maxBytes`. The size STAT gave is
   * not trusted: a file may grow, and STAT (an lstat) of a link to /dev/zero gives the link's 9
   * bytes while its read never ends. So the bytes are counted as they come, and the pull is closed
   * as soon as they pass `maxBytes`, with `tooLarge()` as the error.
   */
  pull(path: string, maxBytes: number, tooLarge: () => BoxflowError, timeoutMs = kCommandTimeoutMs): Promise<Buffer> {
    return this.call(`pull ${path}`, () =>
      this.timed(`pull ${path}`, timeoutMs, async (track) => {
        try {
          return await readBounded(track(await pullTransfer(this.#device, path)), maxBytes);
        } catch (err) {
          throw err instanceof OverBound ? tooLarge() : err;
        }
      }),
    );
  }

  /** As pull, into `file` on the server, streamed (a recording, src/server/devices/android/recording.ts): the bytes written, at most `maxBytes`. */
  pullToFile(path: string, file: string, maxBytes: number, tooLarge: () => BoxflowError, timeoutMs = kCommandTimeoutMs): Promise<number> {
    let got = 0;
    const bound = new Transform({
      transform(chunk: Buffer, _enc, done) {
        got += chunk.length;
        done(got > maxBytes ? tooLarge() : null, chunk);
      },
    });
    return this.call(`pull ${path}`, () =>
      this.timed(`pull ${path}`, timeoutMs, async (track) => {
        await pipeline(track(await pullTransfer(this.#device, path)), bound, createWriteStream(file));
        return got;
      }),
    );
  }

  /** A directory's entries over sync (LIST, without `.` and `..`); none when it does not exist. */
  listDir(path: string): Promise<Array<{ name: string; mode: number; size: number; mtime: Date }>> {
    return this.call(`list ${path}`, () =>
      this.timed(`list ${path}`, kCommandTimeoutMs, async () => ((await this.#device.readdir(path)) as Array<{ name: string; mode: number; size: number; mtimeMs: number }>).map((e) => ({ name: e.name, mode: e.mode, size: Number(e.size), mtime: new Date(e.mtimeMs) }))),
    );
  }

  /**
   * A device file's bytes as they arrive over sync (RECV), for the caller to pipe on; the stream
   * fails when the device fails the transfer, and destroying it closes the sync connection. With
   * `maxBytes` (the size STAT gave) no more than that comes: a file that grew, or whose read never
   * ends (a link to /dev/zero), is cut there and its pull closed.
   */
  async readStream(path: string, maxBytes = Infinity): Promise<Readable> {
    const transfer = await this.call(`pull ${path}`, () => pullTransfer(this.#device, path));
    if (maxBytes === Infinity) return transfer;
    // Leaving the loop (the bound reached, or the reader destroying the stream) destroys the transfer.
    return Readable.from(
      (async function* () {
        let left = maxBytes;
        for await (const chunk of transfer as AsyncIterable<Buffer>) {
          if (chunk.length > left) {
            yield chunk.subarray(0, left);
            return;
          }
          left -= chunk.length;
          yield chunk;
        }
      })(),
      { objectMode: false },
    );
  }

  /** Writes a stream to a device file over sync (SEND, mode 0644); resolves once the device has it all. */
  async writeStream(from: Readable, path: string, timeoutMs = kInstallTimeoutMs): Promise<void> {
    await this.call(`push ${path}`, async () => {
      const transfer = await this.#device.push(from, path, 0o644);
      let timer: NodeJS.Timeout | undefined;
      try {
        await new Promise<void>((resolve, reject) => {
          timer = setTimeout(() => {
            transfer.cancel();
            reject(new BoxflowError('DEVICE_ERROR', `writing ${path} took over ${timeoutMs / 1000} s on ${this.#serial}`));
          }, timeoutMs);
          transfer.once('error', reject);
          transfer.once('end', resolve);
        });
      } finally {
        clearTimeout(timer);
      }
    });
  }

  /** A directory's entry names over sync (LIST), without a time bound. */
  readdirNames(path: string): Promise<Array<{ name: string }>> {
    return this.call(`list ${path}`, async () => (await this.#device.readdir(path)).map((e: { name: string }) => ({ name: e.name })));
  }
}
