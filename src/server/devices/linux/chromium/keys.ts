// The spec's 110 key names → DOM key descriptions sent as CDP Input.dispatchKeyEvent.
// Our own table rather than Playwright's keyboard: Playwright has no MediaStop or NumpadEqual
// and models the numpad with NumLock off (numpad0 → Insert); a box's numpad types digits.
import type { KeyName } from '../../../../api/schemas.js';

export interface KeyDef {
  key: string;
  code: string;
  keyCode: number;
  /** Character produced, if any (drives keypress/input). */
  text?: string;
  /** key and text while Shift is held. */
  shiftKey?: string;
  /** 1 left modifier, 3 numpad. */
  location?: number;
  /** CDP modifier bit this key holds down. */
  modifier?: number;
}

export const kModAlt = 1;
export const kModControl = 2;
export const kModMeta = 4;
export const kModShift = 8;

const defs = new Map<string, KeyDef>();
const printable = (name: string, code: string, keyCode: number, shiftKey: string) => defs.set(name, { key: name, code, keyCode, text: name, shiftKey });

for (let i = 0; i < 26; i++) {
  const ch = String.fromCharCode(97 + i);
  printable(ch, `Key${ch.toUpperCase()}`, 65 + i, ch.toUpperCase());
}
const kDigitShift = ')!@#$%^&*(';
for (let i = 0; i < 10; i++) printable(String(i), `Digit${i}`, 48 + i, kDigitShift[i]!);
for (let i = 1; i <= 12; i++) defs.set(`f${i}`, { key: `F${i}`, code: `F${i}`, keyCode: 111 + i });

defs.set('control', { key: 'Control', code: 'ControlLeft', keyCode: 17, location: 1, modifier: kModControl });
defs.set('alt', { key: 'Alt', code: 'AltLeft', keyCode: 18, location: 1, modifier: kModAlt });
defs.set('option', { key: 'Alt', code: 'AltLeft', keyCode: 18, location: 1, modifier: kModAlt });
defs.set('shift', { key: 'Shift', code: 'ShiftLeft', keyCode: 16, location: 1, modifier: kModShift });
for (const name of ['meta', 'win', 'cmd']) defs.set(name, { key: 'Meta', code: 'MetaLeft', keyCode: 91, location: 1, modifier: kModMeta });

const named: Array<[string, string, number, string?]> = [
  ['arrowUp', 'ArrowUp', 38], ['arrowDown', 'ArrowDown', 40], ['arrowLeft', 'ArrowLeft', 37], ['arrowRight', 'ArrowRight', 39],
  ['home', 'Home', 36], ['end', 'End', 35], ['pageUp', 'PageUp', 33], ['pageDown', 'PageDown', 34],
  ['enter', 'Enter', 13, '\r'], ['tab', 'Tab', 9], ['escape', 'Escape', 27],
  ['backspace', 'Backspace', 8], ['delete', 'Delete', 46], ['insert', 'Insert', 45],
  ['capsLock', 'CapsLock', 20], ['numLock', 'NumLock', 144], ['scrollLock', 'ScrollLock', 145], ['pause', 'Pause', 19], ['printScreen', 'PrintScreen', 44],
];
for (const [name, key, keyCode, text] of named) defs.set(name, { key, code: key, keyCode, ...(text ? { text } : {}) });
defs.set('space', { key: ' ', code: 'Space', keyCode: 32, text: ' ', shiftKey: ' ' });

const punctuation: Array<[string, string, number, string]> = [
  [';', 'Semicolon', 186, ':'], ['=', 'Equal', 187, '+'], [',', 'Comma', 188, '<'], ['-', 'Minus', 189, '_'],
  ['.', 'Period', 190, '>'], ['/', 'Slash', 191, '?'], ['`', 'Backquote', 192, '~'], ['[', 'BracketLeft', 219, '{'],
  ['\\', 'Backslash', 220, '|'], [']', 'BracketRight', 221, '}'], ["'", 'Quote', 222, '"'],
];
for (const [name, code, keyCode, shift] of punctuation) printable(name, code, keyCode, shift);

for (let i = 0; i < 10; i++) defs.set(`numpad${i}`, { key: String(i), code: `Numpad${i}`, keyCode: 96 + i, text: String(i), location: 3 });
const numpadOps: Array<[string, string, string, number]> = [
  ['numpadAdd', '+', 'NumpadAdd', 107], ['numpadSubtract', '-', 'NumpadSubtract', 109], ['numpadMultiply', '*', 'NumpadMultiply', 106],
  ['numpadDivide', '/', 'NumpadDivide', 111], ['numpadDecimal', '.', 'NumpadDecimal', 110], ['numpadEqual', '=', 'NumpadEqual', 187],
];
for (const [name, key, code, keyCode] of numpadOps) defs.set(name, { key, code, keyCode, text: key, location: 3 });
defs.set('numpadEnter', { key: 'Enter', code: 'NumpadEnter', keyCode: 13, text: '\r', location: 3 });

const media: Array<[string, string, number]> = [
  ['volumeUp', 'AudioVolumeUp', 175], ['volumeDown', 'AudioVolumeDown', 174], ['volumeMute', 'AudioVolumeMute', 173],
  ['mediaPlayPause', 'MediaPlayPause', 179], ['mediaStop', 'MediaStop', 178], ['mediaNextTrack', 'MediaTrackNext', 176], ['mediaPreviousTrack', 'MediaTrackPrevious', 177],
];
for (const [name, key, keyCode] of media) defs.set(name, { key, code: key, keyCode });

export function keyDef(name: KeyName | string): KeyDef | undefined {
  return defs.get(name);
}

export interface KeyEvent {
  type: 'keyDown' | 'rawKeyDown' | 'keyUp';
  modifiers: number;
  key: string;
  code: string;
  windowsVirtualKeyCode: number;
  nativeVirtualKeyCode: number;
  location?: number;
  isKeypad?: boolean;
  text?: string;
  unmodifiedText?: string;
  autoRepeat?: boolean;
}

/** The CDP events of pressing (down) or releasing (up) `def` while `modifiers` are held. */
export function keyEvent(def: KeyDef, phase: 'down' | 'up', modifiers: number): KeyEvent {
  const shifted = (modifiers & kModShift) !== 0 && def.shiftKey !== undefined;
  const key = shifted ? def.shiftKey! : def.key;
  // With Control, Alt or Meta held a key is a shortcut: no character is produced.
  const text = def.text !== undefined && (modifiers & (kModControl | kModAlt | kModMeta)) === 0 ? (shifted ? def.shiftKey! : def.text) : undefined;
  const ev: KeyEvent = {
    type: phase === 'up' ? 'keyUp' : text !== undefined ? 'keyDown' : 'rawKeyDown',
    modifiers,
    key,
    code: def.code,
    windowsVirtualKeyCode: def.keyCode,
    nativeVirtualKeyCode: def.keyCode,
  };
  if (def.location) ev.location = def.location;
  if (def.location === 3) ev.isKeypad = true;
  if (phase === 'down' && text !== undefined) {
    ev.text = text;
    ev.unmodifiedText = def.text;
  }
  return ev;
}
