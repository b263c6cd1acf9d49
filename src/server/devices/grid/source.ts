// A Linux box's browser as a Selenium Grid session: the grid starts Chrome on one of its nodes, and
// serve drives it through the session's DevTools endpoint (`se:cdp`, the browser endpoint proxied by
// the grid) exactly as it drives a local Chromium: one WebSocket to the grid carries what a local
// Chromium's pipe carries, behind the same CdpPipe, so Playwright, the raw page connections and the
// tenants' pre-signed CDP URLs all get their sessions of it as they do on a local box.
//
// The grid's proxy does not close that WebSocket when the browser dies, so each session is probed
// every heartbeatMs (GridClient.probe): a session the grid or its driver says is gone, or a grid that
// stops answering three probes in a row, ends the connection, and the box goes to `error`.
import { Readable, Writable } from 'node:stream';
import { WebSocket } from 'ws';
import { BoxflowError } from '../../../errors.js';
import type { Resolution } from '../../../api/schemas.js';
import { CdpPipe } from '../linux/chromium/cdpPipe.js';
import type { BrowserHandle, BrowserSource } from '../linux/chromium/source.js';
import type { GridClient, GridSession } from './client.js';

const kMaxPayload = 256 * 1024 * 1024; // screenshots of large pages are big
const kConnectTimeoutMs = 10_000;
const kReadyTimeoutMs = 30_000;
/** Probes in a row that get no answer from the grid before its session counts as lost. */
const kMissedProbes = 3;

export interface GridSourceOptions {
  /** Shown as the session's name in the grid's UI (`se:name`). */
  name: string;
  log?: (entry: Record<string, unknown>) => void;
}

/** The browser of a box on `grid`: one session for the box's life (closeBrowser disposes of a browser context in it). */
export function gridChromium(grid: GridClient, opts: GridSourceOptions): BrowserSource {
  return { kind: 'grid', start: (resolution) => startOnGrid(grid, resolution, opts) };
}

async function startOnGrid(grid: GridClient, resolution: Resolution, opts: GridSourceOptions): Promise<BrowserHandle> {
  const log = opts.log ?? (() => {});
  const session = await grid.newSession(resolution, opts.name);
  let ws: WebSocket;
  try {
    ws = await connectCdp(session, grid.headers);
  } catch (err) {
    await grid.deleteSession(session.id);
    throw err;
  }
  log({ level: 'info', msg: 'grid session started', grid: grid.where, session: session.id, browserVersion: session.browserVersion, name: opts.name });
  let reason: string | undefined;
  let killed = false;
  let heartbeat: NodeJS.Timeout | undefined;
  const exited = new Promise<void>((resolve) => {
    ws.once('close', (code) => {
      reason ??= `the grid closed the DevTools connection of its session ${session.id} (close code ${code})`;
      clearTimeout(heartbeat);
      resolve();
    });
  });
  const { out, input } = overWebSocket(ws);
  const devtools = await CdpPipe.open(out, input);
  void exited.then(() => devtools.close());

  let missed = 0;
  const beat = async () => {
    const state = await grid.probe(session.id);
    if (killed || ws.readyState !== WebSocket.OPEN) return;
    if (state.alive) missed = 0;
    else if (state.gone || ++missed >= kMissedProbes) {
      reason = state.gone ? `the grid session ${session.id} ended (its browser or node went away): ${state.reason}` : `lost the grid session ${session.id}: ${state.reason}, ${kMissedProbes} times in a row`;
      log({ level: 'warn', msg: 'grid session lost', grid: grid.where, session: session.id, reason });
      ws.terminate();
      return;
    }
    heartbeat = setTimeout(() => void beat(), grid.heartbeatMs).unref();
  };

  const kill = async () => {
    if (!killed) {
      killed = true;
      clearTimeout(heartbeat);
      const lost = ws.readyState !== WebSocket.OPEN;
      ws.terminate();
      devtools.close();
      const deleted = grid.deleteSession(session.id).then(() => log({ level: 'info', msg: 'grid session ended', grid: grid.where, session: session.id }));
      // A session that is already lost is deleted in the background: an unreachable grid must not hold the box's `error` back.
      if (!lost) await deleted;
    }
    await exited;
  };

  try {
    await bounded(devtools.version(), kReadyTimeoutMs, `the browser of grid session ${session.id} did not answer over DevTools within ${kReadyTimeoutMs / 1000} s`);
    // The driver opens its first tab on "data:,"; a box's first tab is blank (and reused by the first open).
    await grid.navigate(session.id, 'about:blank');
  } catch (err) {
    await kill();
    throw BoxflowError.is(err) ? err : new BoxflowError('BROWSER_ERROR', `grid session ${session.id}: ${(err as Error).message}`, { cause: err });
  }
  heartbeat = setTimeout(() => void beat(), grid.heartbeatMs).unref();
  return {
    devtools,
    exited,
    kill,
    goneReason: () => reason ?? `the grid session ${session.id} stopped answering over DevTools and was ended`,
  };
}

/** The session's DevTools endpoint: `se:cdp` as the grid gave it, else the same path on the grid's own URL. */
async function connectCdp(session: GridSession, headers: Record<string, string>): Promise<WebSocket> {
  try {
    return await openWebSocket(session.cdp, headers);
  } catch (first) {
    if (session.cdpViaGrid === session.cdp) throw cannotConnect(session, first);
    try {
      return await openWebSocket(session.cdpViaGrid, headers);
    } catch {
      throw cannotConnect(session, first);
    }
  }
}

function cannotConnect(session: GridSession, err: unknown): BoxflowError {
  return new BoxflowError('GRID_UNAVAILABLE', `cannot open the DevTools endpoint of grid session ${session.id} (se:cdp ${session.cdp}, or ${session.cdpViaGrid}): ${(err as Error).message}`, { cause: err });
}

function openWebSocket(url: string, headers: Record<string, string>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: kMaxPayload, handshakeTimeout: kConnectTimeoutMs, headers });
    ws.once('open', () => {
      ws.removeAllListeners('error');
      ws.on('error', () => ws.terminate());
      resolve(ws);
    });
    ws.once('error', reject);
  });
}

/**
 * A WebSocket as the stream pair of a `--remote-debugging-pipe` (NUL-terminated JSON messages), so
 * that CdpPipe serves it unchanged: each message from the grid is pushed with its NUL, each message
 * CdpPipe writes is sent as one text frame. The socket closing ends the readable side.
 */
function overWebSocket(ws: WebSocket): { out: Writable; input: Readable } {
  const nul = Buffer.alloc(1);
  const input = new Readable({ read() {} });
  ws.on('message', (data: Buffer) => {
    input.push(data);
    input.push(nul);
  });
  ws.once('close', () => input.destroy());
  let pending: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      let start = 0;
      for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
        pending.push(chunk.subarray(start, end));
        const text = Buffer.concat(pending).toString('utf8');
        pending = [];
        start = end + 1;
        if (ws.readyState === WebSocket.OPEN) ws.send(text);
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
      done();
    },
  });
  return { out, input };
}

function bounded<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BoxflowError('BROWSER_ERROR', message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
