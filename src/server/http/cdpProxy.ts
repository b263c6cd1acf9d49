// ws://HOST:PORT/cdp/<boxId>?exp&sig → the box's current Chromium browser endpoint.
// The signature and expiry are checked before the upgrade is accepted; frames are piped as is.
//
// With `&queue=1` each command the client sends waits its turn in the box's queue (the one the Box
// API's actions run in, one at a time) and holds it until its answer comes back, at most
// kQueueHoldMs, or until the client goes away: the runner's CDP-only steps (choosing an <option>, a
// date input's value, a file chooser) use such a connection so that they never interleave with an
// action. At most kQueueMaxWaiting commands (kQueueMaxWaitingBytes) may wait for their turn: a
// client that sends faster is closed (1008). Only a connection that asks is queued: a Playwright
// connection must answer a dialog or resume a new tab while an action that waits for that is in
// the queue.
//
// The box's browser is a browser context in its Chromium (linuxBox.ts), but a CDP client sees the
// browser: a command that acts on "the browser's" cookies, permissions or new tabs, sent without a
// context (as Playwright's connectOverCDP does for its default context), is given the box's context
// on its way, so that it acts on the box's pages and goes with them on a close. Where downloads go
// is not among them: the box sets it (its working dir), and Playwright's connect, which asks for
// them in a folder of its own, must not take them from the box.
//
// Bounds: at most kMaxConnectionsPerBox connections per box (more: 429 RATE_LIMITED before the
// upgrade; a slot is the socket's, back when it closes, upgraded or not). A frame is at most
// kMaxFrame each way: a longer one from the client is refused from its header, before it is read
// (1009); the box's pipe gives this connection no longer message (an answer becomes an error
// answer, an event is dropped). A client is not read while what it sent waits to reach the browser,
// and one that leaves kMaxUnread of the browser's messages unread is closed.
import { facet } from '../devices/index.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WebSocket } from 'ws';
import { BoxflowError } from '../../errors.js';
import type { BoxEntry } from '../boxes/boxEntry.js';
import { answerHead, kHeadBytes, kTailBytes, sessionTail, tooDeep } from '../devices/linux/chromium/cdpMessage.js';
import { verifyPresigned } from './secret.js';

/** The longest frame a CDP connection carries, either way. */
export const kMaxFrame = 16 * 1024 * 1024;
/** CDP connections one box may have open at once. */
export const kMaxConnectionsPerBox = 16;
/** The browser's messages a client may leave unread before it is closed. */
const kMaxUnread = 4 * kMaxFrame;
/** The upstream is a Unix socket only the server can open: masking its frames would only copy them. */
const noMask = (mask: Buffer) => void mask.fill(0);
/** The longest one queued command holds the box's queue: a command that never answers cannot stall the box. */
export const kQueueHoldMs = 10_000;
/** Commands (and their bytes) one queued connection may have waiting for their turn. */
export const kQueueMaxWaiting = 256;
export const kQueueMaxWaitingBytes = 16 * 1024 * 1024;

export interface CdpProxy {
  close(): void;
}

export interface CdpProxyDeps {
  secret: string;
  lookup: (boxId: string) => BoxEntry | undefined;
  /** Runs `fn` in the box's queue (BoxRegistry.run). */
  queue: <T>(entry: BoxEntry, fn: () => Promise<T>) => Promise<T>;
  log: (entry: Record<string, unknown>) => void;
}

/** Registers the proxy's websocket route (after registerWebsockets). */
export function attachCdpProxy(app: FastifyInstance, deps: CdpProxyDeps): CdpProxy {
  const clients = new Set<WebSocket>();
  const upstreams = new Set<WebSocket>();
  /** Upstreams handed to a client (the socket's close no longer ends them: the pipe does). */
  const piped = new WeakSet<WebSocket>();
  /** Open connections (and upgrades under way) per box. */
  const open = new Map<BoxEntry, number>();
  /** An upgrade's box, its mode and its open connection to the box's browser, until the handshake. */
  const admitted = new WeakMap<FastifyRequest, { entry: BoxEntry; queued: boolean; upstream: WebSocket; contextId: string | undefined }>();

  app.route({
    method: 'GET',
    url: '/cdp/:boxId',
    config: { maxPayload: kMaxFrame },
    // The signature, the box and a free slot; then the box's browser is reached, so that one that
    // cannot be is refused with its error, before any handshake.
    preValidation: async (req) => {
      if (!req.ws) return;
      const url = new URL(req.url, 'http://localhost');
      verifyPresigned(deps.secret, url.pathname, url.searchParams);
      const queued = url.searchParams.get('queue') === '1';
      const entry = deps.lookup((req.params as { boxId: string }).boxId);
      if (!entry) throw new BoxflowError('BOX_NOT_FOUND', 'the box no longer exists');
      if (entry.record.status !== 'running') throw new BoxflowError('BOX_NOT_RUNNING', `the box is ${entry.record.status}`);
      if ((open.get(entry) ?? 0) >= kMaxConnectionsPerBox) throw new BoxflowError('RATE_LIMITED', `box ${entry.record.id} already has ${kMaxConnectionsPerBox} CDP connections open; close one first`);
      const socket = req.raw.socket;
      if (socket.destroyed) throw new BoxflowError('REQUEST_CANCELLED', 'the client went away');
      // The slot is the socket's: it comes back when the socket closes, whether the upgrade went
      // through, was refused (a bad handshake, an unreachable browser) or the client left first.
      open.set(entry, (open.get(entry) ?? 0) + 1);
      let upstream: WebSocket | undefined;
      socket.once('close', () => {
        const left = open.get(entry)! - 1;
        if (left > 0) open.set(entry, left);
        else open.delete(entry);
        if (upstream && !piped.has(upstream)) {
          upstreams.delete(upstream);
          upstream.terminate();
        }
      });
      const { endpoint, contextId } = await facet(entry, 'browser', 'cdpUrl').devtools();
      if (socket.destroyed) throw new BoxflowError('REQUEST_CANCELLED', 'the client went away');
      // The box's pipe gives this connection no message longer than a frame may be.
      const up = new WebSocket(`${endpoint}?maxMessage=${kMaxFrame}`, { perMessageDeflate: false, maxPayload: kMaxFrame, generateMask: noMask });
      upstream = up;
      upstreams.add(up);
      await new Promise<void>((resolve, reject) => {
        up.once('error', (err) => {
          upstreams.delete(up);
          reject(new BoxflowError('BROWSER_ERROR', `cannot reach the box's browser: ${err.message}`));
        });
        up.once('open', () => {
          up.removeAllListeners('error');
          up.on('error', () => up.terminate());
          resolve();
        });
      });
      admitted.set(req, { entry, queued, upstream: up, contextId });
    },
    handler: async (_req, reply) =>
      reply.code(426).header('upgrade', 'websocket').send({ code: 'INVALID_REQUEST', message: 'this is a websocket: connect with Upgrade: websocket (POST /boxes/{boxId}/browser/connect-url/cdp gives its URL)' }),
    wsHandler: (client, req) => {
      const { entry, queued, upstream, contextId } = admitted.get(req)!;
      piped.add(upstream);
      clients.add(client);
      client.on('close', () => clients.delete(client));
      pipe(client, upstream, entry, { queued, contextId }, () => upstreams.delete(upstream));
    },
  });

  function pipe(client: WebSocket, upstream: WebSocket, entry: BoxEntry, { queued, contextId }: { queued: boolean; contextId: string | undefined }, done: () => void): void {
    const scope = contextId ? new ContextScope(contextId) : undefined;
    // Queued mode: the commands waiting for their answer, by "sessionId id", each holding the queue.
    const holding = new Map<string, () => void>();
    const releaseAll = () => {
      for (const release of holding.values()) release();
      holding.clear();
    };
    const closeBoth = () => {
      entry.onBrowserGone.delete(closeBoth);
      done();
      if (client.readyState === WebSocket.OPEN || client.readyState === WebSocket.CONNECTING) client.close(1001, 'browser closed');
      upstream.terminate();
    };
    entry.onBrowserGone.add(closeBoth);
    // While more than a frame waits to reach the browser (the box's pipe is full: its Chromium is
    // slow), the client is not read: what it sends then waits in its own socket.
    let paused = false;
    const drained = () => {
      if (paused && upstream.bufferedAmount <= kMaxFrame) {
        paused = false;
        client.resume();
      }
    };
    const forward = (data: WebSocket.RawData, isBinary: boolean) => {
      if (upstream.readyState !== WebSocket.OPEN) return;
      upstream.send(scope ? scope.command(data) : data, { binary: isBinary }, drained);
      if (!paused && upstream.bufferedAmount > kMaxFrame) {
        paused = true;
        client.pause();
        deps.log({ level: 'info', msg: "cdp client paused: its box's browser is not reading", boxId: entry.record.id, tenant: entry.tenant, waiting: upstream.bufferedAmount });
      }
    };
    // Queued mode: what the client sent that has not had its turn yet, bounded (a client that sends
    // faster than its box answers is closed, instead of growing the server's memory).
    let waiting = 0;
    let waitingBytes = 0;
    client.on('message', (data, isBinary) => {
      if (!queued) return forward(data, isBinary);
      const size = rawSize(data);
      if (waiting >= kQueueMaxWaiting || waitingBytes + size > kQueueMaxWaitingBytes) {
        client.close(1008, `more than ${kQueueMaxWaiting} commands or ${kQueueMaxWaitingBytes >> 20} MiB wait for the box's queue`);
        return;
      }
      waiting++;
      waitingBytes += size;
      const key = commandKey(data);
      void deps.queue(entry, () => {
        waiting--;
        waitingBytes -= size;
        if (client.readyState !== WebSocket.OPEN) return Promise.resolve();
        if (key === undefined) {
          forward(data, isBinary);
          return Promise.resolve();
        }
        return new Promise<void>((resolve) => {
          const timer = setTimeout(release, kQueueHoldMs);
          function release() {
            clearTimeout(timer);
            holding.delete(key!);
            resolve();
          }
          holding.get(key)?.();
          holding.set(key, release);
          forward(data, isBinary);
        });
      });
    });
    upstream.on('message', (data, isBinary) => {
      scope?.answer(data);
      if (holding.size) {
        const key = answerKey(data);
        if (key !== undefined) holding.get(key)?.();
      }
      if (client.readyState !== WebSocket.OPEN) return;
      if (client.bufferedAmount > kMaxUnread) {
        deps.log({ level: 'warn', msg: 'cdp client closed: it left the browser\'s messages unread', boxId: entry.record.id, tenant: entry.tenant, unread: client.bufferedAmount });
        client.terminate();
        return;
      }
      client.send(data, { binary: isBinary });
    });
    client.on('close', releaseAll);
    upstream.on('close', releaseAll);
    client.on('close', () => {
      entry.onBrowserGone.delete(closeBoth);
      done();
      upstream.close();
    });
    upstream.on('close', closeBoth);
    // A frame ws refuses (over kMaxFrame, not UTF-8) has it closing the connection with the code
    // that says why: let that close frame go out.
    client.on('error', () => {
      if (client.readyState === WebSocket.OPEN) client.terminate();
    });
    upstream.on('error', () => upstream.terminate());
    deps.log({ level: 'info', msg: 'cdp connected', boxId: entry.record.id, tenant: entry.tenant });
  }

  return {
    close() {
      for (const ws of clients) ws.terminate();
      for (const ws of upstreams) ws.terminate();
    },
  };
}

/** Browser-level commands that act on one browser context: without one, on the default context. */
const kContextScoped = new Set(['Target.createTarget', 'Storage.getCookies', 'Storage.setCookies', 'Storage.clearCookies', 'Browser.grantPermissions', 'Browser.resetPermissions', 'Browser.setPermission', 'Browser.cancelDownload']);
/** A command sent to a session (a page's, or the browser target's) has this key. */
const kSessionKey = Buffer.from('"sessionId":');
/**
 * Longer commands are passed on unread, so that no client can make the server parse hundreds of
 * MiB; none of the commands above is anywhere near it (a tab's URL, cookies).
 */
const kMaxScopedBytes = 4 * 1024 * 1024;
/** The answer to an attach is small; bigger messages from the browser are never read. */
const kMaxAnswerBytes = 64 * 1024;

type CdpMessage = { id?: unknown; method?: unknown; sessionId?: unknown; params?: Record<string, unknown>; result?: { sessionId?: unknown } };

const bufferOf = (data: WebSocket.RawData): Buffer => (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data));

function parsed(bytes: Buffer): CdpMessage | undefined {
  // Deeper than the browser reads: left unread (the box's pipe answers it), and V8 would take
  // seconds to parse millions of `[`. So nothing parsed here is too deep to be written again.
  if (tooDeep(bytes)) return undefined;
  try {
    const msg = JSON.parse(bytes.toString('utf8')) as unknown;
    return typeof msg === 'object' && msg !== null ? (msg as CdpMessage) : undefined;
  } catch {
    return undefined; // not JSON: Chromium answers a command with its own parse error
  }
}

/**
 * One connection's view of the box's browser context: a context-scoped command that names no
 * context, sent to the browser (no session) or to a session of the browser target the client
 * attached to (Playwright's newBrowserCDPSession), is given `contextId`. Page sessions' commands
 * pass unread unless they carry a browser session's id somewhere.
 */
export class ContextScope {
  readonly #contextId: string;
  readonly #browserSessions = new Set<string>();
  readonly #attaching = new Set<number>();

  constructor(contextId: string) {
    this.#contextId = contextId;
  }

  /** A command from the client, as it goes to the browser. */
  command(data: WebSocket.RawData): WebSocket.RawData {
    const bytes = bufferOf(data);
    if (bytes.length > kMaxScopedBytes) return data;
    if (bytes.includes(kSessionKey) && ![...this.#browserSessions].some((id) => bytes.includes(id))) return data;
    const msg = parsed(bytes);
    if (!msg || typeof msg.method !== 'string') return data;
    const toBrowser = msg.sessionId === undefined || (typeof msg.sessionId === 'string' && this.#browserSessions.has(msg.sessionId));
    if (!toBrowser) return data;
    if (msg.method === 'Target.attachToBrowserTarget' && typeof msg.id === 'number' && msg.sessionId === undefined) this.#attaching.add(msg.id);
    if (!kContextScoped.has(msg.method)) return data;
    const params = typeof msg.params === 'object' && msg.params !== null ? msg.params : {};
    if (params.browserContextId !== undefined) return data;
    return Buffer.from(JSON.stringify({ ...msg, params: { ...params, browserContextId: this.#contextId } }));
  }

  /** A message from the browser, as it goes to the client: an attach's answer names a browser session. */
  answer(data: WebSocket.RawData): void {
    if (!this.#attaching.size) return;
    const bytes = bufferOf(data);
    if (bytes.length > kMaxAnswerBytes || !bytes.includes('"id":')) return;
    const msg = parsed(bytes);
    if (!msg || typeof msg.id !== 'number' || msg.sessionId !== undefined || !this.#attaching.delete(msg.id)) return;
    if (typeof msg.result?.sessionId === 'string') this.#browserSessions.add(msg.result.sessionId);
  }
}

const rawSize = (data: WebSocket.RawData): number => (Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as ArrayBuffer).byteLength);

/** "sessionId id" of a client's CDP command (undefined: not a command). */
function commandKey(data: WebSocket.RawData): string | undefined {
  const msg = parsed(bufferOf(data));
  // An id answerKey cannot read back (not a whole number from 0 up) holds nothing: its answer would not be known.
  if (typeof msg?.id !== 'number' || !Number.isSafeInteger(msg.id) || msg.id < 0) return undefined;
  // A session id answerKey cannot read back is not the browser's (the box's pipe refuses it): ''.
  const sessionId = typeof msg.sessionId === 'string' && kSessionId.test(msg.sessionId) ? msg.sessionId : '';
  return `${sessionId} ${msg.id}`;
}

const kSessionId = /^[\w.-]{1,64}$/;

/** The same key of the browser's answer, read from its ends (the box's pipe writes Chromium's shape); undefined for an event. */
function answerKey(data: WebSocket.RawData): string | undefined {
  const bytes = bufferOf(data);
  const answer = answerHead(bytes.subarray(0, kHeadBytes));
  return answer ? `${sessionTail(bytes.subarray(-kTailBytes))?.sessionId ?? ''} ${answer.id}` : undefined;
}
