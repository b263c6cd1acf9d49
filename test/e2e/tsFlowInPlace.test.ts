// TS flows and configs load in place (issue 22 item 9): loading writes nothing into the user's
// tree, so a read-only checkout loads and a watcher sees nothing. The project is a CommonJS one
// (no "type" in package.json) whose files use import/export and import 'boxflow': the case that
// once loaded through a hidden `.x.boxflow-PID-N.mts` copy next to the file. The built CLI, as a
// user runs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, tempProject, type CliRun } from './helpers.js';
import { waitFor } from '../support/waitFor.js';

const kFiles = {
  'package.json': JSON.stringify({ name: 'user-project', private: true }),
  'boxflow.config.ts': "import { defineConfig } from 'boxflow';\n\nexport default defineConfig({ env: { GREETING: 'hi' } });\n",
  'flows/steps.ts': "export const kGreeting: string = 'hello';\n",
  'flows/greet.flow.ts': [
    "import { flow } from 'boxflow';",
    "import { kGreeting } from './steps.ts';",
    '',
    "export default flow('greet', { box: 'linux' }, async ({ box }) => {",
    "  await box.openTab('data:text/html,<p>hi</p>');",
    '  await box.type(kGreeting);',
    '});',
    '',
  ].join('\n'),
};

/** Every path under `dir`, hidden ones included (node_modules/boxflow is a link to the repo: not followed). */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .filter((p) => p !== 'node_modules/boxflow' && !p.startsWith('node_modules/boxflow/'))
    .sort();
}

/** `boxflow validate` in `dir`; `unprivileged`: as nobody when the test runs as root (root writes anywhere). */
function validate(dir: string, unprivileged = false): Promise<CliRun> {
  const asRoot = unprivileged && process.getuid?.() === 0;
  return new Promise((resolve) => {
    const env = { ...process.env, BOXFLOW_BASE_URL: undefined, BOXFLOW_API_KEY: undefined };
    const child = spawn(process.execPath, [cliPath, 'validate'], { cwd: dir, env, ...(asRoot ? { uid: 65534, gid: 65534 } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a TS flow and config load from a read-only checkout, and no file appears in it', async () => {
  const dir = tempProject(kFiles);
  const before = listing(dir);
  const folders = [dir, join(dir, 'flows'), join(dir, 'node_modules')];
  for (const f of folders) chmodSync(f, 0o555);
  try {
    const run = await validate(dir, true);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /1 flow valid/);
  } finally {
    for (const f of folders) chmodSync(f, 0o755);
  }
  assert.deepEqual(listing(dir), before);
});

test('loading a TS flow fires no file watcher on its folder', async () => {
  const dir = tempProject(kFiles);
  const events: string[] = [];
  // The folders of the config and the flow, each on its own: a recursive watch would follow
  // node_modules/boxflow into the repository.
  const watchers = ['.', 'flows'].map((f) => watch(join(dir, f), (event, name) => events.push(`${event} ${f}/${name}`)));
  try {
    const run = await validate(dir);
    assert.equal(run.code, 0, run.stderr);
    // Late events: a file written now in each folder is reported after anything the run did there
    // (inotify reports a folder's events in order), so once both are seen, so is all of the run's.
    for (const f of ['.', 'flows']) writeFileSync(join(dir, f, 'sentinel'), '');
    await waitFor(() => ['.', 'flows'].every((f) => events.some((e) => e.endsWith(` ${f}/sentinel`))), { what: 'the watchers to see the sentinel files' });
  } finally {
    for (const w of watchers) w.close();
  }
  assert.deepEqual(events.filter((e) => !e.endsWith('/sentinel')), []);
});
