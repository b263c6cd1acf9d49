// The web terminal: GET /terminal/<boxId>?exp&sig serves an xterm.js page; the same URL upgraded to
// a websocket runs the user's shell on a pty (node-pty) in the box's working dir. The signature and
// expiry are checked before the page is served and before the upgrade is accepted.
import { accessSync, constants } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { IPty } from 'node-pty';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { BoxflowError } from '../errors.js';
import type { BoxEntry } from './boxEntry.js';
import { findAdbClient, kAdbClientMissing } from './adb/androidBox.js';
import { hidePaths } from './boxFs.js';
import { firstLine, optionalPackage } from './optionalPackages.js';
import { boxEnv, isolatedShell } from './boxUser.js';
import { refuseUpgrade as refuse, verifyPresigned } from './secret.js';
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
const kSweepPollMs = 100;
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
  /** Handles an HTTP upgrade whose path starts with /terminal/. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Kills every shell and closes every socket; resolves once their processes are gone. */
  close(): Promise<void>;
}

interface Session {
  /** Resolves when the shell has exited and no process of its session is left. */
  done: Promise<void>;
  end(code: number, reason: string): void;
}

export function attachWebTerminal(app: FastifyInstance, deps: { secret: string; lookup: (boxId: string) => BoxEntry | undefined; log: (entry: Record<string, unknown>) => void }): WebTerminal {
  const wss = new WebSocketServer({ noServer: true, maxPayload: kMaxMessage, perMessageDeflate: false });
  const sessions = new Set<Session>();
  let closed = false;

  /** The signature first (so probing reveals nothing), then the box. */
  function checkedEntry(url: URL): BoxEntry {
    const m = kPathPattern.exec(url.pathname);
    if (!m) throw new BoxflowError('NOT_FOUND', `no terminal at ${url.pathname}`);
    verifyPresigned(deps.secret, url.pathname, url.searchParams);
    const entry = deps.lookup(decodeURIComponent(m[1]!));
    if (!entry) throw new BoxflowError('BOX_NOT_FOUND', 'the box no longer exists');
    if (entry.record.type !== 'linux' && !entry.android) throw new BoxflowError('WEB_TERMINAL_UNAVAILABLE', `box ${entry.record.id} is a ${entry.record.type} box; the web terminal is for Linux boxes`);
    requireUsable(entry);
    return entry;
  }

  app.get(`${kTerminalPrefix}:boxId`, async (req, reply) => {
    const url = new URL(req.url, 'http://localhost');
    const entry = checkedEntry(url);
    await webTerminalReady();
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', kCsp)
      .send(terminalPageHtml(entry.record.id));
  });

  app.get(`${kTerminalAssetPrefix}:file`, async (req, reply) => {
    const file = (req.params as { file: string }).file;
    const asset = (await loadAssets()).get(file);
    if (!asset) throw new BoxflowError('NOT_FOUND', `no terminal asset ${file}`);
    return reply.type(asset.type).header('cache-control', 'public, max-age=3600').header('x-content-type-options', 'nosniff').send(asset.body);
  });

  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    let entry: BoxEntry;
    let url: URL;
    try {
      if (closed) throw new BoxflowError('INTERNAL', 'the server is stopping');
      url = new URL(req.url ?? '/', 'http://localhost');
      entry = checkedEntry(url);
    } catch (err) {
      refuse(socket, err);
      return;
    }
    loadPty()
      .then((pty) => {
        if (closed) throw new BoxflowError('INTERNAL', 'the server is stopping');
        requireUsable(entry);
        wss.handleUpgrade(req, socket, head, (ws) => startSession(pty, ws, entry, url.searchParams));
      })
      .catch((err: unknown) => refuse(socket, err));
  }

  function startSession(mod: PtyModule, ws: WebSocket, entry: BoxEntry, query: URLSearchParams): void {
    ws.on('error', () => ws.terminate());
    const adb = entry.android?.terminalCommand();
    const cwd = adb ? tmpdir() : entry.workDir;
    const env = adb ? adb.env : boxEnv(entry.dir, entry.record.config.envs, { TERM: 'xterm-256color', COLORTERM: 'truecolor', PWD: cwd });
    const shell = adb ? adb.file : pickShell(env);
    // node-pty does not fail on a missing program (its child prints execvp's error and exits): look first.
    if (adb && !findAdbClient({ PATH: adb.env.PATH, BOXFLOW_ADB: adb.file })) {
      ws.close(1011, closeReason(`adb shell: ${kAdbClientMissing}`));
      return;
    }
    let pty: IPty;
    try {
      const isolated = !adb && entry.user ? isolatedShell(entry.user, env, [shell], cwd) : undefined;
      const argv = adb ? [adb.file, ...adb.args] : isolated ? isolated.argv : [shell];
      pty = mod.spawn(argv[0]!, argv.slice(1), { name: 'xterm-256color', cols: intIn(query.get('cols'), 2, 1000) ?? 80, rows: intIn(query.get('rows'), 1, 500) ?? 24, cwd: isolated ? '/' : cwd, env: isolated?.rootEnv ?? env });
    } catch (err) {
      ws.close(1011, closeReason(`cannot start ${basename(shell)}: ${hidePaths(firstLine(err))}`));
      return;
    }
    const pid = pty.pid;
    if (!adb) void entry.ledger.add(pid);
    let exited = false;
    let markExited!: () => void;
    const shellExited = new Promise<void>((r) => (markExited = r));
    let sweep: Promise<void> | undefined;
    const session: Session = { done: Promise.resolve(), end };
    sessions.add(session);

    function end(code: number, reason: string): void {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(code, closeReason(reason));
      if (sweep) return;
      sweep = endProcesses(pid, () => exited);
      session.done = Promise.all([shellExited, sweep]).then(() => {
        sessions.delete(session);
      });
    }

    const onBoxGone = () => {
      // onBrowserGone also fires when only the browser closes; the shell lives on until the box ends.
      if (entry.record.status === 'terminated') end(1001, 'the box was terminated');
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

    ws.on('message', (raw: RawData, isBinary: boolean) => {
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
    });
    ws.on('close', () => end(1000, 'the page went away'));
    deps.log({ level: 'info', msg: 'terminal opened', boxId: entry.record.id, tenant: entry.tenant, pid, shell });
  }

  return {
    upgrade,
    async close() {
      closed = true;
      for (const s of sessions) s.end(1001, 'the server is stopping');
      const waiting = [...sessions].map((s) => s.done);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      await Promise.all(waiting);
    },
  };
}

/**
 * Bytes node-pty holds for the pty, not yet taken by the kernel. node-pty (1.x) has no public
 * measure: its write stream keeps a queue of {buffer, offset}. Without one, 0 (no backpressure).
 */
function ptyQueued(pty: IPty): number {
  const queue = (pty as unknown as { _writeStream?: { _writeQueue?: { buffer: Buffer; offset: number }[] } })._writeStream?._writeQueue;
  if (!Array.isArray(queue)) return 0;
  let total = 0;
  for (const task of queue) total += task.buffer.length - task.offset;
  return total;
}

function requireUsable(entry: BoxEntry): void {
  const status = entry.record.status;
  if (status === 'terminated' || status === 'error') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} is ${status}`);
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
 * SIGHUP to the shell and every process of its session (background jobs live in their own process
 * groups), then SIGKILL to whatever is left after the grace time. The shell leads its session
 * (node-pty calls setsid), so the session id is its pid; Linux does not reuse it while a member lives.
 */
async function endProcesses(sid: number, shellExited: () => boolean): Promise<void> {
  const signalAll = async (sig: NodeJS.Signals): Promise<number> => {
    const members = await sessionMembers(sid);
    if (members === undefined) {
      // No /proc: the shell's process group is the best we can reach.
      if (!shellExited()) kill(-sid, sig);
      return shellExited() ? 0 : 1;
    }
    if (!shellExited() && !members.includes(sid)) members.push(sid);
    for (const p of members) kill(p, sig);
    return members.length;
  };
  if ((await signalAll('SIGHUP')) === 0) return;
  for (let waited = 0; waited < kKillGraceMs; waited += kSweepPollMs) {
    await new Promise((r) => setTimeout(r, kSweepPollMs));
    const left = await sessionMembers(sid);
    if (shellExited() && (left === undefined || left.length === 0)) return;
  }
  await signalAll('SIGKILL');
}

function kill(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Live (non-zombie) processes whose session id is `sid`; undefined without a readable /proc. */
async function sessionMembers(sid: number): Promise<number[] | undefined> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return undefined;
  }
  const found = await Promise.all(
    names
      .filter((n) => /^\d+$/.test(n))
      .map(async (n) => {
        try {
          const stat = await readFile(`/proc/${n}/stat`, 'utf8');
          // pid (comm) state ppid pgrp session …; comm may hold spaces and parentheses.
          const [state, , , session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          return state !== 'Z' && Number(session) === sid ? Number(n) : undefined;
        } catch {
          return undefined;
        }
      }),
  );
  return found.filter((p): p is number => p !== undefined);
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
