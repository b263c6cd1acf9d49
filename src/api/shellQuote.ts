// The one way a value reaches a device or box shell, for serve and the runner alike. Every `shell:`/`exec:` line the Android backend sends is
// run by the device's `sh -c` (mksh or toybox sh), so a package name like `x;id #`, `$(id)` or a
// backtick would run commands on the device. Every string goes in single quotes: inside them sh
// gives no character a meaning, and a `'` is written as `'\''` (close, an escaped quote, reopen).
import { BoxflowError } from '../errors.js';

/** One POSIX single-quoted word: `it's` → `'it'\''s'`, `` → `''`. A NUL cannot be passed to sh and is refused. */
export function shQuote(value: string): string {
  if (value.includes('\0')) throw new BoxflowError('INVALID_REQUEST', 'a value sent to the device contains a NUL character');
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

type ShValue = string | number | readonly (string | number)[];

function word(v: string | number): string {
  if (typeof v === 'number') {
    // Numbers are the server's own (coordinates, key codes, sizes): digits only, never quoted.
    if (!Number.isSafeInteger(v)) throw new Error(`sh: ${v} is not an integer`);
    return String(v);
  }
  return shQuote(v);
}

/**
 * A device command line: the literal parts as written, every interpolated string quoted by
 * shQuote, integers as digits, arrays as one word per element.
 * sh`am force-stop ${pkg}` → `am force-stop 'com.example'`; sh`input keyevent ${[4, 3]}` → `input keyevent 4 3`.
 */
export function sh(strings: TemplateStringsArray, ...values: ShValue[]): string {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += (Array.isArray(v) ? (v as readonly (string | number)[]).map(word).join(' ') : word(v as string | number)) + strings[i + 1]!;
  });
  return out;
}
