// A real node:http server on loopback port 0 that plays the Box service's side in client tests.
// It records every request as it arrived on the wire (method, raw path+query, headers, raw body,
// arrival time, socket) and answers with whatever the current test's handler does.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface Recorded {
  method: string;
  /** Raw request target, e.g. `/api/v1/boxes/b1/android/packages?pkgType=system%2CthirdParty`. */
  url: string;
  /** `url` without the `/api/v1` prefix and without the query. */
  path: string;
  /** The raw query string without `?`, '' when there is none. */
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** performance.now() when the request line arrived. */
  at: number;
  /** 1-based id of the TCP connection it came on. */
  socket: number;
}

export type Handler = (req: Recorded, res: ServerResponse, n: number) => void | Promise<void>;

export interface FakeService {
  /** Base URL ending in /api/v1. */
  readonly baseUrl: string;
  readonly port: number;
  readonly requests: Recorded[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Sets the answer for the following requests; `n` is the 0-based index of the request. */
  handle(handler: Handler): void;
  /** Forgets recorded requests (not the connection count). */
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeService(handler: Handler = (_req, res) => sendJson(res, 404, { code: 'NotFound', message: 'no handler' })): Promise<FakeService> {
  const requests: Recorded[] = [];
  const socketIds = new WeakMap<Socket, number>();
  let connections = 0;
  let current = handler;
  const server: Server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const rawPath = q === -1 ? url : url.slice(0, q);
      const rec: Recorded = {
        method: req.method ?? '',
        url,
        path: rawPath.startsWith('/api/v1') ? rawPath.slice('/api/v1'.length) : rawPath,
        query: q === -1 ? '' : url.slice(q + 1),
        headers: req.headers,
        body: Buffer.concat(chunks),
        at,
        socket: socketIds.get(req.socket) ?? 0,
      };
      const n = requests.push(rec) - 1;
      Promise.resolve(current(rec, res, n)).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 599, { code: 'TestHandlerFailed', message: String(err) });
      });
    });
  });
  server.on('connection', (socket: Socket) => {
    connections += 1;
    socketIds.set(socket, connections);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    port,
    requests,
    get connections() {
      return connections;
    },
    handle(h) {
      current = h;
    },
    reset() {
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, headers);
  res.end();
}

/** A port on loopback that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** Splits a multipart/form-data body into its parts (enough for the client's uploads). */
export function parseMultipart(body: Buffer, contentType: string | undefined): Part[] {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? '');
  if (!m) throw new Error(`not multipart: ${contentType}`);
  const delimiter = Buffer.from(`--${m[1] ?? m[2]}`);
  const parts: Part[] = [];
  let pos = body.indexOf(delimiter);
  while (pos !== -1) {
    const start = pos + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next === -1) throw new Error('multipart body has no closing delimiter');
    const chunk = body.subarray(start + 2, next - 2); // drop the CRLF after the delimiter and before the next
    const split = chunk.indexOf('\r\n\r\n');
    const head = chunk.subarray(0, split).toString('utf8');
    const disposition = /content-disposition:[^\r\n]*/i.exec(head)?.[0] ?? '';
    const part: Part = { name: /\bname="([^"]*)"/.exec(disposition)?.[1] ?? '', data: chunk.subarray(split + 4) };
    const filename = /\bfilename="([^"]*)"/.exec(disposition)?.[1];
    if (filename !== undefined) part.filename = filename;
    const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1];
    if (type !== undefined) part.contentType = type;
    parts.push(part);
    pos = next;
  }
  return parts;
}
