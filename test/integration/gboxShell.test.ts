// POST /boxes/{id}/commands and /run-code on Linux boxes of a real `boxflow serve` (as root here, as
// in CI: each box runs as its own user), tried as a tenant would attack them: another tenant's box,
// the server's secret, another box's files, the box's own Chromium, the network, a command that
// never ends or never stops writing, loader variables, a request that goes away.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import { kCommandOutputMax, type Box } from '../../src/api/schemas.js';
import { isolationAvailable } from '../../src/server/host/boxUser.js';
import { waitFor } from '../support/waitFor.js';

const srv = useGboxServer('gbox-shell');
const a = () => srv.client('a');
const b = () => srv.client('b');
const isolated = isolationAvailable();

const kCanaryEnv = 'BOXFLOW_SHELL_CANARY';
let box: Box;
let other: Box;
/** The box's directory on the server (its HOME), as its shell sees it. */
let home: string;
const hits: string[] = [];
let site: string;

before(async () => {
  process.env[kCanaryEnv] = 'server-env-canary-41b7';
  await srv.ready();
  site = await srv.site((req, res) => {
    hits.push(req.url ?? '');
    res.end('reached');
  });
  [box, other] = await Promise.all([a().createLinuxBox({ config: { envs: { BOX_VAR: 'from-config' } } }), b().createLinuxBox()]);
  home = (await a().runCommand(box.id, { command: 'printf %s "$HOME"' })).stdout;
});

/** Processes (pid, uid, argv) whose command line matches. */
function processes(match: RegExp): Array<{ pid: number; uid: number; argv: string }> {
  const out: Array<{ pid: number; uid: number; argv: string }> = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const state = /^State:\s+(\w)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1];
      if (state === 'Z' || !match.test(argv)) continue;
      out.push({ pid: Number(name), uid: Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))![1]), argv });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** The box's Chromium browser process: found by its profile dir. */
function chromiumPid(): number {
  const flag = `--user-data-dir=${join(home, 'profile')}`;
  const found = processes(/--user-data-dir=/).find((p) => p.argv.includes(flag) && !p.argv.includes('--type='));
  assert.ok(found, 'the box runs a Chromium');
  return found.pid;
}

test('a command runs in the box: exit code, stdout and stderr apart, the working dir, the box env and the request envs', async () => {
  const r = await a().runCommand(box.id, { command: 'echo out; echo err >&2; echo "$BOX_VAR $ASKED"; pwd; exit 3', envs: { ASKED: 'from-request' } });
  assert.equal(r.exitCode, 3);
  assert.equal(r.stderr, 'err\n');
  const [out, vars, pwd] = r.stdout.trim().split('\n');
  assert.deepEqual([out, vars], ['out', 'from-config from-request']);
  assert.equal(pwd, join(home, 'work'), "the box's working dir");
  await a().runCommand(box.id, { command: 'mkdir -p sub/deeper' });
  assert.equal((await a().runCommand(box.id, { command: 'pwd', workingDir: 'sub/deeper' })).stdout, `${join(home, 'work', 'sub', 'deeper')}\n`, 'a relative workingDir starts at the box\'s');
  assert.equal((await a().runCommand(box.id, { command: 'pwd', workingDir: '/work/sub' })).stdout, `${join(home, 'work', 'sub')}\n`, 'an absolute workingDir is a box path');
  assert.equal((await a().runCommand(box.id, { command: 'pwd', workingDir: '../../../..' })).stdout, `${home}\n`, '.. stops at the box\'s root');
  await rejects(a().runCommand(box.id, { command: 'pwd', workingDir: 'nowhere' }), 404, 'FILE_NOT_FOUND');
  // The wire: {exitCode, stdout, stderr} and nothing else.
  const raw = await srv.raw('a', 'POST', `/boxes/${box.id}/commands`, { command: 'printf hi' });
  assert.equal(raw.status, 200);
  assert.deepEqual(JSON.parse(raw.text), { exitCode: 0, stdout: 'hi', stderr: '' });
});

test("the command's environment is the box's: none of the server's", async () => {
  const { stdout } = await a().runCommand(box.id, { command: 'env' });
  assert.ok(!stdout.includes(kCanaryEnv), stdout);
  assert.match(stdout, /^HOME=/m);
  assert.match(stdout, /^BOX_VAR=from-config$/m);
  for (const name of Object.keys(process.env).filter((k) => /KEY|SECRET|TOKEN|BOXFLOW/.test(k))) assert.ok(!stdout.includes(`${name}=`), `${name} reached the box`);
});

test("another tenant's box does not exist; nor does a terminated one's shell", async () => {
  await rejects(b().runCommand(box.id, { command: 'id' }), 404, 'BOX_NOT_FOUND');
  await rejects(b().runCode(box.id, { code: 'id', language: 'bash' }), 404, 'BOX_NOT_FOUND');
  const gone = await a().createLinuxBox();
  await a().terminateBox(gone.id);
  await rejects(a().runCommand(gone.id, { command: 'id' }), 409, 'BOX_NOT_RUNNING');
});

test('loader variables, bad names and NUL characters are refused before anything runs', async () => {
  for (const envs of [{ LD_PRELOAD: '/tmp/x.so' }, { NODE_OPTIONS: '--require /tmp/x.js' }, { BASH_ENV: '/tmp/x' }, { PYTHONPATH: '/tmp' }] as Array<Record<string, string>>) {
    const err = await rejects(a().runCommand(box.id, { command: 'true', envs }), 400, 'INVALID_REQUEST');
    assert.match(err.message, new RegExp(Object.keys(envs)[0]!));
    await rejects(a().runCode(box.id, { code: 'true', language: 'bash', envs }), 400, 'INVALID_REQUEST');
  }
  await rejects(a().runCommand(box.id, { command: 'true', envs: { 'A-B': 'x' } }), 400, 'INVALID_REQUEST');
  await rejects(a().runCommand(box.id, { command: 'true', envs: { OK: 'a\u0000b' } }), 400, 'INVALID_REQUEST');
  await rejects(a().runCommand(box.id, { command: 'echo a\u0000b' }), 400, 'INVALID_REQUEST');
  await rejects(a().runCommand(box.id, { command: 'true', workingDir: 'a\u0000b' }), 400, 'INVALID_REQUEST');
  await rejects(a().runCommand(box.id, { command: 'true', timeout: '11m' }), 400, 'INVALID_DURATION');
});

test('the shell cannot read the server secret, another box, or the server files', { skip: !isolated && 'needs root (box users)' }, async () => {
  const dataDir = dirname(dirname(home));
  // This server got its secret as an option; `boxflow serve` keeps it in this file, root-only.
  const secret = 'server-secret-canary-9d2e';
  if (!existsSync(join(dataDir, 'server-secret'))) writeFileSync(join(dataDir, 'server-secret'), `${secret}\n`, { mode: 0o600 });
  assert.ok(readFileSync(join(dataDir, 'server-secret'), 'utf8').includes(secret));
  const otherHome = join(dirname(home), other.id);
  assert.ok(statSync(join(otherHome, 'work')).isDirectory());
  const r = await a().runCommand(box.id, { command: `id -u; cat ${join(dataDir, 'server-secret')}; ls ${join(otherHome, 'work')}; touch ${join(otherHome, 'work', 'planted')}; ls ${join(dataDir, 'procs')}; cat /proc/1/environ` });
  const uid = Number(r.stdout.split('\n')[0]);
  assert.ok(uid >= 200_000, `runs as a box user, not ${uid}`);
  assert.equal(uid, statSync(join(home, 'work')).uid, "the box's own user, who owns its working dir");
  assert.ok(!r.stdout.includes(secret) && !r.stderr.includes(secret));
  assert.equal((r.stderr.match(/Permission denied/g) ?? []).length, 4, r.stderr);
  assert.ok(!existsSync(join(otherHome, 'work', 'planted')));
  // Its /proc is its own (a pid namespace): pid 1 is the command's own shell, started with what the
  // root steps had (PATH, and the shell variables bash adds), none of the server's or the tenant's.
  const names = r.stdout.split('\n')[1]!.split('\0').filter(Boolean).map((kv) => kv.split('=')[0]).sort();
  assert.deepEqual(names.filter((n) => !['PATH', 'PWD', 'SHLVL', '_'].includes(n!)), [], r.stdout);
});

test("the shell cannot act on the box's own Chromium: another user, not even seen, no signal", { skip: !isolated && 'needs root (box users)' }, async () => {
  const pid = chromiumPid();
  const r = await a().runCommand(box.id, { command: `cat /proc/${pid}/environ; kill -0 ${pid}; kill -9 ${pid}; ls /proc/${pid}/fd; ls /proc | grep -c '^[0-9]'; id -u` });
  const uid = Number(r.stdout.trim().split('\n').pop());
  assert.notEqual(uid, processes(/./).find((p) => p.pid === pid)!.uid, 'the box user is not the browser user');
  // A pid namespace of its own: the browser's pid names no process there.
  assert.match(r.stderr, /environ: No such file/);
  assert.equal((r.stderr.match(/No such process/g) ?? []).length, 2, r.stderr);
  assert.match(r.stderr, /fd.*No such file/);
  assert.ok(Number(r.stdout.trim().split('\n').at(-2)) <= 3, `the box sees only its own processes: ${r.stdout}`);
  assert.equal(chromiumPid(), pid, 'the browser still runs');
});

test('the shell has no network: not the machine, not loopback, not the server', { skip: !isolated && 'needs root (a network namespace)' }, async () => {
  const port = new URL(site).port;
  const api = new URL(srv.baseUrl).port;
  const r = await a().runCommand(box.id, {
    command: `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; for p in ${port} ${api}; do bash -c "exec 3<>/dev/tcp/127.0.0.1/$p" && echo "connected $p" || echo "refused $p"; done`,
  });
  const [iface, ...tries] = r.stdout.trim().split('\n');
  assert.equal(iface, 'lo', 'no interface but its own loopback');
  assert.deepEqual(tries, [`refused ${port}`, `refused ${api}`]);
  assert.match(r.stderr, /Network is unreachable/);
  const py = await a().runCode(box.id, { language: 'python', code: `import socket\ntry:\n  socket.create_connection(('127.0.0.1', ${port}), 2)\n  print('connected')\nexcept OSError as e:\n  print('failed', e.errno)` });
  assert.match(py.stdout, /^failed/, py.stdout + py.stderr);
  assert.deepEqual(hits, [], 'the site saw no request from the box');
});

test('a command that never ends: 124 at its timeout, every process it started killed (its group, and one that left it)', async () => {
  const started = Date.now();
  const r = await a().runCommand(box.id, { command: 'echo started; sleep 1001 & setsid sleep 1002 & sleep 1003', timeout: '1s' });
  assert.equal(r.exitCode, 124);
  assert.equal(r.stdout, 'started\n');
  assert.match(r.stderr, /timed out after 1000 ms/);
  assert.ok(Date.now() - started < 10_000, `answered after ${Date.now() - started} ms`);
  await waitFor(() => processes(/^sleep 100[123]$/).length === 0, { what: 'the sleeps are gone', timeoutMs: 15_000, intervalMs: 50 });
  // What a finished command left behind ends with it too.
  await a().runCommand(box.id, { command: 'sleep 1004 >/dev/null 2>&1 & echo left' });
  await waitFor(() => processes(/^sleep 1004$/).length === 0, { what: 'the background sleep is gone', timeoutMs: 15_000, intervalMs: 50 });
});

test('a request that goes away kills its command', async () => {
  const abort = new AbortController();
  const pending = a().runCommand(box.id, { command: 'sleep 1005', timeout: '60s' }, { signal: abort.signal, maxRetries: 0 });
  await waitFor(() => processes(/^sleep 1005$/).length === 1, { what: 'the command runs', timeoutMs: 15_000, intervalMs: 50 });
  abort.abort();
  await assert.rejects(pending);
  await waitFor(() => processes(/^sleep 1005$/).length === 0, { what: 'the command is killed', timeoutMs: 15_000, intervalMs: 50 });
  assert.equal((await a().runCommand(box.id, { command: 'echo next' })).stdout, 'next\n', 'the box takes the next command');
});

test('terminating the box ends its running command', async () => {
  const doomed = await a().createLinuxBox();
  const pending = a().runCommand(doomed.id, { command: 'sleep 1006', timeout: '60s' }).then(
    () => 'answered',
    (err: { httpStatus?: number; serverCode?: string }) => `${err.httpStatus} ${err.serverCode}`,
  );
  await waitFor(() => processes(/^sleep 1006$/).length === 1, { what: 'the command runs', timeoutMs: 15_000, intervalMs: 50 });
  await a().terminateBox(doomed.id);
  assert.equal(await pending, '409 BOX_NOT_RUNNING');
  await waitFor(() => processes(/^sleep 1006$/).length === 0, { what: 'the command is killed', timeoutMs: 15_000, intervalMs: 50 });
});

test('huge output is cut at the limit, each stream on its own, and said so', async () => {
  const r = await a().runCommand(box.id, { command: `head -c 3000000 /dev/zero | tr '\\0' a; head -c 1500000 /dev/zero | tr '\\0' b >&2; echo done >&2; exit 5`, timeout: '60s' });
  assert.equal(r.exitCode, 5, 'the command ran to its end: the rest of its output was read and dropped');
  assert.equal(r.stdout.slice(0, kCommandOutputMax), 'a'.repeat(kCommandOutputMax));
  assert.match(r.stdout.slice(kCommandOutputMax), /^\n\[boxflow: output cut at 1048576 bytes; the command wrote 3000000\]$/);
  assert.match(r.stderr.slice(kCommandOutputMax), /^\n\[boxflow: output cut at 1048576 bytes; the command wrote 1500005\]$/);
  assert.deepEqual(r.truncated, { stdout: 3000000 - kCommandOutputMax, stderr: 1500005 - kCommandOutputMax }, 'the bytes dropped from each stream, as a field');
  const small = await a().runCommand(box.id, { command: 'echo small' });
  assert.equal('truncated' in small, false, 'nothing cut, no field');
  // A character cut in two at the limit is left out, never half-sent.
  const u = await a().runCommand(box.id, { command: `python3 -c "import sys; sys.stdout.write('x' + 'é' * 600000)"` });
  assert.ok(!u.stdout.includes('\uFFFD'));
  assert.equal(Buffer.byteLength(u.stdout.split('\n[boxflow')[0]!), kCommandOutputMax - 1);
});

test('run-code: bash, python and javascript with argv; the code file is gone afterwards; 124 at the timeout', async () => {
  const bash = await a().runCode(box.id, { language: 'bash', code: 'echo "$# $1 $2"; read -r line || echo "stdin is empty"; exit 4', argv: ['--help', 'two words'] });
  assert.deepEqual(bash, { exitCode: 4, stdout: '2 --help two words\nstdin is empty\n', stderr: '' });
  const py = await a().runCode(box.id, { code: 'import sys, os\nprint(sys.argv[1:], os.getcwd(), os.environ["ASKED"])', argv: ['--help'], envs: { ASKED: 'yes' }, workingDir: 'sub' });
  assert.equal(py.stdout, `['--help'] ${join(home, 'work', 'sub')} yes\n`, 'python is the default language');
  const js = await a().runCode(box.id, { language: 'javascript', code: 'console.log(JSON.stringify(process.argv.slice(2)), process.getuid() === 0)', argv: ['a', 'b'] });
  assert.equal(js.stdout, `["a","b"] false\n`);
  assert.equal((await a().runCode(box.id, { language: 'sh', code: 'echo "$0" | grep -c boxflow-code' })).stdout, '1\n');
  const slow = await a().runCode(box.id, { language: 'bash', code: 'sleep 1007', timeout: '500ms' });
  assert.equal(slow.exitCode, 124);
  await waitFor(() => processes(/^sleep 1007$/).length === 0, { what: 'its sleep is gone', timeoutMs: 15_000, intervalMs: 50 });
  const left = await a().runCommand(box.id, { command: 'ls -a "$HOME" | grep -c boxflow-code || true' });
  assert.ok(Number(left.stdout) <= 1, 'only the code folder of the timed-out run is left (it is removed with the box)');
  // The wrapper's `{code}` alone, as the SDK sends a string.
  const raw = await srv.raw('a', 'POST', `/boxes/${box.id}/run-code`, { code: 'print(6 * 7)' });
  assert.deepEqual(JSON.parse(raw.text), { exitCode: 0, stdout: '42\n', stderr: '' });
});

test('run-code: a language the box cannot run is a 422 naming those it can', async () => {
  const ts = await a().runCode(box.id, { language: 'typescript', code: 'const x: number = 1; console.log(x)' }).then(
    (r) => ({ ran: r }),
    (err: { httpStatus?: number; serverCode?: string; message: string }) => ({ refused: err }),
  );
  if ('refused' in ts) {
    assert.equal(ts.refused.httpStatus, 422);
    assert.equal(ts.refused.serverCode, 'UNPROCESSABLE');
    assert.match(ts.refused.message, /cannot run typescript: its node cannot strip types .*; it runs bash, python, javascript, sh/);
  } else assert.equal(ts.ran.stdout.trim(), '1', 'a node that strips types runs it');
  const err = await rejects(a().runCode(box.id, { language: 'python', code: 'print(1)', envs: { PATH: '/nonexistent' } }), 422, 'UNPROCESSABLE');
  assert.match(err.message, /cannot run python: the box's user finds no python3 on its PATH; it runs none of them/);
  await rejects(a().runCode(box.id, { language: 'ruby' as 'bash', code: 'puts 1' }), 400, 'INVALID_REQUEST');
});
