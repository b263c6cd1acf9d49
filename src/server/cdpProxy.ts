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
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { BoxflowError } from '../errors.js';
import type { BoxEntry } from './boxEntry.js';
import { refuseUpgrade as refuse, verifyPresigned } from './secret.js';

const kMaxPayload = 256 * 1024 * 1024; // CDP screenshots of large pages are big
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

export function attachCdpProxy(server: Server, deps: CdpProxyDeps): CdpProxy {
  const wss = new WebSocketServer({ noServer: true, maxPayload: kMaxPayload, perMessageDeflate: false });
  const upstreams = new Set<WebSocket>();

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    let entry: BoxEntry;
    let queued = false;
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const m = /^\/cdp\/([^/]+)$/.exec(url.pathname);
      if (!m) throw new BoxflowError('NOT_FOUND', `no WebSocket endpoint at ${url.pathname}`);
      verifyPresigned(deps.secret, url.pathname, url.searchParams);
      queued = url.searchParams.get('queue') === '1';
      const found = deps.lookup(decodeURIComponent(m[1]!));
      if (!found) throw new BoxflowError('BOX_NOT_FOUND', 'the box no longer exists');
      if (found.record.status !== 'running') throw new BoxflowError('BOX_NOT_RUNNING', `the box is ${found.record.status}`);
      entry = found;
    } catch (err) {
      refuse(socket, err);
      return;
    }
    entry.linux
      .wsEndpoint()
      .then((endpoint) => {
        const contextId = entry.linux.contextId;
        const upstream = new WebSocket(endpoint, { perMessageDeflate: false, maxPayload: kMaxPayload });
        upstreams.add(upstream);
        upstream.once('error', (err) => {
          upstreams.delete(upstream);
          refuse(socket, new BoxflowError('BROWSER_ERROR', `cannot reach the box's browser: ${err.message}`));
        });
        upstream.once('open', () => {
          upstream.removeAllListeners('error');
          wss.handleUpgrade(req, socket, head, (client) => pipe(client, upstream, entry, { queued, contextId }, () => upstreams.delete(upstream)));
        });
      })
      .catch((err) => refuse(socket, err));
  };
  server.on('upgrade', onUpgrade);

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
    const forward = (data: WebSocket.RawData, isBinary: boolean) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(scope ? scope.command(data) : data, { binary: isBinary });
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
        const key = commandKey(data);
        if (key !== undefined) holding.get(key)?.();
      }
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
    });
    client.on('close', releaseAll);
    upstream.on('close', releaseAll);
    client.on('close', () => {
      entry.onBrowserGone.delete(closeBoth);
      done();
      upstream.close();
    });
    upstream.on('close', closeBoth);
    client.on('error', () => client.terminate());
    upstream.on('error', () => upstream.terminate());
    deps.log({ level: 'info', msg: 'cdp connected', boxId: entry.record.id, tenant: entry.tenant });
  }

  return {
    close() {
      server.off('upgrade', onUpgrade);
      for (const ws of wss.clients) ws.terminate();
      for (const ws of upstreams) ws.terminate();
      wss.close();
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

/** "sessionId id" of a CDP command or of its answer (events have no id: undefined). */
function commandKey(data: WebSocket.RawData): string | undefined {
  const msg = parsed(bufferOf(data));
  return typeof msg?.id === 'number' ? `${typeof msg.sessionId === 'string' ? msg.sessionId : ''} ${msg.id}` : undefined;
}
