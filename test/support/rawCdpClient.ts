// A DevTools client that sends whatever a test gives it (any text, any bytes) on a box's pre-signed
// CDP URL, and keeps every message it gets back; answers are awaited by id, the close by its code.
import { WebSocket } from 'ws';

export interface CdpMessage {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: Record<string, unknown> & { result?: { value?: unknown } };
  error?: { code: number; message: string };
}

export interface RawCdpClient {
  ws: WebSocket;
  /** Every message received, parsed (a message that is not JSON fails the test that reads `unreadable`). */
  received: CdpMessage[];
  /** Messages that were not JSON objects. */
  unreadable: string[];
  /** Resolves when the connection closes. */
  closed: Promise<{ code: number; reason: string }>;
  send(data: string | Buffer, binary?: boolean): void;
  /** Sends a command and resolves with its answer. */
  call(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<CdpMessage>;
  /** The answer to `id` (resolves at once when it came already). */
  answerTo(id: number): Promise<CdpMessage>;
  /** The first event with this method (and, if given, that matches), received already or to come. */
  event(method: string, match?: (m: CdpMessage) => boolean): Promise<CdpMessage>;
  close(): void;
}

let nextId = 1_000_000;

export async function rawCdp(url: string, maxPayload = 512 * 1024 * 1024): Promise<RawCdpClient> {
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (req, res) => {
      reject(new Error(`the CDP URL answered ${res.statusCode}`));
      req.destroy();
    });
  });
  ws.on('error', () => {});
  const received: CdpMessage[] = [];
  const unreadable: string[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data: Buffer) => {
    try {
      const msg = JSON.parse(data.toString('utf8')) as unknown;
      if (typeof msg === 'object' && msg !== null && !Array.isArray(msg)) received.push(msg as CdpMessage);
      else unreadable.push(data.subarray(0, 200).toString('utf8'));
    } catch {
      unreadable.push(data.subarray(0, 200).toString('utf8'));
    }
    for (const wake of waiters) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  let isClosed = false;
  void closed.then(() => {
    isClosed = true;
    for (const wake of waiters) wake();
  });
  const first = (pick: () => CdpMessage | undefined, what: string) =>
    new Promise<CdpMessage>((resolve, reject) => {
      const check = () => {
        const found = pick();
        if (found) {
          waiters.delete(check);
          resolve(found);
        } else if (isClosed) {
          waiters.delete(check);
          reject(new Error(`the connection closed before ${what}`));
        }
      };
      waiters.add(check);
      check();
    });
  const answerTo = (id: number) => first(() => received.find((m) => m.id === id), `the answer to ${id}`);
  return {
    ws,
    received,
    unreadable,
    closed,
    send: (data, binary = false) => ws.send(data, { binary }),
    call(method, params = {}, sessionId) {
      const id = nextId++;
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
      return answerTo(id);
    },
    answerTo,
    event: (method, match = () => true) => first(() => received.find((m) => m.method === method && match(m)), `a ${method} event`),
    close: () => ws.terminate(),
  };
}
