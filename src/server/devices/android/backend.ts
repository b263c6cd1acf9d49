// The Android backend: one adb server or several (local, or remote such as a device farm's), their
// devices tracked live with host:track-devices and pooled, each claimed by at most one box at a time.
import { BoxflowError } from '../../../errors.js';
import { Adb, type Client } from './adbkit.js';
import { adbErrorText, AndroidBox, findAdbClient, kAdbClientMissing, type DeviceInfo } from './androidBox.js';

export interface AdbAddress {
  host: string;
  port: number;
}

const kDefault: AdbAddress = { host: '127.0.0.1', port: 5037 };

/** `tcp:HOST:PORT` (the ADB_SERVER_SOCKET form; `[v6]` hosts too). */
export function parseAdbSocket(spec: string, where: string): AdbAddress {
  const m = /^tcp:(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(spec.trim());
  const port = m ? Number(m[3]) : 0;
  if (!m || port < 1 || port > 65535) throw new BoxflowError('CONFIG_INVALID', `${where}: "${spec}" is not tcp:HOST:PORT (e.g. tcp:127.0.0.1:5037)`);
  return { host: m[1] ?? m[2]!, port };
}

/** `--adb` if given, else ADB_SERVER_SOCKET, else 127.0.0.1:5037 — the adb client's own order. */
export function adbAddress(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): AdbAddress {
  if (flag) return parseAdbSocket(flag, '--adb');
  if (env.ADB_SERVER_SOCKET) return parseAdbSocket(env.ADB_SERVER_SOCKET, 'ADB_SERVER_SOCKET');
  return { ...kDefault };
}

/** Every `--adb` (repeatable: a device farm's several adb servers), else as adbAddress. Duplicates are dropped. */
export function adbAddresses(flags: string | readonly string[] | undefined, env: NodeJS.ProcessEnv = process.env): AdbAddress[] {
  const list = (typeof flags === 'string' ? [flags] : [...(flags ?? [])]).filter(Boolean);
  if (!list.length) return [adbAddress(undefined, env)];
  const seen = new Set<string>();
  return list.map((f) => parseAdbSocket(f, '--adb')).filter((a) => !seen.has(`${a.host}:${a.port}`) && !!seen.add(`${a.host}:${a.port}`));
}

export interface DeviceFilter {
  deviceSerial?: string;
  /** Matched against the device's model, manufacturer, sdk, release and deviceType. */
  deviceLabels?: Record<string, string>;
}

interface Claim {
  boxId: string;
  box: AndroidBox | undefined;
  onGone: (reason: string) => void;
}

/** One adb server of the pool: its client and the devices it tracks. */
class AdbServer {
  readonly address: AdbAddress;
  readonly client: Client;
  /** serial → adb state (`device`, `offline`, `unauthorized`, ...), as track-devices reports. */
  readonly states = new Map<string, string>();
  tracking: Promise<void> | undefined;
  stopTracker: (() => void) | undefined;

  constructor(address: AdbAddress) {
    this.address = address;
    // `bin` never runs: adbkit starts a local adb on ECONNREFUSED, and a server must not spawn one behind the user's back.
    this.client = Adb.createClient({ host: address.host, port: address.port, bin: '/nonexistent/boxflow-never-starts-adb' });
  }

  get where(): string {
    return `${this.address.host}:${this.address.port}`;
  }

  /** A device of this server, as claims name it (the same serial may exist on two servers). */
  key(serial: string): string {
    return `${this.where}/${serial}`;
  }
}

export class AdbBackend {
  /** The first adb server (the only one, unless several were given). */
  readonly address: AdbAddress;
  readonly addresses: readonly AdbAddress[];
  readonly #servers: AdbServer[];
  readonly #log: (entry: Record<string, unknown>) => void;
  /** server/serial → the box that holds it. */
  readonly #claims = new Map<string, Claim>();
  #closed = false;

  /** `address`: one adb server, or several whose devices are pooled (a device farm behind several hosts). */
  constructor(opts: { address: AdbAddress | readonly AdbAddress[]; log?: (entry: Record<string, unknown>) => void }) {
    const list = Array.isArray(opts.address) ? [...(opts.address as readonly AdbAddress[])] : [opts.address as AdbAddress];
    if (!list.length) throw new BoxflowError('CONFIG_INVALID', 'the Android backend needs at least one adb server');
    this.addresses = list;
    this.address = list[0]!;
    this.#servers = list.map((a) => new AdbServer(a));
    this.#log = opts.log ?? (() => {});
  }

  #where(servers: readonly AdbServer[] = this.#servers): string {
    return servers.map((s) => s.where).join(', ');
  }

  /** Starts tracking a server (once); a 4xx that says how to start an adb server when none answers. */
  #track(server: AdbServer): Promise<void> {
    return (server.tracking ??= (async () => {
      try {
        const tracker = await server.client.trackDevices();
        const set = (id: string, type: string) => {
          server.states.set(id, type);
          if (type !== 'device') this.#gone(server, id, `went ${type}`);
        };
        tracker.on('add', (d: { id: string; type: string }) => set(d.id, d.type));
        tracker.on('change', (d: { id: string; type: string }) => set(d.id, d.type));
        tracker.on('remove', (d: { id: string }) => {
          server.states.delete(d.id);
          this.#gone(server, d.id, 'was disconnected');
        });
        const lost = () => {
          server.tracking = undefined;
          if (this.#closed) return;
          this.#log({ level: 'warn', msg: 'adb server connection lost', adb: server.where });
          for (const serial of [...server.states.keys()]) this.#gone(server, serial, `is unreachable: the adb server at ${server.where} went away`);
          server.states.clear();
        };
        tracker.on('end', lost);
        tracker.on('error', lost);
        server.stopTracker = () => tracker.end();
        // adbkit may report the first list before listeners exist: read it once more.
        for (const d of await server.client.listDevices()) server.states.set(d.id, d.type);
      } catch (err) {
        server.tracking = undefined;
        const client = findAdbClient() ? '' : `. Note: ${kAdbClientMissing}`;
        throw new BoxflowError(
          'ANDROID_UNAVAILABLE',
          `no adb server answers at ${server.where} (${adbErrorText(err)}). Start one with \`adb start-server\` (or \`adb -a nodaemon server start\` for a remote one), or point boxflow serve at yours with --adb tcp:HOST:PORT or ADB_SERVER_SOCKET${client}`,
        );
      }
    })());
  }

  /**
   * The servers that answer. With several, one that does not is left out (and logged) while the
   * others serve; only when none answers is it ANDROID_UNAVAILABLE.
   */
  async #trackAll(): Promise<AdbServer[]> {
    const results = await Promise.allSettled(this.#servers.map((s) => this.#track(s)));
    const up = this.#servers.filter((_, i) => results[i]!.status === 'fulfilled');
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
    if (!up.length) {
      if (failures.length === 1) throw failures[0];
      throw new BoxflowError('ANDROID_UNAVAILABLE', `no adb server answers: ${failures.map((e) => e.message.split('. Start one')[0]!.replace(/^no adb server answers at /, '')).join('; ')}. Start them with \`adb -a nodaemon server start\`, or fix --adb`);
    }
    this.#servers.forEach((s, i) => {
      if (results[i]!.status === 'rejected') this.#log({ level: 'warn', msg: 'adb server unreachable; its devices are left out', adb: s.where, error: (results[i] as PromiseRejectedResult).reason?.message });
    });
    return up;
  }

  #gone(server: AdbServer, serial: string, reason: string): void {
    const claim = this.#claims.get(server.key(serial));
    if (!claim) return;
    const text = `${serial} ${reason}`;
    if (claim.box) claim.box.goneReason = reason;
    this.#log({ level: 'warn', msg: 'android device gone', serial, adb: server.where, boxId: claim.boxId, reason });
    claim.onGone(`device ${text}`);
  }

  /** Devices the adb servers list right now, with their states (`adb`: which server, when there are several). */
  async devices(): Promise<Array<{ serial: string; state: string; claimedBy?: string; adb?: string }>> {
    const up = await this.#trackAll();
    return up.flatMap((server) =>
      [...server.states].map(([serial, state]) => {
        const claim = this.#claims.get(server.key(serial));
        return { serial, state, ...(claim ? { claimedBy: claim.boxId } : {}), ...(this.#servers.length > 1 ? { adb: server.where } : {}) };
      }),
    );
  }

  /**
   * Claims a free online device that matches, prepares it and returns its box. With several adb
   * servers their devices are one pool; the servers holding the fewest claims are tried first.
   */
  async claim(boxId: string, filter: DeviceFilter, onGone: (reason: string) => void): Promise<AndroidBox> {
    const up = await this.#trackAll();
    const held = (server: AdbServer) => [...server.states.keys()].filter((serial) => this.#claims.has(server.key(serial))).length;
    const online = up.flatMap((server) => [...server.states].filter(([, s]) => s === 'device').map(([serial]) => ({ server, serial })));
    const order = new Map(up.map((server, i) => [server, held(server) * up.length + i]));
    let candidates = online.filter(({ server, serial }) => !this.#claims.has(server.key(serial))).sort((a, b) => order.get(a.server)! - order.get(b.server)!);
    if (filter.deviceSerial) {
      if (!up.some((server) => server.states.has(filter.deviceSerial!))) {
        const lists = up.map((server) => (up.length > 1 ? `${server.where}: ` : '') + ([...server.states.keys()].join(', ') || 'none')).join('; ');
        throw new BoxflowError('NO_DEVICE_AVAILABLE', `adb at ${this.#where(up)} lists no device ${filter.deviceSerial}; it lists ${lists}`);
      }
      candidates = candidates.filter(({ serial }) => serial === filter.deviceSerial);
    }
    const labels = Object.entries(filter.deviceLabels ?? {});
    for (const { server, serial } of candidates) {
      const key = server.key(serial);
      this.#claims.set(key, { boxId, box: undefined, onGone });
      try {
        const info = await this.#info(server, serial);
        const facts: Record<string, string> = { serial, model: info.model, manufacturer: info.manufacturer, sdk: String(info.sdk), release: info.release, deviceType: info.virtual ? 'virtual' : 'physical' };
        if (!labels.every(([k, v]) => facts[k] === v)) {
          this.#claims.delete(key);
          continue;
        }
        const box = new AndroidBox(server.client.getDevice(serial), info, boxId, server.address);
        this.#claims.get(key)!.box = box;
        await box.prepare();
        return box;
      } catch (err) {
        this.#claims.delete(key);
        if (filter.deviceSerial && candidates.length === 1) throw err;
        this.#log({ level: 'warn', msg: 'android device skipped', serial, adb: server.where, error: (err as Error).message });
      }
    }
    const wanted = [filter.deviceSerial && `serial ${filter.deviceSerial}`, labels.length && `labels ${labels.map(([k, v]) => `${k}=${v}`).join(',')}`].filter(Boolean).join(' and ');
    const listed = up.reduce((n, server) => n + server.states.size, 0);
    const down = this.#servers.length - up.length;
    throw new BoxflowError(
      'NO_DEVICE_AVAILABLE',
      `no free online Android device${wanted ? ` with ${wanted}` : ''} at adb ${this.#where(up)}: ${online.length} online, ${online.filter(({ server, serial }) => this.#claims.has(server.key(serial))).length} claimed by other boxes${listed > online.length ? `, ${listed - online.length} offline or unauthorized` : ''}${down ? ` (${down} adb server${down === 1 ? '' : 's'} not answering: ${this.#where(this.#servers.filter((s) => !up.includes(s)))})` : ''}`,
    );
  }

  async #info(server: AdbServer, serial: string): Promise<DeviceInfo> {
    const props = await server.client.getDevice(serial).getProperties();
    const sdk = Number(props['ro.build.version.sdk']);
    return {
      serial,
      sdk: Number.isFinite(sdk) ? sdk : 0,
      release: props['ro.build.version.release'] ?? '',
      model: props['ro.product.model'] ?? '',
      manufacturer: props['ro.product.manufacturer'] ?? '',
      virtual: props['ro.kernel.qemu'] === '1' || serial.startsWith('emulator-') || /^(?:sdk|generic)/.test(props['ro.product.device'] ?? ''),
    };
  }

  /** Resets the device (best effort) and makes it free for the next box. */
  async release(box: AndroidBox): Promise<void> {
    try {
      await box.release();
    } finally {
      for (const [key, claim] of this.#claims) if (claim.box === box) this.#claims.delete(key);
    }
  }

  close(): void {
    this.#closed = true;
    for (const server of this.#servers) server.stopTracker?.();
  }
}
