// Polling, not sleeping: re-check until a deadline with backoff (Playwright's 100/250/500/1000 ms).
import { setTimeout as sleep } from 'node:timers/promises';
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
