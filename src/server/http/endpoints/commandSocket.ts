// GET /boxes/{boxId}/websocket-url and its two websockets (ws/command, ws/run-code), which stream a
// command's output as it comes, through the same handlers as POST /commands and /run-code. The
// protocol, its checks before the upgrade, its refusals and its backpressure: docs/server.md,
// "Command websockets".
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WebSocket, type RawData } from 'ws';
import { BoxflowError, errorCodes } from '../../../errors.js';
import type { CommandResult, EndpointName } from '../../../api/schemas.js';
import type { BoxEntry } from '../../boxes/boxEntry.js';
import type { Answer, Call, OutputSink } from '../call.js';
import type { KeyVerifier } from '../secret.js';

/** The largest request frame read (as a JSON body: 2 MiB); a larger one is refused with a frame. */
export const kMaxRequestBytes = 2 * 1024 * 1024;
/** Past this the socket is closed (1009) without the frame being read at all. */
const kMaxFrame = 4 * 1024 * 1024;
/** How long a socket may wait for its first frame. */
export const kFirstFrameMs = 10_000;
/** Unsent output past which the command's pipes are no longer read; they are read again below kLowWater. */
export const kHighWater = 256 * 1024;
const kLowWater = 64 * 1024;
/** Open sockets of one box (waiting for their frame, queued or running), and of the whole server. */
export const kMaxSocketsPerBox = 8;
/** Open sockets of one tenant's boxes: a quarter of the server's, so that other tenants still get theirs. */
export const kMaxSocketsPerTenant = 64;
const kMaxSockets = 256;

type Kind = 'command' | 'runCode';

/** The two websocket URLs of a box (no key in them: the client sends its Authorization header). */
export function commandSocketUrls(origin: string, boxId: string): { command: string; runCode: string } {
  const base = `${origin.replace(/^http/, 'ws')}/api/v1/boxes/${encodeURIComponent(boxId)}/ws`;
  return { command: `${base}/command`, runCode: `${base}/run-code` };
}

export interface CommandSocketDeps {
  keys: KeyVerifier;
  /** The caller's box (BOX_NOT_FOUND otherwise), usable (else the refusal the API answers). */
  box: (tenant: string, boxId: string) => BoxEntry;
  /** The HTTP API's handlers: runCommand and runCode run through them. */
  handlers: Record<EndpointName, (call: Call) => Promise<Answer>>;
  /** Takes the server's paths out of a message (as app.ts does for every answer). */
  scrub: (message: string) => string;
  log: (entry: Record<string, unknown>) => void;
}

export interface CommandSockets {
  /** Closes every socket (their commands are killed). */
  close(): Promise<void>;
}

/** The request inside the first frame, or the refusal. */
function requestOf(raw: RawData, isBinary: boolean, kind: Kind): Record<string, unknown> {
  const example = kind === 'command' ? '{"command": {"command": "ls"}}' : '{"runCode": {"code": "print(1)"}}';
  if (isBinary) throw new BoxflowError('INVALID_REQUEST', `the first frame must be a JSON text frame such as ${example}`);
  const bytes = Array.isArray(raw) ? raw.reduce((n, b) => n + b.length, 0) : raw.byteLength;
  if (bytes > kMaxRequestBytes) throw new BoxflowError('BODY_TOO_LARGE', `the first frame is over ${kMaxRequestBytes / 2 ** 20} MiB`);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : Array.isArray(raw) ? Buffer.concat(raw).toString('utf8') : Buffer.from(raw).toString('utf8'));
  } catch {
    throw new BoxflowError('INVALID_REQUEST', `the first frame is not JSON; send ${example}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BoxflowError('INVALID_REQUEST', `the first frame must be a JSON object such as ${example}`);
  const other: Kind = kind === 'command' ? 'runCode' : 'command';
  if (!(kind in value)) {
    throw new BoxflowError('INVALID_REQUEST', other in value ? `this is the ${kind} websocket; {"${other}": …} goes to the ${other} URL of GET /websocket-url` : `the first frame must be ${example}`);
  }
  const inner = (value as Record<string, unknown>)[kind];
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) throw new BoxflowError('INVALID_REQUEST', `/${kind} must be an object such as ${example}`);
  return inner as Record<string, unknown>;
}

/** Registers the route of both websockets (after registerWebsockets). */
export function attachCommandSockets(app: FastifyInstance, deps: CommandSocketDeps): CommandSockets {
  const perBox = new Map<BoxEntry, number>();
  const perTenant = new Map<string, number>();
  const sockets = new Set<WebSocket>();
  const admitted = new WeakMap<FastifyRequest, { tenant: string; entry: BoxEntry; kind: Kind }>();
  let closed = false;

  app.route({
    method: 'GET',
    url: '/api/v1/boxes/:boxId/ws/:kind',
    config: { maxPayload: kMaxFrame },
    // The key, then the box: refused (401, 404, 409) before the upgrade, as any API request.
    preValidation: async (req) => {
      if (!req.ws) return;
      if (closed) throw new BoxflowError('INTERNAL', 'the server is stopping');
      const { boxId, kind } = req.params as { boxId: string; kind: string };
      if (kind !== 'command' && kind !== 'run-code') throw new BoxflowError('NOT_FOUND', `no websocket at ${req.url.split('?')[0]!.slice(0, 100)}`);
      const tenant = await deps.keys.verify(req.headers.authorization);
      admitted.set(req, { tenant, entry: deps.box(tenant, boxId), kind: kind === 'command' ? 'command' : 'runCode' });
    },
    // Then the slots, checked in the turn the handshake completes and serve() takes them (a sync
    // hook runs the handler at once, and ws calls back at once for a handshake it accepts, never
    // for one it refuses, which so holds no slot).
    preHandler: (req, _reply, done) => {
      const { tenant, entry } = admitted.get(req) ?? {};
      if (!req.ws || !tenant || !entry) return done();
      if ((perBox.get(entry) ?? 0) >= kMaxSocketsPerBox) return done(new BoxflowError('RATE_LIMITED', `box ${entry.record.id} already has ${kMaxSocketsPerBox} command websockets open; close one first`));
      if ((perTenant.get(tenant) ?? 0) >= kMaxSocketsPerTenant) return done(new BoxflowError('RATE_LIMITED', `this tenant already has ${kMaxSocketsPerTenant} command websockets open; close one first`));
      if (sockets.size >= kMaxSockets) return done(new BoxflowError('RATE_LIMITED', `the server already has ${kMaxSockets} command websockets open`));
      done();
    },
    // A plain GET there is told to upgrade.
    handler: async (_req, reply) =>
      reply.code(426).header('upgrade', 'websocket').send({ code: 'INVALID_REQUEST', message: 'this is a websocket: connect with Upgrade: websocket and Authorization: Bearer <API key> (GET /boxes/{boxId}/websocket-url gives its URL)' }),
    wsHandler: (ws, req) => {
      const { tenant, entry, kind } = admitted.get(req)!;
      serve(ws, tenant, entry, kind, `http://${req.headers.host ?? 'localhost'}`);
    },
  });

  function serve(ws: WebSocket, tenant: string, entry: BoxEntry, kind: Kind, origin: string): void {
    sockets.add(ws);
    perBox.set(entry, (perBox.get(entry) ?? 0) + 1);
    perTenant.set(tenant, (perTenant.get(tenant) ?? 0) + 1);
    const started = performance.now();
    const cancel = new AbortController();
    const waiting: Array<() => void> = [];
    let begun = false;
    let finished = false;
    const send = (msg: Record<string, unknown>) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      ws.send(JSON.stringify(msg), () => {
        if (ws.bufferedAmount < kLowWater) for (const fn of waiting.splice(0)) fn();
      });
    };
    const logEnd = (fields: Record<string, unknown>) => deps.log({ level: 'info', msg: 'command websocket', tenant, boxId: entry.record.id, kind, durationMs: Math.round((performance.now() - started) * 10) / 10, ...fields });
    const fail = (err: unknown) => {
      if (finished) return;
      finished = true;
      const e = BoxflowError.is(err) ? err : new BoxflowError('INTERNAL', 'internal server error; the server log has the details');
      if (!BoxflowError.is(err)) deps.log({ level: 'error', msg: 'command websocket failed', tenant, boxId: entry.record.id, error: (err as Error)?.stack ?? String(err) });
      const status = (errorCodes[e.code] as { status?: number }).status ?? 500;
      send({ event: 'error', code: e.code, message: deps.scrub(e.message) });
      if (ws.readyState === WebSocket.OPEN) ws.close(4000 + Math.min(Math.max(status, 0), 999), e.code);
      logEnd({ code: e.code });
    };

    ws.on('error', () => ws.terminate());
    // A box terminated before the command began: its socket ends at once (a running command ends with its box).
    const onGone = () => {
      if (entry.record.status === 'terminated' && !begun) fail(new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} was terminated`));
    };
    entry.onBrowserGone.add(onGone);
    const firstFrame = setTimeout(() => fail(new BoxflowError('INVALID_REQUEST', `no request frame came within ${kFirstFrameMs / 1000} s of the upgrade; send ${kind === 'command' ? '{"command": {…}}' : '{"runCode": {…}}'} at once`)), kFirstFrameMs);
    ws.on('close', () => {
      clearTimeout(firstFrame);
      entry.onBrowserGone.delete(onGone);
      sockets.delete(ws);
      const left = perBox.get(entry)! - 1;
      if (left > 0) perBox.set(entry, left);
      else perBox.delete(entry);
      const tenantLeft = perTenant.get(tenant)! - 1;
      if (tenantLeft > 0) perTenant.set(tenant, tenantLeft);
      else perTenant.delete(tenant);
      cancel.abort(new BoxflowError('REQUEST_CANCELLED', 'the client closed the websocket'));
      for (const fn of waiting.splice(0)) fn();
      if (!finished) {
        finished = true;
        logEnd({ code: 'REQUEST_CANCELLED' });
      }
    });

    ws.on('message', (raw: RawData, isBinary: boolean) => {
      if (begun || finished) return; // no stdin: later frames are ignored
      begun = true;
      clearTimeout(firstFrame);
      let body: Record<string, unknown>;
      try {
        body = requestOf(raw, isBinary, kind);
      } catch (err) {
        return fail(err);
      }
      const output: OutputSink = {
        write: (stream, data) => send({ event: stream, data }),
        full: () => ws.readyState === WebSocket.OPEN && ws.bufferedAmount > kHighWater,
        onDrain: (fn) => void waiting.push(fn),
      };
      const call: Call = { tenant, params: { boxId: entry.record.id }, body, query: {}, origin, actionId: undefined, signal: cancel.signal, output };
      deps.handlers[kind === 'command' ? 'runCommand' : 'runCode'](call).then(
        (answer) => {
          if (finished) return;
          finished = true;
          const { exitCode, truncated } = answer.body as CommandResult;
          send({ event: 'end', exitCode, ...(truncated ? { truncated } : {}) });
          if (ws.readyState === WebSocket.OPEN) ws.close(1000, 'the command ended');
          logEnd({ exitCode });
        },
        (err: unknown) => {
          if (cancel.signal.aborted) return;
          fail(err);
        },
      );
    });
  }

  return {
    async close() {
      closed = true;
      for (const ws of sockets) ws.close(1001, 'the server is stopping');
      for (const ws of sockets) ws.terminate();
    },
  };
}
