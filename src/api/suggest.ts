// "Did you mean": one rule for flow files, the config, API requests and drag targets.
import { distance } from 'fastest-levenshtein';

/** Edit distance costs length × length: a longer input gets no suggestion (docs/api.md). */
export const kSuggestMaxLength = 64;

/** The closest candidate to a misspelt name, or undefined when none is plausibly meant. */
export function didYouMean(input: string, candidates: readonly string[], aliases: Record<string, string> = {}): string | undefined {
  if (!input || input.length > kSuggestMaxLength) return undefined;
  const lower = input.toLowerCase();
  const alias = aliases[lower];
  if (alias) return alias;
  const sameCase = candidates.find((c) => c.toLowerCase() === lower);
  if (sameCase) return sameCase;
  const limit = Math.max(2, Math.floor(input.length / 3));
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const cl = c.toLowerCase();
    // A prefix ("assert" -> "assertVisible") is a likelier intent than an equally distant name.
    // Both at least 3 characters: "esc" is not meant as the key "e".
    const prefix = Math.min(lower.length, cl.length) >= 3 && (cl.startsWith(lower) || lower.startsWith(cl));
    // The distance is at least the difference in length: a candidate that cannot win costs nothing.
    if (!prefix && Math.abs(cl.length - lower.length) > Math.min(limit, bestScore)) continue;
    // For a prefix the edit distance is the difference in length.
    const score = prefix ? Math.min(Math.abs(cl.length - lower.length), 1.5) : distance(lower, cl);
    if (score < bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return bestScore <= limit ? best : undefined;
}

/** ` (did you mean "x"?)`, or nothing. */
export function hint(suggestion: string | undefined): string {
  return suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`;
}
