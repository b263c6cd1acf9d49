// A config's webServer that cannot start is WEB_SERVER_FAILED (infrastructure, exit 3), with its
// stderr: the config itself is fine, so it is not CONFIG_INVALID.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runCli, tempProject } from './helpers.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

test('a webServer command that exits is WEB_SERVER_FAILED with its stderr, exit 3', async () => {
  const url = `http://127.0.0.1:${await closedPort()}/`;
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ webServer: { command: 'node -e "console.error(\'cannot find module vite\'); process.exit(4)"', url } }),
    'a.flow.yaml': 'steps: [closeBrowser]\n',
  });
  const run = await runCli(['test', '-o', join(dir, 'out')], { cwd: dir });
  assert.equal(run.code, 3, run.stderr);
  assert.match(run.stderr, /WEB_SERVER_FAILED: webServer "node -e .*" exited with 4: cannot find module vite/);
});
