// What a route handler gets (the call) and gives back (the answer): apart from routes.ts, so the
// handler modules it imports (src/server/http/endpoints/*) can name them without importing it back.
import { randomBytes } from 'node:crypto';
import type { OutputSink } from '../devices/commandOutput.js';

/** A fresh action id (`act_…`). */
export function newActionId(): string {
  return `act_${randomBytes(12).toString('base64url')}`;
}

export type { OutputSink } from '../devices/commandOutput.js';

export interface Call {
  tenant: string;
  params: Record<string, string>;
  body: unknown;
  query: Record<string, unknown>;
  /** e.g. http://127.0.0.1:28080, from the request's Host header. */
  origin: string;
  actionId: string | undefined;
  /** Aborts (reason: REQUEST_CANCELLED) when the client goes away before the answer. */
  signal?: AbortSignal;
  /** runCommand and runCode: stream the output here (see OutputSink). */
  output?: OutputSink;
}

export interface Answer {
  status: number;
  body?: unknown;
  /** Send `body` (a string) as a JSON string literal. */
  jsonString?: boolean;
  /** Headers of a non-JSON answer (a download: its content type, length and file name). */
  headers?: Record<string, string>;
}
