// How a step's before/after/trace images get from the box into the run's artifact store: from a
// real `boxflow serve` as stored files (storageKey, streamed), from a service that offers no
// storage keys as base64. Either way each image lands once, as a PNG file under <output>/data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { StepRecord } from '../../src/runner/types.js';
import { decodePng } from '../../src/visual/index.js';
import { screenPng } from '../fixtures/results/fixture.js';
import { sendJson, startFakeService } from './clientFakeService.js';
import { useLocalServer } from '../support/localServer.js';
import { tempDir } from '../support/tmp.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('stepimages');
const page = 'data:text/html,<input id="i" autofocus style="font-size:30px">';
const allPhases = { phases: ['before', 'after', 'trace'] as ('before' | 'after' | 'trace')[], delay: '100ms' };

interface Spy {
  bodies: Record<string, unknown>[];
  answers: string[];
  streamed: number;
}

/** Records what the runner asks of `client` for its type/pressKey actions and how images come back. */
function spyOn(client: BoxClient): Spy {
  const spy: Spy = { bodies: [], answers: [], streamed: 0 };
  for (const name of ['type', 'pressKey'] as const) {
    const original = client[name].bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      spy.bodies.push(args[1] as Record<string, unknown>);
      const result = await original(...args);
      spy.answers.push(JSON.stringify(result));
      return result;
    };
  }
  const stream = client.streamObject.bind(client);
  client.streamObject = (...args) => {
    spy.streamed++;
    return stream(...args);
  };
  return spy;
}

async function runSteps(client: BoxClient, name: string, steps: string, dir: string): Promise<{ out: string; steps: StepRecord[] }> {
  const flow = parseFlowYaml(`name: ${name}\nsteps:\n${steps}`, join(dir, `${name}.flow.yaml`));
  const out = join(dir, name);
  const options = testRunOptions(dir, { outputDir: out, screenshots: allPhases });
  const result = await runFlows([flow], options, { client, reporter: new ReporterHost([]), secrets: [] });
  assert.equal(result.flows[0]!.status, 'passed', JSON.stringify(result.flows[0]!.error));
  return { out, steps: result.flows[0]!.attempts[0]!.steps };
}

function screenshotFormat(body: Record<string, unknown>): unknown {
  return ((body.options as { screenshot?: { outputFormat?: string } }).screenshot as { outputFormat?: string }).outputFormat;
}

test('boxflow serve: step images come as stored files, streamed into the artifact store; base64 is never asked once the service is known', async () => {
  const client = local.client;
  const spy = spyOn(client);
  const { out, steps } = await runSteps(client, 'files', `  - openTab: '${page}'\n  - type: ab\n  - pressKey: backspace\n  - type: cd\n  - pressKey: enter\n`, local.dir);
  const actions = steps.slice(1);
  assert.equal(actions.length, 4);
  for (const step of actions) {
    for (const phase of ['before', 'after', 'trace'] as const) {
      const rel = step.screenshots?.[phase];
      assert.match(rel ?? '', /^data\/[0-9a-f]{40}\.png$/, `${step.label}: ${phase} is a file in the store`);
      const png = decodePng(readFileSync(join(out, rel!)));
      assert.deepEqual([png.width, png.height], [1280, 800]);
    }
    assert.notEqual(step.screenshots!.trace, step.screenshots!.after, 'the trace has the operation drawn on it');
  }
  // The first action teaches the client that this is boxflow serve; from then on only storage keys.
  assert.deepEqual(spy.bodies.slice(1).map(screenshotFormat), ['storageKey', 'storageKey', 'storageKey']);
  for (const answer of spy.answers.slice(1)) assert.doesNotMatch(answer, /data:image/, 'no image came inline');
  assert.equal(spy.streamed, 3 * 3, 'each stored image was streamed');
  // What the type steps typed is on the last after-screenshot: it was taken after the action.
  const first = decodePng(readFileSync(join(out, actions[1]!.screenshots!.before!)));
  const last = decodePng(readFileSync(join(out, actions[1]!.screenshots!.after!)));
  assert.ok(!Buffer.from(first.data).equals(Buffer.from(last.data)), 'the backspace shows between before and after');
});

test('a service without storage keys: the runner asks base64 and stores the decoded images as files', async () => {
  const png = screenPng(7);
  const uri = `data:image/png;base64,${png.toString('base64')}`;
  const now = new Date().toISOString();
  const box = { id: 'b1', type: 'linux', status: 'running', reason: null, createdAt: now, updatedAt: now, expiresAt: null, config: { cpu: 1, memory: 1024, storage: 1, envs: {}, labels: {}, os: { version: 'x' } } };
  const fake = await startFakeService((req, res) => {
    if (req.method === 'GET' && req.path === '/boxes') return sendJson(res, 200, { data: [], page: 1, pageSize: 1, total: 0 });
    if (req.method === 'POST' && req.path === '/boxes/linux') return sendJson(res, 201, box);
    if (req.method === 'POST' && /^\/boxes\/b1\/actions\/(type|press-key)$/.test(req.path)) return sendJson(res, 200, { actionId: 'a1', message: 'ok', screenshot: { before: { uri }, after: { uri }, trace: { uri } } });
    if (req.method === 'POST' && req.path === '/boxes/b1/terminate') {
      res.writeHead(204).end();
      return;
    }
    sendJson(res, 404, { code: 'NotFound', message: 'not here' });
  });
  const client = new BoxClient({ baseUrl: fake.baseUrl, apiKey: 'k', maxRetries: 0 });
  try {
    const spy = spyOn(client);
    const { out, steps } = await runSteps(client, 'base64', '  - type: ab\n  - pressKey: backspace\n  - type: c\n', local.dir);
    assert.deepEqual(spy.bodies.map(screenshotFormat), ['base64', 'base64', 'base64']);
    assert.equal(spy.streamed, 0);
    for (const step of steps) {
      for (const phase of ['before', 'after', 'trace'] as const) {
        const rel = step.screenshots?.[phase];
        assert.ok(rel && existsSync(join(out, rel)), `${step.label}: ${phase} stored`);
        assert.deepEqual(readFileSync(join(out, rel)), png);
      }
    }
  } finally {
    await client.close();
    await fake.close();
  }
});

test("the run's embedded server writes each step image into the output folder once: the runner downloads nothing and writes nothing again", async () => {
  const dir = tempDir('images-once');
  const out = join(dir, 'once');
  const secret = randomBytes(16).toString('hex');
  const server = await startServer({ port: 0, dataDir: join(dir, 'srv'), secret, log: () => {}, artifactsDir: out });
  let actions: StepRecord[] = [];
  const client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'once') });
  try {
    const spy = spyOn(client);
    const flow = parseFlowYaml(`name: once\nsteps:\n  - openTab: '${page}'\n  - type: ab\n  - pressKey: backspace\n  - type: cd\n`, join(dir, 'once.flow.yaml'));
    const result = await runFlows([flow], testRunOptions(dir, { outputDir: out, screenshots: allPhases }), { client, reporter: new ReporterHost([]), secrets: [], serverWritesArtifacts: true });
    assert.equal(result.flows[0]!.status, 'passed', JSON.stringify(result.flows[0]!.error));
    actions = result.flows[0]!.attempts[0]!.steps.slice(1);
    assert.equal(actions.length, 3);
    // The first action teaches the client that this is boxflow serve (its images come inline).
    for (const [i, step] of actions.entries()) {
      if (i === 0) continue;
      const answer = JSON.parse(spy.answers[i]!) as { screenshot: Record<string, { artifact?: string; presignedUrl: string }> };
      for (const phase of ['before', 'after', 'trace'] as const) {
        const rel = step.screenshots?.[phase];
        assert.equal(rel, answer.screenshot[phase]!.artifact, `${step.label}: ${phase} is the file the server wrote`);
        assert.deepEqual([decodePng(readFileSync(join(out, rel!))).width], [1280]);
        // The pre-signed URL serves the same file, for any other client.
        assert.deepEqual(Buffer.from(await (await fetch(answer.screenshot[phase]!.presignedUrl)).arrayBuffer()), readFileSync(join(out, rel!)));
      }
    }
    assert.equal(spy.streamed, 0, 'no image was downloaded');
    const objects = join(dir, 'srv', 'objects');
    const copies = existsSync(objects) ? readdirSync(objects, { recursive: true }).filter((f) => String(f).endsWith('.png')) : [];
    assert.deepEqual(copies, [], 'the server kept no second copy');
  } finally {
    await client.close();
    await server.close();
  }
  // The images outlive the server: they are the run's.
  const kept = readdirSync(join(out, 'data'));
  for (const step of actions) for (const rel of Object.values(step.screenshots ?? {})) assert.ok(kept.includes(rel.slice('data/'.length)), rel);
});
