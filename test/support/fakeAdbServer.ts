// TEST DOUBLE: a fake adb server. There is no Android device or adb binary here, so this speaks
// the real adb host protocol over TCP (OVERVIEW.TXT / SERVICES.TXT / SYNC.TXT framing, as in
// AOSP's packages/modules/adb) and answers device services from the device model of
// fakeDevice.ts, which replays real captured output from test/fixtures/android (see SOURCES.md there). adbkit, the
// backend and the HTTP routes run unchanged against it.
//
// Every request is recorded exactly as received (host requests and `shell:`/`exec:` command lines
// per device). A command line is read as the device's `sh -c` reads it: split at unquoted `;` into
// commands, each run in turn; a character outside quotes that the backend never sends bare (any
// shell metacharacter: `$`, a backtick, `|`, `&`, `(`, `#`, ...) marks the line in `unquotedLines`,
// so a test can assert that no tenant value reached the shell unquoted. A device command it does
// not know gets FAIL naming it, so a test cannot pass by accident. Outputs marked "constructed" follow the AOSP/toybox format code because no permissively
// licensed capture exists (SOURCES.md lists which).
import { createServer, type Server, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeDevice, isStreamReply, joined, replyBytes, serveShellV2, writeReply, type DeviceState } from './fakeDevice.js';

// The device model moved to fakeDevice.ts (shared with the transport fake, fakeAdbDevice.ts); its
// names stay importable from here.
export { FakeDevice, fixture, kAndroidFixtures, packagesFromFixture, shellWords, splitShellLine } from './fakeDevice.js';
export type { DeviceState, FakeFile, Installed, Reply } from './fakeDevice.js';

const S_IFDIR = 0o040000;

/** Resolves once `socket` can take more (its buffer drained) or has closed: the writer's backpressure. */
const writable = (socket: Socket) =>
  new Promise<void>((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });

const hex4 = (n: number) => n.toString(16).padStart(4, '0');
const framed = (text: string | Buffer) => {
  const body = Buffer.from(text);
  return Buffer.concat([Buffer.from(hex4(body.length)), body]);
};

/** Reads exact byte counts from a socket. */
class Reader {
  #buf = Buffer.alloc(0);
  #waiting: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | undefined;
  #ended = false;
  constructor(socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.#buf = Buffer.concat([this.#buf, d]);
      this.#pump();
    });
    socket.on('close', () => {
      this.#ended = true;
      this.#pump();
    });
  }
  read(n: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.#waiting = { n, resolve, reject };
      this.#pump();
    });
  }
  #pump(): void {
    const w = this.#waiting;
    if (!w) return;
    if (this.#buf.length >= w.n) {
      this.#waiting = undefined;
      const out = this.#buf.subarray(0, w.n);
      this.#buf = this.#buf.subarray(w.n);
      w.resolve(out);
    } else if (this.#ended) {
      this.#waiting = undefined;
      w.reject(new Error('closed'));
    }
  }
}

export class FakeAdbServer {
  readonly #server: Server;
  readonly #devices = new Map<string, FakeDevice>();
  readonly #trackers = new Set<Socket>();
  /** Every host request in order (`host:version`, `host:transport:SERIAL`, ...). */
  readonly hostRequests: string[] = [];
  port = 0;

  private constructor() {
    this.#server = createServer((s) => void this.#serve(s));
  }

  static async start(): Promise<FakeAdbServer> {
    const f = new FakeAdbServer();
    await new Promise<void>((r) => f.#server.listen(0, '127.0.0.1', r));
    f.port = (f.#server.address() as { port: number }).port;
    return f;
  }

  /** The ADB_SERVER_SOCKET / --adb value for this server. */
  get socketSpec(): string {
    return `tcp:127.0.0.1:${this.port}`;
  }

  addDevice(serial: string, setup?: (d: FakeDevice) => void): FakeDevice {
    const d = new FakeDevice(serial);
    setup?.(d);
    this.#devices.set(serial, d);
    this.#notify();
    return d;
  }

  device(serial: string): FakeDevice {
    const d = this.#devices.get(serial);
    if (!d) throw new Error(`no fake device ${serial}`);
    return d;
  }

  setState(serial: string, state: DeviceState): void {
    const d = this.device(serial);
    d.state = state;
    if (state !== 'device') d.dropConnections();
    this.#notify();
  }

  removeDevice(serial: string): void {
    this.device(serial).dropConnections();
    this.#devices.delete(serial);
    this.#notify();
  }

  async close(): Promise<void> {
    for (const t of this.#trackers) t.destroy();
    for (const d of this.#devices.values()) d.dropConnections();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }

  #list(long: boolean): string {
    return [...this.#devices.values()]
      .map((d, i) => (long ? `${d.serial.padEnd(22)} ${d.state} product:sdk_gphone64 model:${d.props['ro.product.model']!.replaceAll(' ', '_')} device:emu64 transport_id:${i + 1}\n` : `${d.serial}\t${d.state}\n`))
      .join('');
  }

  #notify(): void {
    for (const t of this.#trackers) t.write(framed(this.#list(false)));
  }

  async #serve(socket: Socket): Promise<void> {
    socket.on('error', () => {});
    const reader = new Reader(socket);
    const fail = (msg: string): void => void socket.end(Buffer.concat([Buffer.from('FAIL'), framed(msg)]));
    try {
      const request = async () => (await reader.read(parseInt((await reader.read(4)).toString(), 16))).toString('utf8');
      const req = await request();
      this.hostRequests.push(req);
      if (req === 'host:version') return void socket.end(Buffer.concat([Buffer.from('OKAY'), framed('0029')]));
      if (req === 'host:devices' || req === 'host:devices-l') return void socket.end(Buffer.concat([Buffer.from('OKAY'), framed(this.#list(req.endsWith('-l')))]));
      if (req === 'host:track-devices') {
        this.#trackers.add(socket);
        socket.once('close', () => this.#trackers.delete(socket));
        socket.write(Buffer.concat([Buffer.from('OKAY'), framed(this.#list(false))]));
        return;
      }
      // adb's `host-serial:SERIAL:features`: the transport's feature list, comma-separated.
      const features = /^host-serial:(.+):features$/.exec(req);
      if (features) {
        const d = this.#devices.get(features[1]!);
        if (!d) return fail(`device '${features[1]}' not found`);
        return void socket.end(Buffer.concat([Buffer.from('OKAY'), framed(d.features.join(','))]));
      }
      const t = /^host:transport:(.+)$/.exec(req);
      if (!t) return fail(`fake adb server: unknown host request: ${req}`);
      const dev = this.#devices.get(t[1]!);
      if (!dev) return fail(`device '${t[1]}' not found`);
      if (dev.state !== 'device') return fail(`device ${dev.state}`);
      dev.track(socket);
      socket.write('OKAY');
      const service = await request();
      dev.services.push(service);
      if (service === 'sync:') {
        socket.write('OKAY');
        return await this.#sync(socket, reader, dev);
      }
      if (service === 'shell:') return void this.#interactive(socket, reader, dev).catch(() => socket.destroy());
      if (service.startsWith('shell,v2,raw:')) {
        if (!dev.features.includes('shell_v2')) return fail('fake adb server: this device has no shell_v2');
        socket.write('OKAY');
        await serveShellV2(dev, service.slice('shell,v2,raw:'.length), (chunk) => socket.write(chunk) || writable(socket), () => socket.destroyed);
        return void socket.end();
      }
      if (!service.startsWith('shell:') && !service.startsWith('exec:')) return fail(`fake adb server: unknown device service: ${service}`);
      if (dev.stdinBytes(service)) {
        // A streaming install: the service opens (OKAY), then reads its -S bytes, then answers.
        socket.write('OKAY');
        const reply = await dev.run(service, await reader.read(dev.stdinBytes(service)));
        return void socket.end(await replyBytes(reply));
      }
      // adbd answers OKAY as soon as the service starts, then the output; an unknown command FAILs.
      const pending = dev.run(service, Buffer.alloc(0));
      if (!(pending instanceof Promise) && !isStreamReply(pending)) {
        if (typeof pending === 'object' && 'fail' in pending) return fail(pending.fail);
        return void socket.end(Buffer.concat([Buffer.from('OKAY'), joined(pending)]));
      }
      socket.write('OKAY');
      const reply = await pending;
      if (typeof reply === 'object' && !Buffer.isBuffer(reply) && 'fail' in reply) return void socket.end(reply.fail);
      await writeReply(reply, (chunk) => socket.write(chunk) || writable(socket), () => socket.destroyed);
      socket.end();
    } catch {
      socket.destroy();
    }
  }

  /** `shell:` with no command: a prompt, then each line run like a `shell:<line>` request (recorded as `pty:<line>`). */
  async #interactive(socket: Socket, reader: Reader, dev: FakeDevice): Promise<void> {
    const prompt = `${dev.serial}:/ $ `;
    socket.write(`OKAY${prompt}`);
    let line = '';
    for (;;) {
      const c = (await reader.read(1)).toString('latin1');
      if (c !== '\n' && c !== '\r') {
        line += c;
        continue;
      }
      const cmd = line.trim();
      line = '';
      if (!cmd) continue;
      dev.services.push(`pty:${cmd}`);
      if (cmd === 'exit') return void socket.end();
      const reply = await dev.run(`shell:${cmd}`, Buffer.alloc(0), false);
      const out = typeof reply === 'object' && !Buffer.isBuffer(reply) && 'fail' in reply ? `/system/bin/sh: ${cmd.split(' ')[0]}: inaccessible or not found\n` : (await replyBytes(reply)).toString('utf8');
      socket.write(`${out.replaceAll('\n', '\r\n')}${prompt}`);
    }
  }

  async #sync(socket: Socket, reader: Reader, dev: FakeDevice): Promise<void> {
    const u32 = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(n >>> 0);
      return b;
    };
    const syncFail = (msg: string) => socket.write(Buffer.concat([Buffer.from('FAIL'), u32(Buffer.byteLength(msg)), Buffer.from(msg)]));
    for (;;) {
      const head = await reader.read(8);
      const id = head.subarray(0, 4).toString('ascii');
      const len = head.readUInt32LE(4);
      if (id === 'QUIT') return void socket.end();
      const arg = (await reader.read(len)).toString('utf8');
      dev.syncRequests.push(`${id} ${arg}`);
      const denied = dev.denies(arg);
      if (id === 'STAT') {
        // adbd's lstat fails where a folder on the way may not be entered: all zeros, as for nothing there.
        const f = denied === 'under' ? undefined : dev.files.get(arg);
        socket.write(Buffer.concat([Buffer.from('STAT'), u32(f?.mode ?? 0), u32(f?.data.length ?? 0), u32(f?.mtime ?? 0)]));
      } else if (id === 'LIST') {
        const prefix = arg.endsWith('/') ? arg : `${arg}/`;
        for (const [path, f] of dev.files) {
          const name = path.slice(prefix.length);
          // adbd's opendir fails on a folder it may not read: no entry, then DONE.
          if (denied || !path.startsWith(prefix) || !name || name.includes('/')) continue;
          socket.write(Buffer.concat([Buffer.from('DENT'), u32(f.mode), u32(f.data.length), u32(f.mtime), u32(Buffer.byteLength(name)), Buffer.from(name)]));
        }
        socket.write(Buffer.concat([Buffer.from('DONE'), Buffer.alloc(16)]));
      } else if (id === 'RECV') {
        const f = dev.files.get(arg);
        if (denied) {
          syncFail('open failed: Permission denied');
          continue;
        }
        if (!f || (f.mode & S_IFDIR) === S_IFDIR) {
          syncFail(`open failed: No such file or directory`);
          continue;
        }
        if (f.recv) {
          // A read that does not end: chunks as the host takes them, until it goes away.
          for await (const chunk of f.recv()) {
            if (socket.destroyed) break;
            if (!socket.write(Buffer.concat([Buffer.from('DATA'), u32(chunk.length), chunk]))) await writable(socket);
          }
          if (!socket.destroyed) socket.write(Buffer.concat([Buffer.from('DONE'), u32(0)]));
          continue;
        }
        for (let i = 0; i < f.data.length; i += 65536) {
          const chunk = f.data.subarray(i, i + 65536);
          socket.write(Buffer.concat([Buffer.from('DATA'), u32(chunk.length), chunk]));
        }
        socket.write(Buffer.concat([Buffer.from('DONE'), u32(0)]));
      } else if (id === 'SEND') {
        const comma = arg.lastIndexOf(',');
        const path = arg.slice(0, comma);
        const mode = Number(arg.slice(comma + 1));
        const parts: Buffer[] = [];
        let mtime = 0;
        for (;;) {
          const h = await reader.read(8);
          const kind = h.subarray(0, 4).toString('ascii');
          const n = h.readUInt32LE(4);
          if (kind === 'DATA') parts.push(await reader.read(n));
          else if (kind === 'DONE') {
            mtime = n;
            break;
          } else return void syncFail(`fake adb server: unexpected ${kind} in SEND`);
        }
        if (dev.denies(path)) {
          syncFail("couldn't create file: Permission denied");
          continue;
        }
        dev.writeFile(path, Buffer.concat(parts), mode);
        dev.files.get(path)!.mtime = mtime;
        socket.write(Buffer.concat([Buffer.from('OKAY'), u32(0)]));
      } else {
        syncFail(`fake adb server: unknown sync request ${id}`);
      }
    }
  }
}

/**
 * TEST DOUBLE of the adb client for `adb -H HOST -P PORT -s SERIAL shell` (what the web terminal
 * runs): writes an executable Node script into `dir` and returns its path (for BOXFLOW_ADB).
 */
export function writeFakeAdbClient(dir: string): string {
  const file = join(dir, 'fake-adb');
  writeFileSync(
    file,
    `#!/usr/bin/env node
const net = require('node:net');
const a = process.argv.slice(2);
const opt = (f) => a[a.indexOf(f) + 1];
if (a.at(-1) !== 'shell') { process.stderr.write('fake adb: only "shell" is supported\\n'); process.exit(1); }
const frame = (s) => s.length.toString(16).padStart(4, '0') + s;
const sock = net.connect(Number(opt('-P')), opt('-H'), () => sock.write(frame('host:transport:' + opt('-s'))));
let stage = 0;
let buf = Buffer.alloc(0);
sock.on('data', (d) => {
  if (stage === 2) return void process.stdout.write(d);
  buf = Buffer.concat([buf, d]);
  while (stage < 2 && buf.length >= 4) {
    if (buf.subarray(0, 4).toString() !== 'OKAY') { process.stderr.write('error: ' + buf.subarray(8).toString() + '\\n'); process.exit(1); }
    buf = buf.subarray(4);
    stage++;
    if (stage === 1) sock.write(frame('shell:'));
  }
  if (stage === 2 && buf.length) process.stdout.write(buf);
});
sock.on('close', () => process.exit(0));
process.stdin.on('data', (d) => sock.write(d));
`,
    { mode: 0o755 },
  );
  return file;
}
