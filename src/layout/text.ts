// Text matching shared by every selector key, the runner's text assertions (assertLayout text,
// openTab expect, assertUrl, assertTitle) and the flow loader's regex check. The `/regex/flags`
// form is recognised here and nowhere else (docs/flows.md "Matching text"; test/unit/textMatching.test.ts).
import { BoxflowError } from '../errors.js';

const kRegexLiteral = /^\/(.+)\/([dgimsuyv]*)$/s;

/** Collapses every run of whitespace (any Unicode space, newlines, NBSP, U+202F) to one space and trims. */
export function normaliseText(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * `"/re/flags"` → RegExp; any other string → null. A string of that shape whose pattern does not
 * compile is an INVALID_ARGUMENT error rather than silently becoming literal text.
 */
export function parseRegexLiteral(s: string): RegExp | null {
  const m = kRegexLiteral.exec(s);
  if (!m) return null;
  try {
    // g and y make RegExp.test stateful across calls; matching is a pure question here.
    return new RegExp(m[1]!, m[2]!.replace(/[gy]/g, ''));
  } catch (err) {
    throw new BoxflowError('INVALID_ARGUMENT', `invalid regular expression ${s}: ${(err as Error).message}`, { cause: err });
  }
}

/** `norm` is `normaliseText(value)` when the caller has it cached. */
export type TextMatcher = (value: string, norm?: string) => boolean;

/**
 * Exact match after whitespace normalisation of both sides, or, for `/re/flags`, a regex search
 * (anchor with ^$ for a full match) run on the raw value and on its normalised form.
 */
export function textMatcher(pattern: string): TextMatcher {
  const re = parseRegexLiteral(pattern);
  if (re) return (v, norm) => re.test(v) || re.test(norm ?? normaliseText(v));
  const want = normaliseText(pattern);
  return (v, norm) => (norm ?? normaliseText(v)) === want;
}

/** Substring match (case-sensitive) after whitespace normalisation of both sides. */
export function containsMatcher(part: string): TextMatcher {
  const want = normaliseText(part);
  return (v, norm) => (norm ?? normaliseText(v)).includes(want);
}

/** True when `value` matches `pattern` with selector `text` semantics. */
export function matchText(pattern: string, value: string): boolean {
  return textMatcher(pattern)(value);
}
