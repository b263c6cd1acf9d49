import { BoxflowError } from '../errors.js';

// A duration is `<number><unit>`, unit one of ms, s, m, h (spec, Conventions).
export const kDurationPattern = '^(?:\\d+(?:\\.\\d+)?|\\.\\d+)(?:ms|s|m|h)$';
const kDurationRe = new RegExp(kDurationPattern);
const kUnitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

export type DurationString = `${number}${'ms' | 's' | 'm' | 'h'}`;

export function isDuration(value: unknown): value is DurationString {
  return typeof value === 'string' && kDurationRe.test(value);
}

/** Limits on durations: the spec's, and the longest any duration may be. */
export const kDurationLimits = {
  /** A drag (or a tap's hold): the whole move, so that an action answers within a client's timeout. */
  dragMax: '60s',
  /** Every duration: a Node.js timer cannot wait longer than 2^31−1 ms (24.8 days); 596h is just under. */
  max: '596h',
} as const;
const kMaxMs = 596 * kUnitMs.h;

/**
 * Parses `500ms`, `30s`, `5m`, `1h` into milliseconds. Throws INVALID_DURATION for anything else,
 * and for a duration over `max` (default kDurationLimits.max).
 */
export function parseDuration(value: string, what = 'duration', max: string = kDurationLimits.max): number {
  if (!isDuration(value)) {
    throw new BoxflowError('INVALID_DURATION', `${what}: "${preview(value)}" is not a duration; use a number and a unit ms, s, m or h, e.g. 500ms or 30s`);
  }
  const unit = value.endsWith('ms') ? 'ms' : (value.at(-1) as 's' | 'm' | 'h');
  const ms = Number(value.slice(0, -unit.length)) * kUnitMs[unit];
  const maxMs = max === kDurationLimits.max ? kMaxMs : Math.min(kMaxMs, parseDuration(max));
  if (!(ms <= maxMs)) throw new BoxflowError('INVALID_DURATION', `${what}: "${preview(value)}" is longer than the maximum, ${max}`);
  return ms;
}

/** A value short enough to quote in a message. */
function preview(text: string): string {
  return text.length > 40 ? `${text.slice(0, 20)}…(${text.length} characters)` : text;
}

/** Formats milliseconds back into the shortest exact duration string. */
export function formatDuration(ms: number): DurationString {
  for (const unit of ['h', 'm', 's'] as const) {
    if (ms >= kUnitMs[unit] && ms % kUnitMs[unit] === 0) return `${ms / kUnitMs[unit]}${unit}` as DurationString;
  }
  return `${Math.round(ms)}ms` as DurationString;
}
