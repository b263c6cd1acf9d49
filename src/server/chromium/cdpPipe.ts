// A box's DevTools over `--remote-debugging-pipe`, held by the server alone: Chromium listens on no
// port, so nothing else on the machine (another box's page or shell) can find or drive it.
//
// Each client (the server's Playwright, a raw page connection, a tenant's pre-signed CDP URL) gets a
// WebSocket on a Unix socket in a directory only the server's user can enter; behind it, a session of
// the one pipe: a browser session (Target.attachToBrowserTarget) for /devtools/browser, a page
// session (Target.attachToTarget, flat) for /devtools/page/<targetId>. Message ids are renumbered on
// the pipe, and each session (and every session it attaches in turn) answers only its own client.
import { mkdtempSync, rmSync } from 'node:fs';
import { chmod, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';

const kMaxPayload = 256 * 1024 * 1024; // screenshots of large pages are big

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
}

type Call = { client: Client; id: number } | { resolve: (m: Message) => void };

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

export class CdpPipe {
  readonly #out: Writable;
  readonly #calls = new Map<number, Call>();
  readonly #owners = new Map<string, Client>();
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #socketPath: string;
  #nextId = 1;
  #closed = false;

  private constructor(out: Writable, input: Readable, socketPath: string) {
    this.#out = out;
    this.#socketPath = socketPath;
    let pending: Buffer[] = [];
    input.on('data', (chunk: Buffer) => {
      let start = 0;
      for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
        pending.push(chunk.subarray(start, end));
        const text = Buffer.concat(pending).toString('utf8');
        pending = [];
        start = end + 1;
        this.#receive(text);
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
    });
    input.on('close', () => this.close());
    input.on('error', () => this.close());
    out.on('error', () => this.close());
    this.#http = createServer((_req, res) => res.writeHead(404).end());
    this.#wss = new WebSocketServer({ server: this.#http, maxPayload: kMaxPayload, perMessageDeflate: false });
    this.#wss.on('connection', (ws, req) => void this.#accept(ws, req.url ?? '/'));
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

  async #accept(ws: WebSocket, url: string): Promise<void> {
    const client: Client = { ws, root: undefined, sessions: new Set() };
    const queued: Buffer[] = [];
    ws.on('message', (data: Buffer) => (client.root ? this.#fromClient(client, data) : queued.push(data)));
    ws.on('close', () => this.#drop(client));
    ws.on('error', () => ws.terminate());
    const page = /^\/devtools\/page\/([^/?]+)$/.exec(url);
    const attached = page
      ? await this.#call('Target.attachToTarget', { targetId: decodeURIComponent(page[1]!), flatten: true })
      : /^\/devtools\/browser(\/[^/?]*)?$/.test(url)
        ? await this.#call('Target.attachToBrowserTarget', {})
        : { error: { code: -32000, message: `no DevTools endpoint at ${url}` } };
    const sessionId = attached.result?.sessionId;
    if (typeof sessionId !== 'string') {
      ws.close(1011, (attached.error?.message ?? 'cannot attach').slice(0, 120));
      return;
    }
    if (ws.readyState !== WebSocket.OPEN) {
      this.#write({ id: this.#nextId++, method: 'Target.detachFromTarget', params: { sessionId } });
      return;
    }
    client.root = sessionId;
    this.#own(sessionId, client);
    for (const data of queued.splice(0)) this.#fromClient(client, data);
  }

  #fromClient(client: Client, data: Buffer): void {
    let msg: Message;
    try {
      msg = JSON.parse(data.toString('utf8')) as Message;
    } catch {
      return;
    }
    if (typeof msg.id !== 'number' || typeof msg.method !== 'string') return;
    const sessionId = msg.sessionId ?? client.root!;
    if (this.#owners.get(sessionId) !== client) {
      client.ws.send(JSON.stringify({ id: msg.id, ...(msg.sessionId ? { sessionId: msg.sessionId } : {}), error: { code: -32001, message: `Session with given id not found.` } }));
      return;
    }
    const id = this.#nextId++;
    this.#calls.set(id, { client, id: msg.id });
    this.#write({ id, method: msg.method, params: msg.params ?? {}, sessionId });
  }

  #receive(text: string): void {
    let msg: Message;
    try {
      msg = JSON.parse(text) as Message;
    } catch {
      return;
    }
    if (msg.id !== undefined) {
      const call = this.#calls.get(msg.id);
      if (!call) return;
      this.#calls.delete(msg.id);
      if ('resolve' in call) return call.resolve(msg);
      const sessionId = msg.result?.sessionId;
      if (typeof sessionId === 'string') this.#own(sessionId, call.client);
      this.#deliver(call.client, { ...msg, id: call.id });
      return;
    }
    const owner = msg.sessionId ? this.#owners.get(msg.sessionId) : undefined;
    const params = msg.params ?? {};
    if (msg.method === 'Target.attachedToTarget' && owner && typeof params.sessionId === 'string') this.#own(params.sessionId, owner);
    if (msg.method === 'Target.detachedFromTarget' && typeof params.sessionId === 'string') {
      const gone = this.#owners.get(params.sessionId);
      this.#owners.delete(params.sessionId);
      gone?.sessions.delete(params.sessionId);
      if (gone && gone.root === params.sessionId) gone.ws.close(1001, 'the target closed');
    }
    if (owner) this.#deliver(owner, msg);
  }

  #deliver(client: Client, msg: Message): void {
    if (client.ws.readyState !== WebSocket.OPEN) return;
    if (msg.sessionId === client.root) delete msg.sessionId;
    client.ws.send(JSON.stringify(msg));
  }

  #own(sessionId: string, client: Client): void {
    this.#owners.set(sessionId, client);
    client.sessions.add(sessionId);
  }

  #drop(client: Client): void {
    for (const s of client.sessions) this.#owners.delete(s);
    for (const [id, call] of this.#calls) if ('client' in call && call.client === client) this.#calls.delete(id);
    if (client.root && !this.#closed) this.#write({ id: this.#nextId++, method: 'Target.detachFromTarget', params: { sessionId: client.root } });
    client.sessions.clear();
  }

  #call(method: string, params: Record<string, unknown>): Promise<Message> {
    if (this.#closed) return Promise.resolve({ error: { code: -32000, message: 'the browser closed' } });
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#calls.set(id, { resolve });
      this.#write({ id, method, params });
    });
  }

  #write(msg: Message): void {
    if (this.#closed) return;
    this.#out.write(`${JSON.stringify(msg)}\0`);
  }
}
