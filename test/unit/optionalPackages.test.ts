// node-pty, @xterm/xterm and @napi-rs/canvas are optional: the package's entry, the client, the
// runner, and even the server's modules load without them; a feature that needs one names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BoxflowError } from '../../src/errors.js';
import { optionalPackage } from '../../src/server/host/optionalPackages.js';

const root = new URL('../..', import.meta.url).pathname;

test('import "boxflow", the client, the runner and the server modules load none of the optional packages', { timeout: 120_000 }, async () => {
  const entries = ['src/index.ts', 'src/api/index.ts', 'src/runner/run.ts', 'src/server/index.ts'];
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/fixtures/optionalPackages/importWithout.mjs', ...entries], { cwd: root });
  assert.deepEqual(JSON.parse(stdout), [], 'asked for an optional package at import time');
});

test('with the packages absent, the web terminal names both it needs and trace drawing names @napi-rs/canvas', { timeout: 120_000 }, async () => {
  const script = [
    "const { webTerminalReady } = await import('./src/server/http/terminal.ts');",
    "const { traceReady } = await import('./src/server/http/trace.ts');",
    'const out = [];',
    'for (const ready of [webTerminalReady, traceReady]) await ready().then(() => out.push(null), (e) => out.push({ code: e.code, message: e.message }));',
    'process.stdout.write(JSON.stringify(out));',
  ].join('\n');
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', './test/fixtures/optionalPackages/absent.mjs', '--input-type=module', '-e', script], { cwd: root });
  const [terminal, trace] = JSON.parse(stdout) as Array<{ code: string; message: string }>;
  assert.equal(terminal!.code, 'WEB_TERMINAL_UNAVAILABLE');
  assert.match(terminal!.message, /needs the npm package node-pty, which is not installed: run `npm install node-pty`/);
  assert.match(terminal!.message, /needs the npm package @xterm\/xterm, which is not installed: run `npm install @xterm\/xterm`/);
  assert.equal(trace!.code, 'PACKAGE_UNAVAILABLE');
  assert.match(trace!.message, /needs the npm package @napi-rs\/canvas, which is not installed: run `npm install @napi-rs\/canvas`/);
  assert.ok(!/\/(work|tmp|srv|root)\//.test(stdout), `no server path: ${stdout}`);
});

test('a missing optional package is an error with a stable code that names the package and the install', async () => {
  const load = optionalPackage('@napi-rs/canvas', 'drawing trace images', 'PACKAGE_UNAVAILABLE', () => {
    const err = new Error("Cannot find package '@napi-rs/canvas' imported from /srv/app/node_modules/boxflow/dist/src/server/trace.js");
    return Promise.reject(Object.assign(err, { code: 'ERR_MODULE_NOT_FOUND' }));
  });
  await assert.rejects(load(), (err: unknown) => {
    assert.ok(BoxflowError.is(err));
    assert.equal(err.code, 'PACKAGE_UNAVAILABLE');
    assert.equal(err.message, 'drawing trace images needs the npm package @napi-rs/canvas, which is not installed: run `npm install @napi-rs/canvas` where boxflow is installed');
    return true;
  });
});

test('an optional package that is there but fails to load says why, without server paths', async () => {
  let calls = 0;
  const load = optionalPackage('node-pty', 'the web terminal', 'WEB_TERMINAL_UNAVAILABLE', () => {
    calls++;
    return Promise.reject(new Error('/srv/app/node_modules/node-pty/build/Release/pty.node: invalid ELF header\n    at Module._extensions'));
  });
  await assert.rejects(load(), { code: 'WEB_TERMINAL_UNAVAILABLE', message: 'the web terminal needs the npm package node-pty, which failed to load (<path>: invalid ELF header): run `npm install node-pty` where boxflow is installed' });
  await assert.rejects(load(), { code: 'WEB_TERMINAL_UNAVAILABLE' });
  assert.equal(calls, 1, 'loaded once, not retried on every request');
});

test('a present optional package loads once and is shared', async () => {
  let calls = 0;
  const load = optionalPackage('x', 'a feature', 'PACKAGE_UNAVAILABLE', async () => ({ n: ++calls }));
  assert.equal(await load(), await load());
  assert.equal(calls, 1);
});
