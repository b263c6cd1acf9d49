// Stopping and starting a box (POST /boxes/{id}/stop, /start) on a real `boxflow serve`: a local
// Linux box on a real Chromium, an Android box on the fake adb server (a TEST DOUBLE of the adb
// protocol). A stopped box keeps its record, files and settings, holds nothing (no Chromium, no
// device), refuses its actions with 409 BOX_NOT_RUNNING, and start brings it back.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { createApiKey } from '../../src/server/index.js';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import { waitFor } from '../support/waitFor.js';

const srv = useGboxServer('box-lifecycle', ['emulator-5554']);
const a = () => srv.client('a');
const b = () => srv.client('b');

before(() => srv.ready());

/** The pids of the Chromium processes running on the box's profile. */
function chromiumsOf(boxId: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(`/${boxId}/profile`)) pids.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

test('a stopped Linux box ends its Chromium, refuses its actions with 409, and start brings it back with its files and settings', async () => {
  const box = await a().createLinuxBox({ config: { labels: { suite: 'lifecycle' } } });
  await a().writeFile(box.id, { path: 'kept.txt', content: 'still here' });
  await a().updateSettings(box.id, { scale: 0.5 });
  await a().setResolution(box.id, { width: 1024, height: 700 });
  assert.ok(chromiumsOf(box.id).length > 0, 'the box runs its Chromium');

  const stopped = await a().stopBox(box.id);
  assert.equal(stopped.status, 'stopped');
  assert.deepEqual(chromiumsOf(box.id), [], 'no Chromium of the box is left');
  assert.equal((await a().getBox(box.id)).status, 'stopped');
  assert.deepEqual((await a().listBoxes({ status: ['stopped'] })).data.map((x) => x.id), [box.id]);
  const refused = await rejects(a().screenshot(box.id, {}), 409, 'BOX_NOT_RUNNING');
  assert.match(refused.message, /stopped.*\/start/);
  await rejects(a().readFile(box.id, 'kept.txt'), 409, 'BOX_NOT_RUNNING');
  await rejects(a().listTabs(box.id), 409, 'BOX_NOT_RUNNING');
  assert.deepEqual(chromiumsOf(box.id), [], 'a refused action started no browser');
  assert.equal((await a().stopBox(box.id)).status, 'stopped', 'stopping a stopped box answers it as it is');
  await rejects(b().startBox(box.id), 404, 'BOX_NOT_FOUND');

  const started = await a().startBox(box.id);
  assert.equal(started.status, 'running');
  assert.ok(chromiumsOf(box.id).length > 0, 'a new Chromium runs');
  assert.deepEqual(await a().readFile(box.id, 'kept.txt'), { content: 'still here' });
  assert.deepEqual(await a().getSettings(box.id), { scale: 0.5 });
  assert.deepEqual((await a().getDisplay(box.id)).resolution, { width: 1024, height: 700 });
  assert.deepEqual(started.config.labels, { suite: 'lifecycle' });
  const shot = await a().screenshot(box.id, {});
  assert.ok(shot.uri.startsWith('data:image/png;base64,'));

  await a().terminateBox(box.id);
  await rejects(a().startBox(box.id), 409, 'BOX_NOT_RUNNING');
  await rejects(a().stopBox(box.id), 409, 'BOX_NOT_RUNNING');
});

test('a stopped Android box gives its device back: another box claims it, start then answers 409, and after it is free start takes it again', async () => {
  const box = await a().createAndroidBox({ config: { deviceSerial: 'emulator-5554' } as never });
  await a().updateSettings(box.id, { scale: 0.25 });
  await rejects(b().createAndroidBox({ config: { deviceSerial: 'emulator-5554' } as never }), 409, 'NO_DEVICE_AVAILABLE');

  assert.equal((await a().stopBox(box.id)).status, 'stopped');
  await rejects(a().pressKey(box.id, { keys: ['enter'] }), 409, 'BOX_NOT_RUNNING');
  const other = await b().createAndroidBox({ config: { deviceSerial: 'emulator-5554' } as never });
  assert.equal(other.config.labels['boxflow/serial'], 'emulator-5554', 'the device went to another box');

  const busy = await rejects(a().startBox(box.id), 409, 'NO_DEVICE_AVAILABLE');
  assert.match(busy.message, /emulator-5554.*stays stopped/);
  assert.equal((await a().getBox(box.id)).status, 'stopped');

  await b().terminateBox(other.id);
  const started = await a().startBox(box.id);
  assert.equal(started.status, 'running');
  assert.equal(started.config.labels['boxflow/serial'], 'emulator-5554');
  assert.deepEqual(await a().getSettings(box.id), { scale: 0.25 });
  await a().pressKey(box.id, { keys: ['enter'] });
  await a().terminateBox(box.id);
});

test('stopping a Linux box ends the processes it runs (a command under way); start gives it a working shell again', async () => {
  const box = await a().createLinuxBox();
  const running = a().runCommand(box.id, { command: 'sleep 4242' }).then((r) => r, (e: unknown) => e);
  const sleeper = () => readdirSync('/proc').filter((n) => /^\d+$/.test(n)).some((n) => {
    try {
      return readFileSync(`/proc/${n}/cmdline`, 'utf8') === 'sleep\x004242\x00' && !/^State:\s+Z/m.test(readFileSync(`/proc/${n}/status`, 'utf8'));
    } catch {
      return false;
    }
  });
  await waitFor(sleeper, { what: 'the command to run' });
  await a().stopBox(box.id);
  assert.equal(sleeper(), false, 'the command\'s process is gone once stop answers');
  const answer = (await running) as { exitCode?: number };
  assert.notEqual(answer.exitCode, 0, 'the command did not run to its end');
  await a().startBox(box.id);
  assert.equal((await a().runCommand(box.id, { command: 'echo back' })).stdout, 'back\n');
  await a().terminateBox(box.id);
});

const kMain = join(import.meta.dirname, '../../src/cli/main.ts');

/** `boxflow serve` as a user starts it, in a child process; resolves with it and its base URL once it listens. */
async function serve(dataDir: string): Promise<{ child: ChildProcess; baseUrl: string }> {
  const env = { ...process.env };
  delete env.BOXFLOW_SERVER_SECRET; // the secret is the data dir's, as a restarted serve finds it
  const child = spawn(process.execPath, ['--import', 'tsx', kMain, 'serve', '--port', '0', '--data-dir', dataDir, '--adb', srv.fake.socketSpec], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.includes('\n') || child.exitCode !== null, { what: 'serve to print its address', timeoutMs: 60_000, intervalMs: 50 });
  assert.equal(child.exitCode, null, 'serve runs');
  return { child, baseUrl: (JSON.parse(out.split('\n')[0]!) as { baseUrl: string }).baseUrl };
}

test('a serve killed with SIGKILL (or stopped with SIGTERM) and started again on its data dir lists its boxes as stopped; start brings them back with their files; a box whose expiry passed meanwhile is terminated', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxflow-lifecycle-serve-'));
  chmodSync(dir, 0o755); // box users pass through it to their directories
  const dataDir = join(dir, 'data');
  srv.fake.addDevice('emulator-5556');
  let { child, baseUrl } = await serve(dataDir);
  const clients: BoxClient[] = [];
  try {
    const apiKey = await createApiKey(readFileSync(join(dataDir, 'server-secret'), 'utf8').trim(), 'restart');
    const first = new BoxClient({ baseUrl, apiKey, maxRetries: 0 });
    clients.push(first);
    const kept = await first.createLinuxBox({ config: { labels: { keep: 'yes' } } });
    await first.writeFile(kept.id, { path: 'kept.txt', content: 'survives' });
    await first.updateSettings(kept.id, { scale: 0.5 });
    const phone = await first.createAndroidBox({ config: { deviceSerial: 'emulator-5556' } as never });
    const brief = await first.createLinuxBox({ config: { expiresIn: '10s' } });
    assert.ok(chromiumsOf(kept.id).length > 0);

    child.kill('SIGKILL');
    await once(child, 'exit');
    // The short-lived box's end comes while no server runs.
    await waitFor(() => Date.now() > Date.parse(brief.expiresAt!), { what: "the short box's expiry", timeoutMs: 30_000, intervalMs: 100 });

    ({ child, baseUrl } = await serve(dataDir));
    const second = new BoxClient({ baseUrl, apiKey, maxRetries: 0 });
    clients.push(second);
    const listed = (await second.listBoxes()).data;
    assert.deepEqual(listed.map((x) => [x.id, x.status]).sort(), [[kept.id, 'stopped'], [phone.id, 'stopped']].sort(), 'the API key still works and both boxes are listed, stopped');
    assert.match(listed.find((x) => x.id === kept.id)!.reason ?? '', /restarted.*start/);
    await rejects(second.getBox(brief.id), 404, 'BOX_NOT_FOUND');
    assert.equal(existsSync(join(dataDir, 'boxes', brief.id)), false, "the expired box's files are gone");
    assert.deepEqual(chromiumsOf(kept.id), [], 'the Chromium of the killed server is gone');
    await rejects(second.readFile(kept.id, 'kept.txt'), 409, 'BOX_NOT_RUNNING');

    const started = await second.startBox(kept.id);
    assert.deepEqual([started.status, started.config.labels], ['running', { keep: 'yes' }]);
    assert.deepEqual(await second.readFile(kept.id, 'kept.txt'), { content: 'survives' });
    assert.deepEqual(await second.getSettings(kept.id), { scale: 0.5 });
    assert.ok((await second.screenshot(kept.id, {})).uri.startsWith('data:image/png'));
    const phoneBack = await second.startBox(phone.id);
    assert.deepEqual([phoneBack.status, phoneBack.config.labels['boxflow/serial']], ['running', 'emulator-5556']);
    await second.pressKey(phone.id, { keys: ['enter'] });
    await second.terminateBox(phone.id);

    // An upgrade: serve stopped with SIGTERM stops its boxes rather than ending them.
    child.kill('SIGTERM');
    await once(child, 'exit');
    assert.deepEqual(chromiumsOf(kept.id), [], 'a stopped server leaves no Chromium');
    ({ child, baseUrl } = await serve(dataDir));
    const third = new BoxClient({ baseUrl, apiKey, maxRetries: 0 });
    clients.push(third);
    assert.deepEqual((await third.listBoxes({ status: ['stopped'] })).data.map((x) => x.id), [kept.id]);
    await third.startBox(kept.id);
    assert.deepEqual(await third.readFile(kept.id, 'kept.txt'), { content: 'survives' });
    await third.terminateBox(kept.id);
    assert.equal(existsSync(join(dataDir, 'boxes', kept.id)), false, 'terminating removes its files');
  } finally {
    for (const c of clients) await c.close();
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
    rmSync(dir, { recursive: true, force: true });
  }
});
