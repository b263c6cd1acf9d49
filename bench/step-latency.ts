// `npm run bench -- step-latency`: the time of one action step through the runner with the default
// screenshots (before, after, trace; config default delay) on the embedded Linux box, against the
// same steps with screenshots off. Both flows run on the same box, alternating rounds; the p50 of
// every action step's durationMs (images stored in the run's artifact store included).
import { join } from 'node:path';
import { parseFlowYaml } from '../src/flow/index.js';
import { EventLog } from '../src/runner/events.js';
import { ReporterHost } from '../src/runner/reporterHost.js';
import { runFlows } from '../src/runner/run.js';
import type { RunOptions } from '../src/runner/options.js';
import { resolveConfig } from '../src/cli/config.js';
import { testRunOptions } from '../test/support/runOptions.js';
import { localBox } from './_localBox.js';
import { benchSize, percentile, printResult } from './_report.js';

const kSteps = benchSize('BENCH_STEPS', 30, 4);
const kRounds = benchSize('BENCH_ROUNDS', 5, 1);
const kWarmupSteps = 3;
const page = 'data:text/html,<input id=i autofocus style="font-size:40px"><p>step latency</p><script>document.getElementById("i").focus()</script>';

const local = await localBox('bench-step-');
const { dataDir, client, box } = local;

const actions = ['type: ab', 'pressKey: backspace', 'tap: "50%,70%"', 'pressKey: tab'];
const steps = Array.from({ length: kSteps }, (_, i) => `  - ${actions[i % actions.length]}`).join('\n');
const flow = parseFlowYaml(`name: steps\nsteps:\n  - openTab: '${page}'\n${steps}\n`, join(dataDir, 'steps.flow.yaml'));
// The screenshots a project gets when its config says nothing about them.
const defaults = resolveConfig({}, {}, undefined, dataDir, {}).options.screenshots;

async function stepTimes(round: number, screenshots: RunOptions['screenshots']): Promise<number[]> {
  const out = join(dataDir, `out-${round}-${screenshots.phases.length}`);
  const log = new EventLog(out);
  const host = new ReporterHost([], log);
  const options = testRunOptions(dataDir, { outputDir: out, flowTimeout: 600_000, stepTimeout: 10_000, screenshots, boxes: { ids: [box.id], createLinux: 0, createAndroid: 0 } });
  const result = await runFlows([flow], options, { client, reporter: host, secrets: [] });
  log.close();
  const flowResult = result.flows[0]!;
  const records = flowResult.attempts.at(-1)!.steps;
  if (result.stats.passed !== 1) throw new Error(`the bench flow failed: ${JSON.stringify(flowResult.error ?? records.find((s) => s.error)?.error)}`);
  const actionSteps = records.slice(1 + kWarmupSteps);
  if (screenshots.phases.length && !actionSteps.every((s) => s.screenshots?.before && s.screenshots.after && s.screenshots.trace)) throw new Error('a step came back without its three images');
  return actionSteps.map((s) => s.durationMs);
}

const ours: number[] = [];
const base: number[] = [];
const off: RunOptions['screenshots'] = { phases: [], delay: defaults.delay };
await stepTimes(-1, defaults);
for (let r = 0; r < kRounds; r++) {
  // Alternate which side goes first, so drift does not favour one.
  if (r % 2) {
    ours.push(...(await stepTimes(r, defaults)));
    base.push(...(await stepTimes(r, off)));
  } else {
    base.push(...(await stepTimes(r, off)));
    ours.push(...(await stepTimes(r, defaults)));
  }
}
await local.close();
process.stderr.write(`step with screenshots (${defaults.phases.join('/')}, delay ${defaults.delay}): p50 ${percentile(ours, 50)} ms p90 ${percentile(ours, 90)} ms; without: p50 ${percentile(base, 50)} ms p90 ${percentile(base, 90)} ms\n`);
printResult('step-latency', 'action-step', 'ms p50', percentile(ours, 50), percentile(base, 50));
