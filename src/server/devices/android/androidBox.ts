// One Android box: a claimed device, driven with stock shell commands over adbkit. Every command
// line sent here is listed in docs/server.md ("Android backend"); each is a stock Android
// shell command (am, pm, input, settings, screencap, uiautomator).
import { kRotationReads, rotationBack, rotationCommands, settingValue, type RotationSettings } from '../../../api/androidSettings.js';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, posix } from 'node:path';
import { Readable, type Duplex } from 'node:stream';
import { BoxflowError } from '../../../errors.js';
import type { AndroidPackage, FsEntry, InstallResult, LauncherApp, Point, Resolution } from '../../../api/schemas.js';
import type { DeviceClient } from './adbkit.js';
import { DeviceApps } from './apps.js';
import { DeviceIo, kCommandTimeoutMs, kInstallTimeoutMs, kShellOutputMax, type Deadline } from './deviceIo.js';
import { DeviceInput } from './input.js';
import { loadCanvas } from '../../host/optionalPackages.js';
import { extractHierarchy, resolveTargetInLayout, withKeyboard } from './layout.js';
import type { TargetResolution } from '../targets.js';
import { humanSize, modeString } from '../../host/boxFs.js';
import { selfIdentity } from '../../host/processes.js';
import { AndroidScratch } from './leftovers.js';
import { sh } from '../../../api/shellQuote.js';

export { adbErrorText } from './deviceIo.js';


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

const kPngMagic = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
/** The most device time one `type` request may take; the rest of its text is then not sent (504 DEVICE_TIMEOUT). */
export const kTypeBudgetMs = 60_000;
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const kMediaRoots = ['/sdcard/DCIM', '/sdcard/Pictures', '/sdcard/Movies'];

export interface DeviceInfo {
  serial: string;
  sdk: number;
  release: string;
  model: string;
  manufacturer: string;
  virtual: boolean;
}

export class AndroidBox {
  readonly #io: DeviceIo;
  readonly #input: DeviceInput;
  readonly #apps: DeviceApps;
  readonly #boxId: string;
  /** The adb server the device is on (the web terminal's adb client talks to it too). */
  readonly #adb: { host: string; port: number };
  readonly info: DeviceInfo;
  /** The box's working directory on the device. */
  readonly workDir: string;
  /** Why the device is unusable (offline, unplugged, adb server gone); set by the backend. */
  goneReason: string | undefined;
  #resized = false;
  /** The two rotation settings before the box first turned the screen (`null`: unset); put back on release. */
  #rotationBefore: RotationSettings | undefined;
  /** The box's directory on the server (install uploads) with its ledger, for reaping after a crash. */
  #scratch: AndroidScratch | undefined;
  /** The bound of one `type` request's device time (kTypeBudgetMs). */
  typeBudgetMs = kTypeBudgetMs;

  constructor(device: DeviceClient, info: DeviceInfo, boxId: string, adb: { host: string; port: number }) {
    this.#io = new DeviceIo(device, info.serial, () => this.goneReason);
    this.#input = new DeviceInput(this.#io, info);
    this.#apps = new DeviceApps(this.#io, info, () => this.#scratch?.dir);
    this.#boxId = boxId;
    this.#adb = adb;
    this.info = info;
    this.workDir = `/data/local/tmp/boxflow/${boxId}`;
  }

  // ---------------------------------------------------------------- transport (deviceIo.ts)

  /**
   * Runs a `shell:` command line (built with `sh`, shellQuote.ts: the device's sh runs it); its
   * stdout+stderr as text. With a deadline, it is not sent once the deadline has passed, and is cut
   * off when the deadline comes first.
   */
  shell(cmd: string, timeoutMs = kCommandTimeoutMs, deadline?: Deadline): Promise<string> {
    return this.#io.shell(cmd, timeoutMs, deadline);
  }

  /**
   * Opens a `shell:` command line and hands back its output as it comes (stdout and stderr as one
   * stream), for a caller that reads it itself (commands, devices/android/commands.ts): it bounds the command's
   * time and destroys the stream to end it.
   */
  shellStream(cmd: string): Promise<Duplex> {
    return this.#io.shellStream(cmd);
  }

  /** Whether commands can have their stdout, stderr and exit status apart (adb's `shell_v2` feature). */
  hasShellV2(): Promise<boolean> {
    return this.#io.hasShellV2();
  }

  /** As shellStream, over `shell,v2,raw:` (shellV2.ts): the stream carries v2 packets. */
  shellV2Stream(cmd: string): Promise<Duplex> {
    return this.#io.shellV2Stream(cmd);
  }

  /** Runs an `exec:` command (raw, binary-safe), optionally streaming `stdin` first. */
  exec(cmd: string, stdin?: NodeJS.ReadableStream, timeoutMs = kCommandTimeoutMs): Promise<Buffer> {
    return this.#io.exec(cmd, stdin, timeoutMs);
  }

  /** Writes the box's ledger (scratch dir) and makes its working dir on the device. */
  async prepare(): Promise<void> {
    this.#scratch = await AndroidScratch.create({ boxId: this.#boxId, owner: selfIdentity(), adb: { ...this.#adb }, serial: this.info.serial, deviceDir: this.workDir });
    try {
      await this.#io.quiet(sh`mkdir -p ${this.workDir}`);
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
      const steps: string[] = [...this.#apps.opened].map((p) => sh`am force-stop ${p}`);
      if (this.#resized) steps.push('wm size reset');
      if (this.#rotationBefore) steps.push(...rotationBack(this.#rotationBefore));
      if (this.#input.savedIme) steps.push(sh`ime set ${this.#input.savedIme}`);
      steps.push(sh`rm -rf ${this.workDir}`);
      for (const cmd of steps) await this.shell(cmd).catch(() => {});
      this.#apps.opened.clear();
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
    if (!(await this.#io.stat(file))) return extractHierarchy(said);
    const xml = await this.pull(file, kShellOutputMax, () => new BoxflowError('DEVICE_ERROR', `the layout dump ${file} on ${this.info.serial} is over ${kShellOutputMax / 2 ** 20} MiB; its pull was closed there`));
    await this.shell(sh`rm -f ${file}`);
    return extractHierarchy(xml);
  }

  async resolveTarget(target: string): Promise<TargetResolution> {
    return resolveTargetInLayout(await this.#dump(), target);
  }

  async setResolution(res: Resolution): Promise<void> {
    this.#resized = true;
    await this.#io.quiet(sh`wm size ${res.width}x${res.height}`);
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
    for (const line of rotationCommands(rotation)) await this.#io.quiet(line);
  }

  // ---------------------------------------------------------------- input (input.ts)

  /** Device pixels: a tap, a swipe or a touch moved through every point (DeviceInput.drag); `signal` stops it. */
  drag(points: Point[], segmentMs: number[], signal?: AbortSignal): Promise<void> {
    return this.#input.drag(points, segmentMs, signal);
  }

  pressKeys(names: readonly string[], combination: boolean): Promise<void> {
    return this.#input.pressKeys(names, combination);
  }

  /** Types `text` (DeviceInput.type) within typeBudgetMs of device time. */
  type(text: string, replace: boolean, pressEnter: boolean): Promise<void> {
    return this.#input.type(text, replace, pressEnter, this.typeBudgetMs);
  }

  pressButtons(buttons: readonly string[]): Promise<void> {
    return this.#input.pressButtons(buttons);
  }

  // ---------------------------------------------------------------- packages and apps (apps.ts)

  listPackages(types: ReadonlyArray<'system' | 'thirdParty'>, running: ReadonlyArray<'running' | 'notRunning'> | undefined): Promise<AndroidPackage[]> {
    return this.#apps.listPackages(types, running);
  }

  getPackage(packageName: string): Promise<AndroidPackage> {
    return this.#apps.getPackage(packageName);
  }

  listApps(): Promise<LauncherApp[]> {
    return this.#apps.listApps();
  }

  closeAll(): Promise<string[]> {
    return this.#apps.closeAll();
  }

  openApp(packageName: string, className: string, extras: Record<string, string> = {}): Promise<void> {
    return this.#apps.openApp(packageName, className, extras);
  }

  launch(packageName: string, activityName?: string, extras?: Record<string, string>): Promise<void> {
    return this.#apps.launch(packageName, activityName, extras);
  }

  closeApp(packageName: string): Promise<void> {
    return this.#apps.closeApp(packageName);
  }

  clearAppData(packageName: string): Promise<void> {
    return this.#apps.clearAppData(packageName);
  }

  openLink(url: string): Promise<{ activity: string | undefined }> {
    return this.#apps.openLink(url);
  }

  install(file: string, open: boolean): Promise<InstallResult> {
    return this.#apps.install(file, open);
  }

  // ---------------------------------------------------------------- files and media (sync: deviceIo.ts)

  /**
   * A device file's bytes over sync (RECV), read whole, at most `maxBytes`. The size STAT gave is
   * not trusted: a file may grow, and STAT (an lstat) of a link to /dev/zero gives the link's 9
   * bytes while its read never ends. So the bytes are counted as they come, and the pull is closed
   * as soon as they pass `maxBytes`, with `tooLarge()` as the error.
   */
  pull(path: string, maxBytes: number, tooLarge: () => BoxflowError, timeoutMs = kCommandTimeoutMs): Promise<Buffer> {
    return this.#io.pull(path, maxBytes, tooLarge, timeoutMs);
  }

  /** As pull, into `file` on the server, streamed (a recording, src/server/devices/android/recording.ts): the bytes written, at most `maxBytes`. */
  pullToFile(path: string, file: string, maxBytes: number, tooLarge: () => BoxflowError, timeoutMs = kCommandTimeoutMs): Promise<number> {
    return this.#io.pullToFile(path, file, maxBytes, tooLarge, timeoutMs);
  }

  /** The adb server the device is on (GET connect-address). */
  get adbServer(): { host: string; port: number } {
    return { ...this.#adb };
  }

  /** A path's sync STAT; undefined when nothing is there. */
  stat(path: string): Promise<{ mode: number; size: number; mtime: Date } | undefined> {
    return this.#io.stat(path);
  }

  /** A directory's entries over sync (LIST, without `.` and `..`); none when it does not exist. */
  listDir(path: string): Promise<Array<{ name: string; mode: number; size: number; mtime: Date }>> {
    return this.#io.listDir(path);
  }

  /**
   * A device file's bytes as they arrive over sync (RECV), for the caller to pipe on; the stream
   * fails when the device fails the transfer, and destroying it closes the sync connection. With
   * `maxBytes` (the size STAT gave) no more than that comes: a file that grew, or whose read never
   * ends (a link to /dev/zero), is cut there and its pull closed.
   */
  readStream(path: string, maxBytes = Infinity): Promise<Readable> {
    return this.#io.readStream(path, maxBytes);
  }

  /** Writes a stream to a device file over sync (SEND, mode 0644); resolves once the device has it all. */
  writeStream(from: Readable, path: string, timeoutMs = kInstallTimeoutMs): Promise<void> {
    return this.#io.writeStream(from, path, timeoutMs);
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
    if (!(await this.#io.stat(from))) throw new BoxflowError('FILE_NOT_FOUND', `/oldPath: ${from} does not exist`);
    if (await this.#io.stat(to)) throw new BoxflowError('FILE_EXISTS', `/newPath: ${to} already exists`);
    await this.#io.quiet(sh`mv ${from} ${to}`);
    const st = await this.#io.stat(to);
    if (!st) throw new BoxflowError('DEVICE_ERROR', `mv left no ${to}`);
    const dir = (st.mode & S_IFMT) === S_IFDIR;
    const common = { name: posix.basename(to), path: to, mode: modeString(st.mode, dir), lastModified: st.mtime.toISOString() };
    return dir ? { type: 'dir', ...common } : { type: 'file', size: humanSize(st.size), ...common };
  }

  async #album(name: string): Promise<string> {
    if (!name || name.includes('/') || name === '.' || name === '..') throw new BoxflowError('INVALID_REQUEST', `album "${name}" is not a folder name`);
    for (const root of kMediaRoots) {
      const dir = `${root}/${name}`;
      const st = await this.#io.stat(dir);
      if (st && (st.mode & S_IFMT) === S_IFDIR) return dir;
    }
    throw new BoxflowError('FILE_NOT_FOUND', `no album "${name}" in ${kMediaRoots.join(', ')}`);
  }

  /** Removes a file and tells the media scanner, so the gallery drops it too. */
  async deleteMedia(album: string, media: string): Promise<void> {
    if (!media || media.includes('/') || media === '.' || media === '..') throw new BoxflowError('INVALID_REQUEST', `"${media}" is not a file name`);
    const path = `${await this.#album(album)}/${media}`;
    if (!(await this.#io.stat(path))) throw new BoxflowError('FILE_NOT_FOUND', `no media "${media}" in album "${album}"`);
    await this.#io.quiet(sh`rm -f ${path}`);
    await this.#scan(path);
  }

  async deleteAlbum(album: string): Promise<void> {
    const dir = await this.#album(album);
    const entries = await this.#io.readdirNames(dir);
    await this.#io.quiet(sh`rm -rf ${dir}`);
    for (const e of entries) await this.#scan(`${dir}/${e.name}`);
  }

  /**
   * Puts a screenshot in the device's Pictures album: pushed to /sdcard/Pictures/<name>.png, then
   * announced to the media scanner so that the gallery shows it. Answers the device path.
   */
  async saveToAlbum(png: Buffer, name: string): Promise<string> {
    const path = `/sdcard/Pictures/${name}.png`;
    await this.#io.quiet(sh`mkdir -p ${'/sdcard/Pictures'}`);
    await this.writeStream(Readable.from([png], { objectMode: false }), path);
    await this.#scan(path);
    return path;
  }

  async #scan(path: string): Promise<void> {
    await this.shell(sh`am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d ${`file://${path}`}`);
  }
}
