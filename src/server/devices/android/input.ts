// An Android box's input (androidBox.ts): touches, keys, text and hardware buttons, as stock
// `input`, `ime` and `am broadcast` commands (docs/server.md, "Android backend").
import { setTimeout as sleep } from 'node:timers/promises';
import { BoxflowError } from '../../../errors.js';
import type { Point } from '../../../api/schemas.js';
import { sh } from '../../../api/shellQuote.js';
import { kCommandTimeoutMs, type Deadline, type DeviceIo } from './deviceIo.js';
import { keyCodes } from './keys.js';
import { textArgs, utf8Chunks } from './textPieces.js';

export const kAdbKeyboardIme = 'com.android.adbkeyboard/.AdbIME';

/** UTF-8 bytes per ADBKeyBoard broadcast: their base64 (4/3 of it) must fit one line. */
const kBroadcastBytes = 2_700;
const kClearPresses = 250; // DELs that clear a field on devices without `input keycombination`
const kLongPressMs = 400; // ViewConfiguration.DEFAULT_LONG_PRESS_TIMEOUT (AOSP): a shorter hold is a tap
const kButtons: Record<string, number> = { power: 26, volumeUp: 24, volumeDown: 25, volumeMute: 164, home: 3, back: 4, menu: 82, appSwitch: 187 };

export class DeviceInput {
  readonly #io: DeviceIo;
  readonly #info: { serial: string; sdk: number };
  /** The keyboard before ADBKeyBoard was selected for non-ASCII text; put back on release. */
  savedIme: string | undefined;

  constructor(io: DeviceIo, info: { serial: string; sdk: number }) {
    this.#io = io;
    this.#info = info;
  }

  /**
   * Device pixels. Zero-length (whatever the duration): a tap, as on a Linux box. Two points: one
   * swipe over the duration. More: a touch moved through every point; a request that goes away
   * (`signal`) stops it there, the finger lifted.
   */
  async drag(points: Point[], segmentMs: number[], signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const p = points.map((pt) => ({ x: Math.round(pt.x), y: Math.round(pt.y) }));
    const first = p[0]!;
    if (p.every((pt) => pt.x === first.x && pt.y === first.y)) {
      // A hold as long as Android's long-press timeout is a long press: a swipe that stays put.
      const holdMs = Math.round(segmentMs.reduce((a, b) => a + b, 0));
      if (holdMs >= kLongPressMs) return this.#io.quiet(sh`input swipe ${first.x} ${first.y} ${first.x} ${first.y} ${holdMs}`);
      return this.#io.quiet(sh`input tap ${first.x} ${first.y}`);
    }
    if (p.length === 2) {
      await this.#io.quiet(sh`input swipe ${first.x} ${first.y} ${p[1]!.x} ${p[1]!.y} ${Math.max(1, Math.round(segmentMs[0] ?? 0))}`);
      return;
    }
    if (this.#info.sdk < 29) {
      // `input motionevent` arrived in Android 10; older devices get one swipe per segment.
      for (let i = 1; i < p.length; i++) {
        signal?.throwIfAborted();
        await this.#io.quiet(sh`input swipe ${p[i - 1]!.x} ${p[i - 1]!.y} ${p[i]!.x} ${p[i]!.y} ${Math.max(1, Math.round(segmentMs[i - 1] ?? 0))}`);
      }
      return;
    }
    await this.#io.quiet(sh`input motionevent DOWN ${first.x} ${first.y}`);
    let at = first;
    let deadline = performance.now();
    try {
      for (let i = 1; i < p.length; i++) {
        deadline += segmentMs[i - 1] ?? 0;
        const wait = deadline - performance.now();
        if (wait > 1) await sleep(wait, undefined, { signal });
        signal?.throwIfAborted();
        at = p[i]!;
        await this.#io.quiet(sh`input motionevent MOVE ${at.x} ${at.y}`);
      }
    } finally {
      // The finger is lifted where it is: at the end, or where a request that went away left it.
      await this.#io.quiet(sh`input motionevent UP ${at.x} ${at.y}`);
    }
  }

  async pressKeys(names: readonly string[], combination: boolean): Promise<void> {
    const { codes, unknown } = keyCodes(names);
    if (unknown.length) throw new BoxflowError('INVALID_REQUEST', `/keys: Android has no key for ${unknown.map((k) => `"${k}"`).join(', ')}`);
    if (!combination || codes.length === 1) return this.#io.quiet(sh`input keyevent ${codes}`);
    if (this.#info.sdk < 31) {
      throw new BoxflowError('UNPROCESSABLE', `key combinations need \`input keycombination\` (Android 12, API 31); device ${this.#info.serial} runs API ${this.#info.sdk}`);
    }
    await this.#io.quiet(sh`input keycombination ${codes}`);
  }

  /**
   * ASCII through `input text`; anything else through ADBKeyBoard's base64 broadcast. The commands
   * are batched: a run of newlines (and `pressEnter`) is one `input keyevent 66 66 …`, and the
   * `input` commands share `shell:` lines (`; `-joined), so `"a\n"` × 5,000 is some 50 requests,
   * not 10,000. The whole request may use the device for `budget` ms (AndroidBox.typeBudgetMs): past it nothing more
   * is sent and the request is 504 DEVICE_TIMEOUT.
   */
  async type(text: string, replace: boolean, pressEnter: boolean, budget: number): Promise<void> {
    const sent = { lines: 0, of: 0 };
    const deadline: Deadline = {
      at: performance.now() + budget,
      expired: () =>
        new BoxflowError('DEVICE_TIMEOUT', `typing stopped: one request may use device ${this.#info.serial} for ${budget / 1000} s; ${sent.lines} of ${sent.of} command lines ran, the rest was not sent`),
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
      await this.#io.quietBatch(cmds, deadline, sent);
      return;
    }
    await this.#useAdbKeyboard();
    const chunks = utf8Chunks(text, kBroadcastBytes);
    sent.of = chunks.length + (pressEnter ? 1 : 0);
    await this.#io.quietBatch(clear, deadline, sent);
    for (const chunk of chunks) {
      const out = await this.#io.shell(sh`am broadcast -a ADB_INPUT_B64 --es msg ${Buffer.from(chunk, 'utf8').toString('base64')}`, kCommandTimeoutMs, deadline);
      if (!/Broadcast completed/.test(out)) throw new BoxflowError('DEVICE_ERROR', `typing through ADBKeyBoard failed: ${out.trim().split('\n').slice(0, 2).join(' | ')}`);
      sent.lines++;
    }
    if (pressEnter) await this.#io.quiet('input keyevent 66', deadline);
  }

  /** Select all and delete; before Android 12 (no `input keycombination`) the cursor to the end and DELs. */
  #clearCommands(): string[] {
    if (this.#info.sdk >= 31) return ['input keycombination 113 29', 'input keyevent 67'];
    return [sh`input keyevent ${[123, ...Array<number>(kClearPresses).fill(67)]}`];
  }

  async #useAdbKeyboard(): Promise<void> {
    if (this.savedIme) return;
    const imes = (await this.#io.shell('ime list -a -s')).split('\n').map((l) => l.trim());
    if (!imes.includes(kAdbKeyboardIme)) {
      throw new BoxflowError(
        'UNPROCESSABLE',
        `\`input text\` cannot type non-ASCII text; install ADBKeyBoard on device ${this.#info.serial} (github.com/senzhk/ADBKeyBoard, \`adb install ADBKeyboard.apk\`) and boxflow types through it, restoring the keyboard when the box ends`,
      );
    }
    const current = (await this.#io.shell('settings get secure default_input_method')).trim();
    const enabled = await this.#io.shell(sh`ime enable ${kAdbKeyboardIme}`);
    const set = await this.#io.shell(sh`ime set ${kAdbKeyboardIme}`);
    if (!/selected/.test(set)) throw new BoxflowError('DEVICE_ERROR', `cannot select ADBKeyBoard: ${(set || enabled).trim()}`);
    this.savedIme = current && current !== 'null' ? current : undefined;
  }

  /** Hardware buttons: KEYCODEs of power, volume, home, back, menu and app switch. */
  async pressButtons(buttons: readonly string[]): Promise<void> {
    const codes = buttons.map((b) => kButtons[b]);
    const unknown = buttons.filter((_, i) => codes[i] === undefined);
    if (unknown.length) throw new BoxflowError('INVALID_REQUEST', `/buttons: no Android button ${unknown.map((b) => `"${b}"`).join(', ')}`);
    await this.#io.quiet(sh`input keyevent ${codes as number[]}`);
  }
}
