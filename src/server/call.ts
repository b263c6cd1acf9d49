// What a route handler gets (the call) and gives back (the answer): apart from routes.ts, so the
// handler modules it imports (src/server/gbox/*) can name them without importing it back.
import { randomBytes } from 'node:crypto';

/** A fresh action id (`act_…`). */
export function newActionId(): string {
  return `act_${randomBytes(12).toString('base64url')}`;
}

/**
 * Where a command's output goes as it comes (the command websocket, gbox/commandSocket.ts), instead
 * of into the answer: the commands and run-code handlers then answer `stdout` and `stderr` empty.
 */
export interface OutputSink {
  /** Output of one stream, as text (a character split between two reads waits for its end). */
  write(stream: 'stdout' | 'stderr', text: string): void;
  /** Whether the reader has too much unread: the command's output is then not read, so the command waits on its pipe. */
  full(): boolean;
  /** Calls `fn` once, when the reader has caught up. */
  onDrain(fn: () => void): void;
}

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
