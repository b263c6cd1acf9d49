// boxflow serve as a tenant would attack it: over real HTTP, with real Chromium, a real pty and real
// CDP, one tenant tries to read the server's signing secret and another tenant's files, and to make
// fs/rename move files outside its box. The server runs as root here (as in CI), so every box runs
// as its own user.
import { test, before, after } from 'node:test';
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { WebSocket } from 'ws';
import { chromium } from 'playwright-core';
import { BoxClient, BoxApiError } from '../../src/api/client.js';
import { rejects as rejectsWith } from '../support/apiErrors.js';
import type { Box } from '../../src/api/schemas.js';
import { createApiKey, resolveSecret, startServer } from '../../src/server/index.js';
import { BoxRegistry } from '../../src/server/boxes/boxes.js';
import { cleanStaleServeDirs, reapDataDir } from '../../src/server/boxes/reaper.js';
import { waitFor } from '../support/waitFor.js';

const kCanaryEnv = 'BOXFLOW_ISOLATION_CANARY';
const kCanary = 'server-env-canary-6f1d2c';

let dataDir: string;
let secret: string;
let server: { baseUrl: string; close(): Promise<void> };
let alice: BoxClient;
let bob: BoxClient;
let boxA: Box;
let boxB: Box;
const savedEnv = { canary: process.env[kCanaryEnv], secret: process.env.BOXFLOW_SERVER_SECRET };

const boxDir = (box: Box) => join(dataDir, 'boxes', box.id);
const workDir = (box: Box) => join(boxDir(box), box.config.workingDir!);

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-isolation-test-'));
  // The secret lives in <dataDir>/server-secret, as with `boxflow serve`; the canary is in the
  // server's environment and must reach no box.
  delete process.env.BOXFLOW_SERVER_SECRET;
  process.env[kCanaryEnv] = kCanary;
  secret = await resolveSecret(dataDir);
  server = await startServer({ port: 0, dataDir, log: () => {} });
  alice = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'alice'), maxRetries: 0 });
  bob = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'bob'), maxRetries: 0 });
  [boxA, boxB] = await Promise.all([alice.createLinuxBox({ config: { envs: { BOX_VAR: 'alice-var' } } }), bob.createLinuxBox({})]);
  // Bob's private file, written where Bob's own browser would download it.
  writeFileSync(join(workDir(boxB), 'private.html'), '<p>bob-private-7c1e</p>');
  writeFileSync(join(workDir(boxA), 'page.html'), '<p>alice-own-page-3a9b</p>');
});

after(async () => {
  if (savedEnv.canary === undefined) delete process.env[kCanaryEnv];
  else process.env[kCanaryEnv] = savedEnv.canary;
  if (savedEnv.secret !== undefined) process.env.BOXFLOW_SERVER_SECRET = savedEnv.secret;
  await alice?.close();
  await bob?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A refusal that, besides its status and code, names no server path. */
async function rejects(promise: Promise<unknown>, status: number, code: string): Promise<BoxApiError> {
  const err = await rejectsWith(promise, status, code);
  assert.ok(!err.message.includes(dataDir), `no server path in the message: ${err.message}`);
  return err;
}

/** The box's Chromium browser process (not its renderers): found by its profile dir. */
function chromiumPid(box: Box): number {
  return chromiumPidIn(boxDir(box));
}

function chromiumPidIn(dir: string): number {
  const flag = `--user-data-dir=${join(dir, 'profile')}`;
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (argv.includes(flag) && !argv.some((a) => a.startsWith('--type='))) return Number(name);
    } catch {
      // exited meanwhile
    }
  }
  assert.fail(`no Chromium runs with ${flag}`);
}

/** A live (non-zombie) process's group and start time, from /proc/<pid>/stat. */
function procStat(pid: number): { pgrp: number; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return f[0] === 'Z' ? undefined : { pgrp: Number(f[2]), start: f[19]! };
  } catch {
    return undefined;
  }
}

/** The inodes of every TCP socket listening on this machine (IPv4 and IPv6), from /proc/net. */
function listeningInodes(): Set<string> {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').trim().split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A') inodes.add(f[9]!); // state 0A: LISTEN
    }
  }
  return inodes;
}

/** Every process of the box's Chromium (browser, renderers, zygotes): the processes of its uid. */
function browserPids(box: Box): number[] {
  const uid = uidOf(chromiumPid(box));
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => {
      try {
        return uidOf(pid) === uid;
      } catch {
        return false;
      }
    });
}

function uidOf(pid: number): number {
  return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

test('the data dir holds the secret in a root-only file; box dirs belong to their own users', () => {
  assert.equal(statSync(join(dataDir, 'server-secret')).mode & 0o077, 0);
  const a = statSync(workDir(boxA));
  const b = statSync(workDir(boxB));
  assert.notEqual(a.uid, 0);
  assert.notEqual(a.uid, b.uid);
  assert.notEqual(a.gid, b.gid);
  assert.equal(a.mode & 0o7777, 0o2770);
  // The root is root's, sticky and the box's group's: the box's users create, never move the other's.
  const root = statSync(boxDir(boxA));
  assert.equal(root.uid, 0);
  assert.equal(root.gid, a.gid);
  assert.equal(root.mode & 0o7777, 0o1770);
  const profile = statSync(join(boxDir(boxA), 'profile'));
  assert.notEqual(profile.uid, a.uid, 'the browser has a user of its own');
  assert.equal(profile.mode & 0o777, 0o700);
});

test('a secret file readable by others is made root-only when read', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'boxflow-isolation-secret-'));
  try {
    writeFileSync(join(scratch, 'server-secret'), 'hand-written-secret\n', { mode: 0o644 });
    assert.equal(await resolveSecret(scratch, {}), 'hand-written-secret');
    assert.equal(statSync(join(scratch, 'server-secret')).mode & 0o777, 0o600);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('a file: URL to the server secret is refused, also through a symlink in the box', async () => {
  await rejects(alice.openTab(boxA.id, { url: `file://${join(dataDir, 'server-secret')}` }), 403, 'FORBIDDEN');
  await rejects(alice.openTab(boxA.id, { url: `file://${join(workDir(boxB), 'private.html')}` }), 403, 'FORBIDDEN');
  symlinkSync(join(dataDir, 'server-secret'), join(workDir(boxA), 'secret-link'));
  await rejects(alice.openTab(boxA.id, { url: `file://${join(workDir(boxA), 'secret-link')}` }), 403, 'FORBIDDEN');
  await rejects(alice.openTab(boxA.id, { url: 'file://otherhost/etc/passwd' }), 403, 'FORBIDDEN');
  const layout = await alice.screenLayout(boxA.id);
  assert.ok(!layout.content.includes(secret));
});

test('a file: URL inside the box opens', async () => {
  const tab = await alice.openTab(boxA.id, { url: `file://${join(workDir(boxA), 'page.html')}` });
  assert.match(tab.url, /^file:/);
  assert.match((await alice.screenLayout(boxA.id)).content, /alice-own-page-3a9b/);
});

test("the box's Chromium runs as the box's browser user, with none of the server's environment", () => {
  const pid = chromiumPid(boxA);
  const uid = uidOf(pid);
  assert.notEqual(uid, 0);
  assert.equal(uid, statSync(join(boxDir(boxA), 'profile')).uid);
  assert.notEqual(uid, statSync(workDir(boxA)).uid, "not the user of the box's shell");
  assert.notEqual(uidOf(chromiumPid(boxB)), uid);
  const env = new Map(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as const),
  );
  assert.equal(env.get('HOME'), boxDir(boxA));
  assert.equal(env.get('BOX_VAR'), undefined, "the box's envs are its shells', not its browser's");
  assert.ok(!env.has(kCanaryEnv), 'the server env canary leaked');
  assert.ok(![...env.values()].some((v) => v.includes(secret)));
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  assert.equal(/^Groups:[ \t]*(.*)$/m.exec(status)![1]!.trim(), '', 'no supplementary groups of the server');
});

test("a box's Chromium leaves no folder in /tmp once it is gone", async () => {
  const box = await alice.createLinuxBox({ wait: true });
  // The profile path is too long for a socket, so Chromium's singleton socket went to /tmp.
  const dir = dirname(readlinkSync(join(boxDir(box), 'profile', 'SingletonSocket')));
  assert.match(dir, /^\/tmp\/org\.chromium\.Chromium\./);
  assert.ok(existsSync(dir));
  await alice.terminateBox(box.id);
  assert.ok(!existsSync(dir), `${dir} was left behind`);
});

test('through its own CDP URL a tenant cannot read the secret or another box\'s files', async () => {
  const browser = await chromium.connectOverCDP(await alice.cdpUrl(boxA.id));
  try {
    for (const file of [join(dataDir, 'server-secret'), join(workDir(boxB), 'private.html')]) {
      const page = await browser.contexts()[0]!.newPage();
      await assert.rejects(page.goto(`file://${file}`), /ERR_ACCESS_DENIED|ERR_FILE_NOT_FOUND/);
      await page.waitForURL(/^chrome-error:/);
      const shown = await page.evaluate(() => document.documentElement.outerHTML);
      assert.ok(!shown.includes(secret), 'the secret is shown');
      assert.ok(!shown.includes('bob-private-7c1e'), "bob's file is shown");
    }
    // The same browser reads what is inside its own box, so the check above is not vacuous.
    const page = await browser.contexts()[0]!.newPage();
    await page.goto(`file://${join(workDir(boxA), 'page.html')}`);
    assert.match(await page.content(), /alice-own-page-3a9b/);
  } finally {
    await browser.close();
  }
});

test('no box\'s DevTools listens on any port: the server alone holds it, over a pipe', () => {
  const listening = listeningInodes();
  for (const box of [boxA, boxB]) {
    const argv = readFileSync(`/proc/${chromiumPid(box)}/cmdline`, 'utf8').split('\0');
    assert.ok(argv.includes('--remote-debugging-pipe'), argv.join(' '));
    assert.ok(!argv.some((a) => a.startsWith('--remote-debugging-port')), argv.join(' '));
    for (const pid of browserPids(box)) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`).map((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        continue; // exited meanwhile
      }
      const sockets = fds.map((l) => /^socket:\[(\d+)\]$/.exec(l)?.[1]).filter(Boolean) as string[];
      assert.deepEqual(sockets.filter((i) => listening.has(i)), [], `process ${pid} of box ${box.id} listens on TCP`);
    }
  }
});

/** Runs `script` in the box's web terminal (a real pty) and answers what it printed. */
async function inTerminal(client: BoxClient, box: Box, script: string): Promise<string> {
  const { url } = await client.webTerminalUrl(box.id);
  const ws = new WebSocket(url.replace(/^http/, 'ws'));
  let out = '';
  const done = new Promise<string>((resolve, reject) => {
    ws.on('message', (d) => {
      out += d.toString();
      const m = /<<<END>>>([\s\S]*?)<<<DONE>>>/.exec(out);
      if (m) resolve(m[1]!);
    });
    ws.on('error', reject);
    ws.on('close', () => reject(new Error(`terminal closed early: ${out}`)));
  });
  await new Promise((r) => ws.once('open', r));
  // The markers are printed by printf from pieces, so the echoed command line never matches.
  ws.send(JSON.stringify({ type: 'input', data: `{ ${script}; } > /tmp/.out-$$ 2>&1; printf '<<<%s>>>' END; cat /tmp/.out-$$; rm -f /tmp/.out-$$; printf '<<<%s>>>' DONE\r` }));
  try {
    return await done;
  } finally {
    ws.removeAllListeners('close');
    ws.close();
  }
}

test("the web terminal runs as the box's user without network: no secret, no other box, no DevTools, no server env", async () => {
  const out = await inTerminal(alice, boxA, `id -u; cat ${join(dataDir, 'server-secret')}; cat ${join(workDir(boxB), 'private.html')}; env; cat page.html`);
  const uid = Number(out.trim().split(/\s+/)[0]);
  assert.equal(uid, statSync(workDir(boxA)).uid);
  assert.ok(!out.includes(secret), 'the secret was printed');
  assert.ok(!out.includes('bob-private-7c1e'), "bob's file was printed");
  // The shell has no network: neither the server nor anything else listening here answers it.
  const reach = await inTerminal(alice, boxA, `for p in ${new URL(server.baseUrl).port}; do (echo > /dev/tcp/127.0.0.1/$p) 2>/dev/null && echo "port $p: connected" || echo "port $p: no"; done`);
  assert.doesNotMatch(reach, /connected/);
  const listing = await inTerminal(alice, boxA, `ls ${join(dataDir, 'boxes')}; ls ${dataDir}`);
  assert.ok(!listing.includes(boxB.id) && !listing.includes('server-secret'), `a listing was printed: ${listing}`);
  assert.ok(!out.includes(kCanary), 'the server env canary was printed');
  assert.match(out, /Permission denied/);
  assert.match(out, /alice-own-page-3a9b/, 'the box reads its own files');
  assert.match(out, /BOX_VAR=alice-var/);
});

test("a box's shell can act on no browser process, its own box's included: no signal, no ptrace, no /proc", async () => {
  for (const box of [boxA, boxB]) {
    const pid = chromiumPid(box);
    const out = await inTerminal(alice, boxA, `kill -0 ${pid} && echo SIGNAL-OK; cat /proc/${pid}/environ >/dev/null && echo ENVIRON-OK; ls /proc/${pid}/fd >/dev/null && echo FD-OK; cat /proc/${pid}/maps >/dev/null && echo MAPS-OK; head -c1 /proc/${pid}/mem >/dev/null && echo MEM-OK; echo checked`);
    assert.match(out, /checked/);
    assert.doesNotMatch(out, /-OK/, `the shell of box A reached the browser of box ${box.id}: ${out}`);
  }
  // gdb is what the attack used; where it is installed, it cannot attach either.
  const gdb = await inTerminal(alice, boxA, `command -v gdb >/dev/null && gdb -q -batch -p ${chromiumPid(boxA)} -ex 'info proc' 2>&1 | grep -qi 'exe =' && echo ATTACHED; echo checked`);
  assert.doesNotMatch(gdb, /ATTACHED/);
});

test('box records show box paths only', async () => {
  assert.equal(boxA.config.workingDir, '/work');
  const nested = await alice.createLinuxBox({ config: { workingDir: 'proj/sub' }, wait: false });
  try {
    assert.equal(nested.config.workingDir, '/work/proj/sub');
    const escaped = await alice.createLinuxBox({ config: { workingDir: '../../../../etc' }, wait: false });
    assert.equal(escaped.config.workingDir, '/etc');
    assert.ok(existsSync(join(dataDir, 'boxes', escaped.id, 'etc')), 'the working dir is created inside the box');
    await alice.terminateBox(escaped.id);
    for (const b of [boxA, nested, await alice.getBox(boxA.id), ...(await alice.listBoxes()).data]) assert.ok(!JSON.stringify(b).includes(dataDir), JSON.stringify(b));
  } finally {
    await alice.terminateBox(nested.id);
  }
});

test('fs/rename refuses every path that leads outside the box, through symlinks too', async () => {
  const work = workDir(boxA);
  writeFileSync(join(work, 'a.txt'), 'a');
  symlinkSync('/etc', join(work, 'etc-link'));
  symlinkSync(boxDir(boxB), join(work, 'bob-link'));
  symlinkSync('/nonexistent/boxflow', join(work, 'dangling'));
  symlinkSync('/etc/hostname', join(work, 'hostname-link'));
  mkdirSync(join(work, 'sub'));
  chownSync(join(work, 'sub'), statSync(work).uid, statSync(work).gid);
  const hostname = readFileSync('/etc/hostname', 'utf8');

  await rejects(alice.renameFile(boxA.id, { oldPath: 'etc-link/hostname', newPath: 'stolen' }), 403, 'FORBIDDEN');
  await rejects(alice.renameFile(boxA.id, { oldPath: 'bob-link/work/private.html', newPath: 'stolen.html' }), 403, 'FORBIDDEN');
  await rejects(alice.renameFile(boxA.id, { oldPath: 'dangling', newPath: 'moved-dangling' }), 403, 'FORBIDDEN');
  await rejects(alice.renameFile(boxA.id, { oldPath: 'hostname-link', newPath: 'h2' }), 403, 'FORBIDDEN');
  await rejects(alice.renameFile(boxA.id, { oldPath: 'a.txt', newPath: 'etc-link/boxflow-moved' }), 403, 'FORBIDDEN');
  await rejects(alice.renameFile(boxA.id, { oldPath: 'a.txt', newPath: 'bob-link/work/planted.txt' }), 403, 'FORBIDDEN');
  await rejects(alice.renameFile(boxA.id, { oldPath: 'a.txt', newPath: 'x', workingDir: 'etc-link' }), 403, 'FORBIDDEN');
  // `..` never climbs above the box's root: this names <box>/etc, which does not exist.
  await rejects(alice.renameFile(boxA.id, { oldPath: 'a.txt', newPath: '../../../../../etc/boxflow-moved' }), 404, 'FILE_NOT_FOUND');
  await rejects(alice.renameFile(boxA.id, { oldPath: '/', newPath: 'root' }), 403, 'FORBIDDEN');

  assert.equal(readFileSync('/etc/hostname', 'utf8'), hostname);
  assert.ok(!existsSync('/etc/boxflow-moved'));
  assert.ok(existsSync(join(workDir(boxB), 'private.html')));
  assert.ok(!existsSync(join(workDir(boxB), 'planted.txt')));
  assert.ok(existsSync(join(work, 'a.txt')));

  // Inside the box it works, through an inner symlink too, and answers box paths.
  symlinkSync(join(work, 'sub'), join(work, 'sub-link'));
  const moved = await alice.renameFile(boxA.id, { oldPath: 'a.txt', newPath: 'sub-link/b.txt' });
  assert.equal(moved.path, '/work/sub/b.txt');
  assert.ok(existsSync(join(work, 'sub', 'b.txt')));
  const back = await alice.renameFile(boxA.id, { oldPath: '/work/sub/b.txt', newPath: 'c.txt' });
  assert.equal(back.path, '/work/c.txt');
  await rejects(alice.renameFile(boxA.id, { oldPath: 'c.txt', newPath: 'nope/c.txt' }), 404, 'FILE_NOT_FOUND');
  // A name that merely starts with ".." is inside the box.
  mkdirSync(join(work, '..dots'));
  chownSync(join(work, '..dots'), statSync(work).uid, statSync(work).gid);
  assert.equal((await alice.renameFile(boxA.id, { oldPath: 'c.txt', newPath: '/work/..dots/c.txt' })).path, '/work/..dots/c.txt');

  // The rename itself runs as the box's user, so the kernel has the last word even if a tenant
  // swaps a checked directory for a symlink in between: a root-owned directory stays untouched.
  mkdirSync(join(work, 'root-owned'));
  writeFileSync(join(work, 'root-owned', 'keep.txt'), 'k');
  await rejects(alice.renameFile(boxA.id, { oldPath: 'root-owned/keep.txt', newPath: 'taken.txt' }), 403, 'FORBIDDEN');
  assert.ok(existsSync(join(work, 'root-owned', 'keep.txt')));
});

test('without root the server says at start that boxes are not isolated', async () => {
  const logs: Array<Record<string, unknown>> = [];
  const scratch = mkdtempSync(join(tmpdir(), 'boxflow-isolation-off-'));
  try {
    await new BoxRegistry({ dataDir: scratch, executablePath: '/usr/bin/chromium', log: (e) => logs.push(e), isolate: false }).ready;
    assert.ok(logs.some((e) => e.level === 'warn' && /not isolated/.test(String(e.msg))), JSON.stringify(logs));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('a Chromium that cannot start fails the box without naming server paths', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'boxflow-isolation-nochrome-'));
  const broken = await startServer({ port: 0, dataDir: scratch, secret, chromiumPath: join(scratch, 'no-chromium-here'), log: () => {} });
  const client = new BoxClient({ baseUrl: broken.baseUrl, apiKey: await createApiKey(secret, 'carol'), maxRetries: 0 });
  try {
    const err = await client.createLinuxBox({}).then(
      () => assert.fail('the box started without a Chromium'),
      (e: unknown) => e as BoxApiError,
    );
    assert.equal(err.serverCode, 'BROWSER_ERROR', err.message);
    assert.ok(!err.message.includes(scratch), err.message);
    const [record] = (await client.listBoxes()).data;
    assert.equal(record!.status, 'error');
    assert.ok(!JSON.stringify(record).includes(scratch), JSON.stringify(record));
  } finally {
    await client.close();
    await broken.close();
    rmSync(scratch, { recursive: true, force: true });
  }
});

test("reaping a dead server's ledger kills its process groups by pid and start time, never a recycled pid", async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'boxflow-isolation-reap-'));
  const group = spawn('sh', ['-c', 'sleep 300 & sleep 300'], { detached: true, stdio: 'ignore' });
  const bystander = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  let singleton = '';
  try {
    const start = (pid: number) => procStat(pid)!.start;
    const alive = (pid: number) => procStat(pid) !== undefined;
    const members = () => readdirSync('/proc').filter((n) => /^\d+$/.test(n) && procStat(Number(n))?.pgrp === group.pid);
    await waitFor(() => members().length === 3, { what: 'sh and its two sleeps to run', timeoutMs: 30_000, intervalMs: 50 });
    mkdirSync(join(scratch, 'procs'));
    mkdirSync(join(scratch, 'boxes', 'dead-box', 'profile'), { recursive: true });
    // Its Chromium's singleton folder in /tmp, which only a clean exit removes.
    singleton = mkdtempSync('/tmp/org.chromium.Chromium.');
    symlinkSync(join(singleton, 'SingletonSocket'), join(scratch, 'boxes', 'dead-box', 'profile', 'SingletonSocket'));
    const deadOwner = { pid: 999_999_999, start: '1' };
    writeFileSync(
      join(scratch, 'procs', 'dead-box.json'),
      // The bystander's pid with another start time stands for a pid recycled since the ledger was written.
      JSON.stringify({ boxId: 'dead-box', owner: deadOwner, uid: null, dir: join(scratch, 'boxes', 'dead-box'), procs: [{ pid: group.pid, start: start(group.pid!) }, { pid: bystander.pid, start: String(BigInt(start(bystander.pid!)) - 1n) }] }),
    );
    // A ledger whose server still lives (this process) is left alone.
    writeFileSync(join(scratch, 'procs', 'live-box.json'), JSON.stringify({ boxId: 'live-box', owner: { pid: process.pid, start: start(process.pid) }, uid: null, dir: join(scratch, 'boxes', 'live-box'), procs: [{ pid: bystander.pid, start: start(bystander.pid!) }] }));

    assert.equal(await reapDataDir(scratch), 1);
    await waitFor(() => members().length === 0, { what: "the dead box's process group to go", timeoutMs: 30_000, intervalMs: 50 });
    assert.ok(alive(bystander.pid!), 'a recycled pid and a live server\'s box are not touched');
    assert.ok(!existsSync(join(scratch, 'boxes', 'dead-box')));
    assert.ok(!existsSync(singleton), "the dead box's Chromium singleton folder in /tmp is removed too");
    assert.ok(!existsSync(join(scratch, 'procs', 'dead-box.json')));
    assert.ok(existsSync(join(scratch, 'procs', 'live-box.json')));
  } finally {
    for (const p of [group, bystander]) {
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }
    rmSync(scratch, { recursive: true, force: true });
    if (singleton) rmSync(singleton, { recursive: true, force: true });
  }
});

test('when box users cannot pass into the data dir, box directories live under $TMPDIR instead', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'boxflow-isolation-closed-')); // mode 0700: closed to box users
  const logs: Array<Record<string, unknown>> = [];
  const closed = await startServer({ port: 0, dataDir: join(parent, 'data'), secret, log: (e) => logs.push(e) });
  const client = new BoxClient({ baseUrl: closed.baseUrl, apiKey: await createApiKey(secret, 'dave'), maxRetries: 0 });
  let boxesDir: string | undefined;
  try {
    const box = await client.createLinuxBox({});
    assert.equal(box.status, 'running');
    boxesDir = readdirSync(tmpdir())
      .filter((n) => n.startsWith('boxflow-boxes-'))
      .map((n) => join(tmpdir(), n))
      .find((d) => existsSync(join(d, box.id)));
    assert.ok(boxesDir, 'the box directory is under $TMPDIR');
    assert.equal(statSync(join(boxesDir, box.id, 'profile')).uid, uidOf(chromiumPidIn(join(boxesDir, box.id))));
    assert.ok(logs.some((e) => String(e.msg).includes(parent) && /not passable/.test(String(e.msg))), JSON.stringify(logs));
    assert.ok(!JSON.stringify(box).includes(boxesDir));
  } finally {
    await client.close();
    await closed.close();
    rmSync(parent, { recursive: true, force: true });
  }
  assert.ok(!existsSync(boxesDir!), 'closing the server removes it');
});

test('stale serve dirs: only those whose server is dead are reaped and removed', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'boxflow-isolation-stale-'));
  const orphan = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  try {
    await waitFor(() => procStat(orphan.pid!) !== undefined, { what: 'the orphan to run', timeoutMs: 30_000, intervalMs: 50 });
    const me = { pid: process.pid, start: procStat(process.pid)!.start };
    const make = (name: string, owner?: object) => {
      mkdirSync(join(parent, name, 'procs'), { recursive: true });
      if (owner) writeFileSync(join(parent, name, 'owner.json'), JSON.stringify(owner));
      return join(parent, name);
    };
    const live = make('serve-live', me);
    const settingUp = make('serve-new');
    const dead = make('serve-dead', { pid: 999_999_999, start: '1' });
    writeFileSync(join(dead, 'procs', 'b.json'), JSON.stringify({ boxId: 'b', owner: { pid: 999_999_999, start: '1' }, uid: null, dir: join(dead, 'boxes', 'b'), procs: [{ pid: orphan.pid, start: procStat(orphan.pid!)!.start }] }));
    const other = make('unrelated', { pid: 999_999_999, start: '1' });

    assert.deepEqual(await cleanStaleServeDirs(parent, 'serve-'), ['serve-dead']);
    assert.ok(!existsSync(dead));
    assert.ok(existsSync(live) && existsSync(settingUp) && existsSync(other));
    await waitFor(() => procStat(orphan.pid!) === undefined, { what: 'the dead run\'s process to go', timeoutMs: 30_000, intervalMs: 50 });
  } finally {
    try {
      process.kill(-orphan.pid!, 'SIGKILL');
    } catch {
      // reaped
    }
    rmSync(parent, { recursive: true, force: true });
  }
});
