// Piscina worker: runs the in-thread comparator off the main thread. Errors cross the thread
// boundary as data so the caller can rebuild a BoxflowError with the same code.
import { BoxflowError, type ErrorCode } from '../errors.js';
import { compareImagesSync, type CompareOptions, type CompareResult } from './compare.js';

export interface CompareTask {
  expected: Uint8Array;
  actual: Uint8Array;
  opts: CompareOptions;
}

export type TaskReply = { ok: true; result: CompareResult } | { ok: false; code: ErrorCode; message: string };

// Structured clone delivers Buffers as plain Uint8Arrays.
const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

export default function run(task: CompareTask): TaskReply {
  try {
    return { ok: true, result: compareImagesSync(asBuffer(task.expected), asBuffer(task.actual), task.opts) };
  } catch (err) {
    if (BoxflowError.is(err)) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}
