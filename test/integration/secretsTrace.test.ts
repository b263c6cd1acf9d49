// A typed secret never reaches a trace image: against a real `boxflow serve` (Chromium), the trace
// of a step that types a secret is the after-screenshot with `type: ••••` drawn on it, and a
// service not known to honour boxflow's `sensitive` extension is not asked for a trace at all.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { BoxClient } from '../../src/api/client.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { StepRecord } from '../../src/runner/types.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { drawTrace } from '../../src/server/http/trace.js';
import { decodePng } from '../../src/visual/index.js';
import { testRunOptions } from '../support/runOptions.js';

const dir = mkdtempSync(join(tmpdir(), 'boxflow-secret-trace-'));
chmodSync(dir, 0o755); // box users (the server runs each box as its own user when root) reach their dirs
let server: Awaited<ReturnType<typeof startServer>>;
let secret: string;

before(async () => {
  secret = randomBytes(16).toString('hex');
  server = await startServer({ port: 0, dataDir: join(dir, 'srv'), secret, log: () => {} });
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const page = 'data:text/html,<input id="token" autofocus style="font-size:30px">';

async function run(name: string, steps: string): Promise<StepRecord[]> {
  const client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, name) });
  try {
    const flow = parseFlowYaml(`name: ${name}\nenv: { TOKEN: hunter2 }\nsecrets: [TOKEN]\nsteps:\n  - openTab: '${page}'\n${steps}`, join(dir, `${name}.flow.yaml`));
    const options = testRunOptions(join(dir, name), { screenshots: { phases: ['before', 'after', 'trace'], delay: '0ms' } });
    const result = await runFlows([flow], options, { client, reporter: new ReporterHost([]), secrets: [] });
    assert.equal(result.flows[0]!.status, 'passed', JSON.stringify(result.flows[0]!.error));
    return result.flows[0]!.attempts[0]!.steps;
  } finally {
    await client.close();
  }
}

test('boxflow serve draws `type: ••••` on the trace of a step that types a secret', async () => {
  const steps = await run('masked', '  - tap: { id: token }\n  - type: "${TOKEN}"\n  - type: " plain"\n');
  const out = join(dir, 'masked', 'out');
  const [, typedSecret, typedPlain] = steps.slice(1);
  const shot = (s: StepRecord, phase: 'before' | 'after' | 'trace') => readFileSync(join(out, s.screenshots![phase]!));
  const expected = decodePng(await drawTrace(shot(typedSecret!, 'before'), { kind: 'label', text: 'type: ••••' }));
  const actual = decodePng(shot(typedSecret!, 'trace'));
  assert.ok(Buffer.from(actual.data).equals(Buffer.from(expected.data)), 'the trace is the before-screenshot (where the step acted) with "type: ••••" drawn, nothing else');
  // The check can tell labels apart: text that is no secret is drawn as typed.
  const plainAsMasked = decodePng(await drawTrace(shot(typedPlain!, 'before'), { kind: 'label', text: 'type: ••••' }));
  const plainAsTyped = decodePng(await drawTrace(shot(typedPlain!, 'before'), { kind: 'label', text: 'type: " plain"' }));
  const plainTrace = Buffer.from(decodePng(shot(typedPlain!, 'trace')).data);
  assert.ok(plainTrace.equals(Buffer.from(plainAsTyped.data)));
  assert.ok(!plainTrace.equals(Buffer.from(plainAsMasked.data)));
  // Nor does its message tell the secret's length; a text that is no secret is counted.
  assert.equal(typedSecret!.message, 'typed a secret');
  assert.equal(typedPlain!.message, 'typed 6 characters');
});

test('a service not yet seen to honour `sensitive` is not asked for the trace of a typed secret', async () => {
  // The flow's first action types the secret: the client has not heard from the service yet.
  const steps = await run('unknown', '  - type: "${TOKEN}"\n  - type: " plain"\n');
  const [, typedSecret, typedPlain] = steps;
  assert.ok(typedSecret!.screenshots?.after, 'the after-screenshot is still taken');
  assert.equal(typedSecret!.screenshots?.trace, undefined, 'no trace was asked for');
  assert.ok(typedPlain!.screenshots?.trace, 'other steps keep their trace');
});
