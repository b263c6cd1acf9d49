// What the runner reports when boxes fail, against a fake Box service that fails on cue: a
// creation that fails ends every flow that waited for it (none waits forever, the run ends with
// its summary), a network blip during a step of a box that still runs is the step's own error
// (not BOX_UNAVAILABLE), a box the service says is gone is BOX_UNAVAILABLE, and a corrupt
// baseline is IMAGE_CORRUPT (not a difference).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { BoxClient } from '../../src/api/client.js';
import { exitCode } from '../../src/cli/commands.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { RunResult } from '../../src/runner/types.js';
import { closeVisualPool, encodePng } from '../../src/visual/index.js';
import { testRunOptions } from '../support/runOptions.js';
import { tempDir } from '../support/tmp.js';
import { sendJson, startFakeService, type Recorded } from './clientFakeService.js';

test.after(() => closeVisualPool());

const now = new Date().toISOString();
const boxJson = (id: string, status = 'running') => ({ id, type: 'linux', status, reason: null, createdAt: now, updatedAt: now, expiresAt: null, config: { cpu: 1, memory: 1024, storage: 1, envs: {}, labels: {}, os: { version: 'x' } } });

/** The answers every run needs (listing, settings, terminate, closing the browser); `route` goes first. */
async function fakeService(route: (req: Recorded, res: ServerResponse) => boolean | void) {
  let boxes = 0;
  const fake = await startFakeService((req, res) => {
    if (route(req, res)) return;
    if (req.method === 'GET' && req.path === '/boxes') return sendJson(res, 200, { data: [], page: 1, pageSize: 1, total: 0 });
    if (req.method === 'POST' && req.path === '/boxes/linux') return sendJson(res, 201, boxJson(`b${++boxes}`));
    if (req.method === 'GET' && /^\/boxes\/b\d+$/.test(req.path)) return sendJson(res, 200, boxJson(req.path.split('/')[2]!));
    if (req.method === 'GET' && /^\/boxes\/b\d+\/actions\/settings$/.test(req.path)) return sendJson(res, 200, { scale: 1 });
    if (req.method === 'POST' && /^\/boxes\/b\d+\/actions\/press-key$/.test(req.path)) return sendJson(res, 200, { actionId: 'a1', message: 'ok' });
    if (req.method === 'DELETE' && /^\/boxes\/b\d+\/browser\/close$/.test(req.path)) return sendJson(res, 200, {});
    if (req.method === 'POST' && /^\/boxes\/b\d+\/terminate$/.test(req.path)) return void res.writeHead(204).end();
    sendJson(res, 404, { code: 'NotFound', message: `no fake route for ${req.method} ${req.path}` });
  });
  const client = new BoxClient({ baseUrl: fake.baseUrl, apiKey: 'fake-service-key', retryBaseMs: 10 });
  return {
    fake,
    client,
    async close() {
      await client.close();
      await fake.close();
    },
  };
}

function flows(dir: string, n: number, steps = '  - pressKey: enter\n') {
  return Array.from({ length: n }, (_, i) => parseFlowYaml(`name: flow ${i + 1}\nsteps:\n${steps}`, join(dir, `f${i + 1}.flow.yaml`)));
}

/** A reporter that records which hooks ran, so a test can tell the run ended (onEnd) with its flows. */
function recorder() {
  const seen = { flowEnds: [] as string[], ended: undefined as RunResult | undefined };
  return {
    seen,
    host: new ReporterHost([{ name: 'recorder', reporter: { onFlowEnd: (f: { name: string }) => void seen.flowEnds.push(f.name), onEnd: (r: RunResult) => void (seen.ended = r) } }]),
  };
}

test('boxes {linux: 1}, 2 workers, a service whose create answers 500: both flows fail with the create\'s error and the run ends (exit 3)', { timeout: 20_000 }, async () => {
  const svc = await fakeService((req, res) => {
    if (req.method === 'POST' && req.path === '/boxes/linux') {
      sendJson(res, 500, { code: 'NoCapacity', message: 'no capacity left' });
      return true;
    }
    return false;
  });
  try {
    const dir = tempDir('boxflow-createfail-');
    const { seen, host } = recorder();
    const options = testRunOptions(dir, { workers: 2, boxes: { ids: [], createLinux: 1, createAndroid: 0 } });
    const result = await runFlows(flows(dir, 2), options, { client: svc.client, reporter: host, secrets: [] });
    assert.deepEqual(result.flows.map((f) => [f.name, f.status, f.error?.code]), [['flow 1', 'failed', 'SERVER_ERROR'], ['flow 2', 'failed', 'SERVER_ERROR']]);
    for (const f of result.flows) assert.match(f.error!.message, /POST \/boxes\/linux: 500 NoCapacity: no capacity left/);
    assert.deepEqual(seen.flowEnds.sort(), ['flow 1', 'flow 2'], 'each flow ended');
    assert.equal(seen.ended, result, 'the run ended: the reporters got its result');
    assert.equal(result.status, 'failed');
    assert.equal(exitCode(result, false), 3);
    // Each flow asked for a box itself: the one that waited was woken by the failure and tried.
    assert.equal(svc.fake.requests.filter((r) => r.method === 'POST' && r.path === '/boxes/linux').length, 2);
  } finally {
    await svc.close();
  }
});

test('a network blip during a step of a box that still runs is the step\'s own error, not BOX_UNAVAILABLE; the box is kept', { timeout: 20_000 }, async () => {
  // The blip drops the step's request and the first look at the box; the box itself runs on.
  let stepCalls = 0;
  let boxReads = 0;
  const svc = await fakeService((req, res) => {
    if (req.method === 'POST' && req.path === '/boxes/b1/actions/press-key' && ++stepCalls === 1) {
      res.socket?.destroy();
      return true;
    }
    if (req.method === 'GET' && req.path === '/boxes/b1' && ++boxReads === 1) {
      res.socket?.destroy();
      return true;
    }
    return false;
  });
  try {
    const dir = tempDir('boxflow-blip-');
    const result = await runFlows(flows(dir, 2), testRunOptions(dir, { workers: 1 }), { client: svc.client, reporter: recorder().host, secrets: [] });
    const [first, second] = result.flows;
    assert.equal(first!.status, 'failed');
    assert.equal(first!.error?.code, 'NETWORK_ERROR', JSON.stringify(first!.error));
    assert.match(first!.error!.message, /POST \/boxes\/b1\/actions\/press-key/);
    assert.doesNotMatch(first!.error!.message, /died/);
    assert.ok(boxReads >= 1, 'the runner looked at the box before blaming it');
    // Not called dead: the next flow runs on the same box, no other box was created.
    assert.equal(second!.status, 'passed', JSON.stringify(second!.error));
    assert.equal(second!.box?.id, 'b1');
    assert.equal(svc.fake.requests.filter((r) => r.method === 'POST' && r.path === '/boxes/linux').length, 1);
    assert.equal(exitCode(result, false), 3, 'a network error is infrastructure');
  } finally {
    await svc.close();
  }
});

for (const [how, answer] of [
  ['answers its status error', (res: ServerResponse) => sendJson(res, 200, boxJson('b1', 'error'))],
  ['answers 404 for it', (res: ServerResponse) => sendJson(res, 404, { code: 'BOX_NOT_FOUND', message: 'no box b1' })],
] as const) {
  test(`a step that fails on a box the service then ${how} is BOX_UNAVAILABLE (the box died)`, { timeout: 20_000 }, async () => {
    const svc = await fakeService((req, res) => {
      if (req.method === 'POST' && req.path === '/boxes/b1/actions/press-key') {
        sendJson(res, 502, { code: 'BOX_CRASHED', message: 'Chromium exited' });
        return true;
      }
      if (req.method === 'GET' && req.path === '/boxes/b1') {
        answer(res);
        return true;
      }
      return false;
    });
    try {
      const dir = tempDir('boxflow-died-');
      const result = await runFlows(flows(dir, 1), testRunOptions(dir), { client: svc.client, reporter: recorder().host, secrets: [] });
      assert.equal(result.flows[0]!.error?.code, 'BOX_UNAVAILABLE');
      assert.match(result.flows[0]!.error!.message, /box b1 died during the flow: .*Chromium exited/);
    } finally {
      await svc.close();
    }
  });
}

test('a baseline that is a PNG bomb fails its assertScreenshot with IMAGE_CORRUPT, not as a difference', { timeout: 30_000 }, async () => {
  const shot = encodePng({ width: 100, height: 80, data: Buffer.alloc(100 * 80 * 4, 200) });
  const svc = await fakeService((req, res) => {
    if (req.method === 'POST' && req.path === '/boxes/b1/actions/screenshot') {
      sendJson(res, 200, { uri: `data:image/png;base64,${shot.toString('base64')}` });
      return true;
    }
    return false;
  });
  try {
    const dir = tempDir('boxflow-bomb-');
    // The baseline: the screenshot's header (100x80) over data that inflates to 256 MiB.
    const segment = zlib.deflateRawSync(Buffer.alloc(1 << 20), { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    const adler = Buffer.alloc(4); // of 256 MiB of zeros: a valid stream, which inflates whole without a bound
    adler.writeUInt32BE(((((256 << 20) % 65521) << 16) | 1) >>> 0, 0);
    const stream = Buffer.concat([Buffer.from([0x78, 0xda]), ...Array.from({ length: 256 }, () => segment), Buffer.from([0x03, 0x00]), adler]);
    const idat = Buffer.alloc(12 + stream.length);
    idat.writeUInt32BE(stream.length, 0);
    idat.write('IDAT', 4, 'latin1');
    stream.copy(idat, 8);
    idat.writeUInt32BE(zlib.crc32(idat.subarray(4, 8 + stream.length)), 8 + stream.length);
    const bomb = Buffer.concat([shot.subarray(0, 33), idat, shot.subarray(shot.length - 12)]);
    mkdirSync(join(dir, '__screenshots__', 'flow-1'), { recursive: true });
    writeFileSync(join(dir, '__screenshots__', 'flow-1', 'home-linux.png'), bomb);
    const result = await runFlows(flows(dir, 1, '  - assertScreenshot: home\n'), testRunOptions(dir), { client: svc.client, reporter: recorder().host, secrets: [] });
    const error = result.flows[0]!.error!;
    assert.equal(error.code, 'IMAGE_CORRUPT', JSON.stringify(error));
    assert.match(error.message, /expected image is a corrupt PNG: its image data inflates past the 32080 bytes its 100x80 header declares/);
  } finally {
    await svc.close();
  }
});

test('a box whose browser cannot be closed between two flows is retired with a warning: the next flow gets a fresh box, never the old browser', { timeout: 20_000 }, async () => {
  const svc = await fakeService((req, res) => {
    if (req.method === 'DELETE' && req.path === '/boxes/b1/browser/close') {
      sendJson(res, 500, { code: 'BrowserStuck', message: 'the browser does not close' });
      return true;
    }
    return false;
  });
  try {
    const dir = tempDir('boxflow-closefail-');
    const warnings: string[] = [];
    const options = testRunOptions(dir, { workers: 1, boxes: { ids: [], createLinux: 1, createAndroid: 0 } });
    const result = await runFlows(flows(dir, 2), options, { client: svc.client, reporter: recorder().host, secrets: [], warn: (m) => warnings.push(m) });
    assert.deepEqual(result.flows.map((f) => [f.name, f.status, f.box?.id]), [['flow 1', 'passed', 'b1'], ['flow 2', 'passed', 'b2']]);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /box b1 is not used again: its browser could not be closed .*the browser does not close; a new box takes its place/);
    assert.deepEqual(result.warnings?.map((w) => w.code), ['SERVER_ERROR']);
    // The flow after it never acted on b1, and b1 was still terminated at the end.
    const pressed = svc.fake.requests.filter((r) => r.path.endsWith('/actions/press-key')).map((r) => r.path.split('/')[2]);
    assert.deepEqual(pressed, ['b1', 'b2']);
    assert.ok(svc.fake.requests.some((r) => r.method === 'POST' && r.path === '/boxes/b1/terminate'));
  } finally {
    await svc.close();
  }
});
