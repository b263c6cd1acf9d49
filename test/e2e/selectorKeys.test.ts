// The selector keys Maestro flows need (containsChild, containsDescendants, traits, size, a
// negative index) and the one text-matching rule, run by the built CLI on the embedded local box
// against the demo app: the DOMSnapshot tree of a real Chromium page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { StepRecord } from '../../src/runner/types.js';
import { readResults, runCli, startDemoApp, tempProject } from './helpers.js';

let app: Awaited<ReturnType<typeof startDemoApp>>;
before(async () => (app = await startDemoApp()));
after(() => app?.close());

test('new selector keys and text matching on a real page', async () => {
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ appBaseUrl: app.url, reporters: ['json'], screenshots: false }),
    'keys.flow.yaml': `name: keys
steps:
  - openTab: { url: /, expect: { title: "  Boxflow   Demo " } }
  - assertTitle: "/^boxflow demo$/i"
  - assertVisible: { css: nav, containsChild: List }
  - assertVisible: { css: header, containsDescendants: [Sign in, { css: "#clock" }] }
  - assertLayout: { css: "nav a", traits: [text], count: 4 }
  - assertLayout: { selector: { css: main p, index: -1 }, text: "Download   report" }
  - tap: { css: nav a, index: -3 }
  - assertUrl: /\\/list$/
  - tap: { css: ul.items li, size: { height: 51, tolerance: 1 }, index: 1 }
  - assertVisible: "Selected: Item 2"
  - assertVisible: { css: nav, containsChild: Reorder, containsDescendants: [List] }
    label: no such nav
    timeout: 500ms
`,
  });
  const out = join(dir, 'out');
  const run = await runCli(['test', '-o', out], { cwd: dir });
  assert.equal(run.code, 1, run.stderr);
  const steps: StepRecord[] = readResults(out).flows[0]!.attempts.at(-1)!.steps;
  assert.deepEqual(
    steps.map((s) => s.status),
    [...Array(10).fill('passed'), 'failed'],
    steps.map((s) => `${s.label}: ${s.status} ${s.error?.message ?? ''}`).join('\n'),
  );
  // openTab's expect collapses whitespace like every other text comparison.
  assert.match(steps[0]!.message ?? '', /opened "Boxflow Demo"/);
  // On the list page the nav holds only Home: the failure names the selector as written.
  assert.match(steps[10]!.error!.message, /containsChild: "Reorder", containsDescendants: \["List"\]/);
});
