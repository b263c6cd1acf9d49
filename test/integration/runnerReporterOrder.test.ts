// A run on a real `boxflow serve` with a reporter whose step hook is slow: the reporter hears begin,
// each step, its flow's end and the run's end in that order, and the run ends only once it has
// heard them all (the runner fires a step's events without waiting on reporters).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setTimeout as slowly } from 'node:timers/promises';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { Reporter } from '../../src/runner/types.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('reporterorder');
const { dir } = local;

test('a slow async onStepEnd: the reporter hears begin, the steps, the flow\'s end, the run\'s end, in order, before the run ends', async () => {
  const seen: string[] = [];
  let flowEndCalled!: () => void;
  const flowEnd = new Promise<void>((r) => (flowEndCalled = r));
  const slow: Reporter = {
    onBegin: () => void seen.push('begin'),
    onFlowBegin: () => void seen.push('flowBegin'),
    onStepBegin: (_f, s) => void seen.push(`stepBegin ${s.id}`),
    async onStepEnd(_f, s) {
      // The last step's hook takes a while: until the flow's end is heard (which must not happen
      // while it runs), else a moment. Nothing the runner does may overtake it.
      if (s.id === '2') await Promise.race([flowEnd, slowly(300)]);
      seen.push(`stepEnd ${s.id}`);
    },
    onFlowEnd() {
      flowEndCalled();
      seen.push('flowEnd');
    },
    onEnd: () => void seen.push('end'),
  };
  const flow = parseFlowYaml('name: slow-reporter\nsteps:\n  - runCommand: "true"\n  - runCommand: "echo done"\n', join(dir, 'slow.flow.yaml'));
  const result = await runFlows([flow], testRunOptions(dir, { outputDir: join(dir, 'out') }), { client: local.client, reporter: new ReporterHost([{ name: 'slow', reporter: slow }]), secrets: [] });
  assert.equal(result.status, 'passed', JSON.stringify(result.flows[0]?.error));
  // What the reporter heard by the time the run had ended.
  assert.deepEqual(seen, ['begin', 'flowBegin', 'stepBegin 1', 'stepEnd 1', 'stepBegin 2', 'stepEnd 2', 'flowEnd', 'end']);
});
