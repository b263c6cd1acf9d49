// A text target as a point, on every kind of box: what the box found on its screen for the text,
// or the 422 that names the nearest candidates.
import { distance } from 'fastest-levenshtein';
import { BoxflowError } from '../../errors.js';
import type { Point } from '../../api/schemas.js';
import { didYouMean, kSuggestMaxLength } from '../../api/suggest.js';
import { preview } from '../../api/validate.js';

/** An element a text target names, in the box's real pixels. */
export interface TargetMatch {
  tag: string;
  text: string;
  x: number;
  y: number;
}
export type TargetResolution = { how: string; found: TargetMatch } | { how: string; ambiguous: TargetMatch[] } | { how: string; candidates: TargetMatch[] };

/**
 * A text target (`start: "Send"`) as a point in the box's action scale, from what the backend found
 * on the screen at real pixels: 422 TARGET_AMBIGUOUS or TARGET_NOT_FOUND with the nearest candidates.
 */
export async function resolveTextTarget(target: Point | string, field: string, scale: number, find: (text: string) => Promise<TargetResolution>): Promise<Point> {
  if (typeof target !== 'string') return target;
  const round = (n: number) => Math.round(n * 100) / 100;
  const scaled = (m: TargetMatch) => ({ ...m, x: round(m.x * scale), y: round(m.y * scale) });
  const r = await find(target);
  if ('found' in r) return { x: round(r.found.x * scale), y: round(r.found.y * scale) };
  if ('ambiguous' in r) {
    const candidates = r.ambiguous.map(scaled);
    throw new BoxflowError('TARGET_AMBIGUOUS', `${field}: ${preview(target)} matches ${candidates.length} elements (${r.how}): ${candidates.slice(0, 5).map((c) => `${c.tag} "${c.text}"`).join(', ')}`, { details: { target, candidates } });
  }
  const want = target.toLowerCase();
  const short = want.length <= kSuggestMaxLength;
  const candidates = (short ? r.candidates.map((c) => ({ c, d: distance(want, c.text) })).sort((a, b) => a.d - b.d).map((x) => x.c) : r.candidates).slice(0, 10).map(scaled);
  const suggestion = didYouMean(target, candidates.map((c) => c.text));
  const hint = !candidates.length ? '; the screen shows no text' : suggestion ? `; did you mean "${suggestion}"?` : '';
  throw new BoxflowError('TARGET_NOT_FOUND', `${field}: no visible element shows or is labelled ${preview(target)}${hint}`, { details: { target, candidates } });
}
