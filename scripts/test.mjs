#!/usr/bin/env node
// Runs the suite: first the type check of src, tests, benches and scripts (npm run typecheck) and
// the linter (npm run lint), then node's test runner (via tsx) over test/{unit,integration,e2e}/**/*.test.ts,
// then @playwright/test for the browser specs (test/e2e/**/*.spec.ts), then every bench in its quick
// mode (`npm run bench -- all --quick`, so that no bench rots). Pass `unit`, `integration` or `e2e` to
// run one level; extra args are file filters (and skip the two checks and the benches).
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const levels = ['unit', 'integration', 'e2e'];
const args = process.argv.slice(2);
const chosen = args.filter((a) => levels.includes(a));
const filters = args.filter((a) => !levels.includes(a));
const run = chosen.length ? chosen : levels;

function walk(dir, suffix) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => join(e.parentPath ?? e.path, e.name))
    .filter((f) => !filters.length || filters.some((x) => f.includes(x)))
    .sort();
}

// A hung test fails on its own instead of stalling the whole run (and CI) until it is killed.
const kTestTimeoutMs = 10 * 60_000;

if (!filters.length) {
  for (const check of ['typecheck', 'lint']) {
    const r = spawnSync('npm', ['run', '--silent', check], { stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`npm run ${check} failed`);
      process.exit(r.status ?? 1);
    }
  }
}

let status = 0;
const files = run.flatMap((l) => walk(join('test', l), '.test.ts'));
if (files.length) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', `--test-timeout=${kTestTimeoutMs}`, '--test-reporter=spec', ...files], { stdio: 'inherit' });
  status ||= r.status ?? 1;
}
const specs = run.includes('e2e') ? walk(join('test', 'e2e'), '.spec.ts') : [];
if (specs.length) {
  const r = spawnSync('npx', ['playwright', 'test', '--config', 'test/e2e/playwright.config.ts', ...filters], { stdio: 'inherit' });
  status ||= r.status ?? 1;
}
if (!filters.length && !chosen.length) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', 'all', '--quick'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) console.error('npm run bench -- all --quick failed');
  status ||= r.status ?? 1;
}
process.exit(status);
