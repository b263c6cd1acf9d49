// `boxflow studio` as a user starts it, when it cannot: the exit code is the documented class (2 bad
// input, 3 infrastructure; the studio runs no flow, so never 1), and the message says what to fix.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '../..');
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'boxflow-studio-cli-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function studio(cwd: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  const env = { ...process.env, BOXFLOW_BASE_URL: '', BOXFLOW_API_KEY: '', GBOX_BASE_URL: '', GBOX_API_KEY: '', MY_BOX_KEY: '' };
  const tsx = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
  const child = spawn(process.execPath, ['--import', tsx, join(root, 'src/cli/main.ts'), 'studio', '--no-open', '--port', '0', ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((r) => child.once('exit', (code) => r({ code, stderr })));
}

test('a box the service cannot give (no adb server for an Android box) exits 3, infrastructure', async () => {
  // Port 1 on loopback: no adb server answers there.
  const run = await studio(project({}), ['--android', '--adb', 'tcp:127.0.0.1:1']);
  assert.match(run.stderr, /ANDROID_UNAVAILABLE/);
  assert.equal(run.code, 3, run.stderr);
});

test("an unset `apiKey: process.env.MY_BOX_KEY` is named in the error beside BOXFLOW_API_KEY (exit 2)", async () => {
  const dir = project({ 'boxflow.config.ts': "export default { baseUrl: 'http://127.0.0.1:1/api/v1', apiKey: process.env.MY_BOX_KEY };\n" });
  const run = await studio(dir, []);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /CONFIG_INVALID: a remote base URL needs an API key: boxflow\.config\.ts's apiKey is empty .*BOXFLOW_API_KEY/);
});

test('a server already at webServer.url is not reused unless reuseExistingServer says so, as in Playwright (exit 2)', async () => {
  const app = createServer((_req, res) => res.end('someone else'));
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
    const dir = project({ 'boxflow.config.json': JSON.stringify({ webServer: { command: 'node -e "setTimeout(()=>{},60000)"', url } }) });
    const run = await studio(dir, []);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /something already answers at .* reuseExistingServer is false/);
  } finally {
    await new Promise<void>((r) => app.close(() => r()));
  }
});
