// `boxflow serve`: Box API v1 over fastify, Linux boxes on Chromium.
import { mkdir, realpath } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { join, resolve } from 'node:path';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { BoxflowError, errorCodes } from '../../errors.js';
import { endpoints, type EndpointName } from '../../api/schemas.js';
import { preview } from '../../api/validate.js';
import multipart from '@fastify/multipart';
import { kInstallMaxBytes } from '../../api/schemas.js';
import { AdbBackend, adbAddresses } from '../devices/android/backend.js';
import { kMultipart } from './multipart.js';
import { BoxRegistry } from '../boxes/boxes.js';
import { attachCdpProxy } from './cdpProxy.js';
import { findChromium } from '../devices/linux/chromium/findChromium.js';
import { closeInheritedFds } from '../host/inheritedFds.js';
import { GridClient, type GridOptions } from '../devices/grid/client.js';
import { deviceOfBox, facet } from '../devices/index.js';
import { kNotOffered, notOffered } from './endpoints/notOffered.js';
import { attachCommandSockets } from './endpoints/commandSocket.js';
import { kFsWriteParts } from './endpoints/files.js';
import { kMediaUploadLimits, kMediaUploads } from './endpoints/media.js';
import { createHandlers, kActionEndpoints, newActionId, precheckBox, type Answer, type Call } from './routes.js';
import { bodyValidator, foreignBodyError, kForeignBody, kQueryReaders, queryValidator, withBodyChecks } from './requestChecks.js';
import { storedContentType } from './recording.js';
import { KeyVerifier, resolveSecret } from './secret.js';
import { kStoragePrefix, ObjectStore } from './storage.js';
import { attachWebTerminal } from './terminal.js';
import { attachLiveView } from './liveView.js';
import { registerWebsockets } from './websockets.js';
import { loggerOptions, type LogFn, type LoggerOptions } from './logger.js';

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
  /**
   * One entry per action and per server fault, for an embedding that keeps its own log. Default:
   * fastify's logger (pino), as `logger` says.
   */
  log?: LogFn;
  /** The level and stream of fastify's logger when no `log` is given. Default: info, on stderr. */
  logger?: LoggerOptions;
  /**
   * The output folder of the one run this server serves (`boxflow test`'s embedded server): stored
   * action images are written there under their content address and named in the answer
   * (`artifact`), so the runner writes nothing again. Never for a shared server.
   */
  artifactsDir?: string;
  /** Longest wait for one browser command before the action fails with BROWSER_TIMEOUT. Default 30 s. */
  cdpTimeoutMs?: number;
  /**
   * The adb server for Android boxes, `tcp:HOST:PORT`, or several whose devices are pooled (a device
   * farm). Default: ADB_SERVER_SOCKET, else 127.0.0.1:5037 (contacted on the first Android box).
   */
  adb?: string | string[];
  /**
   * Let `install` download APKs from this machine and its private networks (loopback, 10/8,
   * 192.168/16, link-local, ...). Default false: a tenant's URL must not reach what only the server can.
   */
  allowInnerDownloads?: boolean;
  /** Live boxes one API key may hold at once; more is 429 TOO_MANY_BOXES. Default 32. */
  maxBoxesPerKey?: number;
  /**
   * close() stops the boxes instead of terminating them, so the next server on the data dir lists
   * them stopped (docs/server.md, "Stopping and starting a box"). Default false: close() ends them.
   */
  keepBoxes?: boolean;
  /**
   * A Selenium Grid 4 (its URL, or GridOptions): every Linux box is then a session of it, driven over
   * the session's DevTools (`se:cdp`), and this server starts no Chromium of its own (docs/scaling.md).
   */
  grid?: string | GridOptions;
  /**
   * Longest wait for a request's line and headers, and for a new connection's first request: a
   * connection that sends nothing, or its headers byte by byte, is closed then. Default 30 s.
   */
  headersTimeoutMs?: number;
  /**
   * Longest wait for a whole request, its body included; past it the connection is closed (408).
   * Default 10 min: the largest upload (512 MiB: fs/write, an APK install) then needs 0.9 MiB/s;
   * raise it for slower links. 0: no limit (then only the key, checked first, and the cap per peer).
   */
  requestTimeoutMs?: number;
  /** Open connections (websockets included) from one address; one more is closed at once. Default 256. */
  maxConnectionsPerPeer?: number;
}

export interface RunningServer {
  /** http://HOST:PORT/api/v1 */
  baseUrl: string;
  /** Terminates every box, kills every Chromium, removes temporary files. */
  close(): Promise<void>;
}

const kApiPrefix = '/api/v1';
// 2 MiB of JSON holds the largest `type` text (kLimits.text, even all \u-escaped) and parses in
// milliseconds: a bigger body would hold the event loop, and every box with it.
const kBodyLimit = 2 * 1024 * 1024;
const kHeadersTimeoutMs = 30_000;
const kRequestTimeoutMs = 10 * 60_000;
const kMaxConnectionsPerPeer = 256;
const kUtf8 = new TextDecoder('utf-8', { fatal: true });
const clip = (text: string) => (text.length > 100 ? `${text.slice(0, 100)}…` : text);

interface ErrorReply {
  status: number;
  body: { code: string; message: string; details?: unknown };
}

const refusal = (code: keyof typeof errorCodes, message: string): ErrorReply => ({ status: (errorCodes[code] as { status?: number }).status ?? 400, body: { code, message } });

/** fastify's own 4xx errors, in this API's terms; their messages may quote the request, ours do not. */
const kFastifyErrors: Record<string, () => ErrorReply> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => refusal('BODY_TOO_LARGE', `the request body is over ${kBodyLimit / 2 ** 20} MiB`),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => refusal('INVALID_REQUEST', 'the request has a body but no usable content-type; send content-type: application/json'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => refusal('INVALID_REQUEST', 'the content-length does not match the body'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => refusal('INVALID_REQUEST', 'the body is empty'),
  FST_ERR_BAD_URL: () => refusal('INVALID_REQUEST', 'the URL holds an invalid percent-encoding'),
  FST_ERR_MAX_PARAM_LENGTH: () => refusal('URI_TOO_LONG', 'a path parameter (e.g. the box id) is over 100 characters'),
};

function errorReply(err: unknown): ErrorReply {
  if (BoxflowError.is(err)) {
    const status = (errorCodes[err.code] as { status?: number }).status ?? (err.code === 'INVALID_ARGUMENT' ? 400 : 500);
    return { status, body: { code: err.code, message: err.message, ...(err.details !== undefined ? { details: err.details } : {}) } };
  }
  const fe = err as { statusCode?: number; code?: string; message?: string };
  const known = fe.code ? kFastifyErrors[fe.code] : undefined;
  if (known) return known();
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return { status: fe.statusCode, body: { code: fe.statusCode === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST', message: `${STATUS_CODES[fe.statusCode] ?? 'bad request'}`.toLowerCase() } };
  }
  return { status: 500, body: { code: 'INTERNAL', message: 'internal server error; the server log has the details' } };
}

/** An answer written straight to a socket, for requests Node's HTTP parser refused. */
function socketReply(r: ErrorReply): string {
  const body = JSON.stringify(r.body);
  return `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the request's API key, set by the API routes' onRequest hook. */
    tenant: string;
    /** An action's id, set with the tenant (also on an answer refused before the handler). */
    actionId: string | undefined;
  }
}

/**
 * A request refused before its body was read ends its connection with the answer: Node would
 * otherwise read and drop the rest of the body, as slowly as the client cares to send it.
 */
function closeUnread(req: FastifyRequest, reply: FastifyReply): void {
  if (!req.raw.complete) void reply.header('connection', 'close');
}

const noRoute = (req: FastifyRequest) => new BoxflowError('NOT_FOUND', `no route ${clip(req.method)} ${clip(req.url.split('?')[0]!)}`);

function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  closeInheritedFds(); // what started this process keeps its descriptors: no box gets one
  const host = opts.host ?? '127.0.0.1';
  const secret = opts.secret ?? (await resolveSecret(opts.dataDir));
  // Every part logs through `log`: into fastify's logger unless the embedding keeps its own.
  const log: LogFn = opts.log ?? (({ level, msg, ...fields }) => {
    const at = level === 'error' || level === 'warn' || level === 'debug' ? level : 'info';
    app.log[at](fields, String(msg ?? ''));
  });
  // Each phase of a connection has its own bound: its headers (headersTimeout, also for a connection
  // that sends nothing), its body (requestTimeout), the wait for its next request (keepAliveTimeout).
  // No idle timer on the socket (connectionTimeout) while the server works on the answer: a command
  // may rightly run 10 min with no byte on the wire. Node checks the first two every
  // connectionsCheckingInterval.
  const requestTimeout = opts.requestTimeoutMs ?? kRequestTimeoutMs;
  const headersTimeout = Math.min(opts.headersTimeoutMs ?? kHeadersTimeoutMs, requestTimeout || Infinity);
  const app = Fastify({
    logger: loggerOptions(opts.log && !opts.logger ? { level: 'silent' } : (opts.logger ?? {}), secret),
    bodyLimit: kBodyLimit,
    forceCloseConnections: true,
    keepAliveTimeout: 72_000,
    requestTimeout,
    http: { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.ceil((headersTimeout || requestTimeout) / 2))) },
    return503OnClosing: true,
    // Requests the router refuses (bad percent-encoding, a 100+ character box id) answer as any other error.
    frameworkErrors: (err, req, reply) => {
      const r = errorReply(err);
      // A websocket upgrade's socket has no HTTP parser left, and no hook ends it here: it ends after the answer.
      if (req.headers.upgrade !== undefined) {
        reply.raw.setHeader('connection', 'close');
        reply.raw.once('finish', () => req.raw.socket.destroy());
      }
      void (reply as FastifyReply).code(r.status).send(r.body);
    },
    // Requests Node's HTTP parser refuses never reach fastify: answer them on the socket.
    clientErrorHandler: (err, socket) => {
      if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || socket.destroyed) return;
      const code = (err as NodeJS.ErrnoException).code;
      const r = code === 'HPE_HEADER_OVERFLOW'
        ? refusal('HEADERS_TOO_LARGE', 'the request line and headers are over 16 KiB')
        : code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? { status: 408, body: { code: 'INVALID_REQUEST', message: 'the request did not arrive in time' } }
          : refusal('INVALID_REQUEST', 'the request is not valid HTTP/1.1');
      if (socket.writable) socket.end(socketReply(r));
      socket.destroySoon();
    },
  });

  const grid = opts.grid === undefined ? undefined : new GridClient(typeof opts.grid === 'string' ? { url: opts.grid } : opts.grid, log);
  // With a grid, no Linux box runs here: no Chromium is needed.
  const executablePath = opts.chromiumPath ?? (grid ? '' : findChromium(process.env));
  await mkdir(opts.dataDir, { recursive: true, mode: 0o700 });

  const android = new AdbBackend({ address: adbAddresses(opts.adb), log });
  const registry = new BoxRegistry({ dataDir: opts.dataDir, executablePath, log, android, ...(grid ? { grid } : {}), ...(opts.cdpTimeoutMs ? { cdpTimeoutMs: opts.cdpTimeoutMs } : {}), ...(opts.maxBoxesPerKey ? { maxBoxesPerKey: opts.maxBoxesPerKey } : {}) });
  const store = new ObjectStore(join(opts.dataDir, 'objects'), secret, opts.artifactsDir);
  const keys = new KeyVerifier(secret);
  const handlers = createHandlers({ registry, store, secret, allowInnerDownloads: opts.allowInnerDownloads });
  // For the websockets that call handlers themselves (command sockets, live view input): the same body checks as a route's.
  const checkedHandlers = withBodyChecks(handlers);

  // No message names a path of this server (its data dir, its Chromium): a tenant has no use for them.
  const serverPaths = [...new Set([resolve(opts.dataDir), await realpath(opts.dataDir), executablePath].filter(Boolean))].sort((a, b) => b.length - a.length);
  const scrubText = (text: string): string => {
    let message = text;
    for (const p of serverPaths) message = message.split(p).join('<server>');
    return message;
  };
  const scrub = (r: ErrorReply): ErrorReply => {
    const message = scrubText(r.body.message);
    return message === r.body.message ? r : { ...r, body: { ...r.body, message } };
  };

  // Connections per peer address: one more than the cap is closed at once, so that one client (a
  // flood, a slowloris) cannot take every file descriptor of the server from the others.
  const maxPerPeer = opts.maxConnectionsPerPeer ?? kMaxConnectionsPerPeer;
  const perPeer = new Map<string, number>();
  app.server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress;
    if (peer === undefined) return; // already gone
    const open = perPeer.get(peer) ?? 0;
    if (open >= maxPerPeer) return void socket.destroy();
    perPeer.set(peer, open + 1);
    socket.once('close', () => {
      const left = perPeer.get(peer)! - 1;
      if (left > 0) perPeer.set(peer, left);
      else perPeer.delete(peer);
    });
  });

  app.decorateRequest('tenant', '');
  app.decorateRequest('actionId', undefined);
  // Each route's body schema (the endpoints table) is checked by fastify, with this API's errors.
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'querystring' ? queryValidator(schema as TSchema) : bodyValidator(schema as TSchema)));
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, raw, done) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(String(req.headers['content-type']))?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return done(new BoxflowError('INVALID_REQUEST', `charset ${preview(charset)} is not accepted; send JSON in UTF-8`), undefined);
    }
    let text: string;
    try {
      text = kUtf8.decode(raw as Buffer);
    } catch {
      return done(new BoxflowError('INVALID_REQUEST', 'the body is not valid UTF-8'), undefined);
    }
    if (!text.trim()) return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new BoxflowError('INVALID_REQUEST', `the body is not valid JSON: ${clip((err as Error).message)}`), undefined);
    }
  });
  // Any other content type reaches the handler marked, so that it answers 4xx in its own terms
  // (an Android-only route says UNSUPPORTED_BOX_TYPE before it would complain about multipart).
  app.addContentTypeParser('*', (req, payload, done) => {
    payload.resume();
    done(null, { [kForeignBody]: String(req.headers['content-type'] ?? '') });
  });
  // Installs stream their multipart body (APK, ZIP, or a URL) to disk, never to memory.
  await app.register(multipart, { limits: { fileSize: kInstallMaxBytes, files: 1, fields: 4 } });

  // A GET carries no body (HTTP gives it no meaning); one that does is a client's mistake.
  app.addHook('onRequest', async (req, reply) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && (Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined)) {
      closeUnread(req, reply);
      throw new BoxflowError('INVALID_REQUEST', `a ${req.method} request takes no body`);
    }
    // An unknown route would read the whole body before its 404: one that has a body is answered now.
    if (req.is404 && !req.raw.complete) {
      closeUnread(req, reply);
      throw noRoute(req);
    }
  });
  app.setErrorHandler((err, req, reply) => {
    const r = scrub(errorReply(err));
    if (r.status >= 500) log({ level: 'error', msg: 'request failed', error: (err as Error)?.stack ?? String(err) });
    // An action refused before its handler (its box, its body) is logged as an action all the same.
    if (req.actionId) log({ level: 'info', msg: 'action', actionId: req.actionId, tenant: req.tenant, boxId: (req.params as { boxId?: string }).boxId, route: `${req.method} ${req.routeOptions.url?.slice(kApiPrefix.length).replace(/:(\w+)/g, '{$1}')}`, status: r.status, code: r.body.code });
    void reply.code(r.status).send(r.body);
  });
  app.setNotFoundHandler((req, reply) => {
    const r = errorReply(noRoute(req));
    void reply.code(r.status).send(r.body);
  });

  const origin = (req: FastifyRequest) => `http://${req.headers.host ?? `${hostForUrl(host)}:${port}`}`;

  // The contract's endpoints, then the GBOX endpoints this server answers with 501 NOT_OFFERED_LOCALLY.
  const routes = [
    ...(Object.entries(endpoints) as Array<[EndpointName, (typeof endpoints)[EndpointName]]>).map(([name, ep]) => ({ name, method: ep.method, path: ep.path, handler: handlers[name], isAction: kActionEndpoints.has(name) })),
    ...kNotOffered.map((r) => ({ name: r.name, method: r.method, path: r.path, handler: async (call: Call): Promise<Answer> => notOffered(r, call.params, (id) => registry.get(call.tenant, id)), isAction: false })),
  ];
  for (const { name, method, path, handler, isAction } of routes) {
    const route = `${method} ${path}`;
    const bodySchema = (endpoints as Record<string, { body?: TSchema }>)[name]?.body;
    const querySchema = (endpoints as Record<string, { query?: TSchema }>)[name]?.query;
    const readQuery = kQueryReaders[name as EndpointName];
    app.route({
      method,
      url: kApiPrefix + path.replace(/\{(\w+)\}/g, ':$1'),
      ...(bodySchema || querySchema ? { schema: { ...(bodySchema ? { body: bodySchema } : {}), ...(querySchema ? { querystring: querySchema } : {}) } } : {}),
      // The key is checked before the body is read: a request without a good one is answered at once.
      onRequest: async (req, reply) => {
        try {
          req.tenant = await keys.verify(req.headers.authorization);
        } catch (err) {
          closeUnread(req, reply);
          throw err;
        }
        if (isAction) {
          req.actionId = newActionId();
          void reply.header('x-boxflow-action-id', req.actionId);
        }
      },
      // Before the body's schema: the box (another tenant's is 404) and an endpoint its kind lacks.
      preValidation: async (req) => {
        precheckBox(registry, name, req.tenant, (req.params as { boxId?: string }).boxId, req.body);
        if (bodySchema && req.isMultipart()) throw foreignBodyError(String(req.headers['content-type']));
        if (readQuery) req.query = readQuery(req.query as Record<string, unknown>);
      },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const started = performance.now();
        const actionId = req.actionId;
        const params = req.params as Record<string, string>;
        // The client closing its connection before the answer cancels the work (queued or running).
        const cancel = new AbortController();
        const onClose = () => {
          if (!reply.raw.writableFinished) cancel.abort(new BoxflowError('REQUEST_CANCELLED', 'the client went away before the answer'));
        };
        reply.raw.once('close', onClose);
        const tenant = req.tenant;
        let answer: Answer | undefined;
        let failure: ErrorReply | undefined;
        try {
          const body = !req.isMultipart() ? req.body : name === 'installPackage' ? { [kMultipart]: req.parts() } : name === 'writeFile' ? { [kMultipart]: req.parts(kFsWriteParts) } : kMediaUploads.has(name) ? { [kMultipart]: req.parts({ limits: kMediaUploadLimits }) } : { [kForeignBody]: String(req.headers['content-type']) };
          const call: Call = { tenant, params, body, query: req.query as Record<string, unknown>, origin: origin(req), actionId, signal: cancel.signal };
          answer = await handler(call);
        } catch (err) {
          failure = scrub(errorReply(err));
          if (failure.status >= 500 && failure.body.code !== 'NOT_OFFERED_LOCALLY') log({ level: 'error', msg: 'request failed', actionId, tenant, boxId: params.boxId, route, error: (err as Error)?.stack ?? String(err) });
        }
        const status = failure?.status ?? answer!.status;
        if (actionId || name === 'createLinuxBox' || name === 'createAndroidBox' || name === 'terminateBox') {
          log({ level: 'info', msg: 'action', actionId, tenant, boxId: params.boxId ?? (answer?.body as { id?: string } | undefined)?.id, route, status, durationMs: Math.round((performance.now() - started) * 10) / 10, ...(failure ? { code: failure.body.code } : {}) });
        }
        if (failure) return reply.code(failure.status).send(failure.body);
        reply.code(answer!.status);
        if (answer!.headers) void reply.headers(answer!.headers);
        if (answer!.jsonString) return reply.type('application/json; charset=utf-8').send(JSON.stringify(answer!.body));
        return answer!.body === undefined ? reply.send() : reply.send(answer!.body);
      },
    });
  }

  app.get(`${kStoragePrefix}*`, async (req, reply) => {
    const url = new URL(req.url, 'http://localhost');
    const png = await store.get(url.pathname, url.searchParams);
    return reply.type(storedContentType(url.pathname)).header('cache-control', 'private, max-age=60').send(png);
  });

  // The websockets: routes of their own, each refusing an upgrade with its HTTP answer before any handshake.
  await registerWebsockets(app, log);
  // The command websockets of GET /boxes/{boxId}/websocket-url.
  const commandSockets = attachCommandSockets(app, {
    keys,
    box: (tenant, id) => {
      const entry = registry.get(tenant, id);
      registry.requireUsable(entry);
      facet(entry, 'shell', 'websocketUrl');
      return entry;
    },
    handlers: checkedHandlers,
    scrub: scrubText,
    log,
  });
  const liveView = attachLiveView(app, { secret, lookup: (id) => registry.find(id), handlers: checkedHandlers, log });
  const terminal = attachWebTerminal(app, { secret, lookup: (id) => { const entry = registry.find(id); return entry && deviceOfBox(entry).shell ? entry : undefined; }, log });
  const cdp = attachCdpProxy(app, {
    secret,
    lookup: (id) => registry.find(id),
    queue: (entry, fn) => registry.run(entry, fn, 'cdp'),
    log,
  });

  // The boxes a previous server left (stopped, docs/server.md) are listed from the first request on.
  await registry.ready;
  await app.listen({ host, port: opts.port ?? 28080 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? 28080);
  const baseUrl = `http://${hostForUrl(host)}:${port}${kApiPrefix}`;

  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    close: () =>
      (closing ??= (async () => {
        await registry.closeAll({ keep: opts.keepBoxes === true });
        await grid?.close();
        await terminal.close();
        await commandSockets.close();
        await liveView.close();
        cdp.close();
        await app.close();
        await store.close();
      })()),
  };
}

