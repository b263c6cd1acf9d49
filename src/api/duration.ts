import { BoxflowError } from '../errors.js';

// A duration is `<number><unit>`, unit one of ms, s, m, h (spec, Conventions).
export const kDurationPattern = '^(?:\\d+(?:\\.\\d+)?|\\.\\d+)(?:ms|s|m|h)$';
const kDurationRe = new RegExp(kDurationPattern);
const kUnitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

export type DurationString = `${number}${'ms' | 's' | 'm' | 'h'}`;

export function isDuration(value: unknown): value is DurationString {
  return typeof value === 'string' && kDurationRe.test(value);
}

/** Parses `500ms`, `30s`, `5m`, `1h` into milliseconds. Throws INVALID_DURATION otherwise. */
export function parseDuration(value: string, what = 'duration'): number {
  if (!isDuration(value)) {
    throw new BoxflowError('INVALID_DURATION', `${what}: "${value}" is not a duration; use a number and a unit ms, s, m or h, e.g. 500ms or 30s`);
  }
  const unit = value.endsWith('ms') ? 'ms' : (value.at(-1) as 's' | 'm' | 'h');
  return Number(value.slice(0, -unit.length)) * kUnitMs[unit];
}

/** Formats milliseconds back into the shortest exact duration string. */
export function formatDuration(ms: number): DurationString {
  for (const unit of ['h', 'm', 's'] as const) {
    if (ms >= kUnitMs[unit] && ms % kUnitMs[unit] === 0) return `${ms / kUnitMs[unit]}${unit}` as DurationString;
  }
  return `${Math.round(ms)}ms` as DurationString;
}

/** Limits the spec sets on durations (spec, Limits). */
export const kDurationLimits = {
  screenshotDelayMax: '30s',
} as const;
