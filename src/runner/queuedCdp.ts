// A short DevTools connection for one CDP-only step, opened with `&queue=1` on the box's CDP URL:
// on boxflow serve each command then waits its turn in the box's queue, as an action does, so the
// step never interleaves with an action of this or another client (src/server/cdpProxy.ts). A
// service that does not know the parameter serves the connection unqueued. The connection ends
// with the step: closing it (also on the step's deadline or the flow's cancel) lets the queue go on.
import { WebSocket } from 'ws';
import { BoxflowError } from '../errors.js';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

export class QueuedCdp {
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  #closed: Error | undefined;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      let msg: { id?: number; result?: unknown; error?: { message?: string } };
      try {
        msg = JSON.parse(data.toString()) as typeof msg;
      } catch {
        return;
      }
      const p = msg.id === undefined ? undefined : this.#pending.get(msg.id);
      if (!p) return;
      this.#pending.delete(msg.id!);
      if (msg.error) p.reject(new BoxflowError('BROWSER_ERROR', `the box's browser refused: ${msg.error.message ?? 'an error'}`));
      else p.resolve(msg.result);
    });
    ws.on('close', () => this.#fail(new BoxflowError('BOX_CRASHED', "the box's browser connection closed")));
    ws.on('error', (err) => this.#fail(new BoxflowError('BROWSER_ERROR', `the box's browser connection failed: ${err.message}`)));
  }

  /** Opens `cdpUrl` with `queue=1`; the signal closes it. */
  static open(cdpUrl: string, signal: AbortSignal): Promise<QueuedCdp> {
    const url = new URL(cdpUrl);
    url.searchParams.set('queue', '1');
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
      const onAbort = () => ws.terminate();
      signal.addEventListener('abort', onAbort, { once: true });
      ws.once('close', () => signal.removeEventListener('abort', onAbort));
      ws.once('open', () => {
        ws.removeAllListeners('error');
        resolve(new QueuedCdp(ws));
      });
      ws.once('error', (err) => reject(new BoxflowError('BROWSER_ERROR', `cannot open the box's CDP URL: ${err.message}`)));
      ws.once('unexpected-response', (_req, res) => {
        reject(new BoxflowError('BROWSER_ERROR', `the box's CDP URL answered ${res.statusCode}`));
        ws.terminate();
      });
    });
  }

  send<T = unknown>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  close(): void {
    this.ws.terminate();
  }

  #fail(err: Error): void {
    this.#closed ??= err;
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }
}
