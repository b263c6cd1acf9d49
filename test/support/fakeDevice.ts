// TEST DOUBLE, shared by both fake adb paths: the simulated device (its command table replaying the
// captures of test/fixtures/android, its files, packages and input state) and the device services
// that do not depend on how a stream reaches the device — `sync:` and the interactive `shell:` —
// written against a plain byte stream (ServiceIO).
//
// - test/support/fakeAdbServer.ts speaks the adb HOST protocol (what adbkit talks to an adb
//   server) and serves these devices itself: fast, for unit-level tests.
// - test/support/fakeAdbDevice.ts speaks the device side of the adb TRANSPORT protocol (what adbd
//   speaks) over TCP, so a real `adb` server can `adb connect` to it: adbkit → real adb server →
//   this device model.
//
// The command table: one regular expression per command, each reply naming the fixture it replays
// or marked "constructed" (the AOSP/toybox format code, where no permissively licensed capture
// exists; SOURCES.md lists which). A command line is read as the device's `sh -c` reads it: split at
// unquoted `;`, each command run in turn; a line with a character outside quotes that the backend
// never sends bare is recorded in `unquotedLines`. A command the table does not know is a failure
// naming it (each fake reports it its own way), so a test cannot pass by accident.
import type { Socket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ApkReader from '@devicefarmer/adbkit-apkreader';

export const kAndroidFixtures = join(import.meta.dirname, '../fixtures/android');
export const fixture = (name: string): Buffer => readFileSync(join(kAndroidFixtures, name));

export type DeviceState = 'device' | 'offline' | 'unauthorized';

export interface FakeFile {
  data: Buffer;
  /** Full st_mode (S_IFREG | perms or S_IFDIR | perms). */
  mode: number;
  mtime: number;
  /**
   * What RECV sends instead of `data`, chunk by chunk, while the reader takes it: a file whose read
   * does not end (a link to /dev/zero; STAT, adbd's lstat, still gives `data`'s length, the link's
   * own). The fake adb server's sync (fakeAdbServer.ts) plays it.
   */
  recv?: () => AsyncIterable<Buffer>;
}

export interface Installed {
  packageName: string;
  apkPath: string;
  system: boolean;
  versionName: string;
  launcher?: string;
  /** The package's activities (full class names); when given, `am start` of another says it does not exist. */
  activities?: string[];
}

/**
 * What a handler returns: output bytes (the socket then closes), a FAIL, or output that comes over
 * time (`stream`: each chunk written as it is yielded, then the socket closes).
 */
export type Reply = string | Buffer | { fail: string } | { stream: AsyncIterable<string | Buffer> } | Split;

/** A command's stdout and stderr apart (a v2 shell carries them apart; the legacy `shell:` joins them, stdout first). */
export interface Split {
  out: string | Buffer;
  err: string | Buffer;
}

export const isSplit = (reply: Reply): reply is Split => typeof reply === 'object' && !Buffer.isBuffer(reply) && 'err' in reply;

/** The bytes a legacy `shell:` stream carries for a reply that is not a stream: stdout and stderr as one. */
export function joined(reply: Exclude<Reply, { stream: AsyncIterable<string | Buffer> }>): Buffer {
  if (isSplit(reply)) return Buffer.concat([Buffer.from(reply.out), Buffer.from(reply.err)]);
  return Buffer.from(typeof reply === 'object' && !Buffer.isBuffer(reply) ? reply.fail : reply);
}

/** Whether a reply is output that comes over time. */
export function isStreamReply(reply: Reply): reply is { stream: AsyncIterable<string | Buffer> } {
  return typeof reply === 'object' && !Buffer.isBuffer(reply) && 'stream' in reply;
}

/** A reply's output bytes, all of it (a stream read to its end); a FAIL as its text. */
export async function replyBytes(reply: Reply): Promise<Buffer> {
  if (isStreamReply(reply)) {
    const parts: Buffer[] = [];
    for await (const chunk of reply.stream) parts.push(Buffer.from(chunk));
    return Buffer.concat(parts);
  }
  return joined(reply);
}

/** Writes a reply's output as it comes; stops when `closed()` says the reader went away. */
export async function writeReply(reply: Exclude<Reply, { fail: string }>, write: (chunk: Buffer) => unknown, closed: () => boolean): Promise<void> {
  if (!isStreamReply(reply)) return void (await write(joined(reply)));
  for await (const chunk of reply.stream) {
    if (closed()) return;
    await write(Buffer.from(chunk));
  }
}
type Handler = (m: RegExpExecArray, dev: FakeDevice, stdin: Buffer) => Reply | Promise<Reply>;

const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

/** The state of one simulated device; tests read and change it directly. */
export class FakeDevice {
  state: DeviceState = 'device';
  /** Every `shell:`/`exec:`/`sync:` request line, exactly as received after host:transport. */
  readonly services: string[] = [];
  /** Every sync request, e.g. `STAT /sdcard/x`, `SEND /data/local/tmp/a,33188`. */
  readonly syncRequests: string[] = [];
  /** `shell:`/`exec:` lines with a character outside quotes that the backend never sends bare (see splitShellLine). */
  readonly unquotedLines: string[] = [];
  props: Record<string, string> = {
    'ro.build.version.release': '13',
    'ro.build.version.sdk': '33',
    'ro.product.manufacturer': 'Google',
    'ro.product.model': 'Pixel 6',
    'ro.kernel.qemu': '0',
  };
  /** A `uiautomator dump /dev/tty` capture replayed byte for byte. */
  layoutFixture = 'sharpadb_DumpScreen.txt';
  /** What `uiautomator dump <file>` writes into the file. */
  layoutFileFixture = 'homee_welcome-login_two-windows_systemui.xml';
  /** PNG bytes `screencap -p` writes. Default: a real Chromium capture (no device PNG is licensed here). */
  screen: Buffer = fixture('../visual/base.png');
  physicalSize = { width: 1080, height: 2400 };
  overrideSize: { width: number; height: number } | undefined;
  packages: Installed[] = [];
  running = new Set<string>();
  readonly files = new Map<string, FakeFile>();
  /** The focused text field's content (what typing and key events change). */
  field = '';
  #selectAll = false;
  enterPresses = 0;
  /** Everything typed into the focused field, in order: inserted text, and `\n` for each Enter (keyevent 66). */
  inputLog = '';
  /** The `system` table of the settings provider (`settings get system KEY` prints `null` for a key not in it). */
  readonly systemSettings = new Map<string, string>([['accelerometer_rotation', '1'], ['user_rotation', '0']]);
  /** Whether the soft keyboard is up (`dumpsys input_method` says mInputShown=…); back closes it first. */
  keyboardShown = false;
  /** Back presses that reached the app (not the ones that closed the keyboard). */
  backPresses = 0;
  /** Which activity takes a VIEW intent for a URL; the first match wins, none is "unable to resolve". */
  linkHandlers: Array<{ url: RegExp; activity: string }> = [{ url: /^https?:\/\//i, activity: 'com.android.chrome/com.google.android.apps.chrome.Main' }];
  /** URLs opened through VIEW intents. */
  readonly openedLinks: string[] = [];
  /** Packages whose data `pm clear` wiped. */
  readonly cleared: string[] = [];
  /** Packages `pm uninstall` removed (`keepData`: with `-k`). */
  readonly uninstalled: Array<{ packageName: string; keepData: boolean }> = [];
  /** The string extras (`--es KEY VALUE`) of every launcher `am start`, in order. */
  readonly extrasStarted: Array<Record<string, string>> = [];
  imes = ['com.android.inputmethod.latin/.LatinIME'];
  ime = 'com.android.inputmethod.latin/.LatinIME';
  readonly enabledImes = new Set(['com.android.inputmethod.latin/.LatinIME']);
  /** Install sessions: id → split names written. */
  readonly sessions = new Map<number, { total: number; written: Array<{ name: string; data: Buffer }>; committed: boolean }>();
  readonly installs: Array<{ kind: 'single' | 'session'; names: string[]; bytes: number[] }> = [];
  /** Exit status of the last `sh -c` line (127: a command the fake does not know), which `echo $?` prints. */
  lastExit = 0;
  /** adbd's transport features (the adb server answers them to `host-serial:SERIAL:features`); `shell_v2` enables `shell,v2,raw:`. */
  features: string[] = ['cmd'];
  /**
   * Paths the device's shell user may not read (constructed from Linux permissions as adbd meets
   * them): a directory here is not listed (LIST sends no entry, `ls` says Permission denied) and
   * nothing under it can be reached (STAT answers zeros, as adbd's failed lstat; RECV and SEND
   * fail); a file here is seen but not opened.
   */
  readonly denied = new Set<string>();
  /** Extra handlers a test adds; tried before the built-in ones. */
  readonly overrides: Array<[RegExp, Handler]> = [];
  readonly #sockets = new Set<Socket>();
  #nextSession = 1000;

  constructor(readonly serial: string) {
    this.mkdirs('/sdcard');
    this.mkdirs('/data/local/tmp');
  }

  /** Shell command lines (without the `shell:` prefix), in order. */
  get shellCommands(): string[] {
    return this.services.filter((s) => s.startsWith('shell:')).map((s) => s.slice(6));
  }

  /** Replies to command lines matching `pattern` (anchored by the caller) before the defaults. */
  on(pattern: RegExp, handler: Handler): void {
    this.overrides.unshift([pattern, handler]);
  }

  /** `self`: the path is in `denied`; `under`: a folder on its way is; undefined: readable. */
  denies(path: string): 'self' | 'under' | undefined {
    if (this.denied.has(path)) return 'self';
    for (let at = path.slice(0, path.lastIndexOf('/')); at; at = at.slice(0, at.lastIndexOf('/'))) if (this.denied.has(at)) return 'under';
    return undefined;
  }

  mkdirs(path: string): void {
    let cur = '';
    for (const part of path.split('/').filter(Boolean)) {
      cur += `/${part}`;
      if (!this.files.has(cur)) this.files.set(cur, { data: Buffer.alloc(0), mode: S_IFDIR | 0o771, mtime: 1_700_000_000 });
    }
  }

  writeFile(path: string, data: Buffer | string, mode = 0o644): void {
    this.mkdirs(path.slice(0, path.lastIndexOf('/')) || '/');
    this.files.set(path, { data: Buffer.from(data), mode: S_IFREG | (mode & 0o7777), mtime: 1_700_000_000 });
  }

  /**
   * A symbolic link to /dev/zero at `path`: STAT (an lstat) gives the link (9 bytes), RECV reads
   * zeros until the reader closes the connection. `sent` counts the bytes RECV sent; `closed`
   * resolves once a RECV of it has stopped sending, the reader having gone away.
   */
  linkToZero(path: string): { sent: () => number; closed: Promise<void> } {
    let sent = 0;
    let stopped!: () => void;
    const closed = new Promise<void>((r) => (stopped = r));
    const zeros = Buffer.alloc(65536);
    this.mkdirs(path.slice(0, path.lastIndexOf('/')) || '/');
    this.files.set(path, {
      data: Buffer.from('/dev/zero'),
      mode: S_IFLNK | 0o777,
      mtime: 1_700_000_000,
      recv: async function* () {
        try {
          for (;;) {
            yield zeros;
            sent += zeros.length;
          }
        } finally {
          stopped();
        }
      },
    });
    return { sent: () => sent, closed };
  }

  /** Called by the server when the device goes away: adb closes its open streams. */
  dropConnections(): void {
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }

  track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  // ------------------------------------------------------------ the command model

  /** Bytes of stdin a command reads before answering (`-S <size>` of the streaming installs). */
  stdinBytes(line: string): number {
    const m = /^exec:cmd package (?:install|install-write) -S (\d+)/.exec(line);
    return m ? Number(m[1]) : 0;
  }

  /**
   * Runs a `shell:`/`exec:` line as sh would: each `;`-separated command in turn, their outputs
   * joined. A line with an unknown command FAILs as a whole. `check` (the default) records a line
   * with an unquoted metacharacter in unquotedLines (the web terminal's typed lines are not checked).
   */
  run(line: string, stdin: Buffer, check = true): Reply | Promise<Reply> {
    const kind = line.startsWith('exec:') ? 'exec' : 'shell';
    const { commands, unquoted } = splitShellLine(line.slice(kind.length + 1));
    if (check && unquoted.length) this.unquotedLines.push(line);
    const handlers = [...this.overrides, ...this.#handlers(kind)];
    const find = (cmd: string) => {
      for (const [re, fn] of handlers) {
        re.lastIndex = 0;
        const m = re.exec(cmd);
        if (m) {
          return (): Reply | Promise<Reply> => {
            try {
              return fn(m, this, stdin);
            } catch (err) {
              return { fail: (err as Error).message };
            }
          };
        }
      }
      return undefined;
    };
    const runs = commands.map((cmd) => ({ cmd, run: find(cmd) }));
    const unknown = runs.find((r) => !r.run);
    if (unknown || !runs.length) return { fail: `fake adb server: unknown ${kind} command: ${unknown?.cmd ?? line}` };
    if (runs.length === 1) return runs[0]!.run!();
    return (async (): Promise<Reply> => {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      for (const [i, r] of runs.entries()) {
        const reply = await r.run!();
        // Output that comes over time: what came before, it, then the rest of the line in turn.
        if (isStreamReply(reply)) {
          const rest = runs.slice(i + 1);
          return {
            stream: (async function* () {
              if (out.length) yield Buffer.concat(out);
              yield* reply.stream;
              for (const later of rest) {
                const next = await later.run!();
                if (isStreamReply(next)) yield* next.stream;
                else yield isFail(next) ? Buffer.from(`${next.fail}\n`) : joined(next);
              }
            })(),
          };
        }
        if (isSplit(reply)) {
          out.push(Buffer.from(reply.out));
          err.push(Buffer.from(reply.err));
        } else out.push(Buffer.from(isFail(reply) ? `${reply.fail}\n` : reply));
      }
      return err.length ? { out: Buffer.concat(out), err: Buffer.concat(err) } : Buffer.concat(out);
    })();
  }

  #handlers(kind: 'shell' | 'exec'): Array<[RegExp, Handler]> {
    if (kind === 'exec') return this.#execHandlers;
    return this.#shellHandlers;
  }

  readonly #execHandlers: Array<[RegExp, Handler]> = [
    [/^screencap -p$/, (_m, d) => d.screen],
    [/^cmd package install -S (\d+)$/, async (m, d, stdin) => {
      d.installs.push({ kind: 'single', names: ['base.apk'], bytes: [stdin.length] });
      if (stdin.length !== Number(m[1])) return `Failure [INSTALL_FAILED_INVALID_APK: expected ${m[1]} bytes, got ${stdin.length}]\n`;
      return (await d.#register([stdin])) ?? 'Success\n';
    }],
    [/^cmd package install-create -S (\d+)$/, (m, d) => {
      const id = d.#nextSession++;
      d.sessions.set(id, { total: Number(m[1]), written: [], committed: false });
      return `Success: created install session [${id}]\n`;
    }],
    [/^cmd package install-write -S (\d+) (\d+) (.+) -$/, (m, d, stdin) => {
      const s = d.sessions.get(Number(m[2]));
      if (!s) return `Error: java.lang.SecurityException: Caller has no access to session ${m[2]}\n`;
      s.written.push({ name: word(m[3]!), data: stdin });
      return `Success: streamed ${stdin.length} bytes\n`;
    }],
    [/^cmd package install-commit (\d+)$/, async (m, d) => {
      const s = d.sessions.get(Number(m[1]));
      if (!s) return `Failure [INSTALL_FAILED_INTERNAL_ERROR: no session ${m[1]}]\n`;
      s.committed = true;
      d.installs.push({ kind: 'session', names: s.written.map((w) => w.name), bytes: s.written.map((w) => w.data.length) });
      return (await d.#register(s.written.map((w) => w.data))) ?? 'Success\n';
    }],
    [/^cmd package install-abandon (\d+)$/, (m, d) => (d.sessions.delete(Number(m[1])), 'Success\n')],
  ];

  readonly #shellHandlers: Array<[RegExp, Handler]> = [
    // The commands endpoint's line (src/server/devices/android/commands.ts): `sh -c '<command>'` runs the
    // command as a line of its own (exit status 127 and sh's message on stderr when the fake does not
    // know it), `echo` prints its words, `$?` as that status. `2>FILE` after it (the legacy path)
    // writes its stderr to FILE.
    [/^sh -c (.+)$/s, async (m, d, stdin) => {
      const [script = '', redirect] = shellWords(m[1]!);
      d.lastExit = 0;
      let reply = await d.run(`shell:${script}`, stdin, false);
      if (isFail(reply)) {
        d.lastExit = 127;
        reply = { out: '', err: `${reply.fail}\n` };
      }
      if (!redirect?.startsWith('2>')) return reply;
      if (isStreamReply(reply)) return reply;
      d.writeFile(redirect.slice(2), isSplit(reply) ? Buffer.from(reply.err) : '');
      return isSplit(reply) ? reply.out : reply;
    }],
    // constructed (toybox ls: errors on stderr as `ls: PATH: REASON`, status 1): `-ld` one line per
    // path, else the names in a directory; `denied` paths as adbd's shell user meets them
    [/^ls(?: (-a|-ld))? (.+)$/, (m, d) => {
      const out: string[] = [];
      const err: string[] = [];
      for (const path of shellWords(m[2]!)) {
        const f = d.files.get(path);
        const why = d.denies(path);
        const dir = !!f && (f.mode & S_IFDIR) === S_IFDIR;
        if (why === 'under' || (why === 'self' && dir && m[1] !== '-ld')) err.push(`ls: ${path}: Permission denied`);
        else if (!f) err.push(`ls: ${path}: No such file or directory`);
        else if (m[1] === '-ld' || !dir) out.push(m[1] === '-ld' ? `${dir ? 'drwxrwx--x' : '-rw-rw----'} 2 root sdcard_rw ${f.data.length} 2023-11-14 22:13 ${path}` : path);
        else out.push(...(m[1] === '-a' ? ['.', '..'] : []), ...[...d.files.keys()].filter((k) => k.startsWith(`${path}/`) && !k.slice(path.length + 1).includes('/')).map((k) => k.slice(path.length + 1)).sort());
      }
      d.lastExit = err.length ? 1 : 0;
      const text = (lines: string[]) => (lines.length ? `${lines.join('\n')}\n` : '');
      return err.length ? { out: text(out), err: text(err) } : text(out);
    }],
    // `exit N` inside a command's `sh -c`: its status (what `echo $?` prints after it).
    [/^exit (\d+)$/, (m, d) => ((d.lastExit = Number(m[1])), '')],
    [/^echo (.*)$/, (m, d) => `${shellWords(m[1]!.replaceAll('$?', String(d.lastExit))).join(' ')}\n`],
    // run-code's line (src/server/http/endpoints/files.ts), inside its `sh -c`: `cd <dir> || exit 1` (sh's
    // message for a dir that is not there), `export NAME=<value>` and `set -- <argv>` print nothing.
    [/^cd (.+) \|\| exit 1$/, (m, d) => (d.files.has(shellWords(m[1]!)[0]!) ? '' : `/system/bin/sh: cd: ${shellWords(m[1]!)[0]}: No such file or directory\n`)],
    [/^export [A-Za-z_][A-Za-z0-9_]*=.*$/s, () => ''],
    [/^set -- .*$/s, () => ''],
    // constructed: `[key]: [value]` lines, the format adbkit's getProperties parses
    [/^getprop$/, (_m, d) => Object.entries(d.props).map(([k, v]) => `[${k}]: [${v}]`).join('\n') + '\n'],
    [/^getprop ([\w.]+)$/, (m, d) => `${d.props[m[1]!] ?? ''}\n`],
    // real: AdvancedSharpAdbClient's `uiautomator dump /dev/tty` captures, replayed byte for byte
    [/^uiautomator dump \/dev\/tty$/, (_m, d) => fixture(d.layoutFixture)],
    // a dump to a file writes the document there (a file capture: homee_… by default)
    [/^uiautomator dump (.+)$/, (m, d) => {
      const file = word(m[1]!);
      d.writeFile(file, fixture(d.layoutFileFixture));
      return `UI hierchary dumped to: ${file}\n`;
    }],
    [/^input tap (-?[\d.]+) (-?[\d.]+)$/, () => ''],
    [/^input swipe (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (\d+)$/, () => ''],
    [/^input motionevent (DOWN|MOVE|UP) (-?[\d.]+) (-?[\d.]+)$/, () => ''],
    [/^input keyevent((?: \d+)+)$/, (m, d) => {
      for (const code of m[1]!.trim().split(' ').map(Number)) d.#key(code);
      return '';
    }],
    [/^input keycombination((?: \d+){2,})$/, (m, d) => {
      if (Number(d.props['ro.build.version.sdk']) < 31) return 'Error: Unknown command: keycombination\n';
      const codes = m[1]!.trim().split(' ').map(Number);
      if (codes.join(' ') === '113 29') d.#selectAll = true;
      return '';
    }],
    [/^input text (.+)$/s, (m, d) => {
      const words = shellWords(m[1]!);
      if (words.length !== 1) return `Error: input text takes one argument, got ${words.length}\n`;
      const text = words[0]!.replaceAll('%s', ' ');
      // KeyCharacterMap.getEvents() returns null for what the virtual keyboard cannot type
      // (constructed from InputShellCommand.sendText; ADBKeyBoard README: `input text '你好嗎'` fails).
      if (/[^\x20-\x7e]/.test(text)) return "Exception occurred while executing 'text':\njava.lang.NullPointerException: Attempt to get length of null array\n";
      d.#insert(text);
      return '';
    }],
    // constructed (WindowManagerShellCommand format)
    [/^wm size$/, (_m, d) => `Physical size: ${d.physicalSize.width}x${d.physicalSize.height}\n${d.overrideSize ? `Override size: ${d.overrideSize.width}x${d.overrideSize.height}\n` : ''}`],
    [/^wm size (\d+)x(\d+)$/, (m, d) => ((d.overrideSize = { width: Number(m[1]), height: Number(m[2]) }), '')],
    [/^wm size reset$/, (_m, d) => ((d.overrideSize = undefined), '')],
    // real: `pm list packages -f` of a Rockchip device (pm-list-packages-f_rockchip-tvbox_152pkgs.txt)
    // plus what was installed; `-3` is constructed from the same list (PackageManagerShellCommand format).
    [/^pm list packages -f$/, (_m, d) => d.packages.map((p) => `package:${p.apkPath}=${p.packageName}`).join('\n') + '\n'],
    [/^pm list packages -3$/, (_m, d) => d.packages.filter((p) => !p.system).map((p) => `package:${p.packageName}`).join('\n') + '\n'],
    // constructed, the same format: `-f -3` third-party packages with their paths, `-f -s` system ones (GET packages/simple)
    [/^pm list packages -f -(3|s)$/, (m, d) => d.packages.filter((p) => p.system === (m[1] === 's')).map((p) => `package:${p.apkPath}=${p.packageName}`).join('\n') + '\n'],
    // constructed (PackageManagerShellCommand.runUninstall): `Success`, or `Failure [DELETE_FAILED_INTERNAL_ERROR]` (not installed, or a system package)
    [/^pm uninstall (-k )?(.+)$/, (m, d) => {
      const pkg = word(m[2]!);
      const p = d.packages.find((x) => x.packageName === pkg);
      if (!p || p.system) return 'Failure [DELETE_FAILED_INTERNAL_ERROR]\n';
      d.packages = d.packages.filter((x) => x !== p);
      d.running.delete(pkg);
      d.uninstalled.push({ packageName: pkg, keepData: !!m[1] });
      return 'Success\n';
    }],
    // constructed: toybox `ps -A -o NAME`
    [/^ps -A -o NAME$/, (_m, d) => `NAME\ninit\nsystem_server\n${[...d.running].join('\n')}\n`],
    [/^dumpsys package (.+)$/, (m, d) => d.#dumpsysPackage(word(m[1]!))],
    // constructed: `query-activities --components` prints one flattened component per line
    [/^cmd package query-activities --components -a android\.intent\.action\.MAIN -c android\.intent\.category\.LAUNCHER$/, (_m, d) =>
      d.packages.filter((p) => p.launcher).map((p) => `${p.packageName}/${p.launcher}`).join('\n') + '\n'],
    [/^pm path (.+)$/, (m, d) => d.packages.filter((p) => p.packageName === word(m[1]!)).map((p) => `package:${p.apkPath}\n`).join('')],
    [/^pm clear (.+)$/, (m, d) => {
      const pkg = word(m[1]!);
      return d.packages.some((p) => p.packageName === pkg) ? (d.cleared.push(pkg), 'Success\n') : 'Failed\n';
    }],
    [/^am force-stop (.+)$/, (m, d) => (d.running.delete(word(m[1]!)), '')],
    // constructed (ActivityManagerShellCommand): `-n PKG/CLS`, then `--es KEY VALUE` pairs
    [/^am start -a android\.intent\.action\.MAIN -c android\.intent\.category\.LAUNCHER -n (.+)$/s, (m, d) => {
      const [component, ...extras] = shellWords(m[1]!);
      if (extras.length % 3 || extras.some((w, i) => i % 3 === 0 && w !== '--es')) return `Error: bad arguments: ${extras.join(' ')}\n`;
      const [pkg, cls] = [component!.slice(0, component!.indexOf('/')), component!.slice(component!.indexOf('/') + 1)];
      d.extrasStarted.push(Object.fromEntries(extras.flatMap((w, i) => (i % 3 === 1 ? [[w, extras[i + 1]!]] : []))));
      const installed = d.packages.find((p) => p.packageName === pkg);
      if (!installed || (installed.activities && !installed.activities.includes(cls.startsWith('.') ? pkg + cls : cls))) return `Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] cmp=${pkg}/${cls} }\nError type 3\nError: Activity class {${pkg}/${cls}} does not exist.\n`;
      d.running.add(pkg);
      return `Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] cmp=${pkg}/${cls} }\n`;
    }],
    // constructed: `am start -W` output (ActivityManagerShellCommand: Starting, Status, Activity, times, Complete;
    // the "unable to resolve Intent" error of an intent no activity takes)
    [/^am start -W -a android\.intent\.action\.VIEW -d (.+)$/s, (m, d) => {
      const url = shellWords(m[1]!)[0]!;
      const handler = d.linkHandlers.find((h) => h.url.test(url));
      const intent = `Intent { act=android.intent.action.VIEW dat=${url} }`;
      if (!handler) return `Starting: ${intent}\nError: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW dat=${url} flg=0x10000000 }\n`;
      d.openedLinks.push(url);
      d.running.add(handler.activity.split('/')[0]!);
      return `Starting: ${intent}\nStatus: ok\nLaunchState: COLD\nActivity: ${handler.activity}\nTotalTime: 412\nWaitTime: 415\nComplete\n`;
    }],
    // constructed: the lines of InputMethodManagerService.dump around mInputShown (Android 13 layout)
    [/^dumpsys input_method$/, (_m, d) =>
      `Current Input Method Manager state:\n  Input Methods: mMethodMapUpdateCount=2 mBindInstantServiceAllowed=false\n  mCurMethodId=${d.ime}\n  mCurSeq=3 mCurClient=ClientState{a1b2c3 uid=10123 pid=4567 displayId=0}\n  mShowRequested=${d.keyboardShown} mShowExplicitlyRequested=false mShowForced=false mInputShown=${d.keyboardShown}\n  mImeWindowVis=${d.keyboardShown ? 3 : 0}\n`],
    // constructed (SettingsService's shell command): `get` prints the value or `null`, `put` nothing, `delete` how many rows went
    [/^settings get system (\w+)$/, (m, d) => `${d.systemSettings.get(m[1]!) ?? 'null'}\n`],
    [/^settings put system (\w+) (-?\d+)$/, (m, d) => (d.systemSettings.set(m[1]!, m[2]!), '')],
    [/^settings delete system (\w+)$/, (m, d) => `Deleted ${d.systemSettings.delete(m[1]!) ? 1 : 0} rows\n`],
    // IME switching and ADBKeyBoard's broadcast (constructed from its README and `am broadcast` output)
    [/^settings get secure default_input_method$/, (_m, d) => `${d.ime}\n`],
    [/^ime list -a -s$/, (_m, d) => d.imes.join('\n') + '\n'],
    [/^ime enable (.+)$/, (m, d) => {
      const ime = word(m[1]!);
      return d.imes.includes(ime) ? (d.enabledImes.add(ime), `Input method ${ime}: now enabled\n`) : `Unknown input method ${ime} cannot be enabled for user #0\n`;
    }],
    [/^ime set (.+)$/, (m, d) => {
      const ime = word(m[1]!);
      return d.enabledImes.has(ime) ? ((d.ime = ime), `Input method ${ime} selected for user #0\n`) : `Unknown input method ${ime} cannot be selected for user #0\n`;
    }],
    [/^am broadcast -a ADB_INPUT_B64 --es msg (.+)$/, (m, d) => {
      const msg = word(m[1]!);
      if (!/^[A-Za-z0-9+/=]+$/.test(msg)) return `Error: not base64: ${msg.slice(0, 40)}\n`;
      if (d.ime === 'com.android.adbkeyboard/.AdbIME') d.#insert(Buffer.from(msg, 'base64').toString('utf8'));
      return 'Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n';
    }],
    [/^am broadcast -a android\.intent\.action\.MEDIA_SCANNER_SCAN_FILE -d (.+)$/, (m) => `Broadcasting: Intent { act=android.intent.action.MEDIA_SCANNER_SCAN_FILE dat=${shellWords(m[1]!)[0]} flg=0x400000 }\nBroadcast completed: result=0\n`],
    [/^mkdir -p (.+)$/, (m, d) => {
      const p = shellWords(m[1]!)[0]!;
      if (d.denies(p) === 'under') return `mkdir: '${p}': Permission denied\n`;
      return (d.mkdirs(p), '');
    }],
    [/^rm -rf (.+)$/, (m, d) => {
      const p = shellWords(m[1]!)[0]!;
      for (const k of [...d.files.keys()]) if (k === p || k.startsWith(`${p}/`)) d.files.delete(k);
      return '';
    }],
    [/^rm -f (.+)$/, (m, d) => (d.files.delete(shellWords(m[1]!)[0]!), '')],
    [/^mv (.+)$/, (m, d) => {
      const [from, to] = shellWords(m[1]!);
      if (!from || !to || !d.files.has(from)) return `mv: bad '${from}': No such file or directory\n`;
      for (const k of [...d.files.keys()]) {
        if (k === from || k.startsWith(`${from}/`)) {
          d.files.set(to + k.slice(from.length), d.files.get(k)!);
          d.files.delete(k);
        }
      }
      return '';
    }],
  ];

  /** Reads the manifests of installed APK bytes and lists the base APK's package; a Failure text if none is readable. */
  async #register(apks: Buffer[]): Promise<string | undefined> {
    const dir = mkdtempSync(join(tmpdir(), 'fake-adb-apk-'));
    try {
      for (const [i, data] of apks.entries()) {
        writeFileSync(join(dir, `${i}.apk`), data);
        const m = (await (await ApkReader.open(join(dir, `${i}.apk`))).readManifest()) as { package: string; split?: string; versionName?: string; application?: { activities?: Array<{ name: string; intentFilters?: Array<{ categories?: Array<{ name: string }> }> }> } };
        if (m.split) continue;
        const launcher = m.application?.activities?.find((a) => a.intentFilters?.some((f) => f.categories?.some((c) => c.name === 'android.intent.category.LAUNCHER')))?.name;
        this.packages = this.packages.filter((p) => p.packageName !== m.package);
        this.packages.push({ packageName: m.package, apkPath: `/data/app/~~Zm9vYmFy==/${m.package}-YmF6cXV4==/base.apk`, system: false, versionName: m.versionName ?? '', ...(launcher ? { launcher } : {}) });
        return undefined;
      }
      return 'Failure [INSTALL_FAILED_MISSING_SPLIT: no base APK]\n';
    } catch (err) {
      return `Failure [INSTALL_PARSE_FAILED_NOT_APK: ${(err as Error).message}]\n`;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  #key(code: number): void {
    if (code === 67 || code === 112) {
      this.field = this.#selectAll ? '' : code === 67 ? [...this.field].slice(0, -1).join('') : this.field;
      this.#selectAll = false;
    } else if (code === 66) {
      this.enterPresses++;
      this.inputLog += '\n';
    }
    else if (code === 4 && this.keyboardShown) this.keyboardShown = false;
    else if (code === 4) this.backPresses++;
    else if (code === 62) this.#insert(' ');
  }

  #insert(text: string): void {
    this.inputLog += text;
    this.field = this.#selectAll ? text : this.field + text;
    this.#selectAll = false;
  }

  #dumpsysPackage(name: string): string {
    // real: `dumpsys package com.lufthansa.android.lufthansa` (sharpadb_DumpSys.Package.txt)
    const real = fixture('sharpadb_DumpSys.Package.txt').toString('utf8');
    if (name === 'com.lufthansa.android.lufthansa') return real;
    const p = this.packages.find((x) => x.packageName === name);
    if (!p) return `Unable to find package: ${name}\n`;
    // constructed in the layout of the real capture above
    return `Packages:\n  Package [${name}] (4b1c2d3):\n    userId=10123\n    codePath=${p.apkPath.slice(0, p.apkPath.lastIndexOf('/'))}\n    versionCode=1 targetSdk=33\n    versionName=${p.versionName}\n`;
  }
}

/** The one word `text` is (an error when it is several: the backend quotes every value as one word). */
function word(text: string): string {
  const words = shellWords(text);
  if (words.length !== 1) throw new Error(`fake adb server: expected one word, got ${words.length} in ${text}`);
  return words[0]!;
}

/** What the backend may send outside quotes: words of these characters (numbers, fixed flags, paths of the command itself), spaces, and `;` between commands. */
const kBare = /[A-Za-z0-9 _./:=,@%+-]/;

/**
 * A command line as sh reads it: the commands between unquoted `;`, and every character outside
 * quotes that is not kBare (a shell metacharacter where the backend sends none: `$`, a backtick,
 * `|`, `&`, `<`, `(`, `#`, `*`, a newline, a double quote, a backslash that is not the `\'` of a
 * quoted `'`, any non-ASCII character, ...).
 */
export function splitShellLine(line: string): { commands: string[]; unquoted: string[] } {
  const commands: string[] = [];
  const unquoted: string[] = [];
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) {
        unquoted.push(c);
        break;
      }
      i = end;
    } else if (c === '\\' && line[i + 1] === "'") {
      i++;
    } else if (c === ';') {
      commands.push(line.slice(start, i).trim());
      start = i + 1;
    } else if (!kBare.test(c)) {
      unquoted.push(c);
    }
  }
  commands.push(line.slice(start).trim());
  return { commands: commands.filter(Boolean), unquoted };
}

/** POSIX sh word splitting for the quoting the backend uses ('…', "…", backslash). */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in ${text}`);
      cur += text.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length && '$`"\\\n'.includes(text[i + 1]!)) i++;
        cur += text[i++];
      }
      inWord = true;
    } else if (c === '\\') {
      cur += text[++i] ?? '';
      inWord = true;
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** Real `pm list packages -f` lines → installed packages (split on the LAST `=`). */
export function packagesFromFixture(name = 'pm-list-packages-f_rockchip-tvbox_152pkgs.txt'): Installed[] {
  return fixture(name)
    .toString('utf8')
    .split('\n')
    .filter((l) => l.startsWith('package:'))
    .map((line) => {
      const eq = line.lastIndexOf('=');
      const apkPath = line.slice('package:'.length, eq);
      return { packageName: line.slice(eq + 1).trim(), apkPath, system: !apkPath.startsWith('/data/'), versionName: '1.0' };
    });
}

/** A byte stream to one device service, whatever carries it. */
export interface ServiceIO {
  /** Exactly `n` bytes; rejects when the stream closes first. */
  read(n: number): Promise<Buffer>;
  /** Queues bytes to the host; resolves once they are sent (and, on a transport, acknowledged). */
  write(data: Buffer | string): Promise<void>;
  /** Closes the stream once everything written has gone out. */
  end(): void;
}

/** Whether a command's reply is a failure (an unknown command line, or a handler that threw). */
export const isFail = (reply: Reply): reply is { fail: string } => typeof reply === 'object' && !Buffer.isBuffer(reply) && 'fail' in reply;

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};

/**
 * The `sync:` service (SYNC.TXT): 8-byte requests (4 ASCII id + little-endian
 * length) for STAT, LIST, RECV, SEND and QUIT, each recorded in `dev.syncRequests` as `ID arg`.
 * Returns when the host sends QUIT or closes the stream.
 */
export async function serveSync(io: ServiceIO, dev: FakeDevice): Promise<void> {
  const fail = (msg: string) => io.write(Buffer.concat([Buffer.from('FAIL'), u32(Buffer.byteLength(msg)), Buffer.from(msg)]));
  for (;;) {
    const head = await io.read(8);
    const id = head.subarray(0, 4).toString('ascii');
    const len = head.readUInt32LE(4);
    if (id === 'QUIT') {
      dev.syncRequests.push('QUIT');
      return io.end();
    }
    const arg = (await io.read(len)).toString('utf8');
    dev.syncRequests.push(`${id} ${arg}`);
    if (id === 'STAT') {
      const f = dev.files.get(arg);
      await io.write(Buffer.concat([Buffer.from('STAT'), u32(f?.mode ?? 0), u32(f?.data.length ?? 0), u32(f?.mtime ?? 0)]));
    } else if (id === 'LIST') {
      const prefix = arg.endsWith('/') ? arg : `${arg}/`;
      const out: Buffer[] = [];
      for (const [path, f] of dev.files) {
        const name = path.slice(prefix.length);
        if (!path.startsWith(prefix) || !name || name.includes('/')) continue;
        out.push(Buffer.from('DENT'), u32(f.mode), u32(f.data.length), u32(f.mtime), u32(Buffer.byteLength(name)), Buffer.from(name));
      }
      await io.write(Buffer.concat([...out, Buffer.from('DONE'), Buffer.alloc(16)]));
    } else if (id === 'RECV') {
      const f = dev.files.get(arg);
      if (!f || (f.mode & S_IFDIR) === S_IFDIR) {
        await fail('open failed: No such file or directory');
        continue;
      }
      // adbd sends the file in DATA chunks of at most 64 KiB (SYNC_DATA_MAX).
      for (let i = 0; i < f.data.length; i += 65536) {
        const chunk = f.data.subarray(i, i + 65536);
        await io.write(Buffer.concat([Buffer.from('DATA'), u32(chunk.length), chunk]));
      }
      await io.write(Buffer.concat([Buffer.from('DONE'), u32(0)]));
    } else if (id === 'SEND') {
      const comma = arg.lastIndexOf(',');
      const path = arg.slice(0, comma);
      const mode = Number(arg.slice(comma + 1));
      const parts: Buffer[] = [];
      let mtime = 0;
      for (;;) {
        const h = await io.read(8);
        const kind = h.subarray(0, 4).toString('ascii');
        const n = h.readUInt32LE(4);
        if (kind === 'DATA') parts.push(await io.read(n));
        else if (kind === 'DONE') {
          mtime = n;
          break;
        } else {
          await fail(`fake device: unexpected ${kind} in SEND`);
          return io.end();
        }
      }
      dev.writeFile(path, Buffer.concat(parts), mode);
      dev.files.get(path)!.mtime = mtime;
      await io.write(Buffer.concat([Buffer.from('OKAY'), u32(0)]));
    } else {
      await fail(`fake device: unknown sync request ${id}`);
      return io.end();
    }
  }
}

/**
 * `shell:` with no command (the legacy interactive shell `adb shell` opens on a device without
 * shell_v2): a prompt, then each typed line run as a `shell:<line>` request and recorded as
 * `pty:<line>`; `exit` ends it. A pty echoes what is typed and ends lines with CRLF.
 */
export async function serveInteractiveShell(io: ServiceIO, dev: FakeDevice, run: (line: string) => Reply | Promise<Reply>): Promise<void> {
  const prompt = `${dev.serial}:/ $ `;
  await io.write(prompt);
  let line = '';
  for (;;) {
    const c = (await io.read(1)).toString('latin1');
    if (c !== '\n' && c !== '\r') {
      line += c;
      await io.write(c);
      continue;
    }
    await io.write('\r\n');
    const cmd = line.trim();
    line = '';
    if (!cmd) {
      await io.write(prompt);
      continue;
    }
    dev.services.push(`pty:${cmd}`);
    if (cmd === 'exit') return io.end();
    const reply = await run(cmd);
    const out = isFail(reply) ? `/system/bin/sh: ${cmd.split(' ')[0]}: inaccessible or not found\n` : (await replyBytes(reply)).toString('utf8');
    await io.write(`${out.replaceAll('\n', '\r\n')}${prompt}`);
  }
}

/**
 * `shell,v2,raw:<line>` (adb's shell protocol v2, a device with the `shell_v2` feature): the line's
 * stdout and stderr as packets of their own (id 1, 2; a u32 little-endian length; the bytes), then
 * its exit status (id 3, one byte); the caller then closes the stream. A line the model does not know
 * is sh's message on stderr and status 127.
 */
export async function serveShellV2(dev: FakeDevice, line: string, write: (chunk: Buffer) => unknown, closed: () => boolean): Promise<void> {
  const packet = async (id: number, data: Buffer | string) => {
    const bytes = Buffer.from(data);
    const head = Buffer.alloc(5);
    head[0] = id;
    head.writeUInt32LE(bytes.length, 1);
    await write(Buffer.concat([head, bytes]));
  };
  dev.lastExit = 0;
  const reply = await dev.run(`shell:${line}`, Buffer.alloc(0));
  if (isFail(reply)) {
    await packet(2, `/system/bin/sh: ${reply.fail}\n`);
    dev.lastExit = 127;
  } else if (isStreamReply(reply)) {
    for await (const chunk of reply.stream) {
      if (closed()) return;
      await packet(1, chunk);
    }
  } else if (isSplit(reply)) {
    if (reply.out.length) await packet(1, reply.out);
    if (reply.err.length) await packet(2, reply.err);
  } else if (reply.length) {
    await packet(1, reply);
  }
  if (!closed()) await packet(3, Buffer.from([dev.lastExit & 0xff]));
}
