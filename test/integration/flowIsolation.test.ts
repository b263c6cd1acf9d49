// Flows do not see each other: against a real `boxflow serve` (Chromium), a flow that changes its
// box's resolution and scale leaves the next flow on that box (workers 1) the box as the run found
// it, and a box the user named is handed back as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { FlowResult } from '../../src/runner/types.js';
import { pngSize } from '../../src/visual/index.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('isolation');
const { dir } = local;

const page = 'data:text/html,<h1>Hello box</h1>';
const changer = () => parseFlowYaml(`name: changer\nsteps:\n  - openTab: '${page}'\n  - setResolution: { width: 600, height: 400 }\n  - setScale: 0.5\n  - tap: { x: 10, y: 10 }\n`, join(dir, 'changer.flow.yaml'));
const follower = () => parseFlowYaml(`name: follower\nsteps:\n  - openTab: '${page}'\n  - tap: { x: 10, y: 10 }\n  - screenshot: follower\n`, join(dir, 'follower.flow.yaml'));

function imageSize(out: string, flow: FlowResult, stepIndex: number, which: 'trace' | 'attachment') {
  const step = flow.attempts.at(-1)!.steps[stepIndex]!;
  const rel = which === 'trace' ? step.screenshots?.trace : step.attachments?.[0]?.path;
  assert.ok(rel, `${flow.name} step ${step.id} has a ${which}`);
  return pngSize(readFileSync(join(out, rel)));
}

test('the next flow on a box gets the resolution and scale the box had, whatever ran before it', async () => {
  const scales: Record<string, number> = {};
  const boxes = new Set<string>();
  const probe = {
    name: 'probe',
    reporter: {
      async onFlowBegin(flow: { name: string }, _attempt: number, box?: { id: string }) {
        if (!box) return;
        boxes.add(box.id);
        scales[flow.name] = (await local.client.getSettings(box.id)).scale;
      },
    },
  };
  const options = testRunOptions(join(dir, 'pair'), { workers: 1, screenshots: { phases: ['trace'], delay: '0ms' } });
  const result = await runFlows([changer(), follower()], options, { client: local.client, reporter: new ReporterHost([probe]), secrets: [] });
  const [first, second] = result.flows;
  assert.equal(first!.status, 'passed', JSON.stringify(first!.error));
  assert.equal(second!.status, 'passed', JSON.stringify(second!.error));
  assert.equal(boxes.size, 1, 'both flows ran on one box');
  assert.deepEqual(imageSize(options.outputDir, first!, 3, 'trace'), { width: 300, height: 200 }, 'the first flow did change the box');
  assert.equal(scales.follower, 1, 'the second flow starts at scale 1');
  assert.deepEqual(imageSize(options.outputDir, second!, 1, 'trace'), { width: 1280, height: 800 }, 'its trace has the box\'s own size');
  assert.deepEqual(imageSize(options.outputDir, second!, 2, 'attachment'), { width: 1280, height: 800 }, 'and so has its screenshot');
});

test('a box the user named is handed back with its resolution and scale', async () => {
  const box = await local.client.createLinuxBox({ wait: true, config: { resolution: { width: 900, height: 700 } } });
  try {
    const options = testRunOptions(join(dir, 'named'), { boxes: { ids: [box.id], createLinux: 0, createAndroid: 0 } });
    const result = await runFlows([changer()], options, { client: local.client, reporter: new ReporterHost([]), secrets: [] });
    assert.equal(result.flows[0]!.status, 'passed', JSON.stringify(result.flows[0]!.error));
    assert.equal((await local.client.getSettings(box.id)).scale, 1);
    const shot = await local.client.screenshot(box.id, { outputFormat: 'base64' });
    assert.deepEqual(pngSize(Buffer.from(shot.uri.slice(shot.uri.indexOf(',') + 1), 'base64')), { width: 900, height: 700 });
  } finally {
    await local.client.terminateBox(box.id, {}).catch(() => {});
  }
});
