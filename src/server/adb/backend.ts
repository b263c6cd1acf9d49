// The Android backend: one adb server (local, or remote such as a device farm's), its devices
// tracked live with host:track-devices, each claimed by at most one box at a time.
import { BoxflowError } from '../../errors.js';
import { Adb, type Client } from './adbkit.js';
import { AndroidBox, type DeviceInfo } from './androidBox.js';

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

export interface DeviceFilter {
  deviceSerial?: string;
  /** Matched against the device's model, manufacturer, sdk, release and deviceType. */
  deviceLabels?: Record<string, string>;
}

export class AdbBackend {
  readonly address: AdbAddress;
  readonly #client: Client;
  readonly #log: (entry: Record<string, unknown>) => void;
  /** serial → adb state (`device`, `offline`, `unauthorized`, ...), as track-devices reports. */
  readonly #states = new Map<string, string>();
  /** serial → the box that holds it. */
  readonly #claims = new Map<string, { boxId: string; box: AndroidBox | undefined; onGone: (reason: string) => void }>();
  #tracking: Promise<void> | undefined;
  #stopTracker: (() => void) | undefined;
  #closed = false;

  constructor(opts: { address: AdbAddress; log?: (entry: Record<string, unknown>) => void }) {
    this.address = opts.address;
    this.#log = opts.log ?? (() => {});
    // `bin` never runs: adbkit starts a local adb on ECONNREFUSED, and a server must not spawn one behind the user's back.
    this.#client = Adb.createClient({ host: this.address.host, port: this.address.port, bin: '/nonexistent/boxflow-never-starts-adb' });
  }

  #where(): string {
    return `${this.address.host}:${this.address.port}`;
  }

  /** Starts tracking (once); a 4xx that says how to start an adb server when none answers. */
  #track(): Promise<void> {
    return (this.#tracking ??= (async () => {
      try {
        const tracker = await this.#client.trackDevices();
        const set = (id: string, type: string) => {
          this.#states.set(id, type);
          if (type !== 'device') this.#gone(id, `went ${type}`);
        };
        tracker.on('add', (d: { id: string; type: string }) => set(d.id, d.type));
        tracker.on('change', (d: { id: string; type: string }) => set(d.id, d.type));
        tracker.on('remove', (d: { id: string }) => {
          this.#states.delete(d.id);
          this.#gone(d.id, 'was disconnected');
        });
        const lost = () => {
          this.#tracking = undefined;
          if (this.#closed) return;
          this.#log({ level: 'warn', msg: 'adb server connection lost', adb: this.#where() });
          for (const serial of [...this.#states.keys()]) this.#gone(serial, `is unreachable: the adb server at ${this.#where()} went away`);
          this.#states.clear();
        };
        tracker.on('end', lost);
        tracker.on('error', lost);
        this.#stopTracker = () => tracker.end();
        // adbkit may report the first list before listeners exist: read it once more.
        for (const d of await this.#client.listDevices()) this.#states.set(d.id, d.type);
      } catch (err) {
        this.#tracking = undefined;
        const why = String((err as Error)?.message ?? err).split('\n')[0];
        throw new BoxflowError(
          'ANDROID_UNAVAILABLE',
          `no adb server answers at ${this.#where()} (${why}). Start one with \`adb start-server\` (or \`adb -a nodaemon server start\` for a remote one), or point boxflow serve at yours with --adb tcp:HOST:PORT or ADB_SERVER_SOCKET`,
        );
      }
    })());
  }

  #gone(serial: string, reason: string): void {
    const claim = this.#claims.get(serial);
    if (!claim) return;
    const text = `${serial} ${reason}`;
    if (claim.box) claim.box.goneReason = reason;
    this.#log({ level: 'warn', msg: 'android device gone', serial, boxId: claim.boxId, reason });
    claim.onGone(`device ${text}`);
  }

  /** Devices adb lists right now, with their states. */
  async devices(): Promise<Array<{ serial: string; state: string; claimedBy?: string }>> {
    await this.#track();
    return [...this.#states].map(([serial, state]) => ({ serial, state, ...(this.#claims.has(serial) ? { claimedBy: this.#claims.get(serial)!.boxId } : {}) }));
  }

  /** Claims a free online device that matches, prepares it and returns its box. */
  async claim(boxId: string, filter: DeviceFilter, onGone: (reason: string) => void): Promise<AndroidBox> {
    await this.#track();
    const online = [...this.#states].filter(([, s]) => s === 'device').map(([serial]) => serial);
    let candidates = online.filter((s) => !this.#claims.has(s));
    if (filter.deviceSerial) {
      if (!this.#states.has(filter.deviceSerial)) throw new BoxflowError('NO_DEVICE_AVAILABLE', `adb at ${this.#where()} lists no device ${filter.deviceSerial}; it lists ${[...this.#states.keys()].join(', ') || 'none'}`);
      candidates = candidates.filter((s) => s === filter.deviceSerial);
    }
    const labels = Object.entries(filter.deviceLabels ?? {});
    for (const serial of candidates) {
      this.#claims.set(serial, { boxId, box: undefined, onGone });
      try {
        const info = await this.#info(serial);
        const facts: Record<string, string> = { serial, model: info.model, manufacturer: info.manufacturer, sdk: String(info.sdk), release: info.release, deviceType: info.virtual ? 'virtual' : 'physical' };
        if (!labels.every(([k, v]) => facts[k] === v)) {
          this.#claims.delete(serial);
          continue;
        }
        const box = new AndroidBox(this.#client.getDevice(serial), info, boxId, this.address);
        this.#claims.get(serial)!.box = box;
        await box.prepare();
        return box;
      } catch (err) {
        this.#claims.delete(serial);
        if (filter.deviceSerial) throw err;
        this.#log({ level: 'warn', msg: 'android device skipped', serial, error: (err as Error).message });
      }
    }
    const wanted = [filter.deviceSerial && `serial ${filter.deviceSerial}`, labels.length && `labels ${labels.map(([k, v]) => `${k}=${v}`).join(',')}`].filter(Boolean).join(' and ');
    throw new BoxflowError(
      'NO_DEVICE_AVAILABLE',
      `no free online Android device${wanted ? ` with ${wanted}` : ''} at adb ${this.#where()}: ${online.length} online, ${online.filter((s) => this.#claims.has(s)).length} claimed by other boxes${this.#states.size > online.length ? `, ${this.#states.size - online.length} offline or unauthorized` : ''}`,
    );
  }

  async #info(serial: string): Promise<DeviceInfo> {
    const props = await this.#client.getDevice(serial).getProperties();
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
      const claim = this.#claims.get(box.info.serial);
      if (claim?.box === box) this.#claims.delete(box.info.serial);
    }
  }

  close(): void {
    this.#closed = true;
    this.#stopTracker?.();
  }
}
