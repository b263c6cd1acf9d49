// The HTTP side of BoxClient: one request to the Box API over an undici keep-alive pool, its
// errors and its retries. undici times each attempt (headersTimeout/bodyTimeout) and repeats it
// (its retry interceptor); boxflow decides only which failures are safe to repeat (`retryable`,
// `retryableError`) and how long to wait (docs/api.md, "Retry policy"). Every response is validated
// against the contract, and a failure is a BoxApiError with a stable code that names method, path
// and box, never the key.
import { Agent, interceptors, request, type Dispatcher, type FormData } from 'undici';
import type { Static, TSchema } from '@sinclair/typebox';
import { BoxflowError, type ErrorCode } from '../errors.js';
import { Masker } from '../mask.js';
import { endpoints, type EndpointName } from './schemas.js';
import { check, formatProblem } from './validate.js';
import { boxflowVersion } from './version.js';

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  /** Per attempt. */
  timeoutMs: number;
  /** Retries of a safe request. */
  maxRetries: number;
  /** First backoff step; doubles per attempt up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Validate responses against the schemas. */
  validateResponses: boolean;
  /** Default: an Agent of the transport's own, closed by close(). */
  dispatcher?: Dispatcher | undefined;
}

export type Result<N extends EndpointName> = (typeof endpoints)[N] extends { response: infer S extends TSchema } ? Static<S> : void;

/** What a request is, for its error message: method, path and box. */
export interface Where {
  method: string;
  path: string;
  boxId?: string | undefined;
}

export interface Call {
  pathParams?: Record<string, string>;
  query?: Record<string, unknown>;
  json?: unknown;
  form?: FormData;
}

export class BoxApiError extends BoxflowError {
  readonly method: string;
  readonly path: string;
  readonly boxId: string | undefined;
  /** HTTP status, when a response arrived. */
  readonly httpStatus: number | undefined;
  /** The `code` of the service's error body, when it sent one. */
  readonly serverCode: string | undefined;
  /** The action's id when the service gave one for a failed action (`x-boxflow-action-id`). */
  actionId: string | undefined;
  constructor(code: ErrorCode, message: string, init: { method: string; path: string; boxId?: string; httpStatus?: number; serverCode?: string; actionId?: string; cause?: unknown; details?: unknown }) {
    super(code, message, { cause: init.cause, details: init.details });
    this.name = 'BoxApiError';
    this.method = init.method;
    this.path = init.path;
    this.boxId = init.boxId;
    this.httpStatus = init.httpStatus;
    this.serverCode = init.serverCode;
    this.actionId = init.actionId;
  }
}

const kStatusCodes: Record<number, ErrorCode> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  422: 'UNPROCESSABLE',
  429: 'RATE_LIMITED',
};
export function codeForStatus(status: number): ErrorCode {
  return kStatusCodes[status] ?? (status >= 500 ? 'SERVER_ERROR' : 'HTTP_ERROR');
}

// Connection failures that happen before any byte of the request left: safe to retry for any method.
const kNotSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const kTimeoutCodes = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The retry callback of undici's RetryHandler: `next(null)` sends the request again, `next(err)` gives up. */
type RetryFn = (err: Error, context: { state: { counter: number } }, next: (err: Error | null) => void) => void;

export class Transport {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly #apiKey: string;
  readonly #maxRetries: number;
  readonly #retryBaseMs: number;
  readonly #retryMaxMs: number;
  readonly #validate: boolean;
  readonly #dispatcher: Dispatcher;
  /** #dispatcher with undici's retry interceptor: API calls go through it, pre-signed downloads do not. */
  readonly #retrying: Dispatcher;
  readonly #ownDispatcher: boolean;
  /** A service answered an action as `boxflow serve` does (`x-boxflow-action-id`). */
  boxflowService = false;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl;
    this.timeoutMs = options.timeoutMs;
    this.#apiKey = options.apiKey;
    this.#maxRetries = options.maxRetries;
    this.#retryBaseMs = options.retryBaseMs;
    this.#retryMaxMs = options.retryMaxMs;
    this.#validate = options.validateResponses;
    this.#ownDispatcher = !options.dispatcher;
    this.#dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 64 });
    // throwOnError: false hands the last refused answer through, so its status and body make the error.
    this.#retrying = this.#dispatcher.compose(interceptors.retry({ throwOnError: false }));
  }

  async close(): Promise<void> {
    if (this.#ownDispatcher) await this.#dispatcher.close();
  }

  /** The headers every API request carries. */
  headers(accept: string): Record<string, string> {
    return { authorization: `Bearer ${this.#apiKey}`, accept, 'user-agent': `boxflow/${boxflowVersion()}` };
  }

  /** One API operation: the request through undici's retry interceptor, the answer decoded and checked. */
  async call<N extends EndpointName>(name: N, call: Call, opts: RequestOptions = {}): Promise<Result<N>> {
    const ep = endpoints[name];
    const boxId = call.pathParams?.boxId;
    const path = expandPath(ep.path, call.pathParams ?? {}, ep.method);
    const headers = this.headers('response' in ep ? 'application/json' : '*/*');
    let body: string | FormData | undefined;
    if (call.form) body = call.form;
    else if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      headers['content-type'] = 'application/json';
    }
    const maxRetries = opts.maxRetries ?? this.#maxRetries;
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const where = { method: ep.method, path, boxId };
    if (opts.signal?.aborted) throw this.error('ABORTED', 'aborted by the caller', where, undefined, undefined, opts.signal.reason);
    const attempt = { answered: false, waiting: false };
    let res: Dispatcher.ResponseData<unknown>;
    try {
      res = await request(this.baseUrl + path + encodeQuery(call.query), {
        method: ep.method,
        headers,
        body,
        signal: opts.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        dispatcher: this.#retrying,
        retryOptions: { maxRetries, retry: this.#retryPolicy(ep.method, maxRetries, attempt, opts.signal) },
      } as Parameters<typeof request>[1]);
    } catch (cause) {
      throw this.transportError(cause, opts.signal, timeoutMs, where, attempt.waiting);
    }
    attempt.answered = true;
    if (res.statusCode >= 200 && res.statusCode < 300) {
      if (res.headers['x-boxflow-action-id'] !== undefined) this.boxflowService = true;
      let text: string;
      try {
        if (res.statusCode === 204 || !('response' in ep)) {
          await res.body.dump();
          return undefined as Result<N>;
        }
        text = await res.body.text();
      } catch (cause) {
        throw this.transportError(cause, opts.signal, timeoutMs, where);
      }
      return this.#decode(ep, res, text, where) as Result<N>;
    }
    const text = await res.body.text().catch(() => '');
    const err = this.#httpError(res.statusCode, text, where);
    const actionId = res.headers['x-boxflow-action-id'];
    if (typeof actionId === 'string') err.actionId = actionId;
    throw err;
  }

  /**
   * The retry policy (docs/api.md) as undici's RetryHandler asks for it, once per failed attempt:
   * whether to send the request again and when. `attempt.answered`: the answer reached the caller,
   * so a body that breaks off later is not sent for again; `attempt.waiting`: between two attempts.
   */
  #retryPolicy(method: string, maxRetries: number, attempt: { answered: boolean; waiting: boolean }, signal: AbortSignal | undefined): RetryFn {
    return (err, { state }, next) => {
      const status = (err as { statusCode?: number }).statusCode;
      const headers = (err as { headers?: Dispatcher.ResponseData['headers'] }).headers ?? {};
      const again = status === undefined ? !attempt.answered && retryableError(method, err) : retryable(method, status, headers);
      if (!again || state.counter > maxRetries || signal?.aborted) return next(err);
      attempt.waiting = true;
      const timer = setTimeout(() => {
        attempt.waiting = false;
        signal?.removeEventListener('abort', onAbort);
        next(null);
      }, (status === undefined ? undefined : retryAfterMs(headers)) ?? this.#backoff(state.counter - 1));
      // An abort while waiting after a refused answer rejects the request through its signal;
      // after a failed connection there is no request in flight, so the wait itself gives up.
      const onAbort = () => {
        clearTimeout(timer);
        if (status === undefined) next(err);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    };
  }

  /** A GET outside the API's retries (a media file, a pre-signed object): its body, passed on as it arrives. */
  async get(url: string, headers: Record<string, string> | undefined, where: Where, opts: RequestOptions = {}): Promise<Dispatcher.ResponseData['body']> {
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    if (opts.signal?.aborted) throw this.error('ABORTED', 'aborted by the caller', where, undefined, undefined, opts.signal.reason);
    try {
      const res = await request(url, { method: 'GET', headers, signal: opts.signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, dispatcher: this.#dispatcher });
      if (res.statusCode !== 200) throw this.#httpError(res.statusCode, await res.body.text().catch(() => ''), where);
      return res.body;
    } catch (cause) {
      throw BoxflowError.is(cause) ? cause : this.transportError(cause, opts.signal, timeoutMs, where);
    }
  }

  /** `get` read whole. */
  async getBytes(url: string, headers: Record<string, string> | undefined, where: Where, opts: RequestOptions = {}): Promise<Buffer> {
    const body = await this.get(url, headers, where, opts);
    try {
      return Buffer.from(await body.arrayBuffer());
    } catch (cause) {
      throw this.transportError(cause, opts.signal, opts.timeoutMs ?? this.timeoutMs, where);
    }
  }

  #decode(ep: (typeof endpoints)[EndpointName], res: Dispatcher.ResponseData<unknown>, text: string, where: Where): unknown {
    let data: unknown = text;
    if (/application\/json|\+json/.test(String(res.headers['content-type'] ?? ''))) {
      try {
        data = JSON.parse(text);
      } catch {
        throw this.error('INVALID_RESPONSE', `response is not valid JSON (${text.length} bytes)`, where, res.statusCode);
      }
    }
    if (this.#validate && 'response' in ep) {
      const problem = check(ep.response, data);
      if (problem) throw this.error('INVALID_RESPONSE', `response does not match the API schema: ${formatProblem(problem)}`, where, res.statusCode);
    }
    return data;
  }

  #backoff(attempt: number): number {
    const base = Math.min(this.#retryBaseMs * 2 ** attempt, this.#retryMaxMs);
    return base * (1 - Math.random() * 0.25);
  }

  #httpError(status: number, text: string, where: Where): BoxApiError {
    let serverCode: string | undefined;
    let detail = text.trim() || 'no body';
    let details: unknown;
    try {
      const json = JSON.parse(text) as { code?: unknown; message?: unknown; details?: unknown };
      if (typeof json.code === 'string') serverCode = json.code;
      if (json.message !== undefined) detail = typeof json.message === 'string' ? json.message : JSON.stringify(json.message);
      details = json.details;
    } catch {
      // a non-JSON body: keep its text
    }
    if (detail.length > 2000) detail = `${detail.slice(0, 2000)}…`;
    return this.error(codeForStatus(status), `${status}${serverCode ? ` ${serverCode}` : ''}: ${detail}`, where, status, serverCode, undefined, details);
  }

  transportError(cause: unknown, userSignal: AbortSignal | undefined, timeoutMs: number, where: Where, waitingToRetry = false): BoxApiError {
    if (userSignal?.aborted) return this.error('ABORTED', waitingToRetry ? 'aborted by the caller while waiting to retry' : 'aborted by the caller', where, undefined, undefined, cause);
    const name = (cause as Error)?.name;
    if (name === 'TimeoutError' || kTimeoutCodes.has(errorCode(cause))) {
      return this.error('TIMEOUT', `no response within ${timeoutMs} ms`, where, undefined, undefined, cause);
    }
    const code = errorCode(cause);
    return this.error('NETWORK_ERROR', `connection failed${code ? ` (${code})` : ''}: ${(cause as Error)?.message ?? String(cause)}`, where, undefined, undefined, cause);
  }

  /** A BoxApiError naming the request, the key masked everywhere in it. */
  error(code: ErrorCode, text: string, where: Where, httpStatus?: number, serverCode?: string, cause?: unknown, details?: unknown): BoxApiError {
    const box = where.boxId ? ` (box ${where.boxId})` : '';
    const message = new Masker([this.#apiKey]).text(`${where.method} ${where.path}${box}: ${text}`);
    return new BoxApiError(code, message, { ...where, httpStatus, serverCode, cause: scrub(cause, this.#apiKey), details: scrubJson(details, this.#apiKey) });
  }
}

export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BoxflowError('INVALID_ARGUMENT', `base URL "${raw}" is not a URL; expected e.g. http://127.0.0.1:28080/api/v1`);
  }
  const s = url.href.replace(/\/+$/, '');
  if (!s.endsWith('/api/v1')) throw new BoxflowError('INVALID_ARGUMENT', `base URL "${s}" must end in /api/v1 (e.g. ${url.origin}/api/v1)`);
  return s;
}

// Templates split once into literal text (even indexes) and parameter names (odd indexes).
const kTemplates = new Map<string, string[]>();

export function expandPath(template: string, params: Record<string, string>, method: string): string {
  let parts = kTemplates.get(template);
  if (!parts) kTemplates.set(template, (parts = template.split(/\{(\w+)\}/)));
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const key = parts[i]!;
    const value = params[key];
    if (value === undefined || value === '' || value === '.' || value === '..') {
      throw new BoxApiError('INVALID_ARGUMENT', `${method} ${template}${params.boxId ? ` (box ${params.boxId})` : ''}: path parameter ${key} ${value === undefined || value === '' ? 'is empty' : `may not be "${value}"`}`, { method, path: template, boxId: params.boxId });
    }
    out += encodeURIComponent(value) + parts[i + 1]!;
  }
  return out;
}

/** Arrays go out comma-joined, then percent-encoded, as the reference SDK sends them. */
export function encodeQuery(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    const text = Array.isArray(value) ? value.join(',') : value === null ? '' : String(value);
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(text)}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function retryable(method: string, status: number, headers: Dispatcher.ResponseData['headers']): boolean {
  // 429: the service refused before doing anything, so even an action may be sent again.
  if (status === 429) return true;
  // 503 with Retry-After is the service asking to come back; other 5xx may have done the work.
  if (status === 503 && retryAfterMs(headers) !== undefined) return true;
  return method === 'GET' && (status === 408 || status >= 500);
}

/** A request that got no answer: sent again when it never left, or when it is a GET (reading is safe to repeat). */
function retryableError(method: string, err: unknown): boolean {
  const code = errorCode(err);
  if (kNotSentCodes.has(code)) return true;
  return method === 'GET' && code !== 'UND_ERR_ABORTED' && (err as Error)?.name !== 'AbortError';
}

/** `retry-after-ms` (ms) first, then `retry-after` (seconds or an HTTP date); honoured when 0 ≤ v < 60 s. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const ms = Number.parseFloat(first(headers['retry-after-ms']) ?? '');
  if (Number.isFinite(ms) && ms >= 0 && ms < 60_000) return ms;
  const ra = first(headers['retry-after']);
  if (ra === undefined) return undefined;
  const secs = Number.parseFloat(ra);
  const fromDate = Number.isFinite(secs) ? secs * 1000 : Date.parse(ra) - Date.now();
  return Number.isFinite(fromDate) && fromDate >= 0 && fromDate < 60_000 ? fromDate : undefined;
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  return String(e?.code ?? e?.cause?.code ?? '');
}

// A cause is shown by loggers and reporters (message, stack, own fields such as `path`, nested
// causes), so the key is removed from all of them, not only from the message.
function scrub(value: unknown, key: string, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    const fields = value as unknown as Record<string, unknown>;
    for (const name of ['message', 'stack', ...Object.keys(value)]) {
      const v = fields[name];
      if (typeof v === 'string' && v.includes(key)) {
        try {
          fields[name] = new Masker([key]).text(v);
        } catch {
          // a read-only field: leave it
        }
      }
    }
    if (value.cause !== undefined) scrub(value.cause, key, depth + 1);
    if (value instanceof AggregateError) for (const e of value.errors) scrub(e, key, depth + 1);
  }
  return value;
}

/** The service's `details` may echo the request, key included. */
function scrubJson(value: unknown, key: string): unknown {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  if (!text.includes(key)) return value;
  try {
    return JSON.parse(new Masker([key]).text(text));
  } catch {
    return '[redacted]';
  }
}
