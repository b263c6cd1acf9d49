import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkConfig, kConfigKeys } from '../../src/cli/configSchema.js';
import { loadConfigFile, resolveConfig } from '../../src/cli/config.js';
import { BoxflowError } from '../../src/errors.js';
import { tempDir } from '../support/tmp.js';

const problem = (config: unknown): string => {
  try {
    checkConfig(config, 'boxflow.config.json');
  } catch (err) {
    assert.ok(BoxflowError.is(err) && err.code === 'CONFIG_INVALID');
    return err.message;
  }
  return '';
};

test('config errors name the nested key and what was meant, as flow errors do', () => {
  assert.match(problem({ workrs: 2 }), /^boxflow\.config\.json: workrs: unknown key "workrs" \(did you mean "workers"\?\)/);
  assert.match(problem({ timeouts: { stpe: '1s' } }), /timeouts\.stpe: unknown key "stpe" \(did you mean "step"\?\)/);
  assert.match(problem({ timeouts: { step: 'soon' } }), /timeouts\.step: /);
  assert.match(problem({ boxes: { linux: 'four' } }), /boxes\.linux: /);
  assert.match(problem({ webServer: { command: 'npm start' } }), /webServer: .*url/);
  assert.match(problem({ baselines: { update: 'changd' } }), /baselines\.update: .*"changed"/);
  assert.equal(problem({ baseUrl: 'https://x/api/v1', appBaseUrl: 'http://127.0.0.1:3000', env: { USER: 'u', N: 2 }, boxes: { linux: 4 }, workers: 2, retries: 1, timeouts: { step: '5s', flow: '2m' }, screenshots: { phases: ['after'], delay: '50ms' }, reporters: ['list', ['html', {}]], webServer: { command: 'x', url: 'http://127.0.0.1:1' }, baselines: { update: 'all' } }), '');
});

test('a config duration is a duration as flows and the Box API read it, with the same hint', () => {
  assert.equal(problem({ timeouts: { step: '.5s' }, screenshots: { delay: '0.25s' } }), '');
  assert.match(problem({ timeouts: { step: '5 sec' } }), /timeouts\.step: "5 sec" is not a duration.*\(did you mean "5s"\?\)/);
});

test('docs/config.md documents every config key', async () => {
  const { readFileSync } = await import('node:fs');
  const doc = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');
  const missing = kConfigKeys.filter((k) => !doc.includes(`\`${k}\``));
  assert.deepEqual(missing, []);
});

test('a JSON config file is checked on load; env and appBaseUrl reach the run options', async () => {
  const dir = tempDir('boxflow-cfg-');
  writeFileSync(join(dir, 'boxflow.config.json'), JSON.stringify({ timeouts: { stepp: '1s' } }));
  await assert.rejects(loadConfigFile(dir), /timeouts\.stepp: unknown key "stepp" \(did you mean "step"\?\)/);
  writeFileSync(join(dir, 'boxflow.config.json'), JSON.stringify({ env: { USER: 'bob', N: 3 }, webServer: { command: 'x', url: 'http://127.0.0.1:4173/' }, boxes: { linux: 3 } }));
  const { config, file } = await loadConfigFile(dir);
  const r = resolveConfig({}, config, file, dir, {});
  assert.deepEqual(r.options.env, { USER: 'bob', N: '3' });
  assert.equal(r.options.appBaseUrl, 'http://127.0.0.1:4173/', 'webServer.url is the default appBaseUrl');
  assert.equal(r.options.boxes.createLinux, 3);
  assert.equal(r.options.workers, 3, 'boxes.linux alone sets how many flows run at once');
});
