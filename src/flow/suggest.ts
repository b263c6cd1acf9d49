import { distance } from 'fastest-levenshtein';

/** The closest candidate to a misspelt name, or undefined when none is plausibly meant. */
export function didYouMean(input: string, candidates: readonly string[], aliases: Record<string, string> = {}): string | undefined {
  if (!input) return undefined;
  const lower = input.toLowerCase();
  const alias = aliases[lower];
  if (alias) return alias;
  const sameCase = candidates.find((c) => c.toLowerCase() === lower);
  if (sameCase) return sameCase;
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const cl = c.toLowerCase();
    let score = distance(lower, cl);
    // A prefix ("assert" -> "assertVisible") is a likelier intent than an equally distant name.
    if (lower.length >= 3 && (cl.startsWith(lower) || lower.startsWith(cl))) score = Math.min(score, 1.5);
    if (score < bestScore) {
      bestScore = score;
      best = c;
    }
  }
  const limit = Math.max(2, Math.floor(input.length / 3));
  return bestScore <= limit ? best : undefined;
}

export function hint(suggestion: string | undefined): string {
  return suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`;
}
