// The other commands as a user runs them: serve + key, validate, schema, merge-reports, show-report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliPath, readResults, runCli, tempProject } from './helpers.js';
import { tempDir } from '../support/tmp.js';

function startCli(args: string[], cwd: string) {
  const child = spawn(process.execPath, [cliPath, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const firstLine = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`exited ${code}`)));
  });
  return { child, firstLine };
}

test('serve prints one listening line; key makes a key it accepts; a foreign key gets 401', async () => {
  const dir = tempDir('boxflow-serve-e2e-');
  const { child, firstLine } = startCli(['serve', '--port', '0', '--data-dir', 'data'], dir);
  try {
    const line = JSON.parse(await firstLine) as { event: string; baseUrl: string };
    assert.equal(line.event, 'listening');
    assert.match(line.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    assert.ok(existsSync(join(dir, 'data')), 'the generated secret is kept in the data dir');
    const key = await runCli(['key', '--sub', 'team-a', '--ttl', '1h', '--data-dir', 'data'], { cwd: dir });
    assert.equal(key.code, 0, key.stderr);
    const jwt = key.stdout.trim();
    assert.match(jwt, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const ok = await fetch(`${line.baseUrl}/boxes`, { headers: { authorization: `Bearer ${jwt}` } });
    assert.equal(ok.status, 200);
    assert.deepEqual(((await ok.json()) as { data: unknown[] }).data, []);
    const other = await runCli(['key', '--sub', 'team-a', '--data-dir', 'elsewhere'], { cwd: dir });
    const refused = await fetch(`${line.baseUrl}/boxes`, { headers: { authorization: `Bearer ${other.stdout.trim()}` } });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { code: string }).code, 'UNAUTHORIZED');
  } finally {
    child.kill('SIGTERM');
  }
});

test('validate checks without running; schema prints the flow JSON Schema', async () => {
  const dir = tempProject({ 'ok.flow.yaml': 'steps:\n  - openTab: http://127.0.0.1:1/\n', 'bad.flow.yaml': 'steps:\n  - pressKey: entr\n' });
  const bad = await runCli(['validate'], { cwd: dir });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /bad\.flow\.yaml:2:15: .*did you mean "enter"/);
  const good = await runCli(['validate', 'ok.flow.yaml'], { cwd: dir });
  assert.equal(good.code, 0, good.stderr);
  assert.match(good.stdout, /1 flow valid/);
  const schema = await runCli(['schema'], { cwd: dir });
  assert.equal(schema.code, 0);
  const json = JSON.parse(schema.stdout) as { $schema?: string; title?: string };
  assert.match(json.$schema ?? '', /json-schema/);
});

test('bad flags exit 2 with a clear message', async () => {
  const dir = tempProject({ 'ok.flow.yaml': 'steps:\n  - sleep: 1ms\n' });
  const shard = await runCli(['test', '--shard', '3/2'], { cwd: dir });
  assert.equal(shard.code, 2);
  assert.match(shard.stderr, /--shard must be i\/n/);
  const workers = await runCli(['test', '--workers', 'many'], { cwd: dir });
  assert.equal(workers.code, 2);
  assert.match(workers.stderr, /--workers must be an integer/);
});

test('merge-reports joins shards into one report; show-report serves it', async () => {
  const files: Record<string, string> = {};
  for (const n of [1, 2, 3]) files[`f${n}.flow.yaml`] = `name: flow ${n}\nsteps:\n  - sleep: 1ms\n`;
  const dir = tempProject(files);
  for (const s of ['1/2', '2/2']) {
    const r = await runCli(['test', '--shard', s, '--reporter', 'json', '-o', `shard${s[0]}`], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
  }
  const merged = await runCli(['merge-reports', 'shard1', 'shard2', '-o', 'merged'], { cwd: dir });
  assert.equal(merged.code, 0, merged.stderr);
  const result = readResults(join(dir, 'merged'));
  assert.deepEqual(result.flows.map((f) => f.name).sort(), ['flow 1', 'flow 2', 'flow 3']);
  assert.ok(existsSync(join(dir, 'merged', 'index.html')));
  assert.ok(existsSync(join(dir, 'merged', 'junit.xml')));

  const { child, firstLine } = startCli(['show-report', 'merged', '--port', '0'], dir);
  try {
    const url = /(http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(await firstLine)![1]!;
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /boxflow/i);
  } finally {
    child.kill('SIGTERM');
  }
});
