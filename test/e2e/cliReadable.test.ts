// The CLI says what happened in words a user can act on (issue 12, item 4).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startDemoApp, tempProject } from './helpers.js';
import { tempDir } from '../support/tmp.js';

let app: Awaited<ReturnType<typeof startDemoApp>>;
before(async () => (app = await startDemoApp()));
after(() => app?.close());

test('show-report on a folder without a report exits 2', async () => {
  const dir = tempDir('boxflow-noreport-');
  const run = await runCli(['show-report', join(dir, 'missing')], { cwd: dir });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /no HTML report in/);
});

test('--base-url at something that is not a Box API says so, with its host', async () => {
  const dir = tempProject({ 'a.flow.yaml': 'steps: [closeBrowser]\n' });
  const host = new URL(app.url).host;
  const run = await runCli(['test', '--base-url', `${app.url}/api/v1`, '--reporter', 'json', '-o', join(dir, 'out')], { cwd: dir, env: { BOXFLOW_API_KEY: 'k' } });
  assert.equal(run.code, 3, run.stderr);
  assert.match(run.stderr, new RegExp(`${host.replace('.', '\\.')} does not answer as a Box API v1 service`));
});

test('boxflow key without the server\'s data dir warns that the key will not match', async () => {
  const dir = tempDir('boxflow-key-');
  const run = await runCli(['key', '--sub', 't', '--data-dir', join(dir, 'nope')], { cwd: dir, env: { BOXFLOW_SERVER_SECRET: undefined } });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /warning: .* will not match a running server/);
  const again = await runCli(['key', '--sub', 't', '--data-dir', join(dir, 'nope')], { cwd: dir, env: { BOXFLOW_SERVER_SECRET: undefined } });
  assert.equal(again.stderr, '', 'the data dir now has its secret');
});

test('a webServer whose URL is already taken (reuseExistingServer false) is a config error, not BOX_UNAVAILABLE', async () => {
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ webServer: { command: 'node -e "setTimeout(()=>{},60000)"', url: app.url, reuseExistingServer: false } }),
    'a.flow.yaml': 'steps: [closeBrowser]\n',
  });
  const run = await runCli(['test', '-o', join(dir, 'out')], { cwd: dir });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /CONFIG_INVALID: webServer: something already answers at/);
});

test('file reporters alone still print a summary; merge-reports prints merged counts and exits 1 on failure', async () => {
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ appBaseUrl: app.url, screenshots: false }),
    'ok.flow.yaml': 'name: ok\nsteps:\n  - openTab: /\n',
    'bad.flow.yaml': 'name: bad\nsteps:\n  - openTab: /\n  - assertVisible: { text: Nowhere, }\n    timeout: 1s\n',
  });
  const out = join(dir, 'out');
  const run = await runCli(['test', '--reporter', 'html,junit', '-o', out], { cwd: dir });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /^2 flows: 1 passed, 1 failed; results in out$/m);
  const merged = await runCli(['merge-reports', out, '--reporter', 'json', '-o', join(dir, 'merged')], { cwd: dir });
  assert.equal(merged.code, 1, merged.stderr);
  assert.match(merged.stdout, /merged 1 runs into merged: 2 flows: 1 passed, 1 failed/);
});

test('--help says what --update-baselines alone means', async () => {
  const run = await runCli(['test', '--help'], { cwd: tmpdir() });
  assert.match(run.stdout.replace(/\s+/g, ' '), /the flag alone means changed; without it a missing baseline is written and its assertion fails/);
});
