// The one way tests wait for something to happen: poll a condition until it gives a value, bounded
// by a timeout that fails the test saying what never came. Never a sleep to show that something did
// not happen: wait for the event that shows the system had its chance (a request seen, a frame sent).
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';

export interface WaitForOptions<T = unknown> {
  /** What is awaited, for the failure message. */
  what?: string;
  /** Default 10 s. */
  timeoutMs?: number;
  /** Between two probes; default 20 ms. */
  intervalMs?: number;
  /**
   * Which of the probe's values end the wait (0 and false too); without it, any truthy value does
   * (so a count of 0 or an empty string is "not yet"). With it, a timeout also names the last value seen.
   */
  accept?: (value: T) => boolean;
}

type Accepted<T> = Exclude<T, undefined | null | false | 0 | ''>;

/**
 * Resolves with the first value of `probe` that `opts.accept` accepts or, without it, that is truthy;
 * a probe that throws is tried again.
 */
export async function waitFor<T>(probe: () => T | Promise<T>, opts: WaitForOptions<T> & { accept: (value: T) => boolean }): Promise<T>;
export async function waitFor<T>(probe: () => T | Promise<T>, opts?: WaitForOptions<T>): Promise<Accepted<T>>;
export async function waitFor<T>(probe: () => T | Promise<T>, opts: WaitForOptions<T> = {}): Promise<T> {
  const { what = 'the condition', timeoutMs = 10_000, intervalMs = 20, accept } = opts;
  const deadline = performance.now() + timeoutMs;
  let last: { error: unknown } | { value: T } | undefined;
  for (;;) {
    try {
      const value = await probe();
      if (accept ? accept(value) : value) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (performance.now() >= deadline) {
      const error = last && 'error' in last ? last.error : undefined;
      const seen = error ? `; the last try failed: ${(error as Error).message ?? String(error)}` : accept && last ? `; the last value was ${inspect((last as { value: T }).value, { breakLength: Infinity })}` : '';
      throw new Error(`waited ${timeoutMs} ms for ${what}${seen}`, { cause: error });
    }
    await sleep(intervalMs);
  }
}
