// boxflow/test with `video` in boxflow.config, or Playwright's own `use.video`: the test's box is
// recorded, and under `retain-on-failure` the failing test gets the video as a Playwright attachment
// (`video`, video/webm, as Playwright attaches its own page videos) with the steps' chapters (`video
// chapters`, WebVTT); the passing test gets none. Runs `npx playwright test --reporter=json` on a project inside the
// repository's git-ignored tmp/ (so the specs import boxflow/test from the sources), against a
// boxflow serve started here (BOXFLOW_BASE_URL; the embedded box runs only from a build).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createApiKey, startServer } from '../../src/server/index.js';
import { repoRoot } from './helpers.js';

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
mkdirSync(join(repoRoot, 'tmp'), { recursive: true });
const project = mkdtempSync(join(repoRoot, 'tmp', 'pw-video-'));
let server: Awaited<ReturnType<typeof startServer>> | undefined;
let apiKey = '';
before(async () => {
  const secret = randomBytes(16).toString('hex');
  server = await startServer({ port: 0, dataDir: join(project, 'srv'), secret, log: () => {} });
  apiKey = await createApiKey(secret, 'pw-video');
});
after(async () => {
  await server?.close();
  rmSync(project, { recursive: true, force: true });
});

interface JsonResult {
  status: string;
  attachments: { name: string; contentType: string; path?: string }[];
  stderr: { text?: string }[];
}
interface JsonSuite {
  specs: { title: string; tests: { results: JsonResult[] }[] }[];
  suites?: JsonSuite[];
}

/** The spec, importing boxflow/test from the sources as seen from `dir`. */
const spec = (dir: string) => `
import { test, expect } from '${relative(dir, join(repoRoot, 'src/playwright/index.js'))}';

const page = 'data:text/html,<h1>Hello</h1><input id=i autofocus>';

test('passes', async ({ box }) => {
  await box.openTab(page);
  await expect(box).toShow('Hello');
});

test('fails', async ({ box }) => {
  await box.openTab(page);
  await box.type('typed');
  await expect(box).toShow('Goodbye', { timeout: 1000 });
});
`;

/** `npx playwright test --reporter=json` on a project of its own (boxflow.config.json and Playwright's `use`); the last result of each test by title. */
async function runProject(name: string, boxflowConfig: object, use: object): Promise<{ byTitle: Map<string, JsonResult>; stderr: string }> {
  const dir = join(project, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'boxflow.config.json'), JSON.stringify(boxflowConfig));
  writeFileSync(join(dir, 'playwright.config.ts'), `import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: '.', outputDir: 'test-results', timeout: 60_000, workers: 1, retries: 0, use: ${JSON.stringify(use)} });\n`);
  writeFileSync(join(dir, 'video.spec.ts'), spec(dir));
  const env = { ...process.env, BOXFLOW_BASE_URL: server!.baseUrl, BOXFLOW_API_KEY: apiKey, CI: '1' };
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('npx', ['playwright', 'test', '--config', join(dir, 'playwright.config.ts'), '--reporter=json'], { cwd: repoRoot, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  let report: { suites: JsonSuite[] };
  try {
    report = JSON.parse(run.stdout) as { suites: JsonSuite[] };
  } catch {
    throw new Error(`no JSON report (exit ${run.code}):\n${run.stdout.slice(0, 2000)}\n${run.stderr.slice(-3000)}`);
  }
  const byTitle = new Map<string, JsonResult>();
  const walk = (suites: JsonSuite[]) => {
    for (const s of suites) {
      for (const spec of s.specs) byTitle.set(spec.title, spec.tests[0]!.results.at(-1)!);
      walk(s.suites ?? []);
    }
  };
  walk(report.suites);
  assert.equal(byTitle.get('passes')?.status, 'passed', run.stderr.slice(-2000));
  return { byTitle, stderr: run.stderr };
}

const named = (r: JsonResult, name: string) => r.attachments.filter((a) => a.name === name);

test("video: 'retain-on-failure' attaches the failing test's box video and chapters, and nothing to the passing one", { skip: hasFfmpeg ? false : 'no ffmpeg', timeout: 180_000 }, async () => {
  const { byTitle } = await runProject('config-video', { video: 'retain-on-failure' }, {});
  assert.equal(byTitle.get('fails')?.status, 'failed');
  assert.deepEqual(named(byTitle.get('passes')!, 'video'), [], 'a passing test keeps no video');

  const [video] = named(byTitle.get('fails')!, 'video');
  assert.equal(video?.contentType, 'video/webm');
  assert.ok(video.path && existsSync(video.path));
  assert.equal(spawnSync('ffmpeg', ['-v', 'error', '-xerror', '-i', video.path, '-f', 'null', '-']).status, 0, 'the video decodes');
  const [chapters] = named(byTitle.get('fails')!, 'video chapters');
  assert.equal(chapters?.contentType, 'text/vtt');
  const vtt = readFileSync(chapters.path!, 'utf8');
  assert.match(vtt, /^WEBVTT\n/);
  assert.match(vtt, /\n1 openTab data:text\/html,/);
  assert.match(vtt, /\n2 type "typed"\nactionId act_[\w-]+\n/);
});

test("Playwright's own use.video reaches the box: video 'on' attaches every test's box video; trace 'on' without box images is warned about", { skip: hasFfmpeg ? false : 'no ffmpeg', timeout: 180_000 }, async () => {
  const { byTitle, stderr } = await runProject('use-video', { screenshots: false }, { video: 'on', trace: 'on' });
  for (const title of ['passes', 'fails']) {
    const [video] = named(byTitle.get(title)!, 'video');
    assert.equal(video?.contentType, 'video/webm', `"${title}" has the box's video`);
    assert.ok(video.path && existsSync(video.path));
    assert.equal(spawnSync('ffmpeg', ['-v', 'error', '-xerror', '-i', video.path, '-f', 'null', '-']).status, 0, 'the video decodes');
    const [chapters] = named(byTitle.get(title)!, 'video chapters');
    assert.match(readFileSync(chapters!.path!, 'utf8'), /\n1 openTab data:text\/html,/);
  }
  // Playwright's trace is recorded, but boxflow.config captures no step images for it: one line, in
  // the output Playwright shows of the worker that met it, says what to set.
  const output = [...byTitle.values()].flatMap((r) => r.stderr.map((e) => e.text ?? '')).join('') + stderr;
  const warnings = output.split('\n').filter((l) => l.startsWith('warning: trace:'));
  assert.equal(warnings.length, 1, output.slice(-2000));
  assert.match(warnings[0]!, /set `screenshots: \['trace'\]` \(or true\)/);
});
