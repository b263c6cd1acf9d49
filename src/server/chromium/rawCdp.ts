// A bare CDP connection to one page target (ws://…/devtools/page/<targetId>). The hot path
// (input, screenshots) uses it instead of a Playwright CDPSession: one hop less per command.
import { WebSocket } from 'ws';
import { BoxflowError } from '../../errors.js';
import { kMaxAnswer } from './cdpPipe.js';

export class RawCdp {
  readonly #ws: WebSocket;
  readonly #timeoutMs: number;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly #listeners = new Map<string, (params: Record<string, unknown>) => void>();

  private constructor(ws: WebSocket, timeoutMs: number) {
    this.#ws = ws;
    this.#timeoutMs = timeoutMs;
    ws.on('message', (data) => {
      let msg: { id?: number; method?: string; params?: Record<string, unknown>; result?: unknown; error?: { message: string } };
      try {
        msg = JSON.parse(data.toString()) as typeof msg;
        if (typeof msg !== 'object' || msg === null) throw new Error('not an object');
      } catch {
        // Not what the box's pipe writes: this connection is not to be trusted any further.
        ws.terminate();
        return;
      }
      if (msg.id === undefined) {
        if (msg.method) this.#listeners.get(msg.method)?.(msg.params ?? {});
        return;
      }
      const p = this.#pending.get(msg.id);
      if (!p) return;
      this.#pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${msg.error.message}`));
      else p.resolve(msg.result);
    });
    ws.on('close', () => this.#failAll(new Error('the page closed')));
    ws.on('error', () => ws.terminate());
  }

  /** Every command of this connection fails with BROWSER_TIMEOUT when unanswered after `timeoutMs`. */
  static connect(url: string, timeoutMs: number): Promise<RawCdp> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: kMaxAnswer, handshakeTimeout: timeoutMs });
      ws.once('open', () => {
        ws.removeAllListeners('error');
        resolve(new RawCdp(ws, timeoutMs));
      });
      ws.once('error', reject);
    });
  }

  get open(): boolean {
    return this.#ws.readyState === WebSocket.OPEN;
  }

  send<T = Record<string, unknown>>(method: string, params: object = {}, timeoutMs = this.#timeoutMs): Promise<T> {
    if (!this.open) return Promise.reject(new Error('the page connection is closed'));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new BoxflowError('BROWSER_TIMEOUT', `the box's browser did not answer ${method} within ${timeoutMs / 1000}s`));
      }, timeoutMs);
      const settle = <A>(fn: (a: A) => void) => (a: A) => {
        clearTimeout(timer);
        fn(a);
      };
      this.#pending.set(id, { resolve: settle(resolve as (v: unknown) => void), reject: settle(reject) });
      this.#ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** The one listener of an event of this page (a later one replaces it). */
  on(method: string, listener: (params: Record<string, unknown>) => void): void {
    this.#listeners.set(method, listener);
  }

  close(): void {
    this.#ws.terminate();
  }

  #failAll(err: Error): void {
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }
}
