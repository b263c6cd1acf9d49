// `npm run bench -- runner-overhead`: a 200-step flow of type/press-key through the runner
// (records, events to results.jsonl, masking) against the same 200 calls made directly with
// BoxClient, on the same server and box. Alternating rounds; the median of each side.
import { join } from 'node:path';
import { parseFlowYaml } from '../src/flow/index.js';
import { EventLog } from '../src/runner/events.js';
import { ReporterHost } from '../src/runner/reporterHost.js';
import { runFlows } from '../src/runner/run.js';
import type { RunOptions } from '../src/runner/options.js';
import { testRunOptions } from '../test/support/runOptions.js';
import { localBox } from './_localBox.js';
import { benchSize, printResult } from './_report.js';

const kSteps = benchSize(undefined, 200, 10);
const kRounds = benchSize(undefined, 7, 1);
const page = 'data:text/html,<input id=i autofocus><script>document.getElementById("i").focus()</script>';

const local = await localBox('bench-runner-');
const { dataDir, client, box } = local;
await client.openTab(box.id, { url: page });

const steps = Array.from({ length: kSteps }, (_, i) => (i % 2 ? '  - pressKey: backspace' : '  - type: ab')).join('\n');
const flow = parseFlowYaml(`name: overhead\nsteps:\n${steps}\n`, join(dataDir, 'overhead.flow.yaml'));
const options = (out: string): RunOptions => testRunOptions(dataDir, { outputDir: out, flowTimeout: 600_000, stepTimeout: 5_000, boxes: { ids: [box.id], createLinux: 0, createAndroid: 0 } });

/** Both sides start from the same freshly loaded page on a warmed-up browser. */
async function openFresh(): Promise<void> {
  await client.openTab(box.id, { url: page });
  for (let i = 0; i < 100; i++) await client.type(box.id, { text: 'w', options: { screenshot: false } });
}

async function viaRunner(round: number): Promise<number> {
  await openFresh();
  const out = join(dataDir, `out-${round}`);
  const log = new EventLog(out);
  const host = new ReporterHost([], log);
  const t = performance.now();
  const result = await runFlows([flow], options(out), { client, reporter: host, secrets: [] });
  const ms = performance.now() - t;
  log.close();
  if (result.stats.passed !== 1) throw new Error(`the bench flow failed: ${JSON.stringify(result.flows[0]?.error)}`);
  return ms;
}

async function direct(): Promise<number> {
  await openFresh();
  const t = performance.now();
  for (let i = 0; i < kSteps; i++) {
    if (i % 2) await client.pressKey(box.id, { keys: ['backspace'], options: { screenshot: false } });
    else await client.type(box.id, { text: 'ab', options: { screenshot: false } });
  }
  return performance.now() - t;
}

const ours: number[] = [];
const base: number[] = [];
await direct();
for (let r = 0; r < kRounds; r++) {
  // Alternate which side goes first, so drift does not favour one.
  if (r % 2) {
    ours.push(await viaRunner(r));
    base.push(await direct());
  } else {
    base.push(await direct());
    ours.push(await viaRunner(r));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
await local.close();
printResult('runner-overhead', `${kSteps}-steps`, 'ms', median(ours), median(base));
