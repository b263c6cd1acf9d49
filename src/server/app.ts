// `boxflow serve`: Box API v1 over fastify, Linux boxes on Chromium.
import { mkdir } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { BoxflowError, errorCodes } from '../errors.js';
import { endpoints, type EndpointName } from '../api/schemas.js';
import { BoxRegistry } from './boxes.js';
import { attachCdpProxy } from './cdpProxy.js';
import { findChromium } from './chromium/findChromium.js';
import { createHandlers, kActionEndpoints, kForeignBody, newActionId, type Answer, type Call } from './routes.js';
import { KeyVerifier, resolveSecret } from './secret.js';
import { kStoragePrefix, ObjectStore } from './storage.js';
import { attachWebTerminal, kTerminalPrefix } from './terminal.js';

export interface ServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 28080; 0 picks a free port. */
  port?: number;
  dataDir: string;
  /** Default: resolveSecret(dataDir). */
  secret?: string;
  /** Default: findChromium(process.env). */
  chromiumPath?: string;
  /** One JSON-able entry per action and per server fault. Default: a JSON line on stderr. */
  log?: (entry: Record<string, unknown>) => void;
}

export interface RunningServer {
  /** http://HOST:PORT/api/v1 */
  baseUrl: string;
  /** Terminates every box, kills every Chromium, removes temporary files. */
  close(): Promise<void>;
}

const kApiPrefix = '/api/v1';
const kBodyLimit = 32 * 1024 * 1024; // 32 MiB of JSON: large `type` texts fit

const stderrLog = (entry: Record<string, unknown>) => {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
};

interface ErrorReply {
  status: number;
  body: { code: string; message: string; details?: unknown };
}

function errorReply(err: unknown): ErrorReply {
  if (BoxflowError.is(err)) {
    const status = (errorCodes[err.code] as { status?: number }).status ?? (err.code === 'INVALID_ARGUMENT' ? 400 : 500);
    return { status, body: { code: err.code, message: err.message, ...(err.details !== undefined ? { details: err.details } : {}) } };
  }
  const fe = err as { statusCode?: number; code?: string; message?: string };
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 413) return { status: 413, body: { code: 'FILE_TOO_LARGE', message: `the request body is over ${kBodyLimit / 2 ** 20} MiB` } };
    return { status: fe.statusCode, body: { code: fe.statusCode === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST', message: fe.message ?? 'bad request' } };
  }
  return { status: 500, body: { code: 'INTERNAL', message: 'internal server error; the server log has the details' } };
}

function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? stderrLog;
  const secret = opts.secret ?? (await resolveSecret(opts.dataDir));
  const executablePath = opts.chromiumPath ?? findChromium(process.env);
  await mkdir(opts.dataDir, { recursive: true, mode: 0o700 });

  const registry = new BoxRegistry({ dataDir: opts.dataDir, executablePath, log });
  const store = new ObjectStore(join(opts.dataDir, 'objects'), secret);
  const keys = new KeyVerifier(secret);
  const handlers = createHandlers({ registry, store, secret });

  const app = Fastify({ logger: false, bodyLimit: kBodyLimit, forceCloseConnections: true, keepAliveTimeout: 72_000, return503OnClosing: true });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
    const body = text as string;
    if (!body.trim()) return done(null, undefined);
    try {
      done(null, JSON.parse(body));
    } catch (err) {
      done(new BoxflowError('INVALID_REQUEST', `the body is not valid JSON: ${(err as Error).message}`), undefined);
    }
  });
  // Any other content type reaches the handler marked, so that it answers 4xx in its own terms
  // (an Android-only route says UNSUPPORTED_BOX_TYPE before it would complain about multipart).
  app.addContentTypeParser('*', (req, payload, done) => {
    payload.resume();
    done(null, { [kForeignBody]: String(req.headers['content-type'] ?? '') });
  });

  app.setErrorHandler((err, _req, reply) => {
    const r = errorReply(err);
    if (r.status >= 500) log({ level: 'error', msg: 'request failed', error: (err as Error)?.stack ?? String(err) });
    void reply.code(r.status).send(r.body);
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({ code: 'NOT_FOUND', message: `no route ${req.method} ${req.url.split('?')[0]}` });
  });

  const origin = (req: FastifyRequest) => `http://${req.headers.host ?? `${hostForUrl(host)}:${port}`}`;

  for (const [name, ep] of Object.entries(endpoints) as Array<[EndpointName, (typeof endpoints)[EndpointName]]>) {
    const handler = handlers[name];
    const isAction = kActionEndpoints.has(name);
    app.route({
      method: ep.method,
      url: kApiPrefix + ep.path.replace(/\{(\w+)\}/g, ':$1'),
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const started = performance.now();
        const actionId = isAction ? newActionId() : undefined;
        if (actionId) void reply.header('x-boxflow-action-id', actionId);
        const params = req.params as Record<string, string>;
        let tenant: string | undefined;
        let answer: Answer | undefined;
        let failure: ErrorReply | undefined;
        try {
          tenant = await keys.verify(req.headers.authorization);
          const call: Call = { tenant, params, body: req.body, query: req.query as Record<string, unknown>, origin: origin(req), actionId };
          answer = await handler(call);
        } catch (err) {
          failure = errorReply(err);
          if (failure.status >= 500) log({ level: 'error', msg: 'request failed', actionId, tenant, boxId: params.boxId, route: `${ep.method} ${ep.path}`, error: (err as Error)?.stack ?? String(err) });
        }
        const status = failure?.status ?? answer!.status;
        if (actionId || name === 'createLinuxBox' || name === 'terminateBox') {
          log({ level: 'info', msg: 'action', actionId, tenant, boxId: params.boxId ?? (answer?.body as { id?: string } | undefined)?.id, route: `${ep.method} ${ep.path}`, status, durationMs: Math.round((performance.now() - started) * 10) / 10, ...(failure ? { code: failure.body.code } : {}) });
        }
        if (failure) return reply.code(failure.status).send(failure.body);
        reply.code(answer!.status);
        if (answer!.jsonString) return reply.type('application/json; charset=utf-8').send(JSON.stringify(answer!.body));
        return answer!.body === undefined ? reply.send() : reply.send(answer!.body);
      },
    });
  }

  app.get(`${kStoragePrefix}*`, async (req, reply) => {
    const url = new URL(req.url, 'http://localhost');
    const png = await store.get(url.pathname, url.searchParams);
    return reply.type('image/png').header('cache-control', 'private, max-age=60').send(png);
  });

  const terminal = attachWebTerminal(app, { secret, lookup: (id) => registry.find(id), log });
  // The CDP proxy answers every upgrade it sees (404 for unknown paths), so it only sees those the
  // terminal does not take: through a never-listening Server used as a plain event emitter.
  const cdpUpgrades = createHttpServer();
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if ((req.url ?? '').startsWith(kTerminalPrefix)) terminal.upgrade(req, socket, head);
    else cdpUpgrades.emit('upgrade', req, socket, head);
  });
  const cdp = attachCdpProxy(cdpUpgrades, {
    secret,
    lookup: (id) => registry.find(id),
    log,
  });

  await app.listen({ host, port: opts.port ?? 28080 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? 28080);
  const baseUrl = `http://${hostForUrl(host)}:${port}${kApiPrefix}`;

  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    close: () =>
      (closing ??= (async () => {
        await registry.closeAll();
        await terminal.close();
        cdp.close();
        await app.close();
        await store.close();
      })()),
  };
}

