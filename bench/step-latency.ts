// `npm run bench -- step-latency`: the time of one action step through the runner with the default
// screenshots (before, after, trace; config default delay) on the embedded Linux box (as boxflow
// test starts it: writing the images into the run's output folder), against its peer: the same
// actions in Playwright on the same Chromium, each with a screenshot before and after, written to
// disk. The same steps through the runner with screenshots off are reported beside them. All run
// in the same process, alternating rounds; the p50 of every action step's time (images stored
// included).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
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

const local = await localBox('bench-step-', { artifactsDir: (dir) => join(dir, 'out-shots') });
const { dataDir, client, box } = local;

const actions = ['type: ab', 'pressKey: backspace', 'tap: "50%,70%"', 'pressKey: tab'];
const steps = Array.from({ length: kSteps }, (_, i) => `  - ${actions[i % actions.length]}`).join('\n');
const flow = parseFlowYaml(`name: steps\nsteps:\n  - openTab: '${page}'\n${steps}\n`, join(dataDir, 'steps.flow.yaml'));
// The screenshots a project gets when its config says nothing about them.
const defaults = resolveConfig({}, {}, undefined, dataDir, {}).options.screenshots;

async function stepTimes(round: number, screenshots: RunOptions['screenshots']): Promise<number[]> {
  // With screenshots, the folder the server writes into (one for every round, as one run's).
  const out = screenshots.phases.length ? local.artifactsDir! : join(dataDir, `out-${round}-off`);
  const log = new EventLog(out);
  const host = new ReporterHost([], log);
  const options = testRunOptions(dataDir, { outputDir: out, flowTimeout: 600_000, stepTimeout: 10_000, screenshots, boxes: { ids: [box.id], createLinux: 0, createAndroid: 0 } });
  const result = await runFlows([flow], options, { client, reporter: host, secrets: [], serverWritesArtifacts: out === local.artifactsDir });
  log.close();
  const flowResult = result.flows[0]!;
  const records = flowResult.attempts.at(-1)!.steps;
  if (result.stats.passed !== 1) throw new Error(`the bench flow failed: ${JSON.stringify(flowResult.error ?? records.find((s) => s.error)?.error)}`);
  const actionSteps = records.slice(1 + kWarmupSteps);
  if (screenshots.phases.length && !actionSteps.every((s) => s.screenshots?.before && s.screenshots.after && s.screenshots.trace)) throw new Error('a step came back without its three images');
  return actionSteps.map((s) => s.durationMs);
}

// The peer: Playwright on the same Chromium, the same page and actions, a PNG before and after each
// written to disk (what a Playwright test that keeps both images does).
const browser = await chromium.launch({
  executablePath: process.env.BOXFLOW_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const pwPage = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await pwPage.goto(page);
const pwOut = join(dataDir, 'out-playwright');
mkdirSync(pwOut, { recursive: true });
let shot = 0;
async function playwrightTimes(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < kSteps; i++) {
    const started = performance.now();
    writeFileSync(join(pwOut, `${shot++}.png`), await pwPage.screenshot());
    const action = actions[i % actions.length]!;
    if (action.startsWith('type')) await pwPage.keyboard.type('ab');
    else if (action.includes('backspace')) await pwPage.keyboard.press('Backspace');
    else if (action.startsWith('tap')) await pwPage.mouse.click(640, 560);
    else await pwPage.keyboard.press('Tab');
    writeFileSync(join(pwOut, `${shot++}.png`), await pwPage.screenshot());
    if (i >= kWarmupSteps) times.push(performance.now() - started);
  }
  return times;
}

const ours: number[] = [];
const peer: number[] = [];
const off: number[] = [];
const offShots: RunOptions['screenshots'] = { phases: [], delay: defaults.delay };
await stepTimes(-1, defaults);
await playwrightTimes();
for (let r = 0; r < kRounds; r++) {
  // Rotate which side goes first, so drift does not favour one.
  const sides = [async () => ours.push(...(await stepTimes(r, defaults))), async () => peer.push(...(await playwrightTimes())), async () => off.push(...(await stepTimes(r, offShots)))];
  for (let k = 0; k < sides.length; k++) await sides[(r + k) % sides.length]!();
}
await browser.close();
await local.close();
const ms = (v: number[], p: number) => Math.round(percentile(v, p));
const mean = (v: number[]) => Math.round(v.reduce((a, b) => a + b, 0) / v.length);
process.stderr.write(`step with screenshots (${defaults.phases.join('/')}, delay ${defaults.delay}): p50 ${ms(ours, 50)} ms p90 ${ms(ours, 90)} ms mean ${mean(ours)} ms; Playwright with a screenshot before and after: p50 ${ms(peer, 50)} ms p90 ${ms(peer, 90)} ms mean ${mean(peer)} ms; the runner without screenshots: p50 ${ms(off, 50)} ms\n`);
printResult('step-latency', 'action-step', 'ms p50', percentile(ours, 50), percentile(peer, 50));
