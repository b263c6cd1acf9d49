// The reporter behind `boxflow test --live` (src/cli/live.ts), against a page on loopback that takes
// its PUTs: the newest state only once the one before is taken, the newest steps only with a count of
// the earlier ones, a retried block's step ended where it runs now; a page that refuses is one
// warning and no more PUTs. And when it opens a browser: only for a person at a terminal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BoxClient } from '../../src/api/client.js';
import { kLiveRunMaxSteps, type LiveRunState } from '../../src/api/liveRun.js';
import { liveReporter, opensBrowser } from '../../src/cli/live.js';
import type { FlowInfo, FlowResult, StepRecord } from '../../src/runner/types.js';
import { waitFor } from '../support/waitFor.js';

async function page(status = 204) {
  const bodies: LiveRunState[] = [];
  const held: ServerResponse[] = [];
  let hold = false;
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d));
    req.on('end', () => {
      bodies.push(JSON.parse(text) as LiveRunState);
      if (hold) held.push(res);
      else res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    runUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/live-view/b1/run?exp=1&sig=x`,
    bodies,
    hold: () => void (hold = true),
    release: () => {
      hold = false;
      for (const res of held.splice(0)) res.writeHead(status).end();
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const client = (runUrl: string | undefined) => ({ liveViewUrl: async () => ({ url: 'http://127.0.0.1/live-view/b1?exp=1&sig=x', rawUrl: 'http://127.0.0.1/live-view/b1/raw', ...(runUrl ? { runUrl } : {}) }) }) as unknown as BoxClient;
const flow: FlowInfo = { id: 'f1', name: 'sign in', file: 'flows/sign-in.flow.yaml', tags: [] };
const record = (id: string, status: StepRecord['status'], actionId?: string) => ({ id, index: 0, label: `step ${id}`, command: 'tap', args: {}, status, attempts: 1, startedAt: '', durationMs: 1, ...(actionId ? { actionId } : {}) }) as StepRecord;

test('the newest state goes once the page took the one before; a long flow sends its newest steps and counts the rest', async () => {
  const p = await page();
  const lines: string[] = [];
  try {
    const r = liveReporter({ client: client(p.runUrl), print: (l) => lines.push(l), warn: (m) => assert.fail(m), open: false });
    p.hold();
    await r.onFlowBegin!(flow, 1, { id: 'b1', type: 'linux' });
    assert.deepEqual(lines, ['live view of box b1: http://127.0.0.1/live-view/b1?exp=1&sig=x']);
    await waitFor(() => p.bodies.length === 1, { what: 'the first PUT' });
    const total = kLiveRunMaxSteps + 50;
    for (let i = 1; i <= total; i++) {
      await r.onStepBegin!(flow, { id: String(i), label: `step ${i}`, command: 'tap' });
      await r.onStepEnd!(flow, record(String(i), 'passed', `act-${i}`));
    }
    await r.onStepBegin!(flow, { id: String(total + 1), label: 'the last', command: 'assertVisible' });
    p.release();
    await r.onEnd!({} as never);
    // The first, then only the newest of all that came while it was held.
    assert.equal(p.bodies.length, 2);
    const last = p.bodies[1]!;
    assert.equal(last.steps.length, kLiveRunMaxSteps);
    assert.equal(last.earlier, total + 1 - kLiveRunMaxSteps);
    assert.deepEqual(last.steps.at(-1), { id: String(total + 1), label: 'the last', status: 'running' });
    assert.deepEqual(last.steps.at(-2), { id: String(total), label: `step ${total}`, status: 'passed', actionId: `act-${total}` });
    assert.deepEqual(last.flow, { name: 'sign in', file: 'flows/sign-in.flow.yaml', attempt: 1, status: 'running' });

    await r.onStepEnd!(flow, record(String(total + 1), 'failed'));
    await r.onFlowEnd!({ ...flow, status: 'failed' } as FlowResult);
    await r.onEnd!({} as never);
    assert.equal(p.bodies.at(-1)!.flow.status, 'failed');
    assert.equal(p.bodies.at(-1)!.steps.at(-1)!.status, 'failed');
  } finally {
    await p.close();
  }
});

test('a retried block runs the same ids again: its step ends where it runs now, the earlier try keeps its status', async () => {
  const p = await page();
  try {
    const r = liveReporter({ client: client(p.runUrl), print: () => {}, warn: (m) => assert.fail(m), open: false });
    await r.onFlowBegin!(flow, 2, { id: 'b1', type: 'linux' });
    await r.onStepBegin!(flow, { id: '1', label: 'retry', command: 'retry' });
    await r.onStepBegin!(flow, { id: '1.1', label: 'tap Go', command: 'tap' });
    await r.onStepEnd!(flow, record('1.1', 'failed'));
    await r.onStepBegin!(flow, { id: '1.1', label: 'tap Go', command: 'tap' });
    await r.onStepEnd!(flow, record('1.1', 'passed', 'act-2'));
    await r.onEnd!({} as never);
    const last = p.bodies.at(-1)!;
    assert.equal(last.flow.attempt, 2);
    assert.deepEqual(last.steps.map((s) => `${s.id} ${s.status} ${s.actionId ?? ''}`), ['1 running ', '1.1 failed ', '1.1 passed act-2']);
  } finally {
    await p.close();
  }
});

test('a page that refuses the state is one warning, and is sent nothing more', async () => {
  const p = await page(404);
  const warnings: string[] = [];
  try {
    const r = liveReporter({ client: client(p.runUrl), print: () => {}, warn: (m) => warnings.push(m), open: false });
    await r.onFlowBegin!(flow, 1, { id: 'b1', type: 'linux' });
    await r.onEnd!({} as never);
    for (let i = 1; i <= 3; i++) await r.onStepBegin!(flow, { id: String(i), label: 'x', command: 'tap' });
    await r.onEnd!({} as never);
    assert.equal(p.bodies.length, 1);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /live view of box b1 no longer shows the running step: it answered 404/);
  } finally {
    await p.close();
  }
});

test('a browser opens only for a person at a terminal: stdout a TTY and CI unset', () => {
  assert.equal(opensBrowser({ isTTY: true }, {}), true);
  assert.equal(opensBrowser({ isTTY: true }, { CI: 'true' }), false);
  assert.equal(opensBrowser({ isTTY: false }, {}), false);
  assert.equal(opensBrowser({}, {}), false);
});
