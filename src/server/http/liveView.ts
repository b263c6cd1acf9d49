// The live view (POST /boxes/{boxId}/live-view-url): a pre-signed page that shows a box's screen as
// it changes and passes clicks, drags, wheel turns, typing and keys on to the box as Box API actions,
// through the same handlers, validation and per-box queue as the HTTP API. One screen feed per box,
// shared by its viewers and running only while one watches. The URLs, frames, rates, viewer slots and
// the checks made before a page or an upgrade: docs/server.md, "Live view" and "Security model".
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WebSocket, type RawData } from 'ws';
import { BoxflowError, errorCodes } from '../../errors.js';
import { parseDuration } from '../../api/duration.js';
import { endpoints, type EndpointName, type LiveViewUrlResult } from '../../api/schemas.js';
import { LiveRunState } from '../../api/liveRun.js';
import { requestProblem } from '../../api/validate.js';
import type { BoxEntry } from '../boxes/boxEntry.js';
import type { CdpConnection } from '../../cdp/connection.js';
import { newActionId, type Answer, type Call } from './call.js';
import { presign, verifyPresigned } from './secret.js';
import { kLiveViewAssetPrefix, kLiveViewCsp, liveViewPageHtml, liveViewScript } from './liveViewPage.js';
import { actionOf } from './liveViewInput.js';

export const kLiveViewPrefix = '/live-view/';
const kPathPattern = /^\/live-view\/([^/]+)(\/raw)?$/;
/** Where a run PUTs what it is doing (boxflow's extension, src/api/liveRun.ts); never a websocket. */
const kRunPathPattern = /^\/live-view\/([^/]+)\/run$/;
/** A run's state is a few hundred short lines at most (src/api/liveRun.ts). */
const kMaxRunBody = 256 * 1024;
/** Frames a second a viewer gets at most. */
export const kMaxFps = 15;
/** Viewers of one box at once. */
export const kMaxClientsPerBox = 4;
/** Viewers of one tenant's boxes at once: a quarter of the server's, so that other tenants can still watch. */
export const kMaxClientsPerTenant = 16;
/** Viewers of the whole server at once. */
const kMaxClients = 64;
/** Actions one viewer may have waiting at once; more are refused (the box is busy, the viewer floods). */
const kMaxPendingActions = 8;
/** A viewer that has this much unsent is skipped until it has read it. */
const kHighWater = 512 * 1024;
const kFollowMs = 250;
/** No screencast frame this long after (re)starting one: a capture stands in (a page Chromium does not redraw). */
const kFirstFrameMs = 1_000;
/** Between two captures of an Android box that failed. */
const kRetryMs = 1_000;
const kJpegQuality = 70;
const kMaxMessage = 256 * 1024;

/** The two pages of a box's live view (and their websockets), and where a run says what it does; pre-sign each to make its URL. */
export function liveViewPaths(boxId: string): { page: string; raw: string; run: string } {
  const page = `${kLiveViewPrefix}${encodeURIComponent(boxId)}`;
  return { page, raw: `${page}/raw`, run: `${page}/run` };
}

/** `{url, rawUrl, websocketUrl, runUrl}` of a box's live view, signed until `expiresIn` (default 180m) from now. */
export function liveViewUrls(secret: string, origin: string, boxId: string, expiresIn = '180m'): LiveViewUrlResult {
  const expiresAt = Date.now() + parseDuration(expiresIn, '/expiresIn');
  const { page, raw, run } = liveViewPaths(boxId);
  const rawUrl = `${origin}${raw}?${presign(secret, raw, expiresAt)}`;
  return { url: `${origin}${page}?${presign(secret, page, expiresAt)}`, rawUrl, websocketUrl: rawUrl.replace(/^http/, 'ws'), runUrl: `${origin}${run}?${presign(secret, run, expiresAt)}` };
}

/** The handler of `POST /boxes/{boxId}/live-view-url` for routes.ts (the box already checked: the caller's, running). */
export function liveViewUrlAnswer(secret: string, entry: BoxEntry, call: Call): Answer {
  const body = (call.body ?? {}) as { expiresIn?: string };
  return { status: 201, body: liveViewUrls(secret, call.origin, entry.record.id, body.expiresIn) };
}

export interface LiveViewDeps {
  secret: string;
  /** Any tenant's box by id (the pre-signed URL is the credential). */
  lookup: (boxId: string) => BoxEntry | undefined;
  /** The HTTP API's handlers: input runs through them. */
  handlers: Record<EndpointName, (call: Call) => Promise<Answer>>;
  log: (entry: Record<string, unknown>) => void;
  /** Default kMaxFps. */
  maxFps?: number;
}

export interface LiveView {
  /** Closes every viewer and stops every feed. */
  close(): Promise<void>;
}

/** One frame as the viewers get it: a binary message, [u32 length of the JSON][JSON meta][image]. */
interface Frame {
  message: Buffer;
  /** The image, to tell an unchanged capture. */
  image: Buffer;
}

interface FrameMeta {
  format: 'jpeg' | 'png';
  /** The screen's size in its pixels (Linux: the page's CSS pixels): what input coordinates refer to. */
  width: number;
  height: number;
  seq: number;
  /** ms since epoch when the server got it. */
  at: number;
}

interface Viewer {
  ws: WebSocket;
  /** The newest frame has not been sent to it yet (it was busy reading). */
  behind: boolean;
  pending: number;
  cancel: AbortController;
}

function frameMessage(meta: FrameMeta, image: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(meta));
  const head = Buffer.alloc(4);
  head.writeUInt32BE(json.length, 0);
  return Buffer.concat([head, json, image]);
}

/** Width and height of a PNG, from its IHDR. */
function pngSize(png: Buffer): { width: number; height: number } | undefined {
  return png.length >= 24 ? { width: png.readUInt32BE(16), height: png.readUInt32BE(20) } : undefined;
}

/** A box's screen, fanned out to its viewers. */
class Feed {
  readonly viewers = new Set<Viewer>();
  last: Frame | undefined;
  /** Why there is no screen to show ("no page open"), told to each viewer; '' once there is one. */
  status = '';
  #seq = 0;
  #running = false;
  #lastSent = 0;
  #held: { meta: Omit<FrameMeta, 'seq' | 'at'>; image: Buffer; ack?: () => void } | undefined;
  #heldTimer: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  // Linux
  #follow: NodeJS.Timeout | undefined;
  #page: unknown;
  #size = '';
  #cdp: CdpConnection | undefined;
  #switching = false;
  #firstTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly entry: BoxEntry,
    private readonly minGapMs: number,
    private readonly onStatus: (text: string) => void,
  ) {}

  start(): void {
    if (this.#running) return;
    this.#running = true;
    if (this.entry.kind === 'android') void this.#captureLoop();
    else {
      void this.#followPage();
      this.#follow = setInterval(() => void this.#followPage(), kFollowMs);
    }
  }

  stop(): void {
    this.#running = false;
    clearInterval(this.#follow);
    clearTimeout(this.#heldTimer);
    clearTimeout(this.#firstTimer);
    clearTimeout(this.#retryTimer);
    this.#held?.ack?.();
    this.#held = undefined;
    this.#page = undefined;
    const cdp = this.#cdp;
    this.#cdp = undefined;
    if (cdp) void cdp.send('Page.stopScreencast', {}, { timeoutMs: 2_000 }).catch(() => {}).finally(() => cdp.close());
  }

  /** A frame from the box: sent now, or held until its slot (the newest held one wins; `ack` runs when it is sent or replaced). */
  offer(meta: Omit<FrameMeta, 'seq' | 'at'>, image: Buffer, ack?: () => void): void {
    if (!this.#running) return ack?.();
    const wait = this.#lastSent + this.minGapMs - Date.now();
    if (wait <= 0 && !this.#held) {
      this.#publish(meta, image);
      ack?.();
      return;
    }
    this.#held?.ack?.();
    this.#held = { meta, image, ...(ack ? { ack } : {}) };
    this.#heldTimer ??= setTimeout(() => {
      this.#heldTimer = undefined;
      const held = this.#held;
      this.#held = undefined;
      if (held && this.#running) this.#publish(held.meta, held.image);
      held?.ack?.();
    }, Math.max(1, wait));
  }

  #publish(meta: Omit<FrameMeta, 'seq' | 'at'>, image: Buffer): void {
    this.#lastSent = Date.now();
    this.last = { message: frameMessage({ ...meta, seq: ++this.#seq, at: this.#lastSent }, image), image };
    for (const v of this.viewers) sendFrame(v, this.last);
  }

  #say(text: string): void {
    if (text === this.status) return;
    this.status = text;
    this.onStatus(text);
  }

  // ---------------------------------------------------------------- Linux: the screencast

  async #followPage(): Promise<void> {
    if (this.#switching || !this.#running || this.entry.kind === 'android') return;
    const linux = this.entry.linux;
    const page = linux.currentPage;
    // A new page, or a new screen size (the screencast's size is set when it starts): start again.
    const size = `${linux.resolution.width}x${linux.resolution.height}`;
    if (page === this.#page && size === this.#size) return;
    this.#size = size;
    this.#switching = true;
    try {
      this.#cdp?.close();
      this.#cdp = undefined;
      clearTimeout(this.#firstTimer);
      this.#page = page;
      if (!page) {
        this.#say("the box's browser has no page open");
        return;
      }
      this.#say('');
      const cdp = await linux.recordingConnection(page).catch(() => undefined);
      if (!cdp) {
        this.#page = undefined; // again at the next check
        return;
      }
      if (!this.#running || this.#page !== page) return cdp.close();
      this.#cdp = cdp;
      let frames = 0;
      cdp.on('Page.screencastFrame', (p) => {
        frames++;
        const { data, sessionId, metadata } = p as { data: string; sessionId: number; metadata: { deviceWidth?: number; deviceHeight?: number } };
        const res = linux.resolution;
        const meta = { format: 'jpeg' as const, width: Math.round(metadata.deviceWidth ?? res.width), height: Math.round(metadata.deviceHeight ?? res.height) };
        // Acknowledged when sent: Chromium draws the next frame for us only then.
        this.offer(meta, Buffer.from(data, 'base64'), () => void cdp.send('Page.screencastFrameAck', { sessionId }).catch(() => {}));
      });
      const { width, height } = linux.resolution;
      await cdp.send('Page.startScreencast', { format: 'jpeg', quality: kJpegQuality, maxWidth: width, maxHeight: height, everyNthFrame: 1 }, { timeoutMs: 5_000 }).catch(() => {
        cdp.close();
        if (this.#cdp === cdp) {
          this.#cdp = undefined;
          this.#page = undefined;
        }
      });
      // A page Chromium does not redraw sends no first frame: one capture shows it.
      this.#firstTimer = setTimeout(() => {
        if (frames || this.#cdp !== cdp || !this.#running) return;
        void cdp
          .send<{ data: string }>('Page.captureScreenshot', { format: 'jpeg', quality: kJpegQuality }, { timeoutMs: 5_000 })
          .then((shot) => {
            if (!frames && this.#cdp === cdp) this.offer({ format: 'jpeg', ...linux.resolution }, Buffer.from(shot.data, 'base64'));
          })
          .catch(() => {});
      }, kFirstFrameMs);
    } finally {
      this.#switching = false;
    }
  }

  // ---------------------------------------------------------------- Android: screencap after screencap

  async #captureLoop(): Promise<void> {
    const android = this.entry.kind === 'android' ? this.entry.android : undefined;
    if (!android) return;
    let failing = false;
    while (this.#running) {
      const started = Date.now();
      try {
        const png = await android.screenshot(1);
        if (!this.#running) return;
        if (failing) this.#say('');
        failing = false;
        // Only a changed screen is sent again.
        if (!this.last?.image.equals(png)) this.offer({ format: 'png', ...(pngSize(png) ?? { width: 0, height: 0 }) }, png);
      } catch (err) {
        if (!this.#running) return;
        if (!failing) this.#say(`the device gives no screen: ${(err as Error).message.split('\n')[0]}`);
        failing = true;
        await new Promise((r) => (this.#retryTimer = setTimeout(r, kRetryMs)));
        continue;
      }
      const wait = this.minGapMs - (Date.now() - started);
      if (wait > 0) await new Promise((r) => (this.#retryTimer = setTimeout(r, wait)));
    }
  }
}

function sendFrame(v: Viewer, frame: Frame): void {
  if (v.ws.readyState !== WebSocket.OPEN) return;
  if (v.ws.bufferedAmount > kHighWater) {
    v.behind = true;
    return;
  }
  v.behind = false;
  v.ws.send(frame.message, { binary: true });
}

function sendJson(ws: WebSocket, msg: Record<string, unknown>): void {
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

/** Registers the pages and their websockets (after registerWebsockets). */
export function attachLiveView(app: FastifyInstance, deps: LiveViewDeps): LiveView {
  const feeds = new Map<BoxEntry, Feed>();
  const minGapMs = 1000 / Math.max(1, Math.min(deps.maxFps ?? kMaxFps, 60));
  const sockets = new Set<WebSocket>();
  let viewers = 0;
  const perTenant = new Map<string, number>();
  let closed = false;
  /** What the run on each box last said it does (src/api/liveRun.ts): a new viewer is told at once. */
  const runs = new WeakMap<BoxEntry, LiveRunState>();

  /** The signature first (so probing reveals nothing), then the box. */
  function checkedEntry(url: URL, pattern = kPathPattern): BoxEntry {
    const m = pattern.exec(url.pathname);
    if (!m) throw new BoxflowError('NOT_FOUND', `no live view at ${url.pathname}`);
    verifyPresigned(deps.secret, url.pathname, url.searchParams);
    let id: string;
    try {
      id = decodeURIComponent(m[1]!);
    } catch {
      throw new BoxflowError('BOX_NOT_FOUND', 'the box no longer exists');
    }
    const entry = deps.lookup(id);
    if (!entry) throw new BoxflowError('BOX_NOT_FOUND', 'the box no longer exists');
    const status = entry.record.status;
    if (status === 'terminated' || status === 'error' || status === 'stopped') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} is ${status}`);
    return entry;
  }

  const page = (raw: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    const entry = checkedEntry(new URL(req.url, 'http://localhost'));
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', raw ? kLiveViewCsp.replace("frame-ancestors 'none'", 'frame-ancestors *') : kLiveViewCsp)
      .send(liveViewPageHtml({ boxId: entry.record.id, type: entry.record.type, raw }));
  };
  // The box and a free slot, checked in the turn the handshake completes and watch() takes the slot
  // (a sync hook runs the handler at once, and ws calls back at once for a handshake it accepts,
  // never for one it refuses, which so holds no slot).
  const admitted = new WeakMap<FastifyRequest, BoxEntry>();
  const admit = (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    if (!req.ws) return done();
    try {
      if (closed) throw new BoxflowError('INTERNAL', 'the server is stopping');
      const entry = checkedEntry(new URL(req.url, 'http://localhost'));
      if ((feeds.get(entry)?.viewers.size ?? 0) >= kMaxClientsPerBox) throw new BoxflowError('RATE_LIMITED', `box ${entry.record.id} already has ${kMaxClientsPerBox} live viewers; close one first`);
      if ((perTenant.get(entry.tenant) ?? 0) >= kMaxClientsPerTenant) throw new BoxflowError('RATE_LIMITED', `this tenant's boxes already have ${kMaxClientsPerTenant} live viewers; close one first`);
      if (viewers >= kMaxClients) throw new BoxflowError('RATE_LIMITED', `the server already has ${kMaxClients} live viewers`);
      admitted.set(req, entry);
    } catch (err) {
      return done(err as Error);
    }
    done();
  };
  for (const raw of [false, true]) {
    app.route({
      method: 'GET',
      url: `${kLiveViewPrefix}:boxId${raw ? '/raw' : ''}`,
      config: { maxPayload: kMaxMessage },
      preHandler: admit,
      handler: page(raw),
      wsHandler: (ws, req) => watch(ws, admitted.get(req)!, `http://${req.headers.host ?? 'localhost'}`),
    });
  }
  // The run's state, shown over the page; the URL's signature is the permission, as for the page.
  app.put(`${kLiveViewPrefix}:boxId/run`, { bodyLimit: kMaxRunBody }, async (req, reply) => {
    const entry = checkedEntry(new URL(req.url, 'http://localhost'), kRunPathPattern);
    const problem = requestProblem(LiveRunState, req.body ?? {});
    if (problem) throw problem;
    const state = req.body as LiveRunState;
    runs.set(entry, state);
    for (const v of feeds.get(entry)?.viewers ?? []) sendJson(v.ws, { type: 'run', ...state });
    return reply.code(204).send();
  });
  app.get(`${kLiveViewAssetPrefix}live.js`, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').header('x-content-type-options', 'nosniff').send(liveViewScript()),
  );

  function feedOf(entry: BoxEntry): Feed {
    let feed = feeds.get(entry);
    if (!feed) {
      const f = new Feed(entry, minGapMs, (text) => {
        for (const v of f.viewers) sendJson(v.ws, { type: 'status', text });
      });
      feeds.set(entry, (feed = f));
    }
    return feed;
  }

  function watch(ws: WebSocket, entry: BoxEntry, origin: string): void {
    sockets.add(ws);
    viewers++;
    perTenant.set(entry.tenant, (perTenant.get(entry.tenant) ?? 0) + 1);
    const feed = feedOf(entry);
    const viewer: Viewer = { ws, behind: false, pending: 0, cancel: new AbortController() };
    feed.viewers.add(viewer);
    ws.on('error', () => ws.terminate());
    const onBoxGone = () => {
      if (entry.record.status === 'terminated' || entry.record.status === 'stopped') ws.close(1001, `the box was ${entry.record.status}`);
    };
    entry.onBrowserGone.add(onBoxGone);
    // A viewer that had fallen behind gets the newest frame once it has read what it had.
    const catchUp = setInterval(() => {
      if (viewer.behind && feed.last) sendFrame(viewer, feed.last);
    }, 100);
    ws.on('close', () => {
      sockets.delete(ws);
      viewers--;
      const left = perTenant.get(entry.tenant)! - 1;
      if (left > 0) perTenant.set(entry.tenant, left);
      else perTenant.delete(entry.tenant);
      clearInterval(catchUp);
      viewer.cancel.abort(new BoxflowError('REQUEST_CANCELLED', 'the live viewer went away'));
      entry.onBrowserGone.delete(onBoxGone);
      feed.viewers.delete(viewer);
      if (!feed.viewers.size) {
        feed.stop();
        feeds.delete(entry);
      }
    });
    const { width, height } = entry.kind === 'android' ? { width: 0, height: 0 } : entry.linux.resolution;
    sendJson(ws, { type: 'hello', boxId: entry.record.id, boxType: entry.record.type, width, height, source: entry.kind === 'android' ? 'screencap' : 'screencast', maxFps: Math.round(1000 / minGapMs) });
    if (feed.status) sendJson(ws, { type: 'status', text: feed.status });
    const run = runs.get(entry);
    if (run) sendJson(ws, { type: 'run', ...run });
    if (feed.last) sendFrame(viewer, feed.last);
    feed.start();

    ws.on('message', (raw: RawData, isBinary: boolean) => {
      if (isBinary) return;
      let msg: Record<string, unknown>;
      try {
        const value: unknown = JSON.parse(raw.toString());
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
        msg = value as Record<string, unknown>;
      } catch {
        return;
      }
      const id = typeof msg.id === 'number' || typeof msg.id === 'string' ? msg.id : undefined;
      const act = actionOf(msg, entry.scale);
      if (typeof act === 'string') return sendJson(ws, { type: 'action', id, ok: false, code: 'INVALID_REQUEST', message: act });
      if (viewer.pending >= kMaxPendingActions) return sendJson(ws, { type: 'action', id, ok: false, code: 'RATE_LIMITED', message: `${kMaxPendingActions} actions are still waiting for the box` });
      void perform(viewer, entry, origin, act, id);
    });
  }

  async function perform(viewer: Viewer, entry: BoxEntry, origin: string, act: { name: EndpointName; body: Record<string, unknown> }, id: unknown): Promise<void> {
    viewer.pending++;
    const actionId = newActionId();
    const started = performance.now();
    const route = `live-view ${endpoints[act.name].method} ${endpoints[act.name].path}`;
    let status = 200;
    let failure: { code: string; message: string } | undefined;
    let message: string | undefined;
    try {
      const answer = await deps.handlers[act.name]({ tenant: entry.tenant, params: { boxId: entry.record.id }, body: act.body, query: {}, origin, actionId, signal: viewer.cancel.signal });
      status = answer.status;
      message = (answer.body as { message?: string } | undefined)?.message;
    } catch (err) {
      const e = BoxflowError.is(err) ? err : new BoxflowError('INTERNAL', 'internal error; the server log has the details');
      status = (errorCodes[e.code] as { status?: number }).status ?? 500;
      failure = { code: e.code, message: e.message };
      if (!BoxflowError.is(err)) deps.log({ level: 'error', msg: 'live view action failed', actionId, boxId: entry.record.id, error: (err as Error)?.stack ?? String(err) });
    } finally {
      viewer.pending--;
    }
    deps.log({ level: 'info', msg: 'action', actionId, tenant: entry.tenant, boxId: entry.record.id, route, status, durationMs: Math.round((performance.now() - started) * 10) / 10, ...(failure ? { code: failure.code } : {}) });
    sendJson(viewer.ws, { type: 'action', id, actionId, ok: !failure, ...(failure ?? { message }) });
  }

  return {
    async close() {
      closed = true;
      for (const feed of feeds.values()) feed.stop();
      feeds.clear();
      for (const ws of sockets) ws.close(1001, 'the server is stopping');
      for (const ws of sockets) ws.terminate();
    },
  };
}
