// Decoding and comparing a 1080×2400 pair takes ~100 ms of CPU; done on the main thread it
// would stall every other flow's HTTP traffic. The pool is created on first use, its idle
// workers do not keep the process alive, and closeVisualPool() ends it for a clean exit.
import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { BoxflowError } from '../errors.js';
import { equalBytesResult, validateCompareOptions, type CompareOptions, type CompareResult } from './compare.js';
import type { CompareTask, TaskReply } from './worker.js';

const kIdleTimeoutMs = 30_000;

let pool: Piscina<CompareTask, TaskReply> | undefined;

function workerUrl(): string {
  // Same extension as this module: .ts under tsx (tests), .js in the built dist.
  const ext = extname(fileURLToPath(import.meta.url));
  return new URL(`./worker${ext}`, import.meta.url).href;
}

export function visualPoolSize(): number {
  const fromEnv = Number(process.env.BOXFLOW_VISUAL_THREADS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  return Math.max(1, Math.min(4, availableParallelism()));
}

function getPool(): Piscina<CompareTask, TaskReply> {
  pool ??= new Piscina<CompareTask, TaskReply>({
    filename: workerUrl(),
    minThreads: 0,
    maxThreads: visualPoolSize(),
    idleTimeout: kIdleTimeoutMs,
  });
  return pool;
}

/** Whether the pool exists, its live threads and the tasks it has finished. */
export function visualPoolInfo(): { open: boolean; threads: number; completed: number } {
  return pool ? { open: true, threads: pool.threads.length, completed: pool.completed } : { open: false, threads: 0, completed: 0 };
}

/** Ends the worker threads. The next compareImages starts a new pool. */
export async function closeVisualPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  if (p) await p.destroy();
}

/**
 * Compares two PNGs. Equal bytes pass here without decoding; everything else (decode, masks,
 * clip, pixelmatch, diff encode) runs as one task in the worker pool, so concurrent flows
 * spread over the workers.
 */
export async function compareImages(expected: Buffer, actual: Buffer, opts: CompareOptions = {}): Promise<CompareResult> {
  validateCompareOptions(opts);
  const bytes = equalBytesResult(expected, actual, opts);
  if (bytes) return bytes;
  const reply = await getPool().run({ expected, actual, opts });
  if (!reply.ok) throw new BoxflowError(reply.code, reply.message);
  const r = reply.result;
  if (r.diffPng) r.diffPng = Buffer.from(r.diffPng.buffer, r.diffPng.byteOffset, r.diffPng.byteLength);
  return r;
}
