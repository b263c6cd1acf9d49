// A box whose Chromium dies, over real HTTP with real Chromium: the box says so (status `error`
// and a reason), its actions fail with 502 BOX_CRASHED instead of going on against a fresh blank
// browser, and the runner fails the flow as an infrastructure failure (exit 3).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { rejects } from '../support/apiErrors.js';
import type { Box } from '../../src/api/schemas.js';
import { exitCode } from '../../src/cli/commands.js';
import { exitClassOf } from '../../src/errors.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { testRunOptions } from '../support/runOptions.js';
import { waitFor } from '../support/waitFor.js';

const kSecret = 'crash-test-secret-0123456789abcdef';
const kPage = `data:text/html,${encodeURIComponent('<h1>Hello box</h1><input autofocus>')}`;

const dir = mkdtempSync(join(tmpdir(), 'boxflow-crash-'));
const dataDir = mkdtempSync(join(tmpdir(), 'boxflow-crash-srv-'));
let server: Awaited<ReturnType<typeof startServer>>;
let client: BoxClient;

before(async () => {
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {} });
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'crash'), maxRetries: 0, timeoutMs: 30_000 });
});
after(async () => {
  await client?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

/** SIGKILLs the process group of the box's Chromium, as the OOM killer or a crash would end it. */
function killChromium(boxId: string): void {
  const ps = execFileSync('ps', ['-eo', 'pgid=,args='], { encoding: 'utf8' });
  const line = ps.split('\n').find((l) => l.includes('--user-data-dir=') && l.includes(boxId));
  assert.ok(line, `no Chromium of box ${boxId} in ps`);
  const pgid = Number(line.trim().split(/\s+/)[0]);
  assert.ok(pgid > 1);
  process.kill(-pgid, 'SIGKILL');
}

test('a box whose Chromium is killed reports the crash and refuses actions with 502 BOX_CRASHED', async () => {
  const box = await client.createLinuxBox();
  await client.openTab(box.id, { url: kPage });
  killChromium(box.id);
  const record = await waitFor(
    async () => {
      const b = await client.getBox(box.id);
      return b.status === 'error' && b;
    },
    { what: 'the box to show the crash', timeoutMs: 20_000, intervalMs: 100 },
  );
  assert.match(record.reason ?? '', /Chromium exited \(SIGKILL\)/);
  const e = await rejects(client.type(box.id, { text: 'into a blank page?' }), 502, 'BOX_CRASHED');
  assert.match(e.message, /SIGKILL/);
  await rejects(client.screenLayout(box.id), 502, 'BOX_CRASHED');
  await rejects(client.openTab(box.id, { url: kPage }), 502, 'BOX_CRASHED');
  await rejects(client.closeBrowser(box.id), 502, 'BOX_CRASHED');
  // Every endpoint tells the crash the same way, recordings and commands too (one check, not "not running").
  await rejects(client.startRecording(box.id), 502, 'BOX_CRASHED');
  await rejects(client.runCommand(box.id, { command: 'true' }), 502, 'BOX_CRASHED');
  assert.equal((await client.getBox(box.id)).status, 'error', 'nothing restarted it');
  const listed = await client.listBoxes({ status: ['error'] });
  assert.deepEqual(listed.data.map((b: Box) => b.id), [box.id]);
  await client.terminateBox(box.id);
  assert.equal((await client.getBox(box.id)).status, 'terminated');
});

test('closing the browser on purpose is not a crash: the next action starts a fresh one', async () => {
  const box = await client.createLinuxBox();
  try {
    await client.openTab(box.id, { url: kPage });
    await client.closeBrowser(box.id);
    assert.equal((await client.getBox(box.id)).status, 'running');
    await client.openTab(box.id, { url: kPage });
    await client.type(box.id, { text: 'again' });
    assert.match((await client.screenLayout(box.id)).content, /value="again"/);
    assert.equal((await client.getBox(box.id)).status, 'running');
  } finally {
    await client.terminateBox(box.id);
  }
});

test('the runner fails a flow whose box crashed with an infrastructure code: the run exits 3', async () => {
  const flow = parseFlowYaml(`name: crashes\nsteps:\n  - openTab: "${kPage}"\n  - sleep: 3s\n  - assertVisible: Hello box\n  - type: hi\n`, join(dir, 'crashes.flow.yaml'));
  const killer = {
    name: 'killer',
    reporter: {
      onFlowBegin(_flow: { name: string }, _attempt: number, box?: { id: string }) {
        if (box) setTimeout(() => killChromium(box.id), 1_500);
      },
    },
  };
  const options = testRunOptions(dir, { workers: 1, boxes: { ids: [], createLinux: 1, createAndroid: 0 } });
  const result = await runFlows([flow], options, { client, reporter: new ReporterHost([killer]), secrets: [] });
  const [f] = result.flows;
  assert.equal(f!.status, 'failed');
  assert.equal(exitClassOf(f!.error!.code), 3, JSON.stringify(f!.error));
  assert.match(f!.error!.message, /Chromium exited \(SIGKILL\)|BOX_CRASHED/, f!.error!.message);
  assert.equal(exitCode(result, false), 3);
  assert.equal(exitClassOf('BOX_CRASHED'), 3);
});
