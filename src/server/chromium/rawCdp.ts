// A bare CDP connection to one page target (ws://…/devtools/page/<targetId>). The hot path
// (input, screenshots) uses it instead of a Playwright CDPSession: one hop less per command.
import { WebSocket } from 'ws';

export class RawCdp {
  readonly #ws: WebSocket;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
      if (msg.id === undefined) return;
      const p = this.#pending.get(msg.id);
      if (!p) return;
      this.#pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${msg.error.message}`));
      else p.resolve(msg.result);
    });
    ws.on('close', () => this.#failAll(new Error('the page closed')));
    ws.on('error', () => ws.terminate());
  }

  static connect(url: string): Promise<RawCdp> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
      ws.once('open', () => {
        ws.removeAllListeners('error');
        resolve(new RawCdp(ws));
      });
      ws.once('error', reject);
    });
  }

  get open(): boolean {
    return this.#ws.readyState === WebSocket.OPEN;
  }

  send<T = Record<string, unknown>>(method: string, params: object = {}): Promise<T> {
    if (!this.open) return Promise.reject(new Error('the page connection is closed'));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#ws.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.#ws.terminate();
  }

  #failAll(err: Error): void {
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }
}
