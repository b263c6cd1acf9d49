// Package and activity names as Android defines them, checked at the route before anything reaches
// a device (they are also quoted there, see shellQuote.ts: the check is what a name may be, the
// quoting is how any value travels).
import { BoxflowError } from '../../../errors.js';
import { kMediaLimits } from '../../../api/schemas.js';

/**
 * Android's package-name rule (FrameworkParsingPackageUtils.validateName with requireSeparator):
 * ASCII letters start each dot-separated segment, digits and `_` may follow, at least two segments;
 * `android` (the platform) is the one single-segment package. Stricter than AOSP on one point:
 * empty segments (`a..b`, `.a`, `a.`), which no real package has, are refused. At most 223
 * characters (AOSP's MAX_FILE_NAME_SIZE for package names).
 */
const kPackage = /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+$/;
const kMaxPackage = 223;

/** A Java binary class name in ASCII: identifiers (`$` for inner classes) joined by dots. */
const kClass = /^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
const kMaxClass = 500;

const show = (s: string) => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);

export function isPackageName(name: string): boolean {
  return name === 'android' || (name.length <= kMaxPackage && kPackage.test(name));
}

/** The package name, or 400 INVALID_REQUEST saying what a package name is. */
export function checkPackageName(name: string | undefined, where = 'packageName'): string {
  if (typeof name !== 'string' || !isPackageName(name)) {
    throw new BoxflowError(
      'INVALID_REQUEST',
      `${where} ${show(String(name ?? ''))} is not an Android package name: dot-separated segments of ASCII letters, digits and _, each starting with a letter, at least two (e.g. com.example.app), at most ${kMaxPackage} characters`,
    );
  }
  return name;
}

/**
 * The fully qualified class of `activityName` in `packageName`, as the manifest reads it:
 * `.Main` is `<package>.Main`, a name without a dot is `<package>.<name>` too, `a.b.Main` is itself,
 * and `<package>/<any of these>` (the `am start -n` form) names the same package again. Inner
 * classes use `$` (`.Outer$Inner`). Anything else is 400 INVALID_REQUEST.
 */
export function activityClass(packageName: string, activityName: string, where = '/activityName'): string {
  let name = activityName;
  const slash = name.indexOf('/');
  if (slash >= 0) {
    const pkg = name.slice(0, slash);
    if (pkg !== packageName) {
      throw new BoxflowError('INVALID_REQUEST', `${where} ${show(activityName)} names package ${show(pkg)}; an activity of ${packageName} is \`.Name\`, \`${packageName}.Name\` or \`${packageName}/.Name\``);
    }
    name = name.slice(slash + 1);
  }
  const full = name.startsWith('.') ? packageName + name : name.includes('.') ? name : `${packageName}.${name}`;
  if (full.length > kMaxClass || !kClass.test(full)) {
    throw new BoxflowError(
      'INVALID_REQUEST',
      `${where} ${show(activityName)} is not an activity class name: \`.Name\` (in the package), a fully qualified \`com.example.Name\` or \`${packageName}/.Name\`, of ASCII letters, digits, _ and $ (inner classes)`,
    );
  }
  return full;
}

const kMaxMediaName = kMediaLimits.name;

/**
 * An album or media file name (a folder under /sdcard/DCIM, Pictures or Movies, or a file in it),
 * checked at the route before anything reaches the device: 1 to 100 characters, one path segment
 * (no `/`), not `.` and no `..`, no NUL or other control character. The name is
 * also quoted wherever it reaches a shell (shellQuote.ts).
 */
export function checkMediaName(name: string | undefined, where: string): string {
  const text = String(name ?? '');
  const why = !text
    ? 'is empty'
    : [...text].length > kMaxMediaName
      ? `is over ${kMaxMediaName} characters`
      : text.includes('/')
        ? 'holds a /'
        : text === '.' || text.includes('..')
          ? 'is . or holds ..'
          : /[\x00-\x1f\x7f]/.test(text)
            ? 'holds a control character (NUL, newline, ...)'
            : undefined;
  if (why) throw new BoxflowError('INVALID_REQUEST', `${where} ${show(text)} ${why}: a name is one folder or file name of 1 to ${kMaxMediaName} characters, without /, .. or control characters`);
  return text;
}
