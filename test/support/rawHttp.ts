// HTTP/1.1 over a bare socket, so a test can send what no well-behaved client would: any method,
// broken headers, bodies of any bytes. One request per connection (`connection: close`).
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** The request target as sent, e.g. /api/v1/boxes?page=1 (not encoded by us). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Abort with an error when no full answer came within this time. */
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
  const headers: Record<string, string> = { host: url.host, connection: 'close', ...(req.headers ?? {}) };
  if (body && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length' || h.toLowerCase() === 'transfer-encoding')) headers['content-length'] = String(body.length);
  const head = `${req.method} ${req.path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${req.timeoutMs} ms to ${req.method} ${req.path.slice(0, 200)}`));
    }, req.timeoutMs ?? 30_000);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => {}); // a reset after the answer is fine; no answer is caught below
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no HTTP answer to ${req.method} ${req.path.slice(0, 200)}: ${JSON.stringify(all.toString('latin1').slice(0, 200))}`));
      const [statusLine, ...lines] = all.subarray(0, split).toString('latin1').split('\r\n');
      const out: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        out[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      let payload: Buffer = all.subarray(split + 4);
      if (out['transfer-encoding'] === 'chunked') payload = dechunk(payload);
      resolve({ status: Number(statusLine!.split(' ')[1]), headers: out, text: payload.toString('utf8') });
    });
    socket.write(head);
    if (body) socket.write(body);
  });
}

function dechunk(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
    if (!size) break;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
