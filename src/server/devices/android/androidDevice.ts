// An Android box as a BoxDevice: a device over adb (AndroidBox). It has no browser of boxflow's and
// no clipboard command; its shell and files are the device's (device paths), and its apps, packages
// and gallery are the `apps` facet. The device is the one the box holds now: between a stop and its
// start there is none, and every call answers 409 BOX_NOT_RUNNING.
import { parseDuration } from '../../../api/duration.js';
import { shQuote } from '../../../api/shellQuote.js';
import { BoxflowError } from '../../../errors.js';
import type { KeyName, Orientation, Point, Resolution, RunCodeLanguage, Tab } from '../../../api/schemas.js';
import type { AndroidBox } from './androidBox.js';
import { heldDevice, type AndroidHeld } from '../held.js';
import { androidElements } from './elements.js';
import { androidContext, androidDisplay, checkOnAndroid, performOnAndroid, rotateOnAndroid } from './actions.js';
import { androidScript, runAndroidScript } from './commands.js';
import { androidFs } from './files.js';
import type { Gesture } from '../gesture.js';
import { startAndroidRecording } from './recording.js';
import type { RecordingLimits } from '../recording.js';
import type { BoxDevice, FilesFacet, ShellFacet } from '../device.js';

const kLanguages: readonly RunCodeLanguage[] = ['bash', 'sh'];

export class AndroidDevice implements BoxDevice {
  readonly kind = 'android' as const;
  readonly shell: ShellFacet;
  readonly files: FilesFacet;
  readonly #entry: AndroidHeld;

  constructor(entry: AndroidHeld) {
    this.#entry = entry;
    const box = () => heldDevice(entry);
    this.shell = {
      run: (body, signal, output) => {
        const android = box();
        return runAndroidScript(entry, android, androidScript(android, body), parseDuration(body.timeout ?? '30s', '/timeout'), 'command', '/command', signal, output);
      },
      // The code is the device shell's (`sh -c`), with argv as its positional parameters.
      runCode: (body, signal, output) => {
        const language = body.language ?? 'bash';
        if (!kLanguages.includes(language)) throw new BoxflowError('UNPROCESSABLE', `/language: an Android box cannot run ${language}; it runs ${kLanguages.join(', ')} (both with the device's sh)`);
        const timeoutMs = parseDuration(body.timeout ?? '30s', '/timeout');
        const command = `${body.argv?.length ? `set -- ${body.argv.map(shQuote).join(' ')}; ` : ''}${body.code}`;
        const android = box();
        const script = androidScript(android, { command, ...(body.envs ? { envs: body.envs } : {}), ...(body.workingDir !== undefined ? { workingDir: body.workingDir } : {}) });
        return runAndroidScript(entry, android, script, timeoutMs, 'code', '/code', signal, output);
      },
    };
    this.files = {
      list: (q) => androidFs.list(box(), q),
      read: (q) => androidFs.read(box(), q),
      info: (q) => androidFs.info(box(), q),
      exists: (q) => androidFs.exists(box(), q),
      remove: (q) => androidFs.remove(box(), q),
      write: (req) => androidFs.write(box(), req),
      rename: (body) => box().rename(body.oldPath, body.newPath, body.workingDir),
      spoolDir: () => box().installDir(),
    };
  }

  get #box(): AndroidBox {
    return heldDevice(this.#entry);
  }

  /** The device, for the Android-only endpoints (apps, packages, the gallery). */
  get apps(): AndroidBox {
    return this.#box;
  }

  shots(scale: number) {
    const box = this.#box;
    return { capture: () => box.screenshot(scale) };
  }

  screenshot(scale: number, clip?: { x: number; y: number; width: number; height: number }) {
    return this.#box.screenshot(scale, clip);
  }

  layout() {
    return this.#box.layout();
  }

  async elements() {
    return { found: androidElements(await this.#box.layout()), truncated: false, by: 'uiautomator' };
  }

  resolveTarget(text: string) {
    return this.#box.resolveTarget(text);
  }

  display() {
    return androidDisplay(this.#box);
  }

  setResolution(res: Resolution) {
    return this.#box.setResolution(res);
  }

  rotate(orientation: Orientation) {
    return rotateOnAndroid(this.#box, orientation);
  }

  record(limits: RecordingLimits, boxId: string) {
    return startAndroidRecording(this.#box, limits, boxId);
  }

  gestures(scale: number) {
    return androidContext(this.#box, scale);
  }

  checkGesture(g: Gesture): void {
    checkOnAndroid(g);
  }

  perform(g: Gesture, signal?: AbortSignal) {
    return performOnAndroid(this.#box, g, signal);
  }

  drag(points: Point[], segmentMs: number[], signal?: AbortSignal) {
    return this.#box.drag(points, segmentMs, signal);
  }

  pressKeys(keys: readonly KeyName[], combination: boolean) {
    return this.#box.pressKeys(keys, combination);
  }

  async type(text: string, opts: { replace: boolean; pressEnter: boolean }) {
    await this.#box.type(text, opts.replace, opts.pressEnter);
    return undefined;
  }

  async pressButtons(buttons: readonly string[]) {
    await this.#box.pressButtons(buttons);
    return undefined;
  }

  /** A link on Android is a VIEW intent: the app that claims it (else the browser) opens it. */
  async openLink(url: string): Promise<Tab> {
    const { activity } = await this.#box.openLink(url);
    return { id: activity ?? '', title: activity ?? '', url, favicon: '', active: true, loading: false };
  }
}
