// boxflow serve (as root, as in CI) against three tenant attacks: a loader variable in a box's
// environment reaching a process that still runs as root, a web terminal fed faster than its shell
// reads, and one API key creating boxes until the machine runs out. Real HTTP, real Chromium, real
// ptys; the preload library is compiled here.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { WebSocket } from 'ws';
import { BoxClient } from '../../src/api/client.js';
import { createApiKey, resolveSecret, startServer } from '../../src/server/index.js';
import { claimBoxUser, isolatedLaunch, kLaunchDir, releaseBoxUser } from '../../src/server/host/boxUser.js';
import { rejects } from '../support/apiErrors.js';
import { tempDir } from '../support/tmp.js';
import { waitFor } from '../support/waitFor.js';
import { tcpUnread, wchanOf } from '../support/procs.js';

const asRoot = process.getuid?.() === 0;
const dir = tempDir('boxflow-escapes-');
chmodSync(dir, 0o755);
const secret = 'escapes-secret-4f1c9a7e2b';
const servers: Array<{ close(): Promise<void> }> = [];
const clients: BoxClient[] = [];
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(name: string, opts: { maxBoxesPerKey?: number } = {}) {
  const server = await startServer({ port: 0, dataDir: join(dir, name), secret, log: () => {}, ...opts });
  servers.push(server);
  const client = async (tenant: string) => {
    const c = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, tenant), maxRetries: 0 });
    clients.push(c);
    return c;
  };
  return { server, client };
}

test('a box environment with a loader or runtime variable is refused with 400, naming it', async () => {
  const { client } = await serve('envs');
  const alice = await client('alice');
  for (const [name, value] of [['LD_PRELOAD', '/work/evil.so'], ['ld_library_path', '/work'], ['NODE_OPTIONS', '--require /work/x.js'], ['GCONV_PATH', '/work'], ['BASH_ENV', '/work/rc'], ['PYTHONPATH', '/work'], ['GLIBC_TUNABLES', 'x']]) {
    const err = await rejects(alice.createLinuxBox({ config: { envs: { [name!]: value! } } }), 400, 'INVALID_REQUEST');
    assert.match(err.message, new RegExp(name!), err.message);
  }
  for (const name of ['A=B', 'BASH_FUNC_x%%', '1ABC', '']) await rejects(alice.createLinuxBox({ config: { envs: { [name]: 'x' } } }), 400, 'INVALID_REQUEST');
  await rejects(alice.createLinuxBox({ config: { envs: { OK: 'a\0b' } } }), 400, 'INVALID_REQUEST');
  // Nothing was started for them: the key holds no box.
  assert.equal((await alice.listBoxes({})).total, 0);
});

test('the box shell drops to the box user before any tenant variable applies: a preload library never runs as root', { skip: !asRoot && 'needs root (box users)' }, async (t) => {
  const gcc = spawnSync('cc', ['--version']);
  if (gcc.status !== 0) return t.skip('no C compiler');
  const work = tempDir('boxflow-preload-');
  chmodSync(work, 0o777);
  const log = join(work, 'uids.log');
  writeFileSync(log, '');
  chmodSync(log, 0o666);
  // Records the effective uid of every process it is loaded into.
  writeFileSync(join(work, 'rec.c'), `#include <stdio.h>\n#include <unistd.h>\n__attribute__((constructor)) static void rec(void) { FILE *f = fopen("${log}", "a"); if (f) { fprintf(f, "%d\\n", (int)geteuid()); fclose(f); } }\n`);
  const built = spawnSync('cc', ['-shared', '-fPIC', '-o', join(work, 'rec.so'), join(work, 'rec.c')], { encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  chmodSync(join(work, 'rec.so'), 0o755);
  const user = await claimBoxUser('preload-test');
  try {
    // The route refuses LD_PRELOAD; this checks the second wall: even were it let through, it applies
    // only after setpriv dropped root.
    mkdirSync(join(work, kLaunchDir), { mode: 0o711 });
    const { argv, rootEnv } = await isolatedLaunch(user, work, { LD_PRELOAD: join(work, 'rec.so'), HOME: work }, { shellScript: 'id -u' });
    const child = spawn(argv[0]!, argv.slice(1), { env: rootEnv, cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await new Promise((r) => child.once('exit', r));
    assert.equal(out.trim(), String(user.uid), 'the shell ran as the box user');
    const uids = readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map(Number);
    assert.ok(uids.includes(user.uid), `the library was loaded after the drop: ${uids.join(',')}`);
    assert.ok(!uids.includes(0), `a process ran the tenant's library as root: ${uids.join(',')}`);
  } finally {
    await releaseBoxUser(user);
  }
});

/** A process's resident memory in bytes, from /proc. */
function rss(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

test('a web terminal whose shell reads nothing holds a bounded amount of the server\'s memory, however much is sent', { skip: !existsSync('/proc/self/status') && 'needs /proc' }, async () => {
  // The server in a process of its own, so that its memory is measured apart from this client's.
  const dataDir = join(dir, 'pty-srv');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stdout.on('data', (d) => {
        seen += d;
        const m = /"baseUrl":"([^"]+)"/.exec(seen);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${seen}`)));
    });
    const client = new BoxClient({ baseUrl, apiKey: await createApiKey(await resolveSecret(dataDir), 'mallory'), maxRetries: 0 });
    clients.push(client);
    const box = await client.createLinuxBox({});
    const { url } = await client.webTerminalUrl(box.id);
    const ws = new WebSocket(url.replace(/^http/, 'ws'));
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    let output = '';
    ws.on('message', (d) => (output += d.toString()));
    // A command that never reads its input: the pty's buffer fills, and what follows waits somewhere.
    ws.send(JSON.stringify({ type: 'input', data: 'echo READY; sleep 600\r' }));
    await waitFor(() => /READY\r?\n/.test(output), { what: 'the shell to print READY', timeoutMs: 30_000, intervalMs: 50 });
    const before = rss(child.pid!);
    const frame = JSON.stringify({ type: 'input', data: 'x'.repeat(4 * 1024 * 1024 - 64) });
    for (let i = 0; i < 60; i++) ws.send(frame); // 240 MiB
    // Wait for the server to stop reading: its socket holds unread bytes while its one thread
    // sleeps in epoll (a socket it still read would wake it), and most of the input waits here.
    const sock = (ws as unknown as { _socket: Socket })._socket;
    const serverPort = Number(new URL(baseUrl).port);
    await waitFor(() => ws.bufferedAmount > 100 * 2 ** 20 && (tcpUnread(serverPort, sock.localPort!) ?? 0) > 0 && wchanOf(child.pid!) === 'do_epoll_wait', { what: 'the server to stop reading the terminal socket', timeoutMs: 60_000, intervalMs: 50 });
    const grown = rss(child.pid!) - before;
    assert.ok(grown < 64 * 2 ** 20, `the server grew by ${Math.round(grown / 2 ** 20)} MiB for 240 MiB its shell did not read`);
    assert.ok(ws.bufferedAmount > 100 * 2 ** 20, 'the server stopped reading: the input waits on the client side');
    ws.terminate();
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
});

test('one API key holds at most --max-boxes-per-key live boxes: more is 429 TOO_MANY_BOXES; other keys are not affected', async () => {
  const { client } = await serve('cap', { maxBoxesPerKey: 2 });
  const alice = await client('alice');
  const bob = await client('bob');
  // Three at once: the cap holds while the first two are still starting.
  const results = await Promise.allSettled([alice.createLinuxBox({}), alice.createLinuxBox({}), alice.createLinuxBox({})]);
  const made = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as { status: number; serverCode?: string }] : []));
  assert.equal(made.length, 2);
  assert.deepEqual(refused.map((e) => [e.status, e.serverCode]), [[429, 'TOO_MANY_BOXES']]);
  const other = await bob.createLinuxBox({});
  assert.equal(other.status, 'running');
  await alice.terminateBox(made[0]!.id);
  const again = await alice.createLinuxBox({});
  assert.equal(again.status, 'running');
  await Promise.all([alice.terminateBox(made[1]!.id), alice.terminateBox(again.id), bob.terminateBox(other.id)]);
});

test('serve refuses a --max-boxes-per-key that is not a whole number from 1', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--data-dir', join(dir, 'bad'), '--max-boxes-per-key', '0'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--max-boxes-per-key/);
});
