// The websockets of serve (web terminal, live view, CDP proxy, command sockets) are fastify routes
// through @fastify/websocket: an upgrade runs its route's hooks as any request does, so one that is
// refused (a bad signature or key, no box, no free slot) is answered with its HTTP status and
// `{code, message}` before any handshake. Each route declares its longest message in its config.
import type { IncomingMessage } from 'node:http';
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import { WebSocket } from 'ws';
import { BoxflowError } from '../../errors.js';
import type { LogFn } from './logger.js';
import { refuseUpgrade } from './secret.js';

/** Stands in for a route's bound if ever one is missing: 0 would be none at all. */
const kFallbackMaxPayload = 64 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A websocket route's longest message from the client: a longer one is refused from its frame
     * header, unread, with close code 1009. Only a route that declares it takes an upgrade.
     */
    maxPayload?: number;
  }
}

/** Registers @fastify/websocket; every websocket route is declared after this. */
export async function registerWebsockets(app: FastifyInstance, log: LogFn): Promise<void> {
  await app.register(websocket, {
    options: { perMessageDeflate: false },
    // Errors of an open socket: a client's bad frame (ws closes with the code that says why, and
    // that close frame must go out) or a reset connection. Each socket's own listener ends it.
    errorHandler: (err, socket) => {
      if (socket.readyState === WebSocket.OPEN) socket.terminate();
      const fromClient = typeof (err as NodeJS.ErrnoException).code === 'string' && !BoxflowError.is(err);
      if (!fromClient) log({ level: 'error', msg: 'websocket handler failed', error: (err as Error)?.stack ?? String(err) });
    },
  });
  const wss = app.websocketServer;
  const maxPayloadOf = new WeakMap<IncomingMessage, number>();
  // Every request passes here: a plain one at the cost of a test (no promise).
  app.addHook('onRequest', (req, reply, done) => {
    if (!req.ws) return done();
    // Whatever the answer to a refused upgrade, its socket is closed after it.
    void reply.header('connection', 'close');
    const maxPayload = req.routeOptions.config.maxPayload;
    if (maxPayload === undefined) return done(new BoxflowError('NOT_FOUND', `no WebSocket endpoint at ${req.url.split('?')[0]!.slice(0, 100)}`));
    maxPayloadOf.set(req.raw, maxPayload);
    done();
  });
  // One ws server takes every socket, and reads maxPayload from its options at each handshake,
  // right after 'headers' (in the same turn): each route's own bound is set there.
  wss.on('headers', (_headers: string[], req: IncomingMessage) => {
    wss.options.maxPayload = maxPayloadOf.get(req) ?? kFallbackMaxPayload;
  });
  // A handshake ws refuses (a bad Sec-WebSocket-Key or version, an Upgrade that is not websocket)
  // is answered as every other refusal, instead of with ws's text.
  wss.on('wsClientError', (err: Error, socket) => refuseUpgrade(socket, new BoxflowError('INVALID_REQUEST', `not a websocket handshake: ${err.message}`)));
}
