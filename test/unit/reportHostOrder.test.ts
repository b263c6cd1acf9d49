// The reporter host delivers each reporter's events in the order they happened, one hook at a time,
// whether the runner awaits the event or fires it and goes on (a step's events); the run's end waits
// for every hook. A printsToStdio that throws is that reporter's error, never a silent `false`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import type { ErrorInfo, FlowInfo, FlowResult, Reporter, RunResult, StepRecord } from '../../src/runner/types.js';

const flow: FlowInfo = { id: 'f1', name: 'login', file: 'login.flow.yaml', tags: [] };
const step = (id: string): StepRecord => ({ id, index: Number(id), label: `step ${id}`, command: 'tap', args: {}, status: 'passed', attempts: 1, startedAt: new Date(0).toISOString(), durationMs: 1 });
const flowResult: FlowResult = { ...flow, status: 'passed', durationMs: 2, attempts: [] };
const runResult: RunResult = { version: 1, startedAt: new Date(0).toISOString(), durationMs: 3, status: 'passed', boxes: [], flows: [flowResult], stats: { total: 1, passed: 1, failed: 0, flaky: 0, skipped: 0 }, baselines: [], errors: [] };

test('a slow async onStepEnd fired without await is still heard before onFlowEnd, and onEnd waits for it', async () => {
  const seen: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slow: Reporter = {
    onStepBegin: (_f, s) => void seen.push(`stepBegin ${s.id}`),
    async onStepEnd(_f, s) {
      seen.push(`stepEnd ${s.id} began`);
      if (s.id === '2') await gate;
      seen.push(`stepEnd ${s.id} ended`);
    },
    onFlowEnd: () => void seen.push('flowEnd'),
    onEnd: () => void seen.push('end'),
  };
  const host = new ReporterHost([{ name: 'slow', reporter: slow }]);
  // As the runner fires a step's events: not awaited.
  for (const id of ['1', '2']) {
    void host.onStepBegin(flow, { id, label: `step ${id}`, command: 'tap' });
    void host.onStepEnd(flow, step(id));
  }
  const flowEnded = host.onFlowEnd(flowResult);
  const ended = host.onEnd(runResult);
  // The hook that is still running ends only now: nothing after it may have been heard yet.
  release();
  await flowEnded;
  await ended;
  assert.deepEqual(seen, ['stepBegin 1', 'stepEnd 1 began', 'stepEnd 1 ended', 'stepBegin 2', 'stepEnd 2 began', 'stepEnd 2 ended', 'flowEnd', 'end']);
});

test('each reporter hears its events in order even when another reporter is slow, and a failure reaches the others\' onError in their order', async () => {
  const fast: string[] = [];
  const errors: ErrorInfo[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const host = new ReporterHost([
    { name: 'slow', reporter: { onStepEnd: () => gate, onFlowEnd: () => { throw new Error('disk full'); } } },
    { name: 'fast', reporter: { onStepEnd: (_f, s) => void fast.push(`stepEnd ${s.id}`), onFlowEnd: () => void fast.push('flowEnd'), onError: (e) => void errors.push(e), onEnd: () => void fast.push('end') } },
  ]);
  void host.onStepEnd(flow, step('1'));
  const flowEnded = host.onFlowEnd(flowResult);
  // The fast reporter does not wait for the slow one.
  assert.deepEqual(await Promise.resolve().then(() => fast), ['stepEnd 1']);
  release();
  await flowEnded;
  await host.onEnd(runResult);
  assert.deepEqual(fast, ['stepEnd 1', 'flowEnd', 'end']);
  assert.deepEqual(errors.map((e) => e.message), ['reporter "slow" threw in onFlowEnd: disk full']);
});

test('a printsToStdio that throws is a REPORTER_ERROR of that reporter (the others hear it), not a silent false', async () => {
  const errors: ErrorInfo[] = [];
  const host = new ReporterHost([
    { name: 'odd', reporter: { printsToStdio() { throw new Error('no terminal'); } } },
    { name: 'watcher', reporter: { onError: (e) => void errors.push(e) } },
  ]);
  host.printsToStdio();
  await host.onEnd(runResult);
  assert.equal(host.hadReporterError, true);
  assert.deepEqual(host.reporterErrors.map((e) => [e.code, e.message]), [['REPORTER_ERROR', 'reporter "odd" threw in printsToStdio: no terminal']]);
  assert.deepEqual(errors.map((e) => e.code), ['REPORTER_ERROR']);
});
