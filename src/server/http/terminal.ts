// The web terminal: GET /terminal/<boxId>?exp&sig serves an xterm.js page; the same URL upgraded to
// a websocket runs the user's shell on a pty (node-pty) in the box's working dir. The signature and
// expiry are checked before the page is served and before the upgrade is accepted.
import { facet } from '../devices/index.js';
import { accessSync, constants } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IPty } from 'node-pty';
import { WebSocket, type RawData } from 'ws';
import { BoxflowError } from '../../errors.js';
import { deviceOf, type BoxEntry } from '../boxes/boxEntry.js';
import { findAdbClient, kAdbClientMissing } from '../devices/android/androidBox.js';
import { hidePaths } from '../host/boxFs.js';
import { firstLine, optionalPackage } from '../host/optionalPackages.js';
import { boxEnv, isolatedLaunch, type IsolatedLaunch } from '../host/boxUser.js';
import { verifyPresigned } from './secret.js';
import { kTerminalAssetPrefix, kTerminalScript, terminalPageHtml } from './terminalPage.js';

type PtyModule = typeof import('node-pty');

export const kTerminalPrefix = '/terminal/';
const kPathPattern = /^\/terminal\/([^/]+)$/;
const kMaxMessage = 4 * 1024 * 1024; // a large paste
const kHighWater = 1024 * 1024;
const kLowWater = 64 * 1024;
/** Input the shell has not read yet, held by the server: past it, the socket is no longer read. */
const kInputHighWater = 1024 * 1024;
/** A shell that reads none of its pending input for this long loses its terminal. */
const kInputStallMs = 60_000;
const kInputPollMs = 50;
const kKillGraceMs = 2000; // SIGHUP first; SIGKILL for what ignores it
/** Open terminal sessions one box may have, and the whole server; more is refused (429) before the upgrade. */
export const kMaxTerminalsPerBox = 8;
export const kMaxTerminals = 256;
const kCsp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The path of a box's terminal page (and websocket); pre-sign it to make the URL. */
export function terminalPath(boxId: string): string {
  return `${kTerminalPrefix}${encodeURIComponent(boxId)}`;
}

const loadPty = optionalPackage<PtyModule>('node-pty', 'the web terminal', 'WEB_TERMINAL_UNAVAILABLE', () =>
  import('node-pty').then((m) => (m as { default?: PtyModule }).default ?? m),
);

const loadAssets = optionalPackage('@xterm/xterm', 'the web terminal', 'WEB_TERMINAL_UNAVAILABLE', async () => {
  const xtermMain = fileURLToPath(import.meta.resolve('@xterm/xterm')); // <pkg>/lib/xterm.js
  const root = join(dirname(xtermMain), '..');
  const [js, css] = await Promise.all([readFile(join(root, 'lib', 'xterm.js')), readFile(join(root, 'css', 'xterm.css'))]);
  return new Map<string, { type: string; body: Buffer | string }>([
    ['xterm.js', { type: 'text/javascript; charset=utf-8', body: js }],
    ['xterm.css', { type: 'text/css; charset=utf-8', body: css }],
    ['terminal.js', { type: 'text/javascript; charset=utf-8', body: kTerminalScript }],
  ]);
});

/** Resolves when node-pty and xterm.js are usable; else throws WEB_TERMINAL_UNAVAILABLE saying why. */
export async function webTerminalReady(): Promise<void> {
  const failed = (await Promise.allSettled([loadPty(), loadAssets()])).flatMap((r) => (r.status === 'rejected' ? [r.reason as BoxflowError] : []));
  // Both missing: one error that names both, so one install fixes it.
  if (failed.length > 1) throw new BoxflowError('WEB_TERMINAL_UNAVAILABLE', failed.map((e) => e.message).join('; '));
  if (failed[0]) throw failed[0];
}

export interface WebTerminal {
  /** Kills every shell and closes every socket; resolves once their processes are gone. */
  close(): Promise<void>;
}

interface Session {
  boxId: string;
  /** Resolves when the shell has exited and no process of its session is left. */
  done: Promise<void>;
  end(code: number, reason: string): void;
}

/** Registers the page, its assets and its websocket (after registerWebsockets). */
export function attachWebTerminal(app: FastifyInstance, deps: { secret: string; lookup: (boxId: string) => BoxEntry | undefined; log: (entry: Record<string, unknown>) => void }): WebTerminal {
  const sockets = new Set<WebSocket>();
  const sessions = new Set<Session>();
  let closed = false;

  /** The signature first (so probing reveals nothing), then the box. */
  function checkedEntry(url: URL): BoxEntry {
    const m = kPathPattern.exec(url.pathname);
    if (!m) throw new BoxflowError('NOT_FOUND', `no terminal at ${url.pathname}`);
    verifyPresigned(deps.secret, url.pathname, url.searchParams);
    const entry = deps.lookup(decodeURIComponent(m[1]!));
    if (!entry) throw new BoxflowError('BOX_NOT_FOUND', 'the box no longer exists');
    facet(entry, 'shell', 'webTerminalUrl');
    requireUsable(entry);
    return entry;
  }

  const admitted = new WeakMap<FastifyRequest, { entry: BoxEntry; pty: PtyModule }>();
  app.route({
    method: 'GET',
    url: `${kTerminalPrefix}:boxId`,
    config: { maxPayload: kMaxMessage },
    // The signature, the box and node-pty, before the upgrade.
    preValidation: async (req) => {
      if (!req.ws) return;
      if (closed) throw new BoxflowError('INTERNAL', 'the server is stopping');
      const entry = checkedEntry(new URL(req.url, 'http://localhost'));
      checkRoom(entry);
      const pty = await loadPty();
      if (closed) throw new BoxflowError('INTERNAL', 'the server is stopping');
      admitted.set(req, { entry, pty });
    },
    // The box and the room again, in the turn the handshake completes and startSession() counts the
    // session (a sync hook runs the handler at once, and ws calls back at once for a handshake it
    // accepts, never for one it refuses, which so holds no slot).
    preHandler: (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
      const entry = admitted.get(req)?.entry;
      if (!req.ws || !entry) return done();
      try {
        requireUsable(entry);
        checkRoom(entry);
      } catch (err) {
        return done(err as Error);
      }
      done();
    },
    handler: async (req, reply) => {
      const entry = checkedEntry(new URL(req.url, 'http://localhost'));
      await webTerminalReady();
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', kCsp)
        .send(terminalPageHtml(entry.record.id));
    },
    wsHandler: (ws, req) => {
      const { entry, pty } = admitted.get(req)!;
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      const query = new URL(req.url, 'http://localhost').searchParams;
      startSession(pty, ws, entry, query).catch((err: unknown) => ws.close(1011, closeReason(`cannot start the shell: ${hidePaths(firstLine(err))}`)));
    },
  });

  app.get(`${kTerminalAssetPrefix}:file`, async (req, reply) => {
    const file = (req.params as { file: string }).file;
    const asset = (await loadAssets()).get(file);
    if (!asset) throw new BoxflowError('NOT_FOUND', `no terminal asset ${file}`);
    return reply.type(asset.type).header('cache-control', 'public, max-age=3600').header('x-content-type-options', 'nosniff').send(asset.body);
  });

  function checkRoom(entry: BoxEntry): void {
    let forBox = 0;
    for (const s of sessions) if (s.boxId === entry.record.id) forBox++;
    if (forBox >= kMaxTerminalsPerBox) throw new BoxflowError('RATE_LIMITED', `box ${entry.record.id} already has ${forBox} open terminals, the most one box may have; close one first`);
    if (sessions.size >= kMaxTerminals) throw new BoxflowError('RATE_LIMITED', `this server already has ${sessions.size} open terminals, the most it allows; try again later`);
  }

  async function startSession(mod: PtyModule, ws: WebSocket, entry: BoxEntry, query: URLSearchParams): Promise<void> {
    ws.on('error', () => ws.terminate());
    // An Android box's shell is the device's (adb shell); a Linux box's runs here, in its directory.
    const host = entry.kind === 'android' ? { adb: deviceOf(entry).terminalCommand(), linux: undefined } : { adb: undefined, linux: entry };
    const adb = host.adb;
    const cwd = adb ? tmpdir() : host.linux.workDir;
    const env = adb ? adb.env : boxEnv(host.linux.dir, entry.record.config.envs, { TERM: 'xterm-256color', COLORTERM: 'truecolor', PWD: cwd });
    const shell = adb ? adb.file : pickShell(env);
    // node-pty does not fail on a missing program (its child prints execvp's error and exits): look first.
    if (adb && !findAdbClient({ PATH: adb.env.PATH, BOXFLOW_ADB: adb.file })) {
      ws.close(1011, closeReason(`adb shell: ${kAdbClientMissing}`));
      return;
    }
    // What the page sends while the shell starts is kept, and handed to it once it runs.
    const early: Array<[RawData, boolean]> = [];
    const keep = (raw: RawData, isBinary: boolean) => void early.push([raw, isBinary]);
    ws.on('message', keep);
    // Holds its place among the sessions from now on, so that the caps count it while it starts.
    let markExited!: () => void;
    const shellExited = new Promise<void>((r) => (markExited = r));
    const session: Session = { boxId: entry.record.id, done: shellExited, end: () => {} };
    sessions.add(session);
    let launch: IsolatedLaunch | undefined;
    let pty: IPty;
    try {
      launch = !adb && host.linux.user ? await isolatedLaunch(host.linux.user, host.linux.dir, env, { argv: [shell], exec: true }, cwd) : undefined;
      if (ws.readyState !== WebSocket.OPEN) throw new Error('the page went away');
      const argv = adb ? [adb.file, ...adb.args] : launch ? launch.argv : [shell];
      pty = mod.spawn(argv[0]!, argv.slice(1), { name: 'xterm-256color', cols: intIn(query.get('cols'), 2, 1000) ?? 80, rows: intIn(query.get('rows'), 1, 500) ?? 24, cwd: launch ? '/' : cwd, env: launch?.rootEnv ?? env });
    } catch (err) {
      sessions.delete(session);
      await launch?.done();
      ws.close(1011, closeReason(`cannot start ${basename(shell)}: ${hidePaths(firstLine(err))}`));
      return;
    }
    const pid = pty.pid;
    if (!adb) void host.linux.ledger.add(pid);
    let exited = false;
    let stopping: Promise<void> | undefined;
    session.end = end;
    session.done = shellExited.then(() => stopping).then(() => launch?.done());
    void session.done.then(() => sessions.delete(session));

    function end(code: number, reason: string): void {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(code, closeReason(reason));
      stopping ??= endProcesses(pid, launch, shellExited, () => exited);
    }

    const onBoxGone = () => {
      // onBrowserGone also fires when only the browser closes; the shell lives on until the box ends.
      // A stopped box's shells are ended with its processes (an Android box's adb shell here).
      if (entry.record.status === 'terminated' || entry.record.status === 'stopped') end(1001, `the box was ${entry.record.status}`);
    };
    entry.onBrowserGone.add(onBoxGone);

    let paused = false;
    const onSent = () => {
      if (paused && ws.bufferedAmount < kLowWater) {
        paused = false;
        pty.resume();
      }
    };
    pty.onData((data) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      ws.send(data, onSent);
      if (!paused && ws.bufferedAmount > kHighWater) {
        paused = true;
        pty.pause();
      }
    });
    pty.onExit(({ exitCode, signal: sig }) => {
      exited = true;
      entry.onBrowserGone.delete(onBoxGone);
      markExited();
      deps.log({ level: 'info', msg: 'terminal closed', boxId: entry.record.id, tenant: entry.tenant, pid, exitCode, signal: sig || undefined });
      end(1000, sig ? `the shell was killed (signal ${sig})` : `the shell exited (code ${exitCode})`);
    });

    // Input backpressure: node-pty queues what the pty cannot take yet. Past the high-water mark the
    // socket is paused (the client's frames wait in TCP), and resumed once the shell has read most of
    // it; a shell that reads nothing for kInputStallMs loses the terminal. So a tenant's input holds
    // at most kInputHighWater plus one frame of the server's memory.
    let inputPaused: NodeJS.Timeout | undefined;
    const pauseInput = () => {
      ws.pause();
      const since = Date.now();
      inputPaused = setInterval(() => {
        if (exited) return clearInterval(inputPaused);
        if (ptyQueued(pty) < kLowWater) {
          clearInterval(inputPaused);
          inputPaused = undefined;
          ws.resume();
        } else if (Date.now() - since > kInputStallMs) {
          clearInterval(inputPaused);
          end(1008, `the shell read none of its last ${Math.round(kInputHighWater / 1024)} KiB of input for ${kInputStallMs / 1000} s`);
        }
      }, kInputPollMs);
    };
    ws.on('close', () => clearInterval(inputPaused));

    const onMessage = (raw: RawData, isBinary: boolean) => {
      const msg = isBinary ? undefined : parseMessage(raw);
      if (!msg || exited) return;
      if (msg.type === 'input' && typeof msg.data === 'string') {
        pty.write(msg.data);
        if (!inputPaused && ptyQueued(pty) > kInputHighWater) pauseInput();
      }
      else if (msg.type === 'resize') {
        const cols = intIn(msg.cols, 2, 1000);
        const rows = intIn(msg.rows, 1, 500);
        if (cols !== undefined && rows !== undefined) pty.resize(cols, rows);
      }
    };
    ws.off('message', keep);
    for (const [raw, isBinary] of early.splice(0)) onMessage(raw, isBinary);
    ws.on('message', onMessage);
    ws.on('close', () => end(1000, 'the page went away'));
    deps.log({ level: 'info', msg: 'terminal opened', boxId: entry.record.id, tenant: entry.tenant, pid, shell });
  }

  return {
    async close() {
      closed = true;
      for (const s of sessions) s.end(1001, 'the server is stopping');
      const waiting = [...sessions].map((s) => s.done);
      for (const ws of sockets) ws.terminate();
      await Promise.all(waiting);
    },
  };
}

/**
 * Bytes node-pty holds for the pty, not yet taken by the kernel. node-pty (1.x) has no public
 * measure: its write stream keeps a queue of {buffer, offset}. Without one, 0 (no backpressure).
 */
function ptyQueued(pty: IPty): number {
  const stream: unknown = Reflect.get(pty, '_writeStream');
  const queue: unknown = stream && typeof stream === 'object' ? Reflect.get(stream, '_writeQueue') : undefined;
  if (!Array.isArray(queue)) return 0;
  let total = 0;
  for (const task of queue as Array<{ buffer: Buffer; offset: number }>) total += task.buffer.length - task.offset;
  return total;
}

function requireUsable(entry: BoxEntry): void {
  const status = entry.record.status;
  if (status === 'terminated' || status === 'error' || status === 'stopped') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} is ${status}`);
}

/** $SHELL of the box's envs, else /bin/bash, else /bin/sh. */
function pickShell(env: Record<string, string>): string {
  for (const candidate of [env.SHELL, '/bin/bash']) {
    if (!candidate || !isAbsolute(candidate)) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there or not executable: try the next
    }
  }
  return '/bin/sh';
}

/**
 * SIGHUP to the shell, then SIGKILL to what is left after the grace time. Isolated, the shell is the
 * first process of its own pid namespace: once it ends, the kernel kills every process left in that
 * namespace (background jobs, `nohup` and `setsid` ones included), so SIGKILL to it after the grace
 * time ends them all. Not isolated (no root), its process group is what is reached: bash passes the
 * hangup on to its jobs; a process that left the group escapes (nothing of the box is isolated then).
 * No scan of /proc: the kernel does the finding.
 */
async function endProcesses(pid: number, launch: IsolatedLaunch | undefined, shellExited: Promise<void>, exited: () => boolean): Promise<void> {
  const shell = () => launch?.programPid(pid) ?? pid;
  if (!exited()) kill(launch ? shell() : -pid, 'SIGHUP');
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<boolean>((r) => (timer = setTimeout(() => r(true), kKillGraceMs)));
  const gone = await Promise.race([shellExited.then(() => false), graceOver]);
  clearTimeout(timer);
  if (!launch) {
    kill(-pid, 'SIGKILL');
  } else if (!exited()) {
    const first = launch.programPid(pid);
    kill(-pid, 'SIGKILL'); // the launcher, and the chain while it is still in its group
    if (first !== undefined) kill(first, 'SIGKILL');
  }
  if (gone) await shellExited;
}

function kill(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

function parseMessage(raw: RawData): { type?: unknown; data?: unknown; cols?: unknown; rows?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString());
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

function intIn(value: unknown, min: number, max: number): number | undefined {
  const n = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
}

/** A close reason must fit in 123 bytes of UTF-8. */
function closeReason(text: string): string {
  if (Buffer.byteLength(text) <= 123) return text;
  let out = text;
  while (Buffer.byteLength(out) > 120) out = out.slice(0, -1);
  return `${out}…`;
}
