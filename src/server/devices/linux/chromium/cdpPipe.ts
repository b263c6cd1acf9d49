// A box's DevTools over `--remote-debugging-pipe`, held by the server alone: Chromium listens on no
// port, so nothing else on the machine (another box's page or shell) can find or drive it.
//
// Each client (the server's Playwright, a raw page connection, a tenant's pre-signed CDP URL) gets a
// WebSocket on a Unix socket in a directory only the server's user can enter; behind it, a session of
// the one pipe: a browser session (Target.attachToBrowserTarget) for /devtools/browser, a page
// session (Target.attachToTarget, flat) for /devtools/page/<targetId>. Message ids are renumbered on
// the pipe, and each session (and every session it attaches in turn) answers only its own client.
//
// Whatever a page or a client sends, the pipe goes on (cdpMessage.ts reads messages as bytes):
// - a message from the browser is routed by its first and last bytes and passed on in the pieces it
//   came in; one longer than its reader takes is let go as it streams (an answer becomes an error
//   answer, an event is dropped), so no page can make the server hold more than that;
// - a command nested deeper than the browser reads is answered with an error here (the browser's
//   own error would name no id);
// - when the pipe to the browser is full, no client is read until it drains.
import { mkdtempSync, rmSync } from 'node:fs';
import { chmod, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { answerHead, eventHead, firstBytes, kHeadBytes, kTailBytes, lastBytes, NulSplitter, readCommand, sessionTail, sliceParts } from './cdpMessage.js';

/**
 * The longest answer the server's own connections take: a PNG screenshot of a 7680×7680 viewport of
 * noise is 226 MiB in base64. A client may ask for less (`?maxMessage=` on its endpoint).
 */
export const kMaxAnswer = 256 * 1024 * 1024;
/** The longest event read from the browser: a recording's JPEG frame of such a page is under 50 MiB. */
export const kMaxEvent = 64 * 1024 * 1024;
/** A message under this is sent as one frame; a longer one as the pieces it came in (no copy). */
const kJoinBytes = 1024 * 1024;
/** Answers to these name a session the asking client then owns. */
const kAttach = new Set(['Target.attachToTarget', 'Target.attachToBrowserTarget']);

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

interface Client {
  ws: WebSocket;
  /** The session a message without a sessionId goes to. */
  root: string | undefined;
  sessions: Set<string>;
  /** The longest message this client takes. */
  maxMessage: number;
}

type Call = { client: Client; id: number; sessionId: string; method: string } | { resolve: (m: Message) => void };

let socketDir: string | undefined;
let socketCount = 0;

/** The directory of every box's DevTools socket: the server's user's alone (mode 0700). */
function sockets(): string {
  if (!socketDir) {
    const dir = mkdtempSync(join(tmpdir(), 'boxflow-cdp-'));
    socketDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return socketDir;
}

const parsed = (parts: Buffer[]): Message | undefined => {
  try {
    const msg = JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown;
    return typeof msg === 'object' && msg !== null ? (msg as Message) : undefined;
  } catch {
    return undefined;
  }
};

export class CdpPipe {
  readonly #out: Writable;
  readonly #calls = new Map<number, Call>();
  readonly #owners = new Map<string, Client>();
  readonly #clients = new Set<Client>();
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #socketPath: string;
  #nextId = 1;
  #closed = false;
  /** The pipe to the browser is full: clients are not read until it drains. */
  #held = false;

  private constructor(out: Writable, input: Readable, socketPath: string) {
    this.#out = out;
    this.#socketPath = socketPath;
    const splitter = new NulSplitter(
      (head) => this.#limitOf(head),
      (parts, size) => this.#receive(parts, size),
      (head, tail, size) => this.#tooLong(head, tail, size),
    );
    input.on('data', (chunk: Buffer) => splitter.push(chunk));
    input.on('close', () => this.close());
    input.on('error', () => this.close());
    out.on('error', () => this.close());
    this.#http = createServer((_req, res) => res.writeHead(404).end());
    this.#wss = new WebSocketServer({ server: this.#http, maxPayload: kMaxAnswer, perMessageDeflate: false });
    this.#wss.on('connection', (ws, req) => void this.#accept(ws, req.url ?? '/').catch(() => ws.terminate()));
  }

  /** Serves the pipe of one Chromium (`out` is its fd 3, `input` its fd 4) on a socket of its own. */
  static async open(out: Writable, input: Readable): Promise<CdpPipe> {
    const path = join(sockets(), `${process.pid}-${++socketCount}.sock`);
    const pipe = new CdpPipe(out, input, path);
    await new Promise<void>((resolve, reject) => {
      pipe.#http.once('error', reject);
      pipe.#http.listen(path, () => resolve());
    });
    await chmod(path, 0o600);
    return pipe;
  }

  /** The browser endpoint: `ws+unix:` URLs are understood by `ws` and by Playwright's connectOverCDP. */
  get wsEndpoint(): string {
    return `ws+unix://${this.#socketPath}:/devtools/browser`;
  }

  /** The endpoint of one page target. */
  pageEndpoint(targetId: string): string {
    return `ws+unix://${this.#socketPath}:/devtools/page/${encodeURIComponent(targetId)}`;
  }

  /** Resolves once Chromium answers on the pipe (it is ready then). */
  async version(): Promise<void> {
    const answer = await this.#call('Browser.getVersion', {});
    if (answer.error) throw new Error(answer.error.message);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const ws of this.#wss.clients) ws.terminate();
    this.#wss.close();
    this.#http.close();
    void rm(this.#socketPath, { force: true });
    for (const call of this.#calls.values()) if ('resolve' in call) call.resolve({ error: { code: -32000, message: 'the browser closed' } });
    this.#calls.clear();
  }

  async #accept(ws: WebSocket, rawUrl: string): Promise<void> {
    const url = new URL(rawUrl, 'http://pipe');
    const asked = Number(url.searchParams.get('maxMessage'));
    const client: Client = { ws, root: undefined, sessions: new Set(), maxMessage: asked > 0 ? Math.min(asked, kMaxAnswer) : kMaxAnswer };
    this.#clients.add(client);
    // Not read until attached: what it sends meanwhile waits in its socket.
    ws.pause();
    const queued: Buffer[] = [];
    ws.on('message', (data: Buffer) => (client.root ? this.#fromClient(client, data) : queued.push(data)));
    ws.on('close', () => this.#drop(client));
    ws.on('error', () => ws.terminate());
    const page = /^\/devtools\/page\/([^/?]+)$/.exec(url.pathname);
    const attached = page
      ? await this.#call('Target.attachToTarget', { targetId: decodeURIComponent(page[1]!), flatten: true })
      : /^\/devtools\/browser(\/[^/?]*)?$/.test(url.pathname)
        ? await this.#call('Target.attachToBrowserTarget', {})
        : { error: { code: -32000, message: `no DevTools endpoint at ${url.pathname}` } };
    const sessionId = attached.result?.sessionId;
    if (typeof sessionId !== 'string') {
      ws.close(1011, (attached.error?.message ?? 'cannot attach').slice(0, 120));
      return;
    }
    if (ws.readyState !== WebSocket.OPEN) {
      this.#writeCommand(this.#nextId++, 'Target.detachFromTarget', Buffer.from(JSON.stringify({ sessionId })), undefined);
      return;
    }
    client.root = sessionId;
    this.#own(sessionId, client);
    for (const data of queued.splice(0)) this.#fromClient(client, data);
    if (!this.#held) ws.resume();
  }

  #fromClient(client: Client, data: Buffer): void {
    const read = readCommand(data);
    if (!read) return;
    if ('refused' in read) {
      const named = typeof read.sessionId === 'string' && read.sessionId.length <= 128 ? read.sessionId : undefined;
      this.#answerError(client, read.id, named, -32600, read.refused);
      return;
    }
    const { id, method, params } = read.command;
    const sessionId = read.command.sessionId ?? client.root!;
    if (this.#owners.get(sessionId) !== client) {
      this.#answerError(client, id, read.command.sessionId, -32001, 'Session with given id not found.');
      return;
    }
    const pipeId = this.#nextId++;
    this.#calls.set(pipeId, { client, id, sessionId, method });
    this.#writeCommand(pipeId, method, params, sessionId);
  }

  /** How long the message that starts with `head` may be: an answer as long as its reader takes. */
  #limitOf(head: Buffer): number {
    const answer = answerHead(head);
    if (!answer) return kMaxEvent;
    const call = this.#calls.get(answer.id);
    // A renumbered id may be longer by a few digits: the exact bound is checked as it is passed on.
    return call && 'client' in call ? call.client.maxMessage + 16 : kMaxAnswer;
  }

  #receive(parts: Buffer[], size: number): void {
    const head = firstBytes(parts, kHeadBytes);
    const tail = sessionTail(lastBytes(parts, kTailBytes));
    const answer = answerHead(head);
    if (answer) {
      const call = this.#calls.get(answer.id);
      if (!call) return;
      this.#calls.delete(answer.id);
      if ('resolve' in call) return call.resolve(parsed(parts) ?? { error: { code: -32000, message: 'the browser answered something unreadable' } });
      if (kAttach.has(call.method)) {
        const sessionId = parsed(parts)?.result?.sessionId;
        if (typeof sessionId === 'string') this.#own(sessionId, call.client);
      }
      const id = Buffer.from(`{"id":${call.id}`);
      const body = sliceParts(parts, answer.idEnd, size);
      if (!this.#deliver(call.client, [id, ...body], id.length + size - answer.idEnd, tail)) {
        this.#answerError(call.client, call.id, call.sessionId, -32000, tooLong(size, call.client.maxMessage));
      }
      return;
    }
    const method = eventHead(head);
    if (method === undefined) return this.#receiveOther(parts);
    const owner = tail ? this.#owners.get(tail.sessionId) : undefined;
    if (method === 'Target.attachedToTarget' || method === 'Target.detachedFromTarget') {
      const sessionId = parsed(parts)?.params?.sessionId;
      if (typeof sessionId !== 'string') return;
      if (method === 'Target.attachedToTarget' && owner) this.#own(sessionId, owner);
      if (method === 'Target.detachedFromTarget') {
        const gone = this.#owners.get(sessionId);
        this.#owners.delete(sessionId);
        gone?.sessions.delete(sessionId);
        if (gone && gone.root === sessionId) gone.ws.close(1001, 'the target closed');
      }
    }
    // An event longer than its reader takes is dropped: it asked for nothing.
    if (owner) this.#deliver(owner, parts, size, tail);
  }

  /** A message of another shape than Chromium's (none is expected): written again in that shape, then routed. */
  #receiveOther(parts: Buffer[]): void {
    const msg = parsed(parts);
    if (!msg || (msg.id === undefined && msg.method === undefined)) return;
    const { id, method, sessionId, ...rest } = msg;
    let again: Buffer;
    try {
      again = Buffer.from(JSON.stringify({ id, method, ...rest, sessionId }));
    } catch {
      return;
    }
    if (answerHead(again) || eventHead(again) !== undefined) this.#receive([again], again.length);
  }

  /** A message from the browser longer than its reader takes, let go: an answer becomes an error answer. */
  #tooLong(head: Buffer, _tail: Buffer, size: number): void {
    const answer = answerHead(head);
    const call = answer && this.#calls.get(answer.id);
    if (!call) return;
    this.#calls.delete(answer.id);
    if ('resolve' in call) call.resolve({ error: { code: -32000, message: tooLong(size, kMaxAnswer) } });
    else this.#answerError(call.client, call.id, call.sessionId, -32000, tooLong(size, call.client.maxMessage));
  }

  /**
   * Passes a message of the browser (in `parts`, `size` bytes) to `client`, without its session when
   * that is the client's root. False when it is longer than the client takes: it is not sent.
   */
  #deliver(client: Client, parts: Buffer[], size: number, tail: { sessionId: string; length: number } | undefined): boolean {
    if (tail && tail.sessionId === client.root) {
      parts = [...sliceParts(parts, 0, size - tail.length), Buffer.from('}')];
      size -= tail.length - 1;
    }
    if (size > client.maxMessage) return false;
    const ws = client.ws;
    if (ws.readyState !== WebSocket.OPEN) return true;
    // A client that does not read what it asked for is not buffered for without end.
    if (ws.bufferedAmount > Math.max(2 * client.maxMessage, kMaxEvent)) {
      ws.terminate();
      return true;
    }
    if (parts.length === 1 || size <= kJoinBytes) ws.send(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size), { binary: false });
    else parts.forEach((part, i) => ws.send(part, { binary: false, fin: i === parts.length - 1 }));
    return true;
  }

  #answerError(client: Client, id: unknown, sessionId: string | undefined, code: number, message: string): void {
    const text = JSON.stringify({ id, error: { code, message }, ...(sessionId !== undefined && sessionId !== client.root ? { sessionId } : {}) });
    if (client.ws.readyState === WebSocket.OPEN) client.ws.send(text);
  }

  #own(sessionId: string, client: Client): void {
    this.#owners.set(sessionId, client);
    client.sessions.add(sessionId);
  }

  #drop(client: Client): void {
    this.#clients.delete(client);
    for (const s of client.sessions) this.#owners.delete(s);
    for (const [id, call] of this.#calls) if ('client' in call && call.client === client) this.#calls.delete(id);
    if (client.root && !this.#closed) this.#writeCommand(this.#nextId++, 'Target.detachFromTarget', Buffer.from(JSON.stringify({ sessionId: client.root })), undefined);
    client.sessions.clear();
  }

  #call(method: string, params: Record<string, unknown>): Promise<Message> {
    if (this.#closed) return Promise.resolve({ error: { code: -32000, message: 'the browser closed' } });
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#calls.set(id, { resolve });
      this.#writeCommand(id, method, Buffer.from(JSON.stringify(params)), undefined);
    });
  }

  /** Writes one command to the browser; its params (JSON bytes) are not copied. */
  #writeCommand(id: number, method: string, params: Buffer, sessionId: string | undefined): void {
    if (this.#closed) return;
    const out = this.#out;
    out.cork();
    out.write(`{"id":${id},"method":${JSON.stringify(method)},"params":`);
    out.write(params);
    const flowing = out.write(`${sessionId === undefined ? '' : `,"sessionId":${JSON.stringify(sessionId)}`}}\0`);
    out.uncork();
    if (!flowing) this.#hold();
  }

  /** The pipe is full: no client is read until it drains, so that a flood waits in the clients' sockets. */
  #hold(): void {
    if (this.#held) return;
    this.#held = true;
    for (const c of this.#clients) c.ws.pause();
    this.#out.once('drain', () => {
      this.#held = false;
      for (const c of this.#clients) if (c.root) c.ws.resume();
    });
  }
}

function tooLong(size: number, limit: number): string {
  return `the browser's answer is ${(size / 2 ** 20).toFixed(1)} MiB, more than the ${limit / 2 ** 20} MiB one DevTools message may carry here`;
}
