// One flow, one baseline: a flow's screenshot baseline written by `boxflow test` is the one the same
// flow compares against when a Playwright test runs it with `box.run()` (and the other way round),
// at the flow's own place, `{flowDir}/__screenshots__/{flowName}/{name}-{boxType}.png`. Both run as a
// user runs them (`boxflow test` from the sources, `npx playwright test --reporter=json` on a project
// inside the repository's git-ignored tmp/, whose spec imports boxflow/test from the sources), against
// a boxflow serve started here.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { PNG } from 'pngjs';
import { createApiKey, startServer } from '../../src/server/index.js';
import { repoRoot } from './helpers.js';

mkdirSync(join(repoRoot, 'tmp'), { recursive: true });
const project = mkdtempSync(join(repoRoot, 'tmp', 'pw-baselines-'));
let server: Awaited<ReturnType<typeof startServer>> | undefined;
let env: NodeJS.ProcessEnv = {};
before(async () => {
  const secret = randomBytes(16).toString('hex');
  server = await startServer({ port: 0, dataDir: join(project, 'srv'), secret, log: () => {} });
  env = { ...process.env, BOXFLOW_BASE_URL: server.baseUrl, BOXFLOW_API_KEY: await createApiKey(secret, 'pw-baselines'), GBOX_BASE_URL: undefined, GBOX_API_KEY: undefined, CI: '1' };
});
after(async () => {
  await server?.close();
  rmSync(project, { recursive: true, force: true });
});

const tsx = pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href;

function run(cmd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: project, env: { ...env, ...extraEnv } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const boxflowTest = (...args: string[]) => run(process.execPath, ['--import', tsx, join(repoRoot, 'src/cli/main.ts'), 'test', ...args]);

interface JsonResult {
  status: string;
  errors: { message: string }[];
}
interface JsonSuite {
  specs: { title: string; tests: { results: JsonResult[] }[] }[];
  suites?: JsonSuite[];
}

/**
 * The one test of the spec, run by `npx playwright test` as a user runs it. boxflow/test comes from
 * the sources here, so its image-comparing worker threads load TypeScript through tsx as the
 * sources' tests do (the package runs them from dist/).
 */
async function playwrightTest(): Promise<{ status: string; error: string }> {
  const out = await run('npx', ['playwright', 'test', '--config', join(project, 'playwright.config.ts'), '--reporter=json'], { NODE_OPTIONS: `--import ${tsx}` });
  let report: { suites: JsonSuite[] };
  try {
    report = JSON.parse(out.stdout) as { suites: JsonSuite[] };
  } catch {
    throw new Error(`no JSON report (exit ${out.code}):\n${out.stdout.slice(0, 2000)}\n${out.stderr.slice(-3000)}`);
  }
  const result = report.suites[0]!.specs[0]!.tests[0]!.results.at(-1)!;
  return { status: result.status, error: result.errors.map((e) => e.message).join('\n').replace(/\x1b\[[0-9;]*m/g, '') };
}

/** Every PNG under the project's folders that hold flows and specs (not the runs' output folders). */
function pngs(dir = project): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return ['srv', 'boxflow-results', 'test-results', 'node_modules'].includes(e.name) ? [] : pngs(path);
    return e.name.endsWith('.png') ? [relative(project, path)] : [];
  });
}

const page = (text: string) => `data:text/html,<body style='margin:0;background:%23fff'><h1 style='font:40px sans-serif;color:%23036'>${text}</h1></body>`;

test('a flow run by boxflow test and by box.run() in a Playwright test keeps one baseline, at the flow', { timeout: 300_000 }, async () => {
  mkdirSync(join(project, 'flows'), { recursive: true });
  mkdirSync(join(project, 'tests'), { recursive: true });
  writeFileSync(join(project, 'flows/welcome.flow.yaml'), `name: Welcome page\nsteps:\n  - openTab: "${page('Welcome')}"\n  - assertVisible: Welcome\n  - assertScreenshot: welcome\n`);
  // A function flow too: its expect(box).toMatchScreenshot is the flow's, wherever it runs.
  const tsFlow = relative(join(project, 'flows'), join(repoRoot, 'src/flow/tsFlow.js'));
  writeFileSync(join(project, 'flows/hello.flow.ts'), `import { flow } from '${tsFlow}';\n\nexport default flow('Hello page', async ({ box, expect }) => {\n  await box.openTab("${page('Hello')}");\n  await expect(box).toShow('Hello');\n  await expect(box).toMatchScreenshot('hello');\n});\n`);
  writeFileSync(join(project, 'playwright.config.ts'), `import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: 'tests', outputDir: 'test-results', timeout: 90_000, workers: 1, retries: 0 });\n`);
  const boxflowTestEntry = relative(join(project, 'tests'), join(repoRoot, 'src/playwright/index.js'));
  writeFileSync(join(project, 'tests/welcome.spec.ts'), `import { test } from '${boxflowTestEntry}';\n\ntest('the welcome page', async ({ box }) => {\n  await box.run('flows/welcome.flow.yaml');\n  await box.run('flows/hello.flow.ts');\n});\n`);

  // boxflow test writes each flow's baseline (missing ones only) and passes.
  const first = await boxflowTest('flows', '--update-snapshots', 'missing');
  assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
  const baseline = join('flows', '__screenshots__', 'Welcome-page', 'welcome-linux.png');
  const baselines = [join('flows', '__screenshots__', 'Hello-page', 'hello-linux.png'), baseline];
  assert.deepEqual(pngs().sort(), baselines);

  // The Playwright test runs the same flow against that baseline, and writes none of its own.
  const same = await playwrightTest();
  assert.equal(same.status, 'passed', same.error);
  assert.deepEqual(pngs().sort(), baselines, 'box.run() wrote baselines of its own');

  // It is that file it compares with: changed, the Playwright test fails on it...
  const png = PNG.sync.read(readFileSync(join(project, baseline)));
  for (let i = 0; i < png.data.length; i += 4) png.data.set([255 - png.data[i]!, 255 - png.data[i + 1]!, 255 - png.data[i + 2]!], i);
  writeFileSync(join(project, baseline), PNG.sync.write(png));
  const changed = await playwrightTest();
  assert.equal(changed.status, 'failed');
  assert.match(changed.error, /ASSERT_SCREENSHOT: .*screenshot "welcome" differs from flows\/__screenshots__\/Welcome-page\/welcome-linux\.png/);

  // ...and so does boxflow test, until it rewrites it; then both pass on the one file again.
  assert.equal((await boxflowTest('flows/welcome.flow.yaml')).code, 1);
  const updated = await boxflowTest('flows/welcome.flow.yaml', '--update-snapshots', 'changed');
  assert.equal(updated.code, 0, `${updated.stdout}\n${updated.stderr}`);
  const again = await playwrightTest();
  assert.equal(again.status, 'passed', again.error);
  assert.deepEqual(pngs().sort(), baselines);
});
