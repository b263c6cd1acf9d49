// A box's Chromium as a tenant attacks it: with its box's environment (a PATH to programs it left in
// /tmp, which Debian's chromium launcher would run), as its browser user (links planted in the
// profile, which root must never follow), and through descriptors serve inherited or opened (a
// parent's file, another box's terminal). Real `boxflow serve`, real Chromium, real ptys, as root.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { BoxClient } from '../../src/api/client.js';
import type { Box } from '../../src/api/schemas.js';
import { createApiKey, resolveSecret, startServer } from '../../src/server/index.js';
import { tempDir } from '../support/tmp.js';
import { waitFor } from '../support/waitFor.js';

const asRoot = process.getuid?.() === 0;
const needsRoot = !asRoot && 'needs root (box users)';
const kSystemPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const dir = tempDir('boxflow-launch-');
chmodSync(dir, 0o755);
const secret = 'chromium-launch-secret-7d2e9b';
const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

/** An in-process server whose browser commands time out quickly (a stopped Chromium is given up on soon). */
async function serve(name: string): Promise<{ client: BoxClient; dataDir: string }> {
  const dataDir = join(dir, name);
  const server = await startServer({ port: 0, dataDir, secret, cdpTimeoutMs: 3_000, log: () => {} });
  const client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, name), maxRetries: 0, timeoutMs: 60_000 });
  cleanups.push(() => server.close(), () => client.close());
  return { client, dataDir };
}

const profileOf = (dataDir: string, box: Box) => join(dataDir, 'boxes', box.id, 'profile');

function pids(): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

function uidOf(pid: number): number | undefined {
  try {
    return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  } catch {
    return undefined; // exited meanwhile
  }
}

/** The box's Chromium browser process (not a renderer): the one started on its profile. */
function chromiumPid(profile: string): number | undefined {
  for (const pid of pids()) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv.includes(`--user-data-dir=${profile}`) && !argv.some((a) => a.startsWith('--type='))) return pid;
    } catch {
      // exited meanwhile
    }
  }
  return undefined;
}

/** Every process of the box's browser user (the profile's owner): browser, zygotes, renderers. */
function browserProcesses(profile: string): number[] {
  const uid = statSync(profile).uid;
  return pids().filter((pid) => uidOf(pid) === uid);
}

/** What each descriptor of `pid` leads to. */
function fdTargets(pid: number): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return out;
  }
  for (const n of names) {
    try {
      out.push(readlinkSync(`/proc/${pid}/fd/${n}`));
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

function environ(pid: number): Map<string, string> {
  return new Map(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as const),
  );
}

/**
 * Ends the box's Chromium the way a browser that stops answering is ended: it is stopped (SIGSTOP),
 * so closeBrowser cannot reset it; closeBrowser then kills it and clears its profile, and the
 * next request starts a new Chromium on the same profile.
 */
async function stopAndClose(client: BoxClient, box: Box, profile: string): Promise<void> {
  const pid = chromiumPid(profile);
  assert.ok(pid, "the box's Chromium runs");
  process.kill(pid, 'SIGSTOP');
  await client.closeBrowser(box.id);
  assert.equal(chromiumPid(profile), undefined, 'the stopped Chromium was ended');
}

/** Runs `script` with `sh -c` as `uid`/`gid` (the box's browser user, as a tenant holding it would). */
function asUser(uid: number, gid: number, script: string, ...args: string[]): void {
  const r = spawnSync('/bin/sh', ['-c', script, 'sh', ...args], { uid, gid, env: { PATH: kSystemPath }, cwd: '/', encoding: 'utf8' });
  assert.equal(r.status, 0, `as uid ${uid}: ${script}: ${r.stderr}`);
}

/** A root-owned folder with files: what a link planted by a box user must never lead root into. */
function victim(name: string, files = ['keep']): { path: string; check(): void } {
  const path = join(dir, name);
  mkdirSync(path, { mode: 0o755 });
  for (const f of files) writeFileSync(join(path, f), `root's ${f}`);
  const before = statSync(path);
  const listing = readdirSync(path).sort();
  return {
    path,
    check() {
      const now = statSync(path);
      assert.deepEqual([now.uid, now.gid, now.mode], [before.uid, before.gid, before.mode], `${name}: owner and mode unchanged`);
      assert.deepEqual(readdirSync(path).sort(), listing, `${name}: the same files`);
      for (const f of files) assert.equal(readFileSync(join(path, f), 'utf8'), `root's ${f}`);
    },
  };
}

test("a box's config.envs never reach its Chromium: a PATH to the tenant's own programs runs none of them, at start, close or restart", { skip: needsRoot }, async () => {
  // Programs a tenant left in /tmp under the names Debian's launcher runs from PATH; each notes
  // that it ran (as whom), then does its job so that the launcher goes on.
  const evil = tempDir('boxflow-evil-path-');
  chmodSync(evil, 0o755);
  const notes = join(evil, 'notes');
  mkdirSync(notes, { mode: 0o777 });
  chmodSync(notes, 0o777);
  for (const name of ['uname', 'grep', 'find', 'expr', 'tr', 'cut', 'mktemp', 'findmnt', 'ls', 'sed', 'cat', 'id', 'head', 'rm', 'readlink', 'dirname', 'basename', 'xmessage', 'man']) {
    writeFileSync(join(evil, name), `#!/bin/sh\necho "${name} $(/usr/bin/id -u)" >> ${notes}/ran\nPATH=${kSystemPath} exec ${name} "$@"\n`, { mode: 0o755 });
  }
  const { client, dataDir } = await serve('path');
  const box = await client.createLinuxBox({ config: { envs: { PATH: evil, TENANT_VAR: 'box-only' } } });
  const profile = profileOf(dataDir, box);
  await client.openTab(box.id, { url: 'data:text/html,<p>one</p>' });
  const pid = chromiumPid(profile)!;
  const env = environ(pid);
  assert.equal(env.get('PATH'), kSystemPath, "Chromium's PATH is the system's");
  // Entered as root before the uid switch: never the working dir, which the box's user can swap for a link.
  assert.equal(readlinkSync(`/proc/${pid}/cwd`), '/');
  assert.equal(env.get('TENANT_VAR'), undefined, "the box's envs are its shells', not its browser's");
  await client.closeBrowser(box.id); // a new browser context in the same Chromium
  await client.openTab(box.id, { url: 'data:text/html,<p>two</p>' });
  await stopAndClose(client, box, profile); // a new Chromium
  await client.openTab(box.id, { url: 'data:text/html,<p>three</p>' });
  assert.ok(chromiumPid(profile), 'a new Chromium runs');
  assert.ok(!existsSync(join(notes, 'ran')), `the tenant's programs ran: ${existsSync(join(notes, 'ran')) ? readFileSync(join(notes, 'ran'), 'utf8') : ''}`);
  await client.terminateBox(box.id);
});

test('a link the browser user plants at profile/Default is not followed when Chromium starts again: a root-owned folder keeps its owner and files', { skip: needsRoot }, async () => {
  const target = victim('root-owned-default');
  const { client, dataDir } = await serve('default-link');
  const box = await client.createLinuxBox({});
  const profile = profileOf(dataDir, box);
  const { uid, gid } = statSync(profile);
  await stopAndClose(client, box, profile);
  // The profile was cleared; before the next start, the browser user puts a link where Default goes.
  asUser(uid, gid, 'ln -s -- "$1" "$2/Default"', target.path, profile);
  // The next request starts Chromium on that profile (which may or may not come up with its Default elsewhere).
  await client.openTab(box.id, { url: 'about:blank' }).catch(() => {});
  target.check();
  await client.terminateBox(box.id).catch(() => {});
  target.check();
});

test('clearing the profile and the singleton folder never follows a link the browser user swaps in: a root-owned folder keeps its files', { skip: needsRoot }, async (t) => {
  if (spawnSync('cc', ['--version']).status !== 0) return t.skip('no C compiler');
  // For each folder d<i> (holding files a and b) in the profile, a link l<i> to the victim in a
  // folder of the browser user's: the moment someone opens d<i> to list it, d<i> and l<i> trade
  // places (one atomic rename), so whoever then removes "d<i>/a" by path removes the victim's a.
  const work = tempDir('boxflow-swapper-');
  chmodSync(work, 0o755);
  writeFileSync(
    join(work, 'swap.c'),
    `#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <unistd.h>
#define PAIRS 16
/* argv: FOLDERS LINKS ...: FOLDERS/d<i> trades places with LINKS/l<i> once it is opened. */
int main(int argc, char **argv) {
  static char dir[8][PAIRS][4096], link_[8][PAIRS][4096];
  static int wd[8][PAIRS];
  int in = inotify_init(), sets = (argc - 1) / 2;
  for (int d = 0; d < sets && d < 8; d++)
    for (int i = 0; i < PAIRS; i++) {
      snprintf(dir[d][i], 4096, "%s/d%d", argv[1 + 2 * d], i);
      snprintf(link_[d][i], 4096, "%s/l%d", argv[2 + 2 * d], i);
      wd[d][i] = inotify_add_watch(in, dir[d][i], IN_OPEN);
    }
  puts("ready");
  fflush(stdout);
  char buf[65536] __attribute__((aligned(8)));
  for (;;) {
    ssize_t len = read(in, buf, sizeof buf);
    if (len <= 0) return 1;
    for (char *p = buf; p < buf + len; p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len)
      for (int d = 0; d < sets && d < 8; d++)
        for (int i = 0; i < PAIRS; i++)
          if (wd[d][i] == ((struct inotify_event *)p)->wd) {
            syscall(SYS_renameat2, AT_FDCWD, dir[d][i], AT_FDCWD, link_[d][i], 2 /* RENAME_EXCHANGE */);
            wd[d][i] = -1;
          }
  }
}
`,
  );
  const built = spawnSync('cc', ['-O2', '-o', join(work, 'swap'), join(work, 'swap.c')], { encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  chmodSync(join(work, 'swap'), 0o755);
  const target = victim('root-owned-swapped', ['a', 'b']);
  const { client, dataDir } = await serve('swap');
  const box = await client.createLinuxBox({});
  const profile = profileOf(dataDir, box);
  const { uid, gid } = statSync(profile);
  const singleton = readlinkSync(join(profile, 'SingletonSocket')).replace(/\/[^/]+$/, '');
  const links = tempDir('boxflow-swap-links-'); // beside the profile (both under the temp dir): one file system
  chownSync(links, uid, gid);
  const plant = 'mkdir "$3" && for i in $(seq 0 15); do mkdir "$1/d$i" && touch "$1/d$i/a" "$1/d$i/b" && ln -s -- "$2" "$3/l$i" || exit 1; done';
  asUser(uid, gid, plant, profile, target.path, join(links, 'profile'));
  asUser(uid, gid, plant, singleton, target.path, join(links, 'singleton'));
  const swapper: ChildProcess = spawn(join(work, 'swap'), [profile, join(links, 'profile'), singleton, join(links, 'singleton')], { uid, gid, stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(async () => swapper.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    swapper.stdout!.once('data', () => resolve());
    swapper.once('exit', (code) => reject(new Error(`the swapper exited (${code})`)));
  });
  // Ending the box ends its Chromium, then clears its singleton folder and its profile.
  const ended = await client.terminateBox(box.id).then(() => undefined, (err: Error) => err);
  swapper.kill('SIGKILL');
  target.check();
  assert.equal(ended, undefined, 'the box ended');
});

/** A `boxflow serve` CLI, as a user starts it, with `extra` as its descriptors from 3 on; and a client of its. */
async function serveCli(name: string, extra: Array<number | 'ignore'>): Promise<{ client: BoxClient; dataDir: string }> {
  const dataDir = join(dir, name);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'ignore', ...extra] });
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (d) => {
      seen += d;
      const m = /"baseUrl":"([^"]+)"/.exec(seen);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${seen}`)));
  });
  const client = new BoxClient({ baseUrl, apiKey: await createApiKey(await resolveSecret(dataDir), 'fds'), maxRetries: 0, timeoutMs: 60_000 });
  cleanups.push(() => client.close());
  return { client, dataDir };
}

test("a descriptor serve inherited reaches neither a box's command nor its Chromium", { skip: needsRoot }, async () => {
  const marker = join(tempDir('boxflow-inherited-'), 'parent-descriptor');
  writeFileSync(marker, 'the parent of serve holds this');
  const fd = openSync(marker, 'r');
  // As fd 40, open without close-on-exec (Node itself marks the inherited fds 3 to 16 at its start).
  const { client, dataDir } = await serveCli('inherited', [...Array<'ignore'>(37).fill('ignore'), fd]);
  const box = await client.createLinuxBox({});
  const run = await client.runCommand(box.id, { command: 'ls -l /proc/self/fd' });
  assert.equal(run.exitCode, 0, run.stderr);
  assert.match(run.stdout, / 0 -> /, 'the listing shows the descriptors');
  assert.ok(!run.stdout.includes(marker), `the command got the parent's descriptor:\n${run.stdout}`);
  const profile = profileOf(dataDir, box);
  const browser = browserProcesses(profile);
  assert.ok(browser.length > 0, "the box's Chromium runs");
  for (const pid of browser) assert.ok(!fdTargets(pid).includes(marker), `Chromium process ${pid} got the parent's descriptor`);
});

/**
 * Opens the box's web terminal, types `line` followed by a printf of the marker `<<<end>>>` (printed
 * from pieces, so the echoed command line never matches), and answers everything the terminal
 * printed once the marker came; the socket stays open until the test's clean-up.
 */
async function inTerminal(client: BoxClient, boxId: string, line: string, end: string): Promise<string> {
  const ws = new WebSocket((await client.webTerminalUrl(boxId)).url.replace(/^http/, 'ws'));
  cleanups.push(async () => ws.terminate());
  let out = '';
  ws.on('message', (d) => (out += d.toString()));
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  ws.send(JSON.stringify({ type: 'input', data: `${line}printf '<<<%s>>>' ${end}\r` }));
  await waitFor(() => out.includes(`<<<${end}>>>`), { what: `the shell of box ${boxId} to print ${end}`, timeoutMs: 30_000, intervalMs: 50 });
  return out;
}

test("another box's terminal reaches no box's Chromium: a pty master opened by serve is not inherited", { skip: needsRoot }, async () => {
  const { client, dataDir } = await serveCli('pty', []);
  const first = await client.createLinuxBox({});
  await inTerminal(client, first.id, '', 'READY');
  // The second box's Chromium starts while the first box's terminal is open.
  const second = await client.createLinuxBox({});
  const browser = browserProcesses(profileOf(dataDir, second));
  assert.ok(browser.length > 0, "the second box's Chromium runs");
  for (const pid of browser) {
    const ptys = fdTargets(pid).filter((t) => t === '/dev/ptmx' || t.startsWith('/dev/pts/'));
    assert.deepEqual(ptys, [], `Chromium process ${pid} holds a terminal`);
  }
});

test("another box's terminal reaches no box's command and no other terminal's shell", { skip: needsRoot }, async () => {
  const { client } = await serveCli('pty-command', []);
  const first = await client.createLinuxBox({});
  await inTerminal(client, first.id, '', 'READY');
  const second = await client.createLinuxBox({});
  const run = await client.runCommand(second.id, { command: 'ls -l /proc/self/fd' });
  assert.ok(!/ -> \/dev\/(ptmx|pts\/)/.test(run.stdout), `the second box's command holds a terminal (and can type into the first box's shell):\n${run.stdout}`);
  // node-pty leaves its masters open in the shells it forks: the second box's own terminal holds only its own pts.
  const seen = await inTerminal(client, second.id, 'ls -l /proc/$$/fd; ', 'DONE');
  assert.doesNotMatch(seen, /ptmx/, `the second box's shell holds a pty master:\n${seen}`);
});
