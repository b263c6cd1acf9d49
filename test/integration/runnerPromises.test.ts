// What the runner promises about the end of a flow: a timeout stops a TS flow whatever it waits on
// and names the line; a flow that ends with a box call still running fails naming that call; a
// service that refuses the box's settings fails the flow with its own code (never "scale 1"); a Linux
// layout without its browser is an error that says why (never a tree without positions).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { setImmediate } from 'node:timers/promises';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { loadFlowFile, parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { Flow } from '../../src/flow/types.js';
import type { StepRecord } from '../../src/runner/types.js';
import { sendJson, startFakeService } from './clientFakeService.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';
import { waitFor } from '../support/waitFor.js';

const local = useLocalServer('promises');
const { dir } = local;
const page = 'data:text/html,<h1>Hello</h1><input id="f" autofocus>';
const flowModule = new URL('../../src/flow/index.js', import.meta.url).pathname.replace(/\.js$/, '.ts');

function tsFlow(name: string, body: string, timeout = ''): string {
  const file = join(dir, `${name}.flow.ts`);
  writeFileSync(file, `import { flow } from ${JSON.stringify(flowModule)};\nexport default flow(${JSON.stringify(name)}, { box: 'linux'${timeout ? `, timeout: '${timeout}'` : ''} }, async ({ box }) => {\n${body}\n});\n`);
  return file;
}

async function run(flows: Flow[], overrides: Parameters<typeof testRunOptions>[1] = {}, client: BoxClient = local.client, reporter = new ReporterHost([])) {
  return runFlows(flows, testRunOptions(dir, { outputDir: join(dir, `out-${flows[0]!.name}`), ...overrides }), { client, reporter, secrets: [] });
}

test('a TS flow awaiting a promise that never settles ends at its timeout, naming its last box call', async () => {
  // Line 3 is the openTab, line 4 the endless wait.
  const file = tsFlow('endless', `  await box.openTab(${JSON.stringify(page)});\n  await new Promise(() => {});`);
  const result = await run([await loadFlowFile(file)], { flowTimeout: 1_500 });
  const flow = result.flows[0]!;
  assert.equal(flow.status, 'failed');
  assert.equal(flow.error?.code, 'FLOW_TIMEOUT');
  assert.match(flow.error!.message, /did not finish within 1500 ms/);
  assert.match(flow.error!.message, /endless\.flow\.ts:3:\d+, had ended: it was waiting on something else after it/);
  assert.equal(result.status, 'failed');
});

test('a TS flow timed out in a box call names that call; the call is stopped and the next flow gets the box after it', async () => {
  // The box's page waits on a tab that never loads: the openTab call runs until it is stopped.
  const { createServer } = await import('node:http');
  const held = createServer(() => {});
  await new Promise<void>((r) => held.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(held.address() as { port: number }).port}/never`;
    const file = tsFlow('stuck', `  await box.openTab(${JSON.stringify(page)});\n  await box.openTab(${JSON.stringify(url)});`, '2s');
    const next = parseFlowYaml(`name: next\nsteps:\n  - openTab: '${page}'\n  - assertVisible: Hello\n`, join(dir, 'next.flow.yaml'));
    const result = await run([await loadFlowFile(file), next], { boxes: { ids: [], createLinux: 1, createAndroid: 0 } });
    const [stuck, after] = result.flows;
    assert.equal(stuck!.error?.code, 'FLOW_TIMEOUT');
    assert.match(stuck!.error!.message, /within 2000 ms; it was waiting on openTab .* at stuck\.flow\.ts:4:\d+/);
    const last = stuck!.attempts[0]!.steps.at(-1)!;
    assert.equal(last.status, 'failed', 'the running call was stopped and recorded');
    assert.equal(after!.status, 'passed', JSON.stringify(after!.error));
    assert.ok(Date.parse(after!.attempts[0]!.startedAt) >= Date.parse(last.startedAt) + last.durationMs, 'the next flow started after the stopped call had ended');
  } finally {
    held.closeAllConnections();
    held.close();
  }
});

test('a TS flow that ends while a box call runs fails, naming the call that was not awaited; no unhandled rejection', async () => {
  let unhandled: unknown;
  const onUnhandled = (err: unknown) => (unhandled = err);
  process.on('unhandledRejection', onUnhandled);
  try {
    const file = tsFlow('unawaited', `  await box.openTab(${JSON.stringify(page)});\n  box.tap('No such thing anywhere');`);
    const ended: StepRecord[] = [];
    const reporter = new ReporterHost([{ name: 'steps', reporter: { onStepEnd: (_flow, step) => void ended.push(step) } }]);
    const result = await run([await loadFlowFile(file)], { stepTimeout: 1_000 }, local.client, reporter);
    const flow = result.flows[0]!;
    assert.equal(flow.status, 'failed');
    assert.match(flow.error!.message, /unawaited\.flow\.ts:4:\d+ was not awaited/);
    // The late failure of the unawaited tap is recorded, not thrown at the process: once the tap has
    // ended (failed), a rejection nobody handled would be reported before the next turn of the loop.
    const tap = await waitFor(() => ended.find((s) => s.label.startsWith('tap')), { what: 'the unawaited tap to end' });
    assert.equal(tap.status, 'failed');
    await setImmediate();
    assert.equal(unhandled, undefined, String(unhandled));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('a service that answers 401 for the box settings fails the flow with UNAUTHORIZED, not scale 1', async () => {
  const now = new Date().toISOString();
  const box = { id: 'b1', type: 'linux', status: 'running', reason: null, createdAt: now, updatedAt: now, expiresAt: null, config: { cpu: 1, memory: 1024, storage: 1, envs: {}, labels: {}, os: { version: 'x' } } };
  const fake = await startFakeService((req, res) => {
    if (req.method === 'GET' && req.path === '/boxes') return sendJson(res, 200, { data: [], page: 1, pageSize: 1, total: 0 });
    if (req.method === 'POST' && req.path === '/boxes/linux') return sendJson(res, 201, box);
    if (req.method === 'GET' && req.path === '/boxes/b1') return sendJson(res, 200, box);
    if (req.path === '/boxes/b1/actions/settings') return sendJson(res, 401, { code: 'UNAUTHORIZED', message: 'key expired' });
    if (req.method === 'POST' && req.path === '/boxes/b1/terminate') return void res.writeHead(204).end();
    sendJson(res, 200, { actionId: 'a1', message: 'ok' });
  });
  const client = new BoxClient({ baseUrl: fake.baseUrl, apiKey: 'k', maxRetries: 0 });
  try {
    const flow = parseFlowYaml('name: refused\nsteps:\n  - type: hi\n', join(dir, 'refused.flow.yaml'));
    const result = await run([flow], {}, client);
    assert.equal(result.flows[0]!.error?.code, 'UNAUTHORIZED', JSON.stringify(result.flows[0]!.error));
    assert.ok(!fake.requests.some((r) => r.path.endsWith('/actions/type')), 'no action was sent at a guessed scale');
  } finally {
    await client.close();
    await fake.close();
  }
});

test('a Linux box whose CDP URL fails: a step that needs positions fails with the reason, not an HTML layout without them', async () => {
  const now = new Date().toISOString();
  const box = { id: 'b1', type: 'linux', status: 'running', reason: null, createdAt: now, updatedAt: now, expiresAt: null, config: { cpu: 1, memory: 1024, storage: 1, envs: {}, labels: {}, os: { version: 'x' } } };
  const fake = await startFakeService((req, res) => {
    if (req.method === 'GET' && req.path === '/boxes') return sendJson(res, 200, { data: [], page: 1, pageSize: 1, total: 0 });
    if (req.method === 'POST' && req.path === '/boxes/linux') return sendJson(res, 201, box);
    if (req.method === 'GET' && req.path === '/boxes/b1') return sendJson(res, 200, box);
    if (req.path === '/boxes/b1/actions/settings') return sendJson(res, 200, { scale: 1 });
    if (req.path === '/boxes/b1/browser/connect-url/cdp') return sendJson(res, 503, { code: 'CDP_OFF', message: 'no CDP on this service' });
    if (req.path === '/boxes/b1/actions/screen-layout') return sendJson(res, 200, { content: '<html><body><button>Go</button></body></html>' });
    if (req.method === 'POST' && req.path === '/boxes/b1/terminate') return void res.writeHead(204).end();
    sendJson(res, 200, { actionId: 'a1', message: 'ok' });
  });
  const client = new BoxClient({ baseUrl: fake.baseUrl, apiKey: 'k', maxRetries: 0 });
  try {
    const flow = parseFlowYaml('name: nocdp\nsteps:\n  - tap: Go\n', join(dir, 'nocdp.flow.yaml'));
    const result = await run([flow], { stepTimeout: 1_000 }, client);
    const error = result.flows[0]!.error;
    assert.notEqual(error?.code, 'ELEMENT_NOT_FOUND', JSON.stringify(error));
    assert.match(error!.message, /no CDP on this service/, JSON.stringify(error));
  } finally {
    await client.close();
    await fake.close();
  }
});

test("a TS flow's step label masks a secret before it is cut short: no start of the secret shows", async () => {
  const secret = 'hunter2-hunter2-hunter2';
  const file = join(dir, 'typed-secret.flow.ts');
  writeFileSync(file, `import { flow } from ${JSON.stringify(flowModule)};\nexport default flow('typed secret', { box: 'linux', env: { PW: ${JSON.stringify(secret)} }, secrets: ['PW'] }, async ({ box, env }) => {\n  await box.openTab(${JSON.stringify(page)});\n  await box.type(env.PW);\n});\n`);
  const result = await run([await loadFlowFile(file)]);
  const labels = result.flows[0]!.attempts[0]!.steps.map((s) => s.label);
  assert.equal(result.flows[0]!.status, 'passed', JSON.stringify(result.flows[0]!.error));
  assert.ok(labels.includes('type "***"'), labels.join(' | '));
  assert.ok(!labels.some((l) => l.includes('hunter2')), labels.join(' | '));
});
