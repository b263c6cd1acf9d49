// Config and validation as a new user meets them (issue 12, items 4 and 5).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, tempProject } from './helpers.js';

test('validate reports every bad step of a file, each code frame once', async () => {
  const dir = tempProject({ 'a.flow.yaml': 'steps:\n  - tapp: Login\n  - tap: OK\n  - assertVisible: { txt: Hi }\n' });
  const run = await runCli(['validate'], { cwd: dir });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /a\.flow\.yaml:2:5: steps\[0\]: unknown step "tapp" \(did you mean "tap"\?\)/);
  assert.match(run.stderr, /a\.flow\.yaml:4:22: steps\[2\]\.assertVisible: unknown key "txt" \(did you mean "text"\?\)/);
  assert.equal(run.stderr.split('> 2 |').length - 1, 1, 'the first frame is printed once');
  assert.equal(run.stderr.split('> 4 |').length - 1, 1, 'the second frame is printed once');
  assert.match(run.stderr, /1 flow file invalid/);
});

test('an undefined ${VAR} is a load-time error at its step; the config\'s env defines variables', async () => {
  const dir = tempProject({ 'a.flow.yaml': 'env: { PASSWORD: x }\nsteps:\n  - type: ${PASWORD}\n  - type: ${GREETING}\n' });
  // The embedded server starts while the flows load (a TS flow loads for a while): when they do not
  // run, it is gone with its data dir.
  writeFileSync(join(dir, 'b.flow.ts'), "import { flow } from 'boxflow/flow';\nexport default flow('t', async (box) => { await box.tap('x'); });\n");
  const tmp = mkdtempSync(join(tmpdir(), 'boxflow-e2e-tmp-'));
  const run = await runCli(['test', '-o', join(dir, 'out')], { cwd: dir, env: { TMPDIR: tmp } });
  rmSync(join(dir, 'b.flow.ts'));
  assert.equal(run.code, 2, run.stderr);
  assert.deepEqual(readdirSync(tmp).filter((f) => f.startsWith('boxflow-')), [], "nothing of the server's is left");
  rmSync(tmp, { recursive: true, force: true });
  assert.match(run.stderr, /a\.flow\.yaml:3:5: \$\{PASWORD\} is not defined \(did you mean "PASSWORD"\?\)/);
  assert.match(run.stderr, /a\.flow\.yaml:4:5: \$\{GREETING\} is not defined/);
  assert.match(run.stderr, /nothing was run/);
  writeFileSync(join(dir, 'a.flow.yaml'), 'env: { PASSWORD: x }\nsteps:\n  - type: ${PASSWORD}\n  - type: ${GREETING}\n');
  writeFileSync(join(dir, 'boxflow.config.json'), JSON.stringify({ env: { GREETING: 'hi' } }));
  const ok = await runCli(['validate'], { cwd: dir });
  assert.equal(ok.code, 0, ok.stderr);
});

for (const pkg of [undefined, { type: 'module' }, { type: 'commonjs' }]) {
  test(`boxflow.config.ts importing defineConfig from 'boxflow' loads in a project with ${pkg ? `"type": "${pkg.type}"` : 'no package type'}`, async () => {
    const dir = tempProject({
      'boxflow.config.ts': "import { defineConfig } from 'boxflow';\n\nexport default defineConfig({\n  env: { GREETING: 'hi' },\n  timeouts: { step: '2s' },\n});\n",
      'a.flow.yaml': 'steps:\n  - type: ${GREETING}\n',
      ...(pkg ? { 'package.json': JSON.stringify({ name: 'user-project', private: true, ...pkg }) } : {}),
    });
    const run = await runCli(['validate'], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /1 flow valid/);
    // A misspelt nested key in that config is named with what was meant.
    writeFileSync(join(dir, 'boxflow.config.ts'), "import { defineConfig } from 'boxflow';\nexport default defineConfig({ timeouts: { stpe: '2s' } } as never);\n");
    const bad = await runCli(['validate'], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /boxflow\.config\.ts: timeouts\.stpe: unknown key "stpe" \(did you mean "step"\?\)/);
    rmSync(dir, { recursive: true, force: true });
  });
}
