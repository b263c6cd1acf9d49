// Spec key names → Android KEYCODE numbers (KeyEvent.java, as in adbkit's KeyCodes). `home`/`end` are the text-cursor keys MOVE_HOME/MOVE_END, as on
// a keyboard; the launcher's Home button is a hardware button, not a key name of the spec.
import type { KeyName } from '../../../api/schemas.js';

const kNamed: Record<string, number> = {
  f1: 131, f2: 132, f3: 133, f4: 134, f5: 135, f6: 136, f7: 137, f8: 138, f9: 139, f10: 140, f11: 141, f12: 142,
  control: 113, alt: 57, option: 57, shift: 59, meta: 117, win: 117, cmd: 117,
  arrowUp: 19, arrowDown: 20, arrowLeft: 21, arrowRight: 22, home: 122, end: 123, pageUp: 92, pageDown: 93,
  enter: 66, space: 62, tab: 61, escape: 111, backspace: 67, delete: 112, insert: 124,
  capsLock: 115, numLock: 143, scrollLock: 116, pause: 121, printScreen: 120,
  ';': 74, '=': 70, ',': 55, '-': 69, '.': 56, '/': 76, '`': 68, '[': 71, '\\': 73, ']': 72, "'": 75,
  numpadAdd: 157, numpadSubtract: 156, numpadMultiply: 155, numpadDivide: 154, numpadDecimal: 158, numpadEnter: 160, numpadEqual: 161,
  volumeUp: 24, volumeDown: 25, volumeMute: 164, mediaPlayPause: 85, mediaStop: 86, mediaNextTrack: 87, mediaPreviousTrack: 88,
};

/** The KEYCODE of a spec key name; undefined for a name Android has no key for. */
export function keyCode(name: KeyName | string): number | undefined {
  if (/^[a-z]$/.test(name)) return 29 + name.charCodeAt(0) - 97;
  if (/^[0-9]$/.test(name)) return 7 + Number(name);
  const pad = /^numpad([0-9])$/.exec(name);
  if (pad) return 144 + Number(pad[1]);
  return Object.hasOwn(kNamed, name) ? kNamed[name] : undefined;
}

/** The codes of `names`, or INVALID_REQUEST-worthy names that have none. */
export function keyCodes(names: readonly string[]): { codes: number[]; unknown: string[] } {
  const codes: number[] = [];
  const unknown: string[] = [];
  for (const n of names) {
    const c = keyCode(n);
    if (c === undefined) unknown.push(n);
    else codes.push(c);
  }
  return { codes, unknown };
}
