// `boxflow test` always ends a run with its summary, its reports and the exit code it earned,
// even when box creation fails for every flow or when the run stalls (a promise that nothing will
// settle): a CI job never goes green, silently, on a run that did not finish.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sendJson, startFakeService, type FakeService } from '../integration/clientFakeService.js';
import { readResults, runCli, tempProject } from './helpers.js';

const now = new Date().toISOString();
const box = { id: 'b1', type: 'linux', status: 'running', reason: null, createdAt: now, updatedAt: now, expiresAt: null, config: { cpu: 1, memory: 1024, storage: 1, envs: {}, labels: {}, os: { version: 'x' } } };

/** A Box service whose create answers `createStatus` (201: box b1); the rest a run needs. */
function service(createStatus: 201 | 500): Promise<FakeService> {
  return startFakeService((req, res) => {
    if (req.method === 'GET' && req.path === '/boxes') return sendJson(res, 200, { data: [], page: 1, pageSize: 1, total: 0 });
    if (req.method === 'POST' && req.path === '/boxes/linux') return createStatus === 201 ? sendJson(res, 201, box) : sendJson(res, 500, { code: 'NoCapacity', message: 'no capacity left' });
    if (req.method === 'GET' && req.path === '/boxes/b1/actions/settings') return sendJson(res, 200, { scale: 1 });
    if (req.method === 'POST' && req.path === '/boxes/b1/terminate') return void res.writeHead(204).end();
    sendJson(res, 404, { code: 'NotFound', message: `no fake route for ${req.method} ${req.path}` });
  });
}

function project(reporters: string[], extra: Record<string, string> = {}): string {
  return tempProject({
    'boxflow.config.json': JSON.stringify({ flows: ['flows'], workers: 2, boxes: { linux: 1 }, reporters }),
    'flows/a.flow.yaml': 'name: a\nsteps:\n  - pressKey: enter\n',
    'flows/b.flow.yaml': 'name: b\nsteps:\n  - pressKey: enter\n',
    ...extra,
  });
}

const env = (fake: FakeService) => ({ BOXFLOW_BASE_URL: fake.baseUrl, BOXFLOW_API_KEY: 'e2e-fake-service-key', NO_COLOR: '1' });

test('boxes {linux: 1}, 2 workers, every create answers 500: both flows fail with the create\'s error, summary, reports, exit 3', { timeout: 60_000 }, async () => {
  const fake = await service(500);
  try {
    const dir = project(['list', 'junit']);
    const out = join(dir, 'out');
    const run = await runCli(['test', '-o', out], { cwd: dir, env: env(fake) });
    assert.equal(run.code, 3, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /0 passed, 2 failed/, 'the summary');
    const result = readResults(out);
    assert.deepEqual(result.flows.map((f) => [f.name, f.status, f.error?.code]), [['a', 'failed', 'SERVER_ERROR'], ['b', 'failed', 'SERVER_ERROR']]);
    assert.match(result.flows[1]!.error!.message, /POST \/boxes\/linux: 500 NoCapacity: no capacity left/);
    assert.ok(existsSync(join(out, 'junit.xml')), 'the JUnit report');
    assert.match(readFileSync(join(out, 'junit.xml'), 'utf8'), /<testsuites name="boxflow" tests="2" failures="0" errors="2"/);
  } finally {
    await fake.close();
  }
});

test('a run that stalls (a reporter hook that never settles) still ends: RUN_STALLED, its flows RUN_INTERRUPTED, summary, reports, exit 3', { timeout: 60_000 }, async () => {
  const fake = await service(201);
  try {
    const dir = project(['list', 'junit', './hang.mjs'], { 'hang.mjs': 'export default class Hang {\n  onFlowBegin() {\n    return new Promise(() => {});\n  }\n}\n' });
    const out = join(dir, 'out');
    const run = await runCli(['test', '-o', out], { cwd: dir, env: env(fake) });
    assert.equal(run.code, 3, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /RUN_STALLED: the run stopped with 2 of 2 flows unfinished/);
    assert.match(run.stdout, /0 passed, 1 failed, 1 skipped .*interrupted/, 'the summary');
    const result = readResults(out);
    assert.equal(result.status, 'interrupted');
    assert.deepEqual(result.errors.map((e) => e.code), ['RUN_STALLED']);
    assert.deepEqual(result.flows.map((f) => [f.name, f.status, f.error?.code]), [['a', 'failed', 'RUN_INTERRUPTED'], ['b', 'skipped', 'RUN_INTERRUPTED']]);
    assert.ok(existsSync(join(out, 'junit.xml')), 'the JUnit report');
  } finally {
    await fake.close();
  }
});
