// One DevTools protocol (CDP) client over a websocket: serve's hot path to a page of a box's
// Chromium (input, screenshots, screencasts: one hop less per command than a Playwright
// CDPSession), and the runner's reading of a box's browser (src/runner/boxBrowser.ts). Only a flow's
// box.page(), a Playwright Page the user asked for, goes through Playwright.
import { WebSocket } from 'ws';
import { BoxflowError } from '../errors.js';

/** The browser's own error answer to a command (`{error: {code, message}}`), its message as it is. */
export class CdpError extends Error {
  override readonly name = 'CdpError';
  constructor(readonly method: string, message: string, readonly cdpCode?: number) {
    super(message);
  }
}

export interface CdpConnectOptions {
  /** The largest message taken from the other end; a larger one ends the connection. */
  maxPayload: number;
  /** A command unanswered this long fails with BROWSER_TIMEOUT. Default: unbounded (the caller's signal bounds it). */
  timeoutMs?: number;
  /** Ends the connection (and fails what waits) when aborted; the opening too. */
  signal?: AbortSignal;
  /** What a command gets once the connection has ended. */
  closed?: () => Error;
}

export interface CdpSendOptions {
  /** The flat-mode session of an attached target. */
  sessionId?: string;
  /** This command's own bound, in place of the connection's. */
  timeoutMs?: number;
}

interface Pending {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
}

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code?: number; message?: string };
}

export class CdpConnection {
  readonly #ws: WebSocket;
  readonly #opts: CdpConnectOptions;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Map<string, (params: Record<string, unknown>) => void>();
  #ended: Error | undefined;

  private constructor(ws: WebSocket, opts: CdpConnectOptions) {
    this.#ws = ws;
    this.#opts = opts;
    ws.on('message', (data) => this.#receive(data.toString()));
    ws.on('close', () => this.#end());
    ws.on('error', () => ws.terminate());
    opts.signal?.addEventListener('abort', () => ws.terminate(), { once: true });
  }

  /** Opens `url`; fails with BROWSER_ERROR when it cannot (the answer's status when it is not a websocket). */
  static open(url: string | URL, opts: CdpConnectOptions): Promise<CdpConnection> {
    return new Promise((resolve, reject) => {
      if (opts.signal?.aborted) return reject(opts.signal.reason);
      const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: opts.maxPayload, ...(opts.timeoutMs ? { handshakeTimeout: opts.timeoutMs } : {}) });
      const onAbort = () => ws.terminate();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      ws.once('open', () => {
        opts.signal?.removeEventListener('abort', onAbort);
        ws.removeAllListeners('error');
        ws.removeAllListeners('unexpected-response');
        resolve(new CdpConnection(ws, opts));
      });
      ws.once('error', (err) => reject(new BoxflowError('BROWSER_ERROR', `cannot open the browser's CDP connection: ${err.message}`)));
      ws.once('unexpected-response', (_req, res) => {
        reject(new BoxflowError('BROWSER_ERROR', `the CDP URL answered ${res.statusCode}`));
        ws.terminate();
      });
    });
  }

  get open(): boolean {
    return this.#ended === undefined && this.#ws.readyState === WebSocket.OPEN;
  }

  send<T = Record<string, unknown>>(method: string, params: object = {}, opts: CdpSendOptions = {}): Promise<T> {
    if (!this.open) return Promise.reject(this.#ended ?? this.#closedError());
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const p: Pending = { method, resolve: resolve as (v: unknown) => void, reject };
      const timeoutMs = opts.timeoutMs ?? this.#opts.timeoutMs;
      if (timeoutMs) {
        p.timer = setTimeout(() => {
          this.#pending.delete(id);
          reject(new BoxflowError('BROWSER_TIMEOUT', `the box's browser did not answer ${method} within ${timeoutMs / 1000}s`));
        }, timeoutMs);
      }
      this.#pending.set(id, p);
      this.#ws.send(JSON.stringify({ id, method, params, ...(opts.sessionId ? { sessionId: opts.sessionId } : {}) }));
    });
  }

  /** The one listener of an event (a later one replaces it). */
  on(method: string, listener: (params: Record<string, unknown>) => void): void {
    this.#listeners.set(method, listener);
  }

  close(): void {
    this.#ws.terminate();
  }

  #receive(text: string): void {
    let msg: Message;
    try {
      msg = JSON.parse(text) as Message;
      if (typeof msg !== 'object' || msg === null) throw new Error('not an object');
    } catch {
      // Not what a browser writes: this connection is not to be trusted any further.
      this.#ws.terminate();
      return;
    }
    if (msg.id === undefined) {
      if (msg.method) this.#listeners.get(msg.method)?.(msg.params ?? {});
      return;
    }
    const p = this.#pending.get(msg.id);
    if (!p) return;
    this.#pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.error) p.reject(new CdpError(p.method, String(msg.error.message ?? 'an error'), msg.error.code));
    else p.resolve(msg.result);
  }

  #closedError(): Error {
    return this.#opts.closed?.() ?? new Error('the CDP connection closed');
  }

  #end(): void {
    this.#ended ??= this.#closedError();
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.reject(this.#ended);
    }
    this.#pending.clear();
  }
}
