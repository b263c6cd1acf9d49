// Polling, not sleeping: re-check until a deadline with backoff (Playwright's 100/250/500/1000 ms).
import { setTimeout as sleep } from 'node:timers/promises';
import { BoxflowError } from '../errors.js';
import { kBackoffMs } from '../visual/stable.js';

export async function pollUntil<T>(
  probe: () => Promise<T | undefined>,
  deadline: number,
  signal?: AbortSignal,
): Promise<{ value?: T; lastError?: unknown }> {
  let lastError: unknown;
  for (let i = 0; ; i++) {
    signal?.throwIfAborted();
    try {
      const value = await probe();
      if (value !== undefined) return { value };
    } catch (err) {
      // A step that is invalid (a selector key the box's layout cannot have) does not become valid by waiting.
      if (BoxflowError.is(err) && err.code === 'STEP_INVALID') return { value: undefined, lastError: err };
      lastError = err;
    }
    const wait = kBackoffMs[Math.min(i + 1, kBackoffMs.length - 1)]!;
    if (performance.now() + wait > deadline) return { value: undefined, lastError };
    await delay(wait, signal);
  }
}

/** Waits, or rejects with the signal's own reason (a flow or step deadline) when it aborts. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal }).catch((err: unknown) => {
    throw signal?.reason ?? err;
  });
}

/** `work`, or the signal's reason as soon as it fires (the work may go on, unawaited). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
