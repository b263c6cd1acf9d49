// TEST DOUBLE: a fake Android device daemon (adbd) on TCP. A real `adb` server connects to it with
// `adb connect 127.0.0.1:PORT` and talks the adb TRANSPORT protocol (protocol.txt in AOSP's
// packages/modules/adb): 24-byte little-endian message headers (command, arg0,
// arg1, data length, data checksum, magic = command ^ 0xffffffff), then the data.
//
// - CNXN: the host's CNXN is answered with our own right away (no AUTH: adbd on a device with
//   `ro.adb.secure=0` does the same), protocol version A_VERSION 0x01000001, maxdata 256 KiB, banner
//   `device::ro.product.name=…;ro.product.model=…;ro.product.device=…;features=cmd`. No shell_v2
//   unless a test adds it to `features`: then `shell,v2,raw:<cmd>` is served too (fakeDevice.ts).
// - OPEN(host-id, 0, "service\0"): `shell:<cmd>`, `exec:<cmd>` (stdin of the streamed installs
//   included), `sync:` and the interactive `shell:`; answered OKAY(our-id, host-id), then the
//   output as WRTEs of at most maxdata bytes, each sent only after the host's OKAY for the one
//   before (flow control), then CLSE. Every WRTE from the host is acknowledged with an OKAY.
//   Any other service is a failed OPEN: CLSE(0, host-id).
//
// The device itself (the command table replaying test/fixtures/android, files, packages) is the
// shared FakeDevice of fakeDevice.ts; every service line is recorded in `device.services` and every
// sync request in `device.syncRequests`, exactly as received, so tests assert the device command
// lines. A command line the table does not know is answered as sh would (a line of error text) and
// also recorded in `failures`, so a test cannot pass by accident.
//
// Also here: RealAdbServer, which runs Debian's `adb` binary as a server on a free port for one
// test file (and kills it after), and findAdb().
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FakeDevice, isFail, serveInteractiveShell, serveShellV2, serveSync, writeReply, type ServiceIO } from './fakeDevice.js';

const A_SYNC = 0x434e5953;
const A_CNXN = 0x4e584e43;
const A_OPEN = 0x4e45504f;
const A_OKAY = 0x59414b4f;
const A_CLSE = 0x45534c43;
const A_WRTE = 0x45545257;
const A_AUTH = 0x48545541;
/** The protocol version whose data checksums may be 0 (adb.h A_VERSION_SKIP_CHECKSUM); the newest before TLS. */
export const A_VERSION = 0x01000001;
/** adb.h MAX_PAYLOAD (the v2 payload size, 256 KiB). */
export const kMaxData = 256 * 1024;
/** What adbd accepts from a host before the CNXN exchange (MAX_PAYLOAD_V1). */
const kMaxDataV1 = 4 * 1024;

const kNames: Record<number, string> = { [A_SYNC]: 'SYNC', [A_CNXN]: 'CNXN', [A_OPEN]: 'OPEN', [A_OKAY]: 'OKAY', [A_CLSE]: 'CLSE', [A_WRTE]: 'WRTE', [A_AUTH]: 'AUTH' };

/** One transport message, as the header says (the checksum is the sum of the data bytes). */
function message(command: number, arg0: number, arg1: number, data: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(24);
  let sum = 0;
  for (const b of data) sum += b;
  head.writeUInt32LE(command, 0);
  head.writeUInt32LE(arg0 >>> 0, 4);
  head.writeUInt32LE(arg1 >>> 0, 8);
  head.writeUInt32LE(data.length, 12);
  head.writeUInt32LE(sum >>> 0, 16);
  head.writeUInt32LE((command ^ 0xffffffff) >>> 0, 20);
  return Buffer.concat([head, data]);
}

/** One stream of a transport, from the device's side: the ServiceIO a device service reads and writes. */
class DeviceStream implements ServiceIO {
  #in: Buffer = Buffer.alloc(0);
  #reader: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | undefined;
  /** The writes and the final CLSE, one after another. */
  #chain: Promise<void> = Promise.resolve();
  /** Resolves when the host acknowledges the WRTE in flight. */
  #acked: (() => void) | undefined;
  #closed = false;

  constructor(
    readonly transport: Transport,
    readonly localId: number,
    readonly remoteId: number,
  ) {}

  get closed(): boolean {
    return this.#closed;
  }

  read(n: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.#reader = { n, resolve, reject };
      this.#pump();
    });
  }

  write(data: Buffer | string): Promise<void> {
    const bytes = Buffer.from(data);
    this.#chain = this.#chain.then(async () => {
      for (let i = 0; i < bytes.length && !this.#closed; i += this.transport.sendMax) {
        const acked = new Promise<void>((r) => (this.#acked = r));
        this.transport.send(A_WRTE, this.localId, this.remoteId, bytes.subarray(i, i + this.transport.sendMax));
        await acked;
      }
    });
    return this.#chain;
  }

  end(): void {
    this.#chain = this.#chain.then(() => {
      if (this.#closed) return;
      this.#closed = true;
      this.transport.send(A_CLSE, this.localId, this.remoteId);
      this.transport.forget(this);
    });
  }

  /** WRTE from the host: its bytes are ours to read; acknowledged right away. */
  onWrite(data: Buffer): void {
    this.#in = Buffer.concat([this.#in, data]);
    this.transport.send(A_OKAY, this.localId, this.remoteId);
    this.#pump();
  }

  onOkay(): void {
    const r = this.#acked;
    this.#acked = undefined;
    r?.();
  }

  /** CLSE from the host (or the transport went away): no reply (protocol.txt), pending work ends. */
  onClose(): void {
    this.#closed = true;
    this.onOkay();
    this.#pump();
  }

  #pump(): void {
    const w = this.#reader;
    if (!w) return;
    if (this.#in.length >= w.n) {
      this.#reader = undefined;
      const out = this.#in.subarray(0, w.n);
      this.#in = this.#in.subarray(w.n);
      w.resolve(out);
    } else if (this.#closed) {
      this.#reader = undefined;
      w.reject(new Error('stream closed'));
    }
  }
}

/** One TCP connection from an adb server: the transport of one device. */
class Transport {
  #buf: Buffer = Buffer.alloc(0);
  readonly #streams = new Map<number, DeviceStream>();
  #nextId = 1;
  /** The largest data we send in one message: the host's maxdata, at most ours. */
  sendMax = kMaxDataV1;
  #online = false;

  constructor(
    readonly socket: Socket,
    readonly owner: FakeAdbDevice,
  ) {
    socket.on('data', (d: Buffer) => this.#onData(d));
    socket.on('close', () => {
      for (const s of this.#streams.values()) s.onClose();
      this.#streams.clear();
    });
    socket.on('error', () => {});
  }

  send(command: number, arg0: number, arg1: number, data?: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(message(command, arg0, arg1, data));
  }

  forget(stream: DeviceStream): void {
    if (this.#streams.get(stream.localId) === stream) this.#streams.delete(stream.localId);
  }

  #onData(d: Buffer): void {
    this.#buf = Buffer.concat([this.#buf, d]);
    while (this.#buf.length >= 24) {
      const command = this.#buf.readUInt32LE(0);
      const length = this.#buf.readUInt32LE(12);
      if (this.#buf.readUInt32LE(20) !== (command ^ 0xffffffff) >>> 0 || length > Math.max(kMaxData, 1024 * 1024)) {
        this.owner.protocolErrors.push(`bad header ${this.#buf.subarray(0, 24).toString('hex')}`);
        this.socket.destroy();
        return;
      }
      if (this.#buf.length < 24 + length) return;
      const arg0 = this.#buf.readUInt32LE(4);
      const arg1 = this.#buf.readUInt32LE(8);
      const data = this.#buf.subarray(24, 24 + length);
      this.#buf = this.#buf.subarray(24 + length);
      this.owner.messages.push(`${kNames[command] ?? command.toString(16)} ${arg0} ${arg1} ${length}`);
      this.#handle(command, arg0, arg1, data);
    }
  }

  #handle(command: number, arg0: number, arg1: number, data: Buffer): void {
    const dev = this.owner.device;
    if (command === A_CNXN) {
      // CNXN(version, maxdata, "host::features=…"): answered with ours, no AUTH.
      this.owner.hostBanners.push(data.toString('utf8').replace(/\0$/, ''));
      this.sendMax = Math.min(arg1, kMaxData);
      this.#online = true;
      this.send(A_CNXN, Math.min(arg0, A_VERSION), kMaxData, Buffer.from(this.owner.banner()));
      return;
    }
    if (!this.#online) {
      this.owner.protocolErrors.push(`${kNames[command] ?? command} before CNXN`);
      return;
    }
    if (command === A_OPEN) {
      const service = data.toString('utf8').replace(/\0$/, '');
      dev.services.push(service);
      if (!/^(?:shell|exec|sync):/.test(service) && !(service.startsWith('shell,v2,raw:') && this.owner.features.includes('shell_v2'))) {
        // A failed OPEN: CLSE with local-id 0.
        this.owner.failures.push(`${service}: unknown service`);
        this.send(A_CLSE, 0, arg0);
        return;
      }
      const stream = new DeviceStream(this, this.#nextId++, arg0);
      this.#streams.set(stream.localId, stream);
      this.send(A_OKAY, stream.localId, arg0);
      void this.owner.serve(service, stream).catch(() => stream.end());
      return;
    }
    // OKAY/WRTE/CLSE(host-id, our-id): for a stream we no longer have, ignored (protocol.txt).
    const stream = this.#streams.get(arg1);
    if (!stream || stream.remoteId !== arg0) return;
    if (command === A_OKAY) stream.onOkay();
    else if (command === A_WRTE) stream.onWrite(data);
    else if (command === A_CLSE) {
      this.#streams.delete(arg1);
      stream.onClose();
    }
  }
}

export class FakeAdbDevice {
  readonly #server: Server;
  readonly #transports = new Set<Transport>();
  port = 0;
  /** The simulated device (set once listening: its serial is `127.0.0.1:PORT`, what `adb devices` lists). */
  device!: FakeDevice;
  /** Each CNXN banner the host sent (`host::features=…`). */
  readonly hostBanners: string[] = [];
  /** Every message received, `NAME arg0 arg1 length`, for a test that looks at the transport. */
  readonly messages: string[] = [];
  /** Service lines that failed (an unknown service, an unknown command, a handler error), with why. */
  readonly failures: string[] = [];
  /** Malformed transport messages. */
  readonly protocolErrors: string[] = [];
  /** The `features=` list of the CNXN banner. */
  features = ['cmd'];

  private constructor() {
    this.#server = createServer((s) => {
      const t = new Transport(s, this);
      this.#transports.add(t);
      s.once('close', () => this.#transports.delete(t));
    });
  }

  /** Listens on 127.0.0.1 (port 0: a free one); `setup` shapes the device before any host sees it. */
  static async start(setup?: (d: FakeDevice) => void): Promise<FakeAdbDevice> {
    const f = new FakeAdbDevice();
    await new Promise<void>((r) => f.#server.listen(0, '127.0.0.1', r));
    f.port = (f.#server.address() as { port: number }).port;
    f.device = new FakeDevice(f.address);
    f.device.props['ro.product.name'] ??= 'oriole';
    f.device.props['ro.product.device'] ??= 'oriole';
    setup?.(f.device);
    return f;
  }

  /** What `adb connect` takes, and the serial the adb server lists the device under. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** adbd's connection banner (adb.cpp get_connection_string): `device::` then `key=value;` properties and the features. */
  banner(): string {
    const p = this.device.props;
    return `device::ro.product.name=${p['ro.product.name'] ?? ''};ro.product.model=${p['ro.product.model'] ?? ''};ro.product.device=${p['ro.product.device'] ?? ''};features=${this.features.join(',')}`;
  }

  /** Runs one opened service on its stream. */
  async serve(service: string, io: ServiceIO): Promise<void> {
    const dev = this.device;
    if (service === 'sync:') return serveSync(io, dev);
    if (service.startsWith('shell,v2,raw:')) {
      await serveShellV2(dev, service.slice('shell,v2,raw:'.length), (chunk) => io.write(chunk), () => false);
      return io.end();
    }
    if (service === 'shell:') {
      // Typed lines are not checked for unquoted metacharacters (a person types them, not the backend).
      return serveInteractiveShell(io, dev, (line) => dev.run(`shell:${line}`, Buffer.alloc(0), false));
    }
    const n = dev.stdinBytes(service);
    const stdin = n ? await io.read(n) : Buffer.alloc(0);
    const reply = await dev.run(service, stdin);
    if (isFail(reply)) {
      // What the device's sh would do with a command it cannot run: one line of error text, then the end.
      this.failures.push(`${service}: ${reply.fail}`);
      await io.write(`${reply.fail}\n`);
    } else {
      await writeReply(reply, (chunk) => io.write(chunk), () => false);
    }
    io.end();
  }

  /** The device goes away: its transports are cut (the adb server then lists it offline and retries). */
  disconnect(): void {
    for (const t of this.#transports) t.socket.destroy();
  }

  async close(): Promise<void> {
    this.disconnect();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }
}

/** The `adb` binary on PATH (Debian's `adb` package puts it in /usr/bin), or undefined. */
export function findAdb(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const file = join(dir, 'adb');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const c = createConnection({ host: '127.0.0.1', port }, () => {
      c.destroy();
      resolve(true);
    });
    c.on('error', () => resolve(false));
  });

/**
 * A real adb server (`adb -P PORT nodaemon server`) on a free port, as a child of this process,
 * with its own HOME (the key it generates goes there, not into ~/.android). `close()` kills it by
 * its pid; it is also killed if the test process exits first.
 */
export class RealAdbServer {
  #stderr = '';
  readonly #onExit = () => this.child.kill('SIGKILL');

  private constructor(
    readonly adb: string,
    readonly port: number,
    readonly home: string,
    readonly child: ChildProcess,
  ) {
    child.stderr?.on('data', (d: Buffer) => (this.#stderr = (this.#stderr + d.toString('utf8')).slice(-20_000)));
    child.stdout?.on('data', (d: Buffer) => (this.#stderr = (this.#stderr + d.toString('utf8')).slice(-20_000)));
    process.once('exit', this.#onExit);
  }

  static async start(adb: string): Promise<RealAdbServer> {
    const home = mkdtempSync(join(tmpdir(), 'boxflow-adb-home-'));
    const port = await freePort();
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANDROID_SDK_HOME: home, TMPDIR: home, ADB_LIBUSB: '0' };
    const child = spawn(adb, ['-P', String(port), 'nodaemon', 'server'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const server = new RealAdbServer(adb, port, home, child);
    const exited = new Promise<never>((_, reject) => child.once('exit', (code, signal) => reject(new Error(`adb server exited (${signal ?? code}) before it listened:\n${server.log}`))));
    exited.catch(() => {});
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (await Promise.race([canConnect(port), exited])) return server;
      if (Date.now() > deadline) {
        await server.close();
        throw new Error(`adb server gave no answer on port ${port} within 15 s:\n${server.log}`);
      }
      await sleep(50);
    }
  }

  /** The --adb / ADB_SERVER_SOCKET value for this server. */
  get socketSpec(): string {
    return `tcp:127.0.0.1:${this.port}`;
  }

  /** What the server printed (its log goes to stderr under nodaemon). */
  get log(): string {
    return this.#stderr;
  }

  /**
   * A host-protocol request straight to the server (`host:devices`, ...): the reply after OKAY, or
   * the FAIL text as an error. No adb client runs, so none can start a second server.
   */
  request(req: string): Promise<string> {
    return new Promise((resolve, reject) => {
      let buf = Buffer.alloc(0);
      const c = createConnection({ host: '127.0.0.1', port: this.port }, () => c.write(`${Buffer.byteLength(req).toString(16).padStart(4, '0')}${req}`));
      c.on('data', (d: Buffer) => (buf = Buffer.concat([buf, d])));
      c.on('error', reject);
      c.on('close', () => {
        const status = buf.subarray(0, 4).toString('ascii');
        const body = buf.subarray(8).toString('utf8');
        if (status === 'OKAY') resolve(body);
        else reject(new Error(`${req}: ${status} ${body}`));
      });
    });
  }

  /** Runs the adb client against this server (`adb -P PORT ARGS…`); its stdout, or an error with both outputs. */
  run(args: string[], timeoutMs = 20_000): Promise<string> {
    // With no server on the port the client would start a daemon of its own, which nothing would stop.
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.reject(new Error(`the adb server is gone:\n${this.log}`));
    return new Promise((resolve, reject) => {
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.home, ANDROID_SDK_HOME: this.home, TMPDIR: this.home };
      const c = spawn(this.adb, ['-P', String(this.port), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      c.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
      c.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
      const timer = setTimeout(() => c.kill('SIGKILL'), timeoutMs);
      c.once('exit', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve(out);
        else reject(new Error(`adb ${args.join(' ')} exited ${code}: ${out}${err}`));
      });
    });
  }

  /** `adb connect ADDRESS`, then waits until `adb devices` lists it as `device` (the CNXN exchange done). */
  async connect(address: string, timeoutMs = 15_000): Promise<void> {
    const said = await this.run(['connect', address]);
    if (!/connected to/.test(said)) throw new Error(`adb connect ${address}: ${said}`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const list = await this.request('host:devices');
      if (list.split('\n').some((l) => l.trim() === `${address}\tdevice`)) return;
      if (Date.now() > deadline) throw new Error(`${address} is not online at the adb server after ${timeoutMs / 1000} s: ${list}\n${this.log}`);
      await sleep(50);
    }
  }

  async close(): Promise<void> {
    process.removeListener('exit', this.#onExit);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const gone = new Promise((r) => this.child.once('exit', r));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 3_000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(this.home, { recursive: true, force: true });
  }
}
