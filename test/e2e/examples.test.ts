// The example flows (what `npm start` runs) pass on the embedded local box and, between them,
// use every step of the language that applies to a Linux box.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kStepNames } from '../../src/flow/index.js';
import type { StepRecord } from '../../src/runner/types.js';
import { readResults, repoRoot, runCli } from './helpers.js';
import { tempDir } from '../support/tmp.js';

const kAndroidOnly = ['installApp', 'closeAllApps', 'assertPackage', 'deleteMedia', 'deleteAlbum', 'home'];

test('the example flows pass and cover every Linux-applicable step', async () => {
  const out = join(tempDir('boxflow-examples-'), 'out');
  const run = await runCli(['test', '--reporter', 'json', '-o', out], { cwd: repoRoot });
  const result = readResults(out);
  const failures = result.flows.filter((f) => f.status === 'failed').map((f) => `${f.name}: ${f.error?.code} ${f.error?.message}`);
  assert.equal(run.code, 0, `${run.stderr}\n${failures.join('\n')}`);
  assert.ok(result.stats.total >= 6, `${result.stats.total} example flows`);
  assert.equal(result.stats.passed, result.stats.total);
  const files = new Set(result.flows.map((f) => f.file.replace(/.*\./, '')));
  assert.deepEqual([...files].sort(), ['ts', 'yaml'], 'both YAML and TypeScript examples');
  const used = new Set<string>();
  const walk = (steps: StepRecord[]) => steps.forEach((s) => (used.add(s.command), walk(s.children ?? [])));
  for (const f of result.flows) for (const a of f.attempts) walk(a.steps);
  const missing = kStepNames.filter((n) => !kAndroidOnly.includes(n) && !used.has(n));
  assert.deepEqual(missing, [], 'every Linux-applicable step appears in an example');
});
