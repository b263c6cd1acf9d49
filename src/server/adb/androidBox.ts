// One Android box: a claimed device, driven with stock shell commands over adbkit. Every command
// line sent here is listed in docs/server.md ("Android backend"); each is a stock Android
// shell command (am, pm, input, settings, screencap, uiautomator).
import { kRotationReads, rotationBack, rotationCommands, settingValue, type RotationSettings } from '../../api/androidSettings.js';
import { accessSync, constants, createWriteStream, statSync } from 'node:fs';
import { delimiter, join, posix } from 'node:path';
import { Readable, Transform, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { BoxflowError } from '../../errors.js';
import type { AndroidPackage, FsEntry, InstallResult, LauncherApp, Point, Resolution } from '../../api/schemas.js';
import { OverBound, pullTransfer, readBounded, type DeviceClient } from './adbkit.js';
import { readApk, type ApkSet } from './apk.js';
import { keyCodes } from './keys.js';
import { textArgs, utf8Chunks } from './textPieces.js';
import { loadCanvas } from '../optionalPackages.js';
import { extractHierarchy, resolveTargetInLayout, withKeyboard } from './layout.js';
import type { TargetResolution } from '../chromium/linuxBox.js';
import { humanSize, modeString } from '../boxFs.js';
import { selfIdentity } from '../reaper.js';
import { AndroidScratch } from './leftovers.js';
import { activityClass, checkPackageName, isPackageName } from './names.js';
import { sh } from '../../api/shellQuote.js';
import { kShellV2Feature, transportFeatures } from './shellV2.js';

export const kAdbKeyboardIme = 'com.android.adbkeyboard/.AdbIME';

/** Said when the adb client (the web terminal runs it; `adb start-server` needs it) is not there. */
export const kAdbClientMissing = 'the adb client is not installed (apt-get install adb) or BOXFLOW_ADB names a missing file';

/** The adb client's path: the file BOXFLOW_ADB names, else `adb` on PATH; undefined when there is none. */
export function findAdbClient(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const name = env.BOXFLOW_ADB || 'adb';
  const candidates = name.includes('/') ? [name] : (env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, name));
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * An adbkit error's first line, for a message. adbkit answers a refused connection by starting an adb
 * server with its `bin`, which boxflow never lets it do (it names a file that does not exist): the
 * `spawn <that file> ENOENT` it then reports means the connection was refused.
 */
export function adbErrorText(err: unknown): string {
  const text = String((err as Error)?.message ?? err).split('\n')[0]!;
  return /^spawn \S+ ENOENT$/.test(text) ? 'connect ECONNREFUSED' : text;
}

const kPngMagic = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
/** Longest wait for one device command (a uiautomator dump on an animating screen takes ~10 s). */
const kCommandTimeoutMs = 60_000;
/**
 * Bytes of a shell command's output read whole (a layout dump, a package list: a few MB at most) and
 * of a pulled layout dump. A device that sends more has its stream closed there (502 DEVICE_ERROR).
 */
const kShellOutputMax = 16 * 2 ** 20;
/** Bytes of an `exec:` command's output read whole: a `screencap -p` PNG of the largest screens is ~33 MB. */
const kExecOutputMax = 64 * 2 ** 20;
/** An install streams up to 512 MB to the device. */
const kInstallTimeoutMs = 10 * 60_000;
/**
 * Bytes of one `shell:` command line: adbd's v1 service request is limited to 4 KiB, the `shell:`
 * prefix included. Several `input` commands share a line, joined by `; `.
 */
const kLineBytes = 3_800;
/** UTF-8 bytes per ADBKeyBoard broadcast: their base64 (4/3 of it) must fit one line. */
const kBroadcastBytes = 2_700;
/** The most device time one `type` request may take; the rest of its text is then not sent (504 DEVICE_TIMEOUT). */
export const kTypeBudgetMs = 60_000;
const kClearPresses = 250; // DELs that clear a field on devices without `input keycombination`
const kMaxLinkChars = 3_000;
const kLongPressMs = 400; // ViewConfiguration.DEFAULT_LONG_PRESS_TIMEOUT (AOSP): a shorter hold is a tap
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const kMediaRoots = ['/sdcard/DCIM', '/sdcard/Pictures', '/sdcard/Movies'];
const kButtons: Record<string, number> = { power: 26, volumeUp: 24, volumeDown: 25, volumeMute: 164, home: 3, back: 4, menu: 82, appSwitch: 187 };

export interface DeviceInfo {
  serial: string;
  sdk: number;
  release: string;
  model: string;
  manufacturer: string;
  virtual: boolean;
}

/** A bound on the device time of one request: past `at` (performance.now()), nothing more is sent. */
interface Deadline {
  at: number;
  expired: () => BoxflowError;
}

export class AndroidBox {
  readonly #device: DeviceClient;
  readonly #boxId: string;
  /** The adb server the device is on (the web terminal's adb client talks to it too). */
  readonly #adb: { host: string; port: number };
  readonly info: DeviceInfo;
  /** The box's working directory on the device. */
  readonly workDir: string;
  /** Why the device is unusable (offline, unplugged, adb server gone); set by the backend. */
  goneReason: string | undefined;
  readonly #opened = new Set<string>();
  #savedIme: string | undefined;
  #resized = false;
  /** The two rotation settings before the box first turned the screen (`null`: unset); put back on release. */
  #rotationBefore: RotationSettings | undefined;
  /** The box's directory on the server (install uploads) with its ledger, for reaping after a crash. */
  #scratch: AndroidScratch | undefined;
  /** The bound of one `type` request's device time (kTypeBudgetMs). */
  typeBudgetMs = kTypeBudgetMs;
  /** Whether the device speaks adb's shell protocol v2 (asked once, shellV2.ts). */
  #shellV2: Promise<boolean> | undefined;

  constructor(device: DeviceClient, info: DeviceInfo, boxId: string, adb: { host: string; port: number }) {
    this.#device = device;
    this.#boxId = boxId;
    this.#adb = adb;
    this.info = info;
    this.workDir = `/data/local/tmp/boxflow/${boxId}`;
  }

  // ---------------------------------------------------------------- transport

  async #call<T>(what: string, fn: () => PromiseLike<T>): Promise<T> {
    this.#requireOnline();
    try {
      return await fn();
    } catch (err) {
      if (BoxflowError.is(err)) throw err;
      this.#requireOnline();
      const text = adbErrorText(err);
      if (/device (?:offline|'.*' not found|unauthorized)|ECONNREFUSED|ECONNRESET|Premature end|closed/i.test(text)) {
        throw new BoxflowError('DEVICE_OFFLINE', `device ${this.info.serial} is not reachable (${what}): ${text}`, { cause: err });
      }
      throw new BoxflowError('DEVICE_ERROR', `device ${this.info.serial}: ${what} failed: ${text}`, { cause: err });
    }
  }

  #requireOnline(): void {
    if (this.goneReason) throw new BoxflowError('DEVICE_OFFLINE', `device ${this.info.serial} ${this.goneReason}`);
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
    return this.#call(cmd.split(' ').slice(0, 2).join(' '), () =>
      this.#timed(cmd, ms, async (track) => (await this.#readWhole(cmd, track(await this.#device.shell(cmd)), kShellOutputMax)).toString('utf8'), ms < timeoutMs ? deadline?.expired : undefined),
    );
  }

  /** A command's output, read whole up to `max` bytes; past them its stream is closed and the command fails. */
  async #readWhole(cmd: string, stream: Readable, max: number): Promise<Buffer> {
    try {
      return await readBounded(stream, max);
    } catch (err) {
      if (err instanceof OverBound) throw new BoxflowError('DEVICE_ERROR', `\`${cmd.slice(0, 80)}\` wrote more than ${max / 2 ** 20} MiB on ${this.info.serial}; its stream was closed there`);
      throw err;
    }
  }

  /**
   * Opens a `shell:` command line and hands back its output as it comes (stdout and stderr as one
   * stream), for a caller that reads it itself (commands, gbox/commands.ts): it bounds the command's
   * time and destroys the stream to end it.
   */
  shellStream(cmd: string): Promise<Duplex> {
    return this.#call(cmd.split(' ').slice(0, 2).join(' '), () => this.#timed(cmd, kCommandTimeoutMs, async (track) => track(await this.#device.shell(cmd))));
  }

  /** Whether commands can have their stdout, stderr and exit status apart (adb's `shell_v2` feature). */
  hasShellV2(): Promise<boolean> {
    this.#shellV2 ??= this.#call('features', () => this.#timed('features', kCommandTimeoutMs, () => transportFeatures(this.#device))).then((f) => f.has(kShellV2Feature));
    this.#shellV2.catch(() => (this.#shellV2 = undefined));
    return this.#shellV2;
  }

  /** As shellStream, over `shell,v2,raw:` (shellV2.ts): the stream carries v2 packets. */
  shellV2Stream(cmd: string): Promise<Duplex> {
    return this.#call(cmd.split(' ').slice(0, 2).join(' '), () => this.#timed(cmd, kCommandTimeoutMs, async (track) => track(await this.#device.openLocal(`shell,v2,raw:${cmd}`))));
  }

  /** Runs an `exec:` command (raw, binary-safe), optionally streaming `stdin` first. */
  exec(cmd: string, stdin?: NodeJS.ReadableStream, timeoutMs = kCommandTimeoutMs): Promise<Buffer> {
    return this.#call(cmd.split(' ').slice(0, 3).join(' '), () =>
      this.#timed(cmd, timeoutMs, async (track) => {
        const stream = track(await this.#device.openLocal(`exec:${cmd}`));
        const out = this.#readWhole(cmd, stream, kExecOutputMax);
        if (stdin) stdin.pipe(stream, { end: false });
        return out;
      }),
    );
  }

  /** A device that stops answering is an error after `ms`, not a hung box; its stream is closed. */
  async #timed<T>(cmd: string, ms: number, run: (track: <S extends Readable>(s: S) => S) => Promise<T>, onExpiry?: () => BoxflowError): Promise<T> {
    let stream: Readable | undefined;
    let expired = false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        stream?.destroy();
        reject(onExpiry?.() ?? new BoxflowError('DEVICE_ERROR', `\`${cmd.slice(0, 80)}\` gave no answer within ${ms / 1000} s on ${this.info.serial}`));
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
  async #quiet(cmd: string, deadline?: Deadline): Promise<void> {
    const out = (await this.shell(cmd, kCommandTimeoutMs, deadline)).trim();
    if (out) throw new BoxflowError('DEVICE_ERROR', `\`${cmd.slice(0, 80)}\` failed on ${this.info.serial}: ${out.split('\n').slice(0, 3).join(' | ')}`);
  }

  /**
   * Quiet commands, as few `shell:` requests as fit: joined by `; ` into lines of up to kLineBytes.
   * Stops at the first line with output (the device's error) or when the deadline has passed.
   */
  async #quietBatch(cmds: readonly string[], deadline?: Deadline, sent?: { lines: number; of: number }): Promise<void> {
    const lines: string[] = [];
    for (const cmd of cmds) {
      const last = lines.length ? lines[lines.length - 1]! : undefined;
      if (last !== undefined && Buffer.byteLength(last) + 2 + Buffer.byteLength(cmd) <= kLineBytes) lines[lines.length - 1] = `${last}; ${cmd}`;
      else lines.push(cmd);
    }
    if (sent) sent.of += lines.length;
    for (const line of lines) {
      await this.#quiet(line, deadline);
      if (sent) sent.lines++;
    }
  }

  /** Writes the box's ledger (scratch dir) and makes its working dir on the device. */
  async prepare(): Promise<void> {
    this.#scratch = await AndroidScratch.create({ boxId: this.#boxId, owner: selfIdentity(), adb: { ...this.#adb }, serial: this.info.serial, deviceDir: this.workDir });
    try {
      await this.#quiet(sh`mkdir -p ${this.workDir}`);
    } catch (err) {
      await this.#scratch.remove();
      this.#scratch = undefined;
      throw err;
    }
  }

  /** A fresh directory on the server for one install's upload, inside the box's scratch dir (reaped after a crash). */
  installDir(): Promise<string> {
    if (!this.#scratch) return Promise.reject(new BoxflowError('BOX_NOT_RUNNING', `the Android box on ${this.info.serial} is released`));
    return this.#scratch.installDir();
  }

  /** Gives the device back as it was: closes the apps the box opened, resets size, rotation and keyboard, removes the working dir (and the scratch dir on the server). */
  async release(): Promise<void> {
    try {
      if (this.goneReason) return;
      const steps: string[] = [...this.#opened].map((p) => sh`am force-stop ${p}`);
      if (this.#resized) steps.push('wm size reset');
      if (this.#rotationBefore) steps.push(...rotationBack(this.#rotationBefore));
      if (this.#savedIme) steps.push(sh`ime set ${this.#savedIme}`);
      steps.push(sh`rm -rf ${this.workDir}`);
      for (const cmd of steps) await this.shell(cmd).catch(() => {});
      this.#opened.clear();
    } finally {
      await this.#scratch?.remove().catch(() => {});
      this.#scratch = undefined;
    }
  }

  /**
   * What the web terminal runs on a pty: the adb client's interactive shell on this device, against
   * the same adb server, in a bare environment (nothing of the server's). `BOXFLOW_ADB` names the
   * adb client, default `adb` on PATH.
   */
  terminalCommand(env: NodeJS.ProcessEnv = process.env): { file: string; args: string[]; env: Record<string, string> } {
    const keep = Object.fromEntries(['PATH', 'HOME', 'LANG', 'LC_ALL'].filter((k) => env[k]).map((k) => [k, env[k]!]));
    return {
      file: env.BOXFLOW_ADB || 'adb',
      args: ['-H', this.#adb.host, '-P', String(this.#adb.port), '-s', this.info.serial, 'shell'],
      env: { ...keep, TERM: 'xterm-256color', COLORTERM: 'truecolor' },
    };
  }

  // ---------------------------------------------------------------- screen

  async screenshot(scale: number, clip?: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
    const png = await this.exec('screencap -p');
    if (!png.subarray(0, 4).equals(kPngMagic)) {
      throw new BoxflowError('DEVICE_ERROR', `screencap -p returned no PNG: ${png.toString('utf8', 0, 300).trim() || 'no output'}`);
    }
    if (scale === 1 && !clip) return png;
    const { createCanvas, loadImage } = await loadCanvas();
    const image = await loadImage(png);
    const area = clip ?? { x: 0, y: 0, width: image.width, height: image.height };
    const canvas = createCanvas(Math.max(1, Math.round(area.width * scale)), Math.max(1, Math.round(area.height * scale)));
    canvas.getContext('2d').drawImage(image, area.x, area.y, area.width, area.height, 0, 0, canvas.width, canvas.height);
    return canvas.encode('png');
  }

  /**
   * `uiautomator dump /dev/tty` (the XML on stdout, as captured in the fixtures). Where the shell
   * has no terminal to open, the dump goes to a file in the working dir and comes back over sync.
   */
  async layout(): Promise<string> {
    const [xml, keyboard] = await Promise.all([this.#dump(), this.keyboardShown().catch(() => undefined)]);
    return keyboard === undefined ? xml : withKeyboard(xml, keyboard);
  }

  /** Whether the soft keyboard is up (`mInputShown=` of `dumpsys input_method`); undefined when the dump does not say. */
  async keyboardShown(): Promise<boolean | undefined> {
    const m = /\bmInputShown=(true|false)\b/.exec(await this.shell('dumpsys input_method'));
    return m ? m[1] === 'true' : undefined;
  }

  async #dump(): Promise<string> {
    const out = await this.shell('uiautomator dump /dev/tty');
    try {
      return extractHierarchy(out);
    } catch (err) {
      if (!/\/dev\/tty/.test(out)) throw err;
    }
    const file = `${this.workDir}/window_dump.xml`;
    const said = await this.shell(sh`uiautomator dump ${file}`);
    if (!(await this.#stat(file))) return extractHierarchy(said);
    const xml = await this.pull(file, kShellOutputMax, () => new BoxflowError('DEVICE_ERROR', `the layout dump ${file} on ${this.info.serial} is over ${kShellOutputMax / 2 ** 20} MiB; its pull was closed there`));
    await this.shell(sh`rm -f ${file}`);
    return extractHierarchy(xml);
  }

  async resolveTarget(target: string): Promise<TargetResolution> {
    return resolveTargetInLayout(await this.#dump(), target);
  }

  async setResolution(res: Resolution): Promise<void> {
    this.#resized = true;
    await this.#quiet(sh`wm size ${res.width}x${res.height}`);
  }

  /**
   * Turns the screen as Maestro's AndroidDriver.setOrientation does: auto-rotate off
   * (`accelerometer_rotation` 0), then `user_rotation` 0-3 (0°, 90°, 180°, 270°). Before the box's
   * first turn the two settings are read, and release() puts them back: the rotation does not
   * outlive the box.
   */
  async rotate(rotation: 0 | 1 | 2 | 3): Promise<void> {
    if (!this.#rotationBefore) {
      const read = async (key: keyof RotationSettings) => {
        const out = await this.shell(kRotationReads[key]);
        const v = settingValue(out);
        if (v === undefined) throw new BoxflowError('DEVICE_ERROR', `\`${kRotationReads[key]}\` on ${this.info.serial} gave ${JSON.stringify(out.trim().slice(0, 200))}, not a number or null: the rotation could not be put back, so it is not changed`);
        return v;
      };
      this.#rotationBefore = { accelerometer: await read('accelerometer'), user: await read('user') };
    }
    for (const line of rotationCommands(rotation)) await this.#quiet(line);
  }

  // ---------------------------------------------------------------- input

  /** Device pixels. Zero-length (whatever the duration): a tap, as on a Linux box. Two points: one swipe over the duration. More: a touch moved through every point. */
  async drag(points: Point[], segmentMs: number[]): Promise<void> {
    const p = points.map((pt) => ({ x: Math.round(pt.x), y: Math.round(pt.y) }));
    const first = p[0]!;
    if (p.every((pt) => pt.x === first.x && pt.y === first.y)) {
      // A hold as long as Android's long-press timeout is a long press: a swipe that stays put.
      const holdMs = Math.round(segmentMs.reduce((a, b) => a + b, 0));
      if (holdMs >= kLongPressMs) return this.#quiet(sh`input swipe ${first.x} ${first.y} ${first.x} ${first.y} ${holdMs}`);
      return this.#quiet(sh`input tap ${first.x} ${first.y}`);
    }
    if (p.length === 2) {
      await this.#quiet(sh`input swipe ${first.x} ${first.y} ${p[1]!.x} ${p[1]!.y} ${Math.max(1, Math.round(segmentMs[0] ?? 0))}`);
      return;
    }
    if (this.info.sdk < 29) {
      // `input motionevent` arrived in Android 10; older devices get one swipe per segment.
      for (let i = 1; i < p.length; i++) await this.#quiet(sh`input swipe ${p[i - 1]!.x} ${p[i - 1]!.y} ${p[i]!.x} ${p[i]!.y} ${Math.max(1, Math.round(segmentMs[i - 1] ?? 0))}`);
      return;
    }
    await this.#quiet(sh`input motionevent DOWN ${first.x} ${first.y}`);
    let deadline = performance.now();
    try {
      for (let i = 1; i < p.length; i++) {
        deadline += segmentMs[i - 1] ?? 0;
        const wait = deadline - performance.now();
        if (wait > 1) await sleep(wait);
        await this.#quiet(sh`input motionevent MOVE ${p[i]!.x} ${p[i]!.y}`);
      }
    } finally {
      const last = p.at(-1)!;
      await this.#quiet(sh`input motionevent UP ${last.x} ${last.y}`);
    }
  }

  async pressKeys(names: readonly string[], combination: boolean): Promise<void> {
    const { codes, unknown } = keyCodes(names);
    if (unknown.length) throw new BoxflowError('INVALID_REQUEST', `/keys: Android has no key for ${unknown.map((k) => `"${k}"`).join(', ')}`);
    if (!combination || codes.length === 1) return this.#quiet(sh`input keyevent ${codes}`);
    if (this.info.sdk < 31) {
      throw new BoxflowError('UNPROCESSABLE', `key combinations need \`input keycombination\` (Android 12, API 31); device ${this.info.serial} runs API ${this.info.sdk}`);
    }
    await this.#quiet(sh`input keycombination ${codes}`);
  }

  /**
   * ASCII through `input text`; anything else through ADBKeyBoard's base64 broadcast. The commands
   * are batched: a run of newlines (and `pressEnter`) is one `input keyevent 66 66 …`, and the
   * `input` commands share `shell:` lines (`; `-joined), so `"a\n"` × 5,000 is some 50 requests,
   * not 10,000. The whole request may use the device for `typeBudgetMs` (60 s): past it nothing more
   * is sent and the request is 504 DEVICE_TIMEOUT.
   */
  async type(text: string, replace: boolean, pressEnter: boolean): Promise<void> {
    const budget = this.typeBudgetMs;
    const sent = { lines: 0, of: 0 };
    const deadline: Deadline = {
      at: performance.now() + budget,
      expired: () =>
        new BoxflowError('DEVICE_TIMEOUT', `typing stopped: one request may use device ${this.info.serial} for ${budget / 1000} s; ${sent.lines} of ${sent.of} command lines ran, the rest was not sent`),
    };
    const clear = replace ? this.#clearCommands() : [];
    if (/^[\x20-\x7e\n]*$/.test(text) && !text.includes('%s')) {
      const cmds = [...clear];
      let keys: number[] = [];
      const flushKeys = () => {
        if (keys.length) cmds.push(sh`input keyevent ${keys}`);
        keys = [];
      };
      text.split('\n').forEach((line, i) => {
        if (i > 0) keys.push(66);
        if (!line) return;
        flushKeys();
        // `input text` turns %s into a space; spaces go that way too, as on old devices one word is safest.
        for (const chunk of textArgs(line)) cmds.push(sh`input text ${chunk.replaceAll(' ', '%s')}`);
      });
      if (pressEnter) keys.push(66);
      flushKeys();
      await this.#quietBatch(cmds, deadline, sent);
      return;
    }
    await this.#useAdbKeyboard();
    const chunks = utf8Chunks(text, kBroadcastBytes);
    sent.of = chunks.length + (pressEnter ? 1 : 0);
    await this.#quietBatch(clear, deadline, sent);
    for (const chunk of chunks) {
      const out = await this.shell(sh`am broadcast -a ADB_INPUT_B64 --es msg ${Buffer.from(chunk, 'utf8').toString('base64')}`, kCommandTimeoutMs, deadline);
      if (!/Broadcast completed/.test(out)) throw new BoxflowError('DEVICE_ERROR', `typing through ADBKeyBoard failed: ${out.trim().split('\n').slice(0, 2).join(' | ')}`);
      sent.lines++;
    }
    if (pressEnter) await this.#quiet('input keyevent 66', deadline);
  }

  /** Select all and delete; before Android 12 (no `input keycombination`) the cursor to the end and DELs. */
  #clearCommands(): string[] {
    if (this.info.sdk >= 31) return ['input keycombination 113 29', 'input keyevent 67'];
    return [sh`input keyevent ${[123, ...Array<number>(kClearPresses).fill(67)]}`];
  }

  async #useAdbKeyboard(): Promise<void> {
    if (this.#savedIme) return;
    const imes = (await this.shell('ime list -a -s')).split('\n').map((l) => l.trim());
    if (!imes.includes(kAdbKeyboardIme)) {
      throw new BoxflowError(
        'UNPROCESSABLE',
        `\`input text\` cannot type non-ASCII text; install ADBKeyBoard on device ${this.info.serial} (github.com/senzhk/ADBKeyBoard, \`adb install ADBKeyboard.apk\`) and boxflow types through it, restoring the keyboard when the box ends`,
      );
    }
    const current = (await this.shell('settings get secure default_input_method')).trim();
    const enabled = await this.shell(sh`ime enable ${kAdbKeyboardIme}`);
    const set = await this.shell(sh`ime set ${kAdbKeyboardIme}`);
    if (!/selected/.test(set)) throw new BoxflowError('DEVICE_ERROR', `cannot select ADBKeyBoard: ${(set || enabled).trim()}`);
    this.#savedIme = current && current !== 'null' ? current : undefined;
  }

  // ---------------------------------------------------------------- packages and apps

  async #allPackages(): Promise<Array<{ packageName: string; apkPath: string; system: boolean }>> {
    const [all, third] = await Promise.all([this.shell('pm list packages -f'), this.shell('pm list packages -3')]);
    const thirdParty = new Set(third.split('\n').filter((l) => l.startsWith('package:')).map((l) => l.slice(8).trim()));
    return all
      .split('\n')
      .filter((l) => l.startsWith('package:'))
      .map((line) => {
        const eq = line.lastIndexOf('='); // paths contain `==` since Android 11
        const packageName = line.slice(eq + 1).trim();
        return { packageName, apkPath: line.slice(8, eq), system: !thirdParty.has(packageName) };
      });
  }

  async #runningNames(): Promise<Set<string>> {
    const out = await this.shell(this.info.sdk >= 26 ? 'ps -A -o NAME' : 'ps');
    return new Set(out.split('\n').slice(1).map((l) => l.trim().split(/\s+/).pop()!.split(':')[0]!).filter(Boolean));
  }

  async #version(packageName: string): Promise<string> {
    const out = await this.shell(sh`dumpsys package ${packageName}`);
    const from = Math.max(0, out.indexOf('\nPackages:'));
    const m = /versionName=(.*)$/m.exec(out.slice(from));
    return m ? m[1]!.replace(/\r$/, '') : '';
  }

  async listPackages(types: ReadonlyArray<'system' | 'thirdParty'>, running: ReadonlyArray<'running' | 'notRunning'> | undefined): Promise<AndroidPackage[]> {
    const [all, names] = await Promise.all([this.#allPackages(), this.#runningNames()]);
    const picked = all
      .map((p) => ({ ...p, pkgType: (p.system ? 'system' : 'thirdParty') as 'system' | 'thirdParty', isRunning: names.has(p.packageName) }))
      .filter((p) => types.includes(p.pkgType))
      .filter((p) => !running?.length || running.includes(p.isRunning ? 'running' : 'notRunning'));
    const out: AndroidPackage[] = [];
    for (let i = 0; i < picked.length; i += 4) {
      const batch = picked.slice(i, i + 4);
      const versions = await Promise.all(batch.map((p) => this.#version(p.packageName)));
      batch.forEach((p, k) => out.push({ name: p.packageName, packageName: p.packageName, apkPath: p.apkPath, version: versions[k]!, pkgType: p.pkgType, isRunning: p.isRunning }));
    }
    return out;
  }

  async getPackage(packageName: string): Promise<AndroidPackage> {
    checkPackageName(packageName);
    const [all, names] = await Promise.all([this.#allPackages(), this.#runningNames()]);
    const p = all.find((x) => x.packageName === packageName);
    if (!p) throw new BoxflowError('PACKAGE_NOT_FOUND', `no package "${packageName}" is installed on device ${this.info.serial}`);
    return { name: p.packageName, packageName, apkPath: p.apkPath, version: await this.#version(packageName), pkgType: p.system ? 'system' : 'thirdParty', isRunning: names.has(packageName) };
  }

  async listApps(): Promise<LauncherApp[]> {
    const out = await this.shell('cmd package query-activities --components -a android.intent.action.MAIN -c android.intent.category.LAUNCHER');
    const apps: LauncherApp[] = [];
    for (const line of out.split('\n').map((l) => l.trim())) {
      const m = /^([\w.]+)\/([\w.$]+)$/.exec(line);
      if (!m) continue;
      const full = m[2]!.startsWith('.') ? m[1]! + m[2]! : m[2]!;
      apps.push({ packageName: m[1]!, activityName: m[2]!, activityClassName: full });
    }
    return apps;
  }

  /**
   * "Close all apps": force-stops every running package that the launcher shows (a MAIN/LAUNCHER
   * activity, query-activities), system apps such as the browser or Settings included, whoever opened
   * it; the keyboard in use stays. Answers the packages stopped.
   */
  async closeAll(): Promise<string[]> {
    const [apps, names, ime] = await Promise.all([this.listApps(), this.#runningNames(), this.shell('settings get secure default_input_method')]);
    const keep = ime.trim().split('/')[0];
    const stop = [...new Set(apps.map((a) => a.packageName))].filter((p) => names.has(p) && p !== keep);
    await this.#quietBatch(stop.map((p) => sh`am force-stop ${p}`));
    return stop;
  }

  /**
   * Starts an activity of a package: `className` as names.ts reads it (`.Main`, `Main`, `a.b.Main`,
   * `pkg/.Main`); `extras` as string extras. An activity that does not exist is 404
   * PACKAGE_NOT_FOUND when the package is not installed, else 422.
   */
  async openApp(packageName: string, className: string, extras: Record<string, string> = {}): Promise<void> {
    checkPackageName(packageName);
    const cls = activityClass(packageName, className);
    const es = Object.entries(extras).map(([k, v]) => sh` --es ${k} ${v}`).join('');
    const out = await this.shell(sh`am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -n ${`${packageName}/${cls}`}` + es);
    const error = /^Error: (.*)$/m.exec(out);
    if (error) {
      if (/does not exist/.test(error[1]!)) {
        await this.#requireInstalled(packageName);
        throw new BoxflowError('UNPROCESSABLE', `${packageName} has no activity ${cls}: ${error[1]}`);
      }
      throw new BoxflowError('DEVICE_ERROR', `cannot open ${packageName}/${cls}: ${error[1]}`);
    }
    this.#opened.add(packageName);
  }

  /** Opens `activityName` of a package (see openApp), else its launcher activity. */
  async launch(packageName: string, activityName?: string, extras?: Record<string, string>): Promise<void> {
    checkPackageName(packageName);
    if (activityName !== undefined) activityClass(packageName, activityName);
    if (!activityName) {
      const app = (await this.listApps()).find((a) => a.packageName === packageName);
      if (!app) {
        await this.#requireInstalled(packageName);
        throw new BoxflowError('UNPROCESSABLE', `${packageName} has no launcher activity; name one in activityName`);
      }
      activityName = app.activityClassName;
    }
    await this.openApp(packageName, activityName, extras);
  }

  async closeApp(packageName: string): Promise<void> {
    await this.#requireInstalled(packageName);
    await this.shell(sh`am force-stop ${packageName}`);
  }

  async clearAppData(packageName: string): Promise<void> {
    await this.#requireInstalled(packageName);
    const out = (await this.shell(sh`pm clear ${packageName}`)).trim();
    if (out !== 'Success') throw new BoxflowError('DEVICE_ERROR', `pm clear ${packageName} failed: ${out.split('\n')[0] || 'no output'}`);
  }

  async #requireInstalled(packageName: string): Promise<void> {
    checkPackageName(packageName);
    const out = await this.shell(sh`pm path ${packageName}`);
    if (!out.includes('package:')) throw new BoxflowError('PACKAGE_NOT_FOUND', `no package "${packageName}" is installed on device ${this.info.serial}`);
  }

  /**
   * Opens a link as Android does: a VIEW intent, which the app that claims the URL (or the browser)
   * receives. `-W` waits for the launch and names the activity that took it.
   */
  async openLink(url: string): Promise<{ activity: string | undefined }> {
    if (!/^[a-z][a-z\d+.-]*:[^\x00-\x1f]+$/i.test(url)) throw new BoxflowError('INVALID_URL', `/url "${url.slice(0, 200)}" is not an absolute URL (scheme:…, no control characters)`);
    // The v1 shell request is limited to 4 KiB, quoting and the command included.
    if (url.length > kMaxLinkChars) throw new BoxflowError('INVALID_URL', `/url is ${url.length} characters; an Android box opens links of up to ${kMaxLinkChars}`);
    const out = await this.shell(sh`am start -W -a android.intent.action.VIEW -d ${url}`);
    const error = /^Error: (.*)$/m.exec(out);
    if (error) {
      const unresolved = /unable to resolve Intent/.test(error[1]!);
      throw new BoxflowError(unresolved ? 'UNPROCESSABLE' : 'DEVICE_ERROR', unresolved ? `no app on device ${this.info.serial} opens ${url.slice(0, 200)}` : `cannot open ${url.slice(0, 200)}: ${error[1]}`);
    }
    const activity = /^Activity: (\S+)$/m.exec(out)?.[1];
    if (activity) this.#opened.add(activity.split('/')[0]!);
    return { activity };
  }

  /** Hardware buttons: KEYCODEs of power, volume, home, back, menu and app switch. */
  async pressButtons(buttons: readonly string[]): Promise<void> {
    const codes = buttons.map((b) => kButtons[b]);
    const unknown = buttons.filter((_, i) => codes[i] === undefined);
    if (unknown.length) throw new BoxflowError('INVALID_REQUEST', `/buttons: no Android button ${unknown.map((b) => `"${b}"`).join(', ')}`);
    await this.#quiet(sh`input keyevent ${codes as number[]}`);
  }

  /** Installs an APK, or every APK of a ZIP as one session, from a file on the server's disk. */
  async install(file: string, open: boolean): Promise<InstallResult> {
    if (this.info.sdk < 24) throw new BoxflowError('UNPROCESSABLE', `streamed installs need Android 7 (API 24, \`cmd package\`); device ${this.info.serial} runs API ${this.info.sdk}`);
    // The APKs of a ZIP are extracted into the box's scratch dir, so a reaping finds them after a crash.
    const set: ApkSet = await readApk(file, this.#scratch?.dir);
    try {
      if (!isPackageName(set.manifest.packageName)) throw new BoxflowError('INSTALL_FAILED', `the APK names an invalid package ${JSON.stringify(set.manifest.packageName.slice(0, 100))}`);
      if (set.apks.length === 1) {
        const apk = set.apks[0]!;
        const out = (await this.exec(sh`cmd package install -S ${apk.size}`, apk.open(), kInstallTimeoutMs)).toString('utf8').trim();
        if (!out.startsWith('Success')) throw installError(out);
      } else {
        const total = set.apks.reduce((a, b) => a + b.size, 0);
        const created = (await this.exec(sh`cmd package install-create -S ${total}`)).toString('utf8');
        const found = /\[(\d{1,15})\]/.exec(created)?.[1];
        if (!created.startsWith('Success') || !found) throw installError(created.trim());
        const id = Number(found);
        try {
          for (const apk of set.apks) {
            const out = (await this.exec(sh`cmd package install-write -S ${apk.size} ${id} ${apk.name} -`, apk.open(), kInstallTimeoutMs)).toString('utf8').trim();
            if (!out.startsWith('Success')) throw installError(out);
          }
          const out = (await this.exec(sh`cmd package install-commit ${id}`, undefined, kInstallTimeoutMs)).toString('utf8').trim();
          if (!out.startsWith('Success')) throw installError(out);
        } catch (err) {
          await this.exec(sh`cmd package install-abandon ${id}`).catch(() => {});
          throw err;
        }
      }
    } finally {
      await set.close();
    }
    const m = set.manifest;
    const path = (await this.shell(sh`pm path ${m.packageName}`)).split('\n').find((l) => l.startsWith('package:'));
    const launcher = m.activities.find((a) => a.isLauncher);
    if (open && launcher) await this.openApp(m.packageName, launcher.className);
    return { packageName: m.packageName, apkPath: path ? path.slice(8).trim() : '', pkgType: 'thirdParty', activities: m.activities };
  }

  // ---------------------------------------------------------------- files and media

  async #stat(path: string): Promise<{ mode: number; size: number; mtime: Date } | undefined> {
    try {
      const st = await this.#call(`stat ${path}`, async () => { const s = await this.#device.stat(path); return { mode: s.mode, size: Number(s.size), mtime: new Date(s.mtimeMs) }; });
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
    return this.#call(`pull ${path}`, () =>
      this.#timed(`pull ${path}`, timeoutMs, async (track) => {
        try {
          return await readBounded(track(await pullTransfer(this.#device, path)), maxBytes);
        } catch (err) {
          throw err instanceof OverBound ? tooLarge() : err;
        }
      }),
    );
  }

  /** As pull, into `file` on the server, streamed (a recording, src/server/recordingAndroid.ts): the bytes written, at most `maxBytes`. */
  pullToFile(path: string, file: string, maxBytes: number, tooLarge: () => BoxflowError, timeoutMs = kCommandTimeoutMs): Promise<number> {
    let got = 0;
    const bound = new Transform({
      transform(chunk: Buffer, _enc, done) {
        got += chunk.length;
        done(got > maxBytes ? tooLarge() : null, chunk);
      },
    });
    return this.#call(`pull ${path}`, () =>
      this.#timed(`pull ${path}`, timeoutMs, async (track) => {
        await pipeline(track(await pullTransfer(this.#device, path)), bound, createWriteStream(file));
        return got;
      }),
    );
  }

  // ---------------------------------------------------------------- sync, for the GBOX apps and media endpoints (src/server/gbox)

  /** The adb server the device is on (GET connect-address). */
  get adbServer(): { host: string; port: number } {
    return { ...this.#adb };
  }

  /** A path's sync STAT; undefined when nothing is there. */
  stat(path: string): Promise<{ mode: number; size: number; mtime: Date } | undefined> {
    return this.#stat(path);
  }

  /** A directory's entries over sync (LIST, without `.` and `..`); none when it does not exist. */
  listDir(path: string): Promise<Array<{ name: string; mode: number; size: number; mtime: Date }>> {
    return this.#call(`list ${path}`, () =>
      this.#timed(`list ${path}`, kCommandTimeoutMs, async () => ((await this.#device.readdir(path)) as Array<{ name: string; mode: number; size: number; mtimeMs: number }>).map((e) => ({ name: e.name, mode: e.mode, size: Number(e.size), mtime: new Date(e.mtimeMs) }))),
    );
  }

  /**
   * A device file's bytes as they arrive over sync (RECV), for the caller to pipe on; the stream
   * fails when the device fails the transfer, and destroying it closes the sync connection. With
   * `maxBytes` (the size STAT gave) no more than that comes: a file that grew, or whose read never
   * ends (a link to /dev/zero), is cut there and its pull closed.
   */
  async readStream(path: string, maxBytes = Infinity): Promise<Readable> {
    const transfer = await this.#call(`pull ${path}`, () => pullTransfer(this.#device, path));
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
    await this.#call(`push ${path}`, async () => {
      const transfer = await this.#device.push(from, path, 0o644);
      let timer: NodeJS.Timeout | undefined;
      try {
        await new Promise<void>((resolve, reject) => {
          timer = setTimeout(() => {
            transfer.cancel();
            reject(new BoxflowError('DEVICE_ERROR', `writing ${path} took over ${timeoutMs / 1000} s on ${this.info.serial}`));
          }, timeoutMs);
          transfer.once('error', reject);
          transfer.once('end', resolve);
        });
      } finally {
        clearTimeout(timer);
      }
    });
  }

  async rename(oldPath: string, newPath: string, workingDir: string | undefined): Promise<FsEntry> {
    const base = posix.resolve(this.workDir, workingDir ?? '.');
    const inside = (p: string, field: string) => {
      const rel = posix.relative(this.workDir, p);
      if (rel.startsWith('..') || posix.isAbsolute(rel)) throw new BoxflowError('FORBIDDEN', `${field}: ${p} is outside the box's working directory ${this.workDir}`);
      return p;
    };
    inside(base, '/workingDir');
    const from = inside(posix.resolve(base, oldPath), '/oldPath');
    const to = inside(posix.resolve(base, newPath), '/newPath');
    if (!(await this.#stat(from))) throw new BoxflowError('FILE_NOT_FOUND', `/oldPath: ${from} does not exist`);
    if (await this.#stat(to)) throw new BoxflowError('FILE_EXISTS', `/newPath: ${to} already exists`);
    await this.#quiet(sh`mv ${from} ${to}`);
    const st = await this.#stat(to);
    if (!st) throw new BoxflowError('DEVICE_ERROR', `mv left no ${to}`);
    const dir = (st.mode & S_IFMT) === S_IFDIR;
    const common = { name: posix.basename(to), path: to, mode: modeString(st.mode, dir), lastModified: st.mtime.toISOString() };
    return dir ? { type: 'dir', ...common } : { type: 'file', size: humanSize(st.size), ...common };
  }

  async #album(name: string): Promise<string> {
    if (!name || name.includes('/') || name === '.' || name === '..') throw new BoxflowError('INVALID_REQUEST', `album "${name}" is not a folder name`);
    for (const root of kMediaRoots) {
      const dir = `${root}/${name}`;
      const st = await this.#stat(dir);
      if (st && (st.mode & S_IFMT) === S_IFDIR) return dir;
    }
    throw new BoxflowError('FILE_NOT_FOUND', `no album "${name}" in ${kMediaRoots.join(', ')}`);
  }

  /** Removes a file and tells the media scanner, so the gallery drops it too. */
  async deleteMedia(album: string, media: string): Promise<void> {
    if (!media || media.includes('/') || media === '.' || media === '..') throw new BoxflowError('INVALID_REQUEST', `"${media}" is not a file name`);
    const path = `${await this.#album(album)}/${media}`;
    if (!(await this.#stat(path))) throw new BoxflowError('FILE_NOT_FOUND', `no media "${media}" in album "${album}"`);
    await this.#quiet(sh`rm -f ${path}`);
    await this.#scan(path);
  }

  async deleteAlbum(album: string): Promise<void> {
    const dir = await this.#album(album);
    const entries = await this.#call(`list ${dir}`, async () => (await this.#device.readdir(dir)).map((e: { name: string }) => ({ name: e.name })));
    await this.#quiet(sh`rm -rf ${dir}`);
    for (const e of entries) await this.#scan(`${dir}/${e.name}`);
  }

  /**
   * Puts a screenshot in the device's Pictures album: pushed to /sdcard/Pictures/<name>.png, then
   * announced to the media scanner so that the gallery shows it. Answers the device path.
   */
  async saveToAlbum(png: Buffer, name: string): Promise<string> {
    const path = `/sdcard/Pictures/${name}.png`;
    await this.#quiet(sh`mkdir -p ${'/sdcard/Pictures'}`);
    await this.writeStream(Readable.from([png], { objectMode: false }), path);
    await this.#scan(path);
    return path;
  }

  async #scan(path: string): Promise<void> {
    await this.shell(sh`am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d ${`file://${path}`}`);
  }
}

function installError(out: string): BoxflowError {
  const reason = /Failure \[(.*?)\]/.exec(out)?.[1] ?? out.split('\n')[0] ?? 'no output';
  return new BoxflowError('INSTALL_FAILED', `the device refused the install: ${reason}`);
}
