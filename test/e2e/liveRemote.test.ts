// `boxflow test --live` on a remote Box service: one whose live view answer has no boxflow `runUrl`
// gets its URL printed and told apart (the screen only), and nothing PUT anywhere; one without a
// live view at all is one warning. Either way the run runs as without --live and exits as it earned.
// The built CLI against a fake service on loopback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendJson, startFakeService, type FakeService } from '../integration/clientFakeService.js';
import { runCli, tempProject } from './helpers.js';

const now = new Date().toISOString();
const box = { id: 'b1', type: 'linux', status: 'running', reason: null, createdAt: now, updatedAt: now, expiresAt: null, config: { cpu: 1, memory: 1024, storage: 1, envs: {}, labels: {}, os: { version: 'x' } } };

/** A Box service that runs a pressKey flow; its live-view-url answers `liveView` (undefined: 404). */
function service(liveView: Record<string, unknown> | undefined): Promise<FakeService> {
  return startFakeService((req, res) => {
    if (req.method === 'GET' && req.path === '/boxes') return sendJson(res, 200, { data: [], page: 1, pageSize: 1, total: 0 });
    if (req.method === 'POST' && req.path === '/boxes/linux') return sendJson(res, 201, box);
    if (req.method === 'GET' && req.path === '/boxes/b1/actions/settings') return sendJson(res, 200, { scale: 1 });
    if (req.method === 'POST' && req.path === '/boxes/b1/actions/press-key') return sendJson(res, 200, { actionId: 'remote-action-1', message: 'pressed' });
    if (req.method === 'POST' && req.path === '/boxes/b1/live-view-url' && liveView) return sendJson(res, 201, liveView);
    if (req.method === 'POST' && req.path === '/boxes/b1/terminate') return void res.writeHead(204).end();
    sendJson(res, 404, { code: 'NotFound', message: `no route for ${req.method} ${req.path}` });
  });
}

const project = () => tempProject({ 'flows/a.flow.yaml': 'name: a\nsteps:\n  - pressKey: enter\n' });
const env = (fake: FakeService) => ({ BOXFLOW_BASE_URL: fake.baseUrl, BOXFLOW_API_KEY: 'e2e-fake-service-key', NO_COLOR: '1' });

test('a service whose live view has no runUrl: the URL is printed, said to show the screen only, nothing is sent to it, and the run passes', { timeout: 60_000 }, async () => {
  const fake = await service({ url: 'https://viewer.example.test/live/b1?token=t', rawUrl: 'https://viewer.example.test/live/b1/raw?token=t' });
  try {
    const run = await runCli(['test', 'flows', '--live', '--reporter', 'list'], { cwd: project(), env: env(fake) });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^live view of box b1: https:\/\/viewer\.example\.test\/live\/b1\?token=t$/m);
    assert.match(run.stdout, /shows the screen only, not the running step/);
    assert.doesNotMatch(run.stderr, /warning/);
    assert.deepEqual(fake.requests.filter((r) => r.path.includes('live-view')).map((r) => `${r.method} ${r.path}`), ['POST /boxes/b1/live-view-url']);
  } finally {
    await fake.close();
  }
});

test('a service without live view: one warning naming the box, and the run passes', { timeout: 60_000 }, async () => {
  const fake = await service(undefined);
  try {
    const run = await runCli(['test', 'flows', '--live', '--reporter', 'list'], { cwd: project(), env: env(fake) });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.doesNotMatch(run.stdout, /live view of box/);
    assert.equal(run.stderr.match(/^warning: box b1 has no live view: .*404/gm)?.length, 1, run.stderr);
  } finally {
    await fake.close();
  }
});
