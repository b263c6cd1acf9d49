// Config: flags beat the file, the file beats defaults, decided in resolveConfig only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfigFile, resolveConfig } from '../../src/cli/config.js';
import { tempDir } from '../support/tmp.js';

const cwd = '/project';

test('defaults when neither flags nor file say anything', () => {
  const r = resolveConfig({}, {}, undefined, cwd, {});
  assert.equal(r.options.workers, 1);
  assert.equal(r.options.retries, 0);
  assert.equal(r.options.stepTimeout, 5_000);
  assert.equal(r.options.outputDir, '/project/boxflow-results');
  assert.deepEqual(r.options.screenshots.phases, ['before', 'after', 'trace']);
  assert.equal(r.options.baselines.update, 'default');
  assert.deepEqual(r.reporters, ['list', 'html']);
  assert.equal(r.baseUrl, undefined, 'no base URL: the embedded server');
});

test('the file beats defaults and flags beat the file', () => {
  const file = { workers: 3, retries: 2, outputDir: 'out', timeouts: { step: '2s' }, reporters: ['junit' as const], baselines: { update: 'none' as const } };
  const fromFile = resolveConfig({}, file, '/project/boxflow.config.json', cwd, {});
  assert.equal(fromFile.options.workers, 3);
  assert.equal(fromFile.options.retries, 2);
  assert.equal(fromFile.options.stepTimeout, 2_000);
  assert.equal(fromFile.options.outputDir, '/project/out');
  assert.deepEqual(fromFile.reporters, ['junit']);
  const flags = resolveConfig({ workers: '5', retries: '0', output: 'other', reporter: 'list,github', updateBaselines: 'all', shard: '2/3' }, file, '/project/boxflow.config.json', cwd, {});
  assert.equal(flags.options.workers, 5);
  assert.equal(flags.options.retries, 0);
  assert.equal(flags.options.outputDir, '/project/other');
  assert.deepEqual(flags.reporters, ['list', 'github']);
  assert.equal(flags.options.baselines.update, 'all');
  assert.deepEqual(flags.options.shard, { index: 2, total: 3 });
});

test('base URL and key: flag, then file, then BOXFLOW_*, then GBOX_*', () => {
  assert.equal(resolveConfig({}, {}, undefined, cwd, { GBOX_BASE_URL: 'https://g/api/v1' }).baseUrl, 'https://g/api/v1');
  assert.equal(resolveConfig({}, {}, undefined, cwd, { GBOX_BASE_URL: 'https://g/api/v1', BOXFLOW_BASE_URL: 'https://b/api/v1' }).baseUrl, 'https://b/api/v1');
  assert.equal(resolveConfig({ baseUrl: 'https://f/api/v1' }, { baseUrl: 'https://c/api/v1' }, undefined, cwd, {}).baseUrl, 'https://f/api/v1');
  assert.equal(resolveConfig({}, { apiKeyEnv: 'MY_KEY' }, undefined, cwd, { MY_KEY: 'k1', BOXFLOW_API_KEY: 'k2' }).apiKey, 'k1');
  assert.equal(resolveConfig({}, {}, undefined, cwd, { GBOX_API_KEY: 'k3' }).apiKey, 'k3');
});

test('bad values are CONFIG_INVALID naming the flag or key', () => {
  const bad = (flags: object, file: object, re: RegExp) =>
    assert.throws(() => resolveConfig(flags, file, undefined, cwd, {}), (e: { code?: string; message: string }) => e.code === 'CONFIG_INVALID' && re.test(e.message));
  bad({ shard: '0/2' }, {}, /--shard/);
  bad({ workers: '0' }, {}, /--workers/);
  bad({}, { retries: -1 }, /retries/);
  bad({}, { timeouts: { step: '5 sec' } }, /timeouts\.step/);
  bad({ grep: '(' }, {}, /--grep/);
  bad({ updateBaselines: 'sometimes' }, {}, /--update-snapshots/);
  bad({ updateSnapshots: 'sometimes' }, {}, /--update-snapshots must be one of missing, changed, all, none/);
});

test('a JSON or YAML config may not hold an API key; unknown keys are refused', async () => {
  const dir = tempDir('boxflow-config-');
  writeFileSync(join(dir, 'boxflow.config.json'), JSON.stringify({ apiKey: 'do-not-write-me' }));
  await assert.rejects(loadConfigFile(dir), (e: { code?: string; message: string }) => e.code === 'CONFIG_INVALID' && /apiKeyEnv/.test(e.message) && !e.message.includes('do-not-write-me'));
  writeFileSync(join(dir, 'boxflow.config.json'), JSON.stringify({ wrokers: 2 }));
  await assert.rejects(loadConfigFile(dir), /unknown key "wrokers"/);
  writeFileSync(join(dir, 'boxflow.config.yaml'), 'workers: 2\n');
  const y = await loadConfigFile(dir, 'boxflow.config.yaml');
  assert.equal(y.config.workers, 2);
});

test('a TypeScript config with defineConfig loads', async () => {
  const dir = tempDir('boxflow-config-ts-');
  writeFileSync(join(dir, 'boxflow.config.ts'), `const workers: number = 4;\nexport default { workers, apiKey: process.env.SOME_KEY };\n`);
  const { config, file } = await loadConfigFile(dir);
  assert.equal(config.workers, 4);
  assert.equal(file, join(dir, 'boxflow.config.ts'));
});
