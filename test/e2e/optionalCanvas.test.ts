// @napi-rs/canvas is an optional package: a `boxflow test` on the embedded box without it warns once
// and runs without trace images, instead of failing every action that would have drawn one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cliPath, readResults, repoRoot, startDemoApp, tempProject } from './helpers.js';

let app: Awaited<ReturnType<typeof startDemoApp>>;
before(async () => (app = await startDemoApp()));
after(() => app?.close());

test('without @napi-rs/canvas the embedded box runs the flow with before/after images and no traces', async () => {
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ appBaseUrl: app.url, reporters: ['json'] }),
    'tap.flow.yaml': 'name: tap\nsteps:\n  - openTab: /login\n  - tap: { css: "#email" }\n',
  });
  const out = join(dir, 'out');
  const absent = join(repoRoot, 'test/fixtures/optionalPackages/absent.mjs');
  const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const env = { ...process.env, BOXFLOW_BASE_URL: '', BOXFLOW_API_KEY: '' };
    const child = spawn(process.execPath, ['--import', absent, cliPath, 'test', '-o', out], { cwd: dir, env });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code, stderr }));
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /warning: .*npm install @napi-rs\/canvas.*; running without trace images/);
  const tap = readResults(out).flows[0]!.attempts.at(-1)!.steps.find((s) => s.command === 'tap')!;
  assert.equal(tap.status, 'passed');
  assert.deepEqual(Object.keys(tap.screenshots ?? {}).sort(), ['after', 'before']);
});

test('without @napi-rs/canvas boxflow serve still acts: an action asking for a trace answers its before/after images, no 501', async () => {
  const absent = join(repoRoot, 'test/fixtures/optionalPackages/absent.mjs');
  const dataDir = tempProject({});
  const serve = spawn(process.execPath, ['--import', absent, cliPath, 'serve', '--port', '0', '--data-dir', join(dataDir, 'srv')], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      serve.stdout.on('data', (d: Buffer) => {
        out += d;
        const m = /"baseUrl":"([^"]+)"/.exec(out);
        if (m) resolve(m[1]!);
      });
      serve.once('exit', (code) => reject(new Error(`serve exited (${code})`)));
    });
    const { createApiKey, resolveSecret } = await import('../../src/server/index.js');
    const { BoxClient } = await import('../../src/api/client.js');
    const client = new BoxClient({ baseUrl, apiKey: await createApiKey(await resolveSecret(join(dataDir, 'srv')), 'nocanvas'), maxRetries: 0 });
    try {
      const box = await client.createLinuxBox({});
      const r = await client.drag(box.id, { start: { x: 10, y: 10 }, end: { x: 10, y: 10 }, duration: '10ms', options: { screenshot: { phases: ['before', 'after', 'trace'], delay: '0ms' } } });
      assert.match(r.actionId, /^act_/);
      assert.deepEqual(Object.keys(r.screenshot ?? {}).sort(), ['after', 'before']);
    } finally {
      await client.close();
    }
  } finally {
    serve.kill('SIGTERM');
    await new Promise((r) => serve.once('exit', r));
  }
});
