// The local HTTP servers a user opens in their own browser (boxflow studio, show-report): a fastify
// app that answers every failure as `{ code, message }`, the body boxflow serve answers, with the
// status of the code (src/errors.ts), so that one reader of errors fits all of boxflow's servers.
import Fastify, { type FastifyInstance } from 'fastify';
import { BoxflowError, errorCodes, type ErrorCode } from '../errors.js';

export interface ErrorAnswer {
  status: number;
  body: { code: ErrorCode; message: string };
  headers?: Record<string, string>;
}

/** The code of an HTTP status that fastify or the file server gave; a status without its own code is HTTP_ERROR. */
const kCodeOfStatus: Record<number, ErrorCode> = {
  400: 'INVALID_REQUEST',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'BODY_TOO_LARGE',
  414: 'URI_TOO_LONG',
  431: 'HEADERS_TOO_LARGE',
};

/** Messages for errors whose own says too little. */
const kMessages: Record<string, string> = {
  // @fastify/static's refusal of `..` and of paths such as `//etc/passwd`.
  FST_STATIC_FORBIDDEN_PATH: 'the path leads outside the folder served, or is not a plain path',
};

export function errorAnswer(err: unknown): ErrorAnswer {
  if (BoxflowError.is(err)) {
    // A code without a status of its own (a flow's or the runner's) is a request that could not be carried out.
    return { status: err.status ?? 422, body: { code: err.code, message: err.message } };
  }
  // fastify's own errors (a bad JSON body, one over the limit) and the file server's (a Range past the end).
  const e = err as { code?: unknown; statusCode?: unknown; status?: unknown; message?: unknown; headers?: Record<string, string> };
  const status = typeof e.statusCode === 'number' ? e.statusCode : typeof e.status === 'number' ? e.status : 500;
  const message = (typeof e.code === 'string' ? kMessages[e.code] : undefined) ?? (typeof e.message === 'string' && e.message ? e.message : String(err));
  if (status >= 400 && status < 500) {
    const code = kCodeOfStatus[status] ?? 'HTTP_ERROR';
    // HTTP_ERROR is "any other status": it keeps the one HTTP gave (416 tells a video player where the file ends).
    const answer = code === 'HTTP_ERROR' ? status : ((errorCodes[code] as { status?: number }).status ?? status);
    return { status: answer, body: { code, message }, ...(e.headers ? { headers: e.headers } : {}) };
  }
  return { status: 500, body: { code: 'INTERNAL', message } };
}

export interface LoopbackOptions {
  /** The largest request body, in bytes (fastify's default: 1 MiB). */
  bodyLimit?: number;
  /** What every error message goes through before it is sent (the studio masks its secrets). */
  text?: (message: string) => string;
}

export function loopbackApp(opts: LoopbackOptions = {}): FastifyInstance {
  // Closing the app ends kept-alive connections too: a browser tab left open must not hold the CLI.
  const app = Fastify({ forceCloseConnections: true, ...(opts.bodyLimit ? { bodyLimit: opts.bodyLimit } : {}) });
  const text = opts.text ?? ((s: string) => s);
  app.setErrorHandler((err, _req, reply) => {
    const a = errorAnswer(err);
    void reply
      .code(a.status)
      .headers({ 'cache-control': 'no-store', ...a.headers })
      .send({ code: a.body.code, message: text(a.body.message) });
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).header('cache-control', 'no-store').send({ code: 'NOT_FOUND', message: `no ${req.method} ${text(req.url.split('?')[0] ?? '')} here` });
  });
  return app;
}

/** Listens on `host` (loopback by default) and answers the URL, with an IPv6 host in brackets. */
export async function listenLoopback(app: FastifyInstance, host = '127.0.0.1', port = 0): Promise<{ host: string; port: number; origin: string }> {
  await app.listen({ host, port });
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return { host: shown, port: bound, origin: `http://${shown}:${bound}` };
}
