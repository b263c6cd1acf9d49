// boxflow/test as a Playwright user gets it: boxflow packed with `npm pack`, installed with
// @playwright/test into a fresh project, the example project (examples/playwright) and a spec of
// checks run there with `npx playwright test --reporter=json` on the embedded local box.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { PNG } from 'pngjs';
import { repoRoot } from './helpers.js';

interface JsonStep {
  title: string;
  error?: { message: string };
  steps?: JsonStep[];
}
interface JsonResult {
  status: string;
  steps: JsonStep[];
  errors: { message: string; stack?: string }[];
  attachments: { name: string; contentType: string; path?: string }[];
}
interface JsonSuite {
  file: string;
  specs: { title: string; tests: { results: JsonResult[] }[] }[];
  suites?: JsonSuite[];
}

const kChecks = `
import { test, expect } from 'boxflow/test';

test('box steps', async ({ box, baseURL }) => {
  await box.openTab('/login');
  await box.tap({ css: '#email' });
  await box.type('someone@example.com');
  await box.run('flows/sign-in.flow.yaml', { env: { APP_URL: baseURL! } });
  await expect(box).toShow('/Welcome, .+/');
  await expect(box).toHaveLayout({ selector: { css: '#result' }, text: 'Welcome, demo@example.com', attributes: { role: 'status' } });
});

test.describe('a secret from the environment', () => {
  test.use({ boxSecrets: ['DEMO_SECRET'] });
  test('typed secret', async ({ box }) => {
    await box.openTab('/login');
    await box.tap({ id: 'password' });
    await box.type(process.env.DEMO_SECRET!);
    await expect(box).toShow({ css: 'h1', text: 'Sign in' });
    // text is the match's expected text: another element showing "Email" does not make this pass.
    await expect(expect(box).toHaveLayout({ selector: { css: 'h1' }, text: 'Email' }, { timeout: 500 })).rejects.toThrow(/text is "Sign in", expected Email/);
  });
});

test('a missing text fails toShow', async ({ box }) => {
  await box.openTab('/login');
  await expect(box).toShow('No such text', { timeout: 1000 });
});

test('a tap on a missing element fails its step', async ({ box }) => {
  await box.openTab('/login');
  await box.tap('Nope', { timeout: 1000 });
});

test.describe('a named box of a remote service', () => {
  test.skip(!process.env.BOX_ID, 'runs with BOX_ID and BOXFLOW_BASE_URL set');
  test.use({ boxId: process.env.BOX_ID });
  test('named box', async ({ box }) => {
    expect(box.info.id).toBe(process.env.BOX_ID);
    await box.openTab('/login');
    await expect(box).toShow('Sign in');
  });
});

test('form screenshot', async ({ box }) => {
  await box.openTab('/login');
  await expect(box).toShow({ class: 'button', text: 'Sign in' });
  await expect(box).toMatchScreenshot('form', { clip: { css: '#signin' } });
});
`;

const kSecret = 'sesame-4711';
let project = '';
let exampleDir = '';
let port = 0;

function sh(cmd: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env } as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/** A reporter that writes each test's steps as `category title` lines (ALL_STEPS_FILE): Playwright's own API calls are category pw:api. */
const kAllStepsReporter = `import { writeFileSync } from 'node:fs';
export default class AllSteps {
  constructor() { this.steps = {}; }
  onStepBegin(test, _result, step) { (this.steps[test.title] ??= []).push(step.category + ' ' + step.title); }
  onEnd() { writeFileSync(process.env.ALL_STEPS_FILE, JSON.stringify(this.steps)); }
  printsToStdio() { return false; }
}
`;

/** Each test's steps as `category title`, from the last run's all-steps reporter. */
const allSteps = (): Record<string, string[]> => JSON.parse(readFileSync(join(exampleDir, 'all-steps.json'), 'utf8')) as Record<string, string[]>;

/** `npx playwright test --reporter=json` in the example project, as a user runs it, with no remote service configured. */
async function playwright(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; report: { suites: JsonSuite[] }; stderr: string }> {
  const env = { DEMO_PORT: String(port), CI: '1', BOXFLOW_BASE_URL: undefined, BOXFLOW_API_KEY: undefined, GBOX_BASE_URL: undefined, GBOX_API_KEY: undefined, BOX_ID: undefined, DEMO_SECRET: kSecret, ...extraEnv };
  // Beside the JSON report (whose steps are test.step's only): every step with its category, Playwright's own API calls too.
  writeFileSync(join(exampleDir, 'all-steps.mjs'), kAllStepsReporter);
  const run = await sh('npx', ['playwright', 'test', '--reporter=json,./all-steps.mjs', ...args], exampleDir, { ...env, ALL_STEPS_FILE: join(exampleDir, 'all-steps.json') });
  let report: { suites: JsonSuite[] };
  try {
    report = JSON.parse(run.stdout) as { suites: JsonSuite[] };
  } catch {
    throw new Error(`no JSON report (exit ${run.code}):\n${run.stdout.slice(0, 2000)}\n${run.stderr.slice(-3000)}`);
  }
  return { code: run.code, report, stderr: run.stderr };
}

function results(report: { suites: JsonSuite[] }): Map<string, JsonResult> {
  const out = new Map<string, JsonResult>();
  const walk = (suites: JsonSuite[]) => {
    for (const s of suites) {
      for (const spec of s.specs) out.set(spec.title, spec.tests[0]!.results.at(-1)!);
      walk(s.suites ?? []);
    }
  };
  walk(report.suites);
  return out;
}

/** A result's error messages without the terminal colours Playwright puts in matcher hints. */
const errorText = (r: JsonResult): string => r.errors.map((e) => e.message).join('\n').replace(/\x1b\[[0-9;]*m/g, '');

const titles = (steps: JsonStep[] | undefined): string[] => (steps ?? []).map((s) => s.title);

before(async () => {
  project = mkdtempSync(join(tmpdir(), 'boxflow-pwtest-'));
  const pack = await sh('npm', ['pack', '--pack-destination', project, '--silent'], repoRoot);
  assert.equal(pack.code, 0, pack.stderr);
  const tarball = readdirSync(project).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, `npm pack wrote no tarball: ${pack.stdout}`);
  const versionOf = (pkg: string) => (JSON.parse(readFileSync(join(repoRoot, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'pw-project', private: true }, null, 2));
  // As the README says: boxflow and @playwright/test, nothing else (trace images need nothing more).
  const install = await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`, `@playwright/test@${versionOf('@playwright/test')}`], project);
  assert.equal(install.code, 0, install.stderr);
  // The example project and the demo app it starts, where they sit in the repository.
  exampleDir = join(project, 'examples/playwright');
  mkdirSync(join(project, 'flows'), { recursive: true });
  cpSync(join(repoRoot, 'examples/playwright'), exampleDir, { recursive: true, filter: (src) => !/(test-results|playwright-report)$/.test(src) });
  cpSync(join(repoRoot, 'flows/app'), join(project, 'flows/app'), { recursive: true });
  writeFileSync(join(exampleDir, 'checks.spec.ts'), kChecks);
  port = await freePort();
});

after(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

test('the packed boxflow/test runs the example project and reports box steps the Playwright way', { timeout: 600_000 }, async () => {
  const run = await playwright([]);
  const byTitle = results(run.report);
  const failed = [...byTitle].filter(([, r]) => r.status !== 'passed').map(([t, r]) => `${t}: ${r.status} ${errorText(r)}`);
  // A failed box call's stack frames into boxflow point at files the installed package has: dist/,
  // never src/ (which it does not ship, where a source map would send them).
  const stacks = [...byTitle.values()].map((r) => `${errorText(r)}\n${r.errors.map((e) => e.stack ?? '').join('\n')}`).join('\n');
  const frames = [...stacks.matchAll(/(\/[^\s():]*\/node_modules\/boxflow\/[^\s():]+):\d+:\d+/g)].map((m) => m[1]!);
  assert.ok(frames.length, `the failed box calls show frames of the package:\n${stacks.slice(0, 6000)}`);
  for (const f of frames) assert.ok(existsSync(f), `a stack frame points at a file the package does not have: ${f}`);

  // The example project passes (its screenshot against the baseline committed with it).
  for (const name of ['a demo user signs in', 'the sign-in page looks right', 'box.page() is the box tab as a Playwright Page', 'the sign-in flow runs as nested steps', 'a wrong password is refused']) {
    assert.equal(byTitle.get(name)?.status, 'passed', `example "${name}" did not pass:\n${failed.join('\n')}\n${run.stderr.slice(-2000)}`);
  }

  // Each box call is a step titled like the step, with the label boxflow's reports give it (flow/steps.ts);
  // an action's step holds its actionId and images.
  const steps = byTitle.get('box steps')!;
  assert.equal(steps.status, 'passed', failed.join('\n'));
  assert.deepEqual(titles(steps.steps), [`openTab http://127.0.0.1:${port}/login`, 'tap #email', 'type "someone@exa…"', 'runFlow sign-in.flow.yaml']);
  const tap = steps.steps[1]!;
  assert.match(titles(tap.steps).join(), /^actionId act_[\w-]+$/);
  // A step that passed attaches the one image that tells what it did (its trace), not every phase:
  // the test's gallery holds one image per action, as a Playwright user's own report would.
  const trace = steps.attachments.find((x) => x.name === 'tap #email - trace');
  assert.ok(trace?.path && existsSync(trace.path), "the tap's trace image is attached");
  assert.equal(trace.contentType, 'image/png');
  assert.deepEqual([...readFileSync(trace.path).subarray(1, 4)], [...Buffer.from('PNG')]);
  assert.ok(!steps.attachments.some((x) => /^tap #email - (before|after)$/.test(x.name)), 'no before/after of a passed step in the gallery');
  // Attachment files have plain ASCII names (a label's "…" and "⏎" spelled out): every tool takes them.
  for (const [, r] of byTitle) for (const a of r.attachments) if (a.path) assert.match(basename(a.path), /^[\x20-\x7e]+$/, a.path);
  assert.ok(steps.attachments.some((x) => x.name === 'type "someone@exa..." - trace'), 'the type step\'s image is named in ASCII');
  const actionSteps = (list: JsonStep[] | undefined): number => (list ?? []).reduce((n, st) => n + (st.title.startsWith('actionId ') ? 1 : 0) + actionSteps(st.steps), 0);
  assert.equal(steps.attachments.filter((x) => x.contentType === 'image/png').length, actionSteps(steps.steps), 'one image per action in the gallery');
  // boxflow's own reading of the box's browser makes no Playwright call, so no step of the user's
  // shows one (a "Connect over CDP", CDP sends): only a test that asks for box.page() has them, its own.
  const api = allSteps();
  assert.ok(api['box steps']?.some((l) => l.startsWith('test.step ')), `the all-steps reporter saw the tests' steps: ${JSON.stringify(api).slice(0, 500)}`);
  for (const title of byTitle.keys()) {
    const calls = (api[title] ?? []).filter((line) => line.startsWith('pw:api '));
    if (title === 'box.page() is the box tab as a Playwright Page') assert.ok(calls.some((c) => /fill/i.test(c)), `the page's own calls are its steps: ${calls.join(', ')}`);
    else assert.deepEqual(calls, [], `Playwright calls in "${title}"`);
  }
  // A flow file's steps nest, runFlow inside runFlow included; its secret never shows.
  const flow = steps.steps[3]!;
  assert.deepEqual(titles(flow.steps), ['runFlow open-login.flow.yaml', 'tap #email', 'type "${USER}"', 'tap #password', 'type "${PASSWORD}" ⏎', 'assertVisible /Welcome, .+/']);
  assert.deepEqual(titles(flow.steps![0]!.steps), ['openTab ${APP_URL}/login', 'assertVisible {text: "Sign in", class: "button"}']);
  assert.match(titles(flow.steps![4]!.steps).join(), /^actionId act_/);
  assert.ok(!JSON.stringify(steps).includes('hunter2'), 'the flow\'s secret is not in the report');

  // boxSecrets: the typed value shows as *** in the step, nowhere in clear.
  const secret = byTitle.get('typed secret')!;
  assert.equal(secret.status, 'passed', errorText(secret));
  assert.deepEqual(titles(secret.steps).slice(1), ['tap #password', 'type "***"']);
  assert.ok(!JSON.stringify(run.report).includes(kSecret), 'the secret is nowhere in the report');

  // A failing toShow fails the test with the matcher's message and keeps the layout it searched.
  const missing = byTitle.get('a missing text fails toShow')!;
  assert.equal(missing.status, 'failed');
  const message = errorText(missing);
  assert.match(message, /expect\(box\)\.toShow\(/);
  assert.match(message, /ASSERT_LAYOUT: no visible element matches "No such text" after 1000 ms/);
  assert.ok(missing.attachments.some((a) => a.name === 'layout.json' && a.contentType === 'application/json' && a.path && readFileSync(a.path, 'utf8').includes('Sign in')), 'the searched layout is attached');

  // A failing box call fails its own step and the test, with the step's code and message.
  const tapMissing = byTitle.get('a tap on a missing element fails its step')!;
  assert.equal(tapMissing.status, 'failed');
  assert.match(errorText(tapMissing), /ELEMENT_NOT_FOUND: no visible element matches "Nope" after 1000 ms/);
  const failedStep = tapMissing.steps.find((s) => s.title === 'tap "Nope"');
  assert.match(failedStep?.error?.message ?? '', /ELEMENT_NOT_FOUND: no visible element matches "Nope"/);
  assert.ok(tapMissing.attachments.some((a) => a.name === 'layout.json'), 'the searched layout is attached to the failed step');

  // A screenshot with no baseline: written, and the test that wrote it fails, as toHaveScreenshot does.
  const shot = byTitle.get('form screenshot')!;
  const baseline = join(exampleDir, 'checks.spec.ts-snapshots/form-linux.png');
  assert.equal(shot.status, 'failed');
  assert.match(errorText(shot), new RegExp(`A snapshot doesn't exist at ${baseline.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, writing actual`));
  assert.ok(existsSync(baseline), 'the missing baseline was written to Playwright\'s snapshot path');
  assert.equal(run.code, 1);

  // A baseline that differs: the test fails with expected, actual and diff attached...
  const png = PNG.sync.read(readFileSync(baseline));
  for (let i = 0; i < png.data.length; i += 4) png.data.set([255 - png.data[i]!, 255 - png.data[i + 1]!, 255 - png.data[i + 2]!], i);
  const wrong = PNG.sync.write(png);
  writeFileSync(baseline, wrong);
  const differs = results((await playwright(['checks.spec.ts', '-g', 'form screenshot'])).report).get('form screenshot')!;
  assert.equal(differs.status, 'failed');
  assert.match(errorText(differs), /expect\(box\)\.toMatchScreenshot\("form"\)[\s\S]*ASSERT_SCREENSHOT: screenshot "form" differs/);
  assert.deepEqual(differs.attachments.filter((a) => /^form-(expected|actual|diff)\.png$/.test(a.name)).map((a) => a.name).sort(), ['form-actual.png', 'form-diff.png', 'form-expected.png']);
  assert.deepEqual(readFileSync(baseline), wrong, 'without --update-snapshots the baseline stays');

  // ...and --update-snapshots rewrites it, after which it matches again.
  const updated = results((await playwright(['checks.spec.ts', '-g', 'form screenshot', '--update-snapshots'])).report).get('form screenshot')!;
  assert.equal(updated.status, 'passed', errorText(updated));
  assert.notDeepEqual(readFileSync(baseline), wrong, '--update-snapshots rewrote the baseline');
  const matches = results((await playwright(['checks.spec.ts', '-g', 'form screenshot'])).report).get('form screenshot')!;
  assert.equal(matches.status, 'passed', errorText(matches));
});

// A test that Playwright times out while a box step waits: its teardown stops the step, so the box
// is not left loading a page (and handed on) after the test has ended. The spec's afterAll runs after
// that teardown and before the worker's box service stops; it counts the page loads still open.
const kTimeoutSpec = `
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { test } from 'boxflow/test';

const open = new Set();
const held = createServer((req, res) => {
  open.add(res);
  res.on('close', () => open.delete(res));
});
let url = '';
test.beforeAll(async () => {
  await new Promise((r) => held.listen(0, '127.0.0.1', r));
  url = 'http://127.0.0.1:' + held.address().port + '/never';
});
test.afterAll(async () => {
  // The stopped load closes its connection a moment later; wait for that, up to 10 s.
  for (let i = 0; i < 100 && open.size; i++) await new Promise((r) => setTimeout(r, 100));
  writeFileSync(process.env.OPEN_LOADS_FILE, String(open.size));
  held.closeAllConnections();
  held.close();
});

test('times out mid-step', async ({ box }) => {
  test.setTimeout(5_000);
  await box.openTab('/login');
  await box.openTab(url);
});
`;

test('a Playwright test that times out mid-step: the step is stopped before the box is released', { timeout: 300_000 }, async () => {
  writeFileSync(join(exampleDir, 'timeout.spec.ts'), kTimeoutSpec);
  const openLoads = join(project, 'open-loads.txt');
  const run = await playwright(['timeout.spec.ts'], { OPEN_LOADS_FILE: openLoads });
  const timedOut = results(run.report).get('times out mid-step')!;
  assert.equal(timedOut.status, 'timedOut', errorText(timedOut));
  assert.equal(readFileSync(openLoads, 'utf8'), '0', 'the box still loaded the page after the test had ended');
});

test('a remote service from the environment and a named box: the box is used and left running', { timeout: 300_000 }, async () => {
  const cli = join(project, 'node_modules/boxflow/dist/src/cli/main.js');
  // Under the system temp dir, as the embedded server's: the box users must reach it.
  const dataDir = mkdtempSync(join(tmpdir(), 'boxflow-serve-'));
  const serve = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const listening = await new Promise<string>((resolve, reject) => {
      let out = '';
      serve.stdout.on('data', (d: Buffer) => {
        out += d;
        const line = out.split('\n').find((l) => l.includes('"listening"'));
        if (line) resolve((JSON.parse(line) as { baseUrl: string }).baseUrl);
      });
      serve.once('exit', (code) => reject(new Error(`boxflow serve exited with ${code}`)));
    });
    const key = (await sh(process.execPath, [cli, 'key', '--sub', 'pw-e2e', '--ttl', '1h', '--data-dir', dataDir], project)).stdout.trim();
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = (await (await fetch(`${listening}/boxes/linux`, { method: 'POST', headers: auth, body: JSON.stringify({ wait: true }) })).json()) as { id: string };
    assert.ok(created.id, `a box was created: ${JSON.stringify(created)}`);

    const run = await playwright(['checks.spec.ts', '-g', 'named box'], { BOX_ID: created.id, BOXFLOW_BASE_URL: listening, BOXFLOW_API_KEY: key });
    const named = results(run.report).get('named box')!;
    assert.equal(named.status, 'passed', `${errorText(named)}\n${run.stderr.slice(-2000)}`);
    assert.deepEqual(titles(named.steps), [`openTab http://127.0.0.1:${port}/login`]);
    assert.ok(!JSON.stringify(run.report).includes(key), 'the API key is not in the report');
    const box = (await (await fetch(`${listening}/boxes/${created.id}`, { headers: auth })).json()) as { status: string };
    assert.equal(box.status, 'running', 'a box the user named is not terminated');
  } finally {
    if (serve.exitCode === null && serve.signalCode === null) {
      const exited = new Promise((r) => serve.once('exit', r));
      serve.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
});

const kUnawaitedSpec = `
import { test, expect } from 'boxflow/test';

test('forgets await', async ({ box }) => {
  await box.openTab('/login');
  box.tap('No such button', { timeout: 1000 });
  box.type('lost');
});

test('the next test on the worker', async ({ box }) => {
  await box.openTab('/login');
  await expect(box).toShow('Sign in');
});
`;

test('a Playwright test that does not await its box calls fails naming each call and its line; the next test runs clean', { timeout: 300_000 }, async () => {
  writeFileSync(join(exampleDir, 'unawaited.spec.ts'), kUnawaitedSpec);
  const run = await playwright(['unawaited.spec.ts', '--workers=1']);
  const byTitle = results(run.report);
  const forgot = byTitle.get('forgets await')!;
  assert.equal(forgot.status, 'failed', errorText(forgot));
  assert.match(errorText(forgot), /`box\.tap\(\.\.\.\)` at unawaited\.spec\.ts:6:\d+ and `box\.type\(\.\.\.\)` at unawaited\.spec\.ts:7:\d+ were not awaited/);
  const next = byTitle.get('the next test on the worker')!;
  assert.equal(next.status, 'passed', errorText(next));
});
