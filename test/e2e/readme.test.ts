// The README's flows pass when copied as they are (issue 32 item 4): every ```yaml block that
// names its file (`# flows/….flow.yaml`) is written to that file of a fresh project and run with
// the built CLI against the demo app on the embedded local box. The one change is the demo app's
// address (it listens on a free port here instead of 4173). A first run writes the screenshot
// baselines (--update-snapshots=missing), the second compares against them: both pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readResults, repoRoot, runCli, startDemoApp, tempProject } from './helpers.js';

/** The README's flow files: `{ 'flows/sign-in.flow.yaml': text }`. */
function readmeFlows(): Record<string, string> {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const out: Record<string, string> = {};
  for (const [, body] of readme.matchAll(/```ya?ml\n([\s\S]*?)```/g)) {
    const file = /^# (flows\/\S+\.flow\.ya?ml)\n/.exec(body!)?.[1];
    if (file) out[file] = body!;
  }
  return out;
}

test("the README's flows pass as they are written, against the demo app", { timeout: 180_000 }, async () => {
  const flows = readmeFlows();
  assert.ok(Object.keys(flows).length >= 1, 'the README has flows to try');
  const app = await startDemoApp();
  try {
    const files = Object.fromEntries(Object.entries(flows).map(([file, text]) => [file, text.replaceAll('http://127.0.0.1:4173', app.url)]));
    const dir = tempProject({ ...files, 'boxflow.config.json': JSON.stringify({ reporters: ['json'] }) });
    for (const update of [['--update-snapshots', 'missing'], []]) {
      const out = join(dir, `out${update.length ? '-first' : '-again'}`);
      const run = await runCli(['test', 'flows', '-o', out, ...update], { cwd: dir, env: { NO_COLOR: '1' } });
      const result = readResults(out);
      const failed = result.flows.filter((f) => f.status !== 'passed').map((f) => `${f.file}: ${f.error?.code} ${f.error?.message}`);
      assert.equal(run.code, 0, `${failed.join('\n')}\n${run.stderr}`);
      assert.equal(result.flows.length, Object.keys(flows).length);
    }
    // The sign-in page has no #clock: its mask masks nothing, and the step says so.
    const signIn = readResults(join(dir, 'out-again')).flows.find((f) => f.file === 'flows/sign-in.flow.yaml')!;
    const shot = signIn.attempts[0]!.steps.find((s) => s.command === 'assertScreenshot')!;
    assert.match(shot.message ?? '', /^matches .*; mask \{css: "#clock"\} matched nothing on the screen, so it masks nothing$/);
  } finally {
    await app.close();
  }
});
