// A `boxflow test` or `boxflow serve` killed with SIGKILL cannot clean up: its boxes' Chromiums
// and its data dir stay behind. The next run reaps them; the next server on the same data dir reaps
// its boxes' processes and keeps the boxes, stopped (docs/server.md).
// The built CLI, real Chromium, a real SIGKILL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, runCli, tempProject } from './helpers.js';
import { waitFor } from '../support/waitFor.js';

const kLongFlow = 'name: long\nsteps:\n  - openTab: "data:text/html,<p>long run</p>"\n  - sleep: 10m\n';
const kQuickFlow = 'name: quick\nsteps:\n  - openTab: "data:text/html,<p>quick run</p>"\n  - assertVisible: quick run\n';

/** Pids of live processes whose command line holds `needle`. */
function processesWith(needle: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(needle)) found.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

function killHard(child: ChildProcess): Promise<void> {
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  return gone;
}

const env = () => ({ ...process.env, BOXFLOW_BASE_URL: undefined, BOXFLOW_API_KEY: undefined, GBOX_BASE_URL: undefined, GBOX_API_KEY: undefined }) as NodeJS.ProcessEnv;

test('a SIGKILLed boxflow test leaves Chromium and its temp dir; the next run reaps both', async () => {
  const dir = tempProject({ 'long.flow.yaml': kLongFlow, 'quick.flow.yaml': kQuickFlow });
  // A TMPDIR of the test's own: a run of another test file starting meanwhile reaps the stale data
  // dirs in its TMPDIR, and would take the killed run's before "the next run" here. Passable by box users.
  const tmp = mkdtempSync(join(tmpdir(), 'boxflow-e2e-reap-'));
  chmodSync(tmp, 0o755);
  const child = spawn(process.execPath, [cliPath, 'test', 'long.flow.yaml', '--output', 'out-long'], { cwd: dir, env: { ...env(), TMPDIR: tmp }, stdio: 'ignore' });
  try {
    // The run's temp data dir, told apart from other runs' by the pid in its owner file.
    const serveDir = await waitFor(
      () =>
        readdirSync(tmp)
          .filter((n) => n.startsWith('boxflow-serve-'))
          .map((n) => join(tmp, n))
          .find((d) => {
            try {
              return (JSON.parse(readFileSync(join(d, 'owner.json'), 'utf8')) as { pid: number }).pid === child.pid;
            } catch {
              return false;
            }
          }),
      { what: 'the run to create its data dir', timeoutMs: 90_000, intervalMs: 200 },
    );
    const needle = `--user-data-dir=${serveDir}/boxes/`;
    await waitFor(() => processesWith(needle).length > 0, { what: 'the run to start Chromium', timeoutMs: 90_000, intervalMs: 200 });
    await killHard(child);

    // Its Chromium ends by itself: the DevTools pipe it reads closed with the killed process, so no
    // browser is orphaned. The data dir is left (nobody cleaned up) until the next run reaps it.
    await waitFor(() => processesWith(needle).length === 0, { what: 'the killed run\'s Chromium to end by itself', timeoutMs: 30_000, intervalMs: 200 });
    assert.ok(existsSync(serveDir));

    const next = await runCli(['test', 'quick.flow.yaml', '--output', 'out-quick'], { cwd: dir, env: { TMPDIR: tmp } });
    assert.equal(next.code, 0, next.stderr + next.stdout);
    assert.deepEqual(processesWith(needle), [], 'no Chromium of the killed run is left');
    assert.ok(!existsSync(serveDir), 'the killed run\'s data dir is gone');
  } finally {
    if (child.exitCode === null && child.signalCode === null) await killHard(child);
    rmSync(dir, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a SIGKILLed boxflow serve: the next serve on the same data dir reaps its boxes\' processes and lists them stopped', async () => {
  const dir = tempProject({});
  // Box users must be able to pass through the data dir's parents: /tmp is, a mkdtemp dir is not.
  const dataDir = mkdtempSync(join(tmpdir(), 'boxflow-reap-serve-'));
  const startServe = async () => {
    const serve = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--data-dir', dataDir], { cwd: dir, env: env(), stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    serve.stdout!.on('data', (d: Buffer) => (out += d));
    const baseUrl = await waitFor(() => /"baseUrl":"([^"]+)"/.exec(out)?.[1], { what: 'boxflow serve to listen', timeoutMs: 90_000, intervalMs: 200 });
    return { serve, baseUrl };
  };
  let first: ChildProcess | undefined;
  let second: ChildProcess | undefined;
  try {
    const a = await startServe();
    first = a.serve;
    const key = await runCli(['key', '--sub', 'tenant', '--data-dir', dataDir], { cwd: dir });
    assert.equal(key.code, 0, key.stderr);
    const res = await fetch(`${a.baseUrl}/boxes/linux`, { method: 'POST', headers: { authorization: `Bearer ${key.stdout.trim()}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 201, await res.clone().text());
    const box = (await res.json()) as { id: string };
    const needle = `--user-data-dir=${join(dataDir, 'boxes', box.id)}`;
    assert.ok(processesWith(needle).length > 0);
    await killHard(first);
    // Its Chromium ends by itself (its DevTools pipe closed); the box's directory stays for the reaper.
    await waitFor(() => processesWith(needle).length === 0, { what: 'the killed server\'s Chromium to end by itself', timeoutMs: 30_000, intervalMs: 200 });
    assert.ok(existsSync(join(dataDir, 'boxes', box.id)), 'the box directory is left for the next server');

    const b = await startServe();
    second = b.serve;
    // The box outlives its server: its processes are reaped, its directory stays, and it is listed stopped.
    assert.deepEqual(processesWith(needle), []);
    assert.ok(existsSync(join(dataDir, 'boxes', box.id)), 'the box directory is kept for the box');
    const again = await fetch(`${b.baseUrl}/boxes/${box.id}`, { headers: { authorization: `Bearer ${key.stdout.trim()}` } });
    assert.equal(((await again.json()) as { status: string }).status, 'stopped');
  } finally {
    for (const p of [first, second]) if (p && p.exitCode === null && p.signalCode === null) await killHard(p);
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
});
