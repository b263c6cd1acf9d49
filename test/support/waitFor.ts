// The one way tests wait for something to happen: poll a condition until it gives a value, bounded
// by a timeout that fails the test saying what never came. Never a sleep to show that something did
// not happen: wait for the event that shows the system had its chance (a request seen, a frame sent).
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitForOptions {
  /** What is awaited, for the failure message. */
  what?: string;
  /** Default 10 s. */
  timeoutMs?: number;
  /** Between two probes; default 20 ms. */
  intervalMs?: number;
}

/** Resolves with the first value of `probe` that is not undefined, null or false; a probe that throws is tried again. */
export async function waitFor<T>(probe: () => T | Promise<T>, opts: WaitForOptions = {}): Promise<Exclude<T, undefined | null | false>> {
  const { what = 'the condition', timeoutMs = 10_000, intervalMs = 20 } = opts;
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value as Exclude<T, undefined | null | false>;
      last = undefined;
    } catch (err) {
      last = err;
    }
    if (performance.now() >= deadline) {
      throw new Error(`waited ${timeoutMs} ms for ${what}${last ? `; the last try failed: ${(last as Error).message ?? String(last)}` : ''}`, { cause: last });
    }
    await sleep(intervalMs);
  }
}
