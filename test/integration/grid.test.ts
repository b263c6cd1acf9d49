// `boxflow serve --grid`: Linux boxes as sessions of a real Selenium Grid 4 on loopback (Selenium
// Server standalone with Debian's chromedriver and chromium; gridSupport.ts). Two boxes at once, a
// flow run end to end with action ids and images, a full grid answered at once, what a grid box cannot
// do, and a browser or a whole node killed under a box.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { BoxClient, type BoxApiError } from '../../src/api/client.js';
import { endpoints, type Box, type EndpointName } from '../../src/api/schemas.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { kGridKind, refusedEndpoints } from '../../src/server/devices/index.js';

/** The endpoints a grid box refuses for running on a grid node, with their reasons. */
const kGridRefusals = Object.fromEntries(refusedEndpoints(kGridKind).filter(([, r]) => r.code === 'GRID_UNSUPPORTED')) as Partial<Record<EndpointName, { reason: string }>>;
type GridRefused = 'createLinuxBox' | 'runCommand' | 'runCode' | 'websocketUrl' | 'webTerminalUrl' | 'listFiles' | 'readFile' | 'writeFile' | 'fileExists' | 'fileInfo' | 'removeFile' | 'renameFile' | 'openTab' | 'updateTab';
import { decodePng } from '../../src/visual/index.js';
import { testRunOptions } from '../support/runOptions.js';
import { gridUnavailable, startGrid, type LocalGrid } from './gridSupport.js';
import { waitFor } from '../support/waitFor.js';

const skip = gridUnavailable();
if (skip) process.stderr.write(`grid tests skipped: ${skip}\n`);
/** The grid wait of the full-grid test; every other test waits as long as a loaded machine needs. */
const kSessionTimeoutMs = 3_000;
const kPatientSessionTimeoutMs = 60_000;

interface Served {
  client: BoxClient;
  /** A client of another tenant of the same server. */
  other(): Promise<BoxClient>;
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

async function serve(dir: string, grid: string, extra: { sessionTimeoutMs?: number; chromiumBinary?: string } = {}): Promise<Served> {
  const secret = randomBytes(16).toString('hex');
  const logs: Array<Record<string, unknown>> = [];
  const server = await startServer({ port: 0, dataDir: join(dir, `srv-${randomBytes(3).toString('hex')}`), secret, log: (e) => logs.push(e), grid: { url: grid, chromiumBinary: '/usr/bin/chromium', sessionTimeoutMs: kPatientSessionTimeoutMs, heartbeatMs: 1_000, ...extra } });
  const client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'grid'), maxRetries: 0 });
  return {
    client,
    other: async () => new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'grid-other'), maxRetries: 0 }),
    logs,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

async function failure(work: Promise<unknown>): Promise<BoxApiError> {
  try {
    await work;
  } catch (err) {
    return err as BoxApiError;
  }
  assert.fail('expected the request to fail');
}

/** Chromium processes this test process started itself (a grid box must start none). */
function ownChromiums(): number[] {
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return ppid === process.pid && /chrom/i.test(readFileSync(`/proc/${pid}/comm`, 'utf8'));
    } catch {
      return false;
    }
  }).map(Number);
}

const dir = mkdtempSync(join(tmpdir(), 'boxflow-grid-test-'));
let grid: LocalGrid | undefined;
let served: Served | undefined;
before(async () => {
  if (skip) return;
  grid = await startGrid({ maxSessions: 2 });
  served = await serve(dir, grid.url);
});
after(async () => {
  await served?.close();
  await grid?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('an unreachable grid: creating a Linux box is 503 GRID_UNAVAILABLE at once, naming the grid', async () => {
  const port = await closedPort();
  const s = await serve(dir, `http://127.0.0.1:${port}`);
  try {
    const started = performance.now();
    const err = await failure(s.client.createLinuxBox({ wait: true }));
    assert.equal(err.httpStatus, 503);
    assert.equal(err.serverCode, 'GRID_UNAVAILABLE');
    assert.match(err.message, new RegExp(`cannot reach the grid at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`));
    assert.ok(performance.now() - started < 5_000);
  } finally {
    await s.close();
  }
});

test('two grid boxes at once: each its own grid session, driven through the same paths as a local box; serve starts no Chromium', { skip }, async () => {
  const { client } = served!;
  const boxes = await Promise.all([client.createLinuxBox({ wait: true }), client.createLinuxBox({ wait: true })]);
  try {
    for (const box of boxes) {
      assert.equal(box.status, 'running');
      assert.equal(box.config.labels['boxflow/grid'], grid!.url);
    }
    assert.equal((await grid!.sessions()).length, 2, 'one grid session per box');
    assert.deepEqual(ownChromiums(), [], 'no Chromium runs under serve');
    await Promise.all(boxes.map((b, i) => client.openTab(b.id, { url: `data:text/html,<title>box ${i}</title><h1>Box number ${i}</h1><input id=i autofocus style="font-size:40px">` })));
    await Promise.all(boxes.map((b, i) => client.type(b.id, { text: `typed into ${i}` })));
    for (const [i, b] of boxes.entries()) {
      const { content } = await client.screenLayout(b.id);
      assert.match(content, new RegExp(`Box number ${i}`));
      assert.match(content, new RegExp(`value="typed into ${i}"`));
    }
    const shot = await client.screenshot(boxes[0]!.id, { outputFormat: 'base64' });
    const png = decodePng(Buffer.from(shot.uri.replace(/^data:image\/png;base64,/, ''), 'base64'));
    assert.deepEqual([png.width, png.height], [1280, 800]);
    // The tenant's CDP URL goes through serve's pre-signed proxy to the grid session's browser.
    const cdp = await client.cdpUrl(boxes[1]!.id, {});
    assert.match(cdp, /^ws:\/\/127\.0\.0\.1:\d+\/cdp\//);
    const browser = await chromium.connectOverCDP(cdp);
    try {
      const page = browser.contexts()[0]!.pages().find((p) => p.url().startsWith('data:'))!;
      assert.equal(await page.title(), 'box 1');
      assert.equal(await page.inputValue('#i'), 'typed into 1');
    } finally {
      await browser.close();
    }
    // Closing the browser disposes of its browser context in the same session: the next one has
    // none of the last one's tabs, and no new grid session is waited for.
    const before = (await grid!.sessions()).map((s) => s.id).sort();
    await client.closeBrowser(boxes[0]!.id);
    assert.deepEqual((await client.listTabs(boxes[0]!.id)).data.map((t) => t.url), ['about:blank'], "the box's tabs went with its browser");
    const tab = await client.openTab(boxes[0]!.id, { url: 'data:text/html,<h1>again</h1>' });
    assert.equal(tab.title, '');
    const afterClose = (await grid!.sessions()).map((s) => s.id).sort();
    assert.deepEqual(afterClose, before, 'the same grid sessions');
  } finally {
    await Promise.all(boxes.map((b) => client.terminateBox(b.id)));
  }
  assert.deepEqual(await grid!.sessions(), [], 'terminating a box deletes its session');
});

test('a full grid: the next box is 503 GRID_UNAVAILABLE within the wait, with the grid\'s occupancy; its queued request never holds a slot', { skip }, async (t) => {
  // The grid filled by a patient server; the third box asked of one that waits 3 s for a slot.
  const impatient = await serve(dir, grid!.url, { sessionTimeoutMs: kSessionTimeoutMs });
  t.after(() => impatient.close());
  const { client } = served!;
  const boxes = await Promise.all([client.createLinuxBox({ wait: true }), client.createLinuxBox({ wait: true })]);
  try {
    const started = performance.now();
    const err = await failure(impatient.client.createLinuxBox({ wait: true }));
    const took = performance.now() - started;
    assert.equal(err.httpStatus, 503);
    assert.equal(err.serverCode, 'GRID_UNAVAILABLE');
    assert.match(err.message, /gave no session within 3 s: no free slot \(2 of 2 in use on 1 node that are up\); the request was withdrawn/);
    // Not before the wait, and never a hang (the bound is generous: a loaded machine is slow).
    assert.ok(took >= kSessionTimeoutMs - 100 && took < 60_000, `answered after ${Math.round(took)} ms`);
    // The grid keeps the request queued; when a slot frees it starts a session for it, which serve deletes.
    await client.terminateBox(boxes.pop()!.id);
    // The grid starts the queued request's session once the slot is free; serve deletes it.
    await waitFor(() => impatient.logs.some((e) => String(e.msg).startsWith('grid session came after its box gave up')), { what: 'the late session to come', timeoutMs: 60_000, intervalMs: 200 });
    await waitFor(async () => (await grid!.sessions()).length === 1, { what: 'the late session to be deleted', timeoutMs: 20_000, intervalMs: 200 });
    assert.equal((await grid!.sessions()).length, 1, 'only the remaining box holds a slot');
    const next = await client.createLinuxBox({ wait: true });
    boxes.push(next);
    assert.equal(next.status, 'running', 'the freed slot serves the next box');
  } finally {
    await Promise.all(boxes.map((b) => client.terminateBox(b.id)));
  }
});

test('a grid that refuses the session: 503 GRID_UNAVAILABLE with the grid\'s own reason', { skip }, async () => {
  const s = await serve(dir, grid!.url, { chromiumBinary: '/nonexistent/chromium' });
  try {
    const err = await failure(s.client.createLinuxBox({ wait: true }));
    assert.equal(err.httpStatus, 503);
    assert.equal(err.serverCode, 'GRID_UNAVAILABLE');
    assert.match(err.message, /refused a session \(HTTP 500, session not created\): .*\/nonexistent\/chromium/);
  } finally {
    await s.close();
  }
});

/** A request of each endpoint a grid box refuses (a refusal of some requests: one of those), on `box`. */
const kRefused: { [E in GridRefused]: Array<(c: BoxClient, box: Box, tabId: string) => Promise<unknown>> } = {
  createLinuxBox: [(c) => c.createLinuxBox({ wait: true, config: { envs: { A: 'b' } } }), (c) => c.createLinuxBox({ wait: true, config: { workingDir: '/work' } })],
  runCommand: [(c, box) => c.runCommand(box.id, { command: 'id' })],
  runCode: [(c, box) => c.runCode(box.id, 'print(1)')],
  websocketUrl: [(c, box) => c.websocketUrl(box.id)],
  webTerminalUrl: [(c, box) => c.webTerminalUrl(box.id, {})],
  listFiles: [(c, box) => c.listFiles(box.id, '/')],
  readFile: [(c, box) => c.readFile(box.id, '/etc/passwd')],
  writeFile: [(c, box) => c.writeFile(box.id, { path: 'a.txt', content: 'a' })],
  fileExists: [(c, box) => c.fileExists(box.id, 'a.txt')],
  fileInfo: [(c, box) => c.fileInfo(box.id, 'a.txt')],
  removeFile: [(c, box) => c.removeFile(box.id, 'a.txt')],
  renameFile: [(c, box) => c.renameFile(box.id, { oldPath: '/work/a', newPath: '/work/b' })],
  openTab: [(c, box) => c.openTab(box.id, { url: 'file:///etc/passwd' })],
  updateTab: [(c, box, tabId) => c.updateTab(box.id, tabId, { url: 'file:///etc/passwd' })],
};

test('every endpoint a grid box refuses is 501 GRID_UNSUPPORTED naming it and what the box lacks; another tenant\'s box is still 404', { skip }, async () => {
  const { client } = served!;
  assert.deepEqual(Object.keys(kRefused).sort(), Object.keys(kGridRefusals).sort(), 'a request here for each endpoint of the table');
  const box = await client.createLinuxBox({ wait: true });
  const other = await served!.other();
  try {
    const { id: tabId } = await client.openTab(box.id, { url: 'about:blank' });
    for (const [name, requests] of Object.entries(kRefused) as Array<[GridRefused, (typeof kRefused)['runCommand']]>) {
      const { method, path } = endpoints[name];
      for (const request of requests) {
        const err = await failure(request(client, box, tabId));
        assert.equal(err.httpStatus, 501, `${name}: ${err.message}`);
        assert.equal(err.serverCode, 'GRID_UNSUPPORTED', name);
        assert.ok(err.message.endsWith(`: ${method} ${path}: ${kGridRefusals[name]!.reason}`), err.message);
        assert.match(err.message, /a grid box's browser runs on a Selenium Grid node, so it has no .+ on this server/);
        if (path.includes('{boxId}')) assert.equal((await failure(request(other, box, tabId))).serverCode, 'BOX_NOT_FOUND', `${name}: tenancy comes first`);
      }
    }
    // What only some requests need: a tab opens and goes to an http(s) URL as on a local box.
    const site = 'data:text/html,<title>grid</title>';
    assert.equal((await client.updateTab(box.id, tabId, { url: site })).title, 'grid');
    const nobody = new BoxClient({ baseUrl: client.baseUrl, apiKey: 'not-a-key', maxRetries: 0 });
    assert.equal((await failure(nobody.webTerminalUrl(box.id, {}))).httpStatus, 401, 'auth comes first');
    await nobody.close();
  } finally {
    await other.close();
    await client.terminateBox(box.id);
  }
});

test('a flow run end to end on grid boxes: steps with action ids and before/after/trace images', { skip }, async () => {
  const { client } = served!;
  const page = 'data:text/html,<h1>Grid flow</h1><input id="i" autofocus style="font-size:30px">';
  const flows = [1, 2, 3].map((n) => parseFlowYaml(`name: grid flow ${n}\nsteps:\n  - openTab: '${page}'\n  - type: hello ${n}\n  - pressKey: backspace\n  - assertVisible: Grid flow\n`, join(dir, `grid${n}.flow.yaml`)));
  const out = join(dir, 'run');
  const options = testRunOptions(dir, { outputDir: out, workers: 2, boxes: { ids: [], createLinux: 2, createAndroid: 0 }, screenshots: { phases: ['before', 'after', 'trace'], delay: '100ms' } });
  const result = await runFlows(flows, options, { client, reporter: new ReporterHost([]), secrets: [] });
  for (const flow of result.flows) {
    assert.equal(flow.status, 'passed', JSON.stringify(flow.error));
    const steps = flow.attempts[0]!.steps;
    for (const step of steps.filter((s) => s.command === 'type' || s.command === 'pressKey')) {
      assert.match(step.actionId ?? '', /^act_/, `${step.label} has an action id`);
      for (const phase of ['before', 'after', 'trace'] as const) {
        const rel = step.screenshots?.[phase];
        assert.ok(rel && existsSync(join(out, rel)), `${flow.name} ${step.label}: ${phase} image`);
        const png = decodePng(readFileSync(join(out, rel!)));
        assert.deepEqual([png.width, png.height], [1280, 800]);
      }
      assert.notEqual(step.screenshots!.trace, step.screenshots!.after);
    }
  }
  const { data } = await client.listBoxes({ status: ['running'] });
  assert.equal(data.length, 0, 'the run terminated its boxes');
  await waitFor(async () => (await grid!.sessions()).length === 0, { what: 'the grid to be empty', timeoutMs: 20_000, intervalMs: 200 });
});

test('a grid box whose browser is killed goes to error; its actions are 502 BOX_CRASHED; terminate still answers', { skip }, async () => {
  const { client } = served!;
  const box = await client.createLinuxBox({ wait: true });
  await client.openTab(box.id, { url: 'data:text/html,<h1>doomed</h1>' });
  const [session] = await grid!.sessions();
  assert.ok(session?.pid, 'the grid names the browser process');
  process.kill(session.pid, 'SIGKILL');
  const broken = await waitFor(
    async () => {
      const b = await client.getBox(box.id);
      return b.status === 'error' && b;
    },
    { what: 'the box to turn error', timeoutMs: 20_000, intervalMs: 200 },
  );
  assert.match(broken.reason ?? '', /grid session \w+ ended \(its browser or node went away\)/);
  const err = await failure(client.type(box.id, { text: 'x' }));
  assert.equal(err.serverCode, 'BOX_CRASHED');
  await client.terminateBox(box.id);
  assert.equal((await client.getBox(box.id)).status, 'terminated');
  await waitFor(async () => (await grid!.sessions()).length === 0, { what: 'the grid to drop the session', timeoutMs: 20_000, intervalMs: 200 });
});

test('a grid behind basic auth (credentials in --grid\'s URL); a grid node that dies (the whole grid process killed) puts its boxes in error', { skip }, async () => {
  const node = await startGrid({ maxSessions: 1, basicAuth: { username: 'boxflow', password: 's3cret' } });
  assert.equal((await fetch(`${node.url}/status`)).status, 401, 'the grid refuses requests without credentials');
  const s = await serve(dir, node.url.replace('http://', 'http://boxflow:s3cret@'));
  try {
    const box: Box = await s.client.createLinuxBox({ wait: true });
    assert.equal(box.config.labels['boxflow/grid'], node.url, 'no credentials in the record');
    await s.client.openTab(box.id, { url: 'data:text/html,<h1>on a node</h1>' });
    assert.match((await s.client.screenLayout(box.id)).content, /on a node/);
    process.kill(-node.pgid, 'SIGKILL');
    const broken = await waitFor(
      async () => {
        const b = await s.client.getBox(box.id);
        return b.status === 'error' && b;
      },
      { what: 'the box to turn error', timeoutMs: 20_000, intervalMs: 200 },
    );
    assert.match(broken.reason ?? '', /grid (closed the DevTools connection|session \w+ ended)|lost the grid session/);
    await s.client.terminateBox(box.id);
  } finally {
    await s.close();
    await node.close();
  }
});
