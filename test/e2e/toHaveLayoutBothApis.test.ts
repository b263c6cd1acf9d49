// expect(box).toHaveLayout(spec) means the same in a TS flow run by `boxflow test` and in a
// Playwright test on boxflow/test's `box` fixture: `text` is the expected text of the selector's
// first match, never a second selector. The same specs run through both, on the embedded Linux box,
// against one page; each passes or fails the same way in both, with the same reason.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readResults, repoRoot, runCli, tempProject } from './helpers.js';

const kCases: Array<{ name: string; spec: string; passes: boolean }> = [
  // The example: the string selector finds <p>Welcome</p>, whose text is not "Welcome back".
  { name: 'string selector with an expected text', spec: "{ selector: 'Welcome', text: 'Welcome back', count: 1 }", passes: false },
  { name: 'css selector with its text', spec: "{ selector: { css: 'h1' }, text: 'Welcome back', count: 1 }", passes: true },
  { name: 'text selector and a count', spec: "{ selector: 'Welcome back', count: 1 }", passes: true },
  { name: 'expected text of another element', spec: "{ selector: { css: 'p' }, text: 'Welcome back' }", passes: false },
];

let site: Server;
let url = '';

before(async () => {
  site = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<title>welcome</title><p>Welcome</p><h1>Welcome back</h1>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
});
after(() => new Promise<void>((r) => site.close(() => r())));

function sh(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, BOXFLOW_BASE_URL: undefined, BOXFLOW_API_KEY: undefined, GBOX_BASE_URL: undefined, GBOX_API_KEY: undefined, CI: '1' };
    const child = spawn(process.execPath, args, { cwd, env: env as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface PwSuite {
  specs: { title: string; tests: { results: { status: string; errors: { message: string }[] }[] }[] }[];
  suites?: PwSuite[];
}

test('toHaveLayout passes and fails the same way in a TS flow (boxflow test) and in boxflow/test (Playwright)', { timeout: 300_000 }, async () => {
  const files: Record<string, string> = {
    // An ES module project: boxflow (linked into node_modules) is one, and so are the spec and the flows.
    'package.json': JSON.stringify({ name: 'layout-both-apis', private: true, type: 'module' }),
    'playwright.config.mjs': "export default { testDir: '.', testMatch: '*.spec.ts', workers: 1, timeout: 60_000, retries: 0 };\n",
    'layout.spec.ts':
      "import { test, expect } from 'boxflow/test';\n" +
      kCases.map((c) => `test(${JSON.stringify(c.name)}, async ({ box }) => {\n  await box.openTab(${JSON.stringify(url)});\n  await expect(box).toHaveLayout(${c.spec}, { timeout: 1000 });\n});\n`).join(''),
  };
  kCases.forEach((c, i) => {
    files[`flows/case${i}.flow.ts`] =
      "import { flow } from 'boxflow';\n\n" +
      `export default flow(${JSON.stringify(c.name)}, { box: 'linux' }, async ({ box, expect }) => {\n  await box.openTab(${JSON.stringify(url)});\n  await expect(box).toHaveLayout(${c.spec}, { timeout: 1000 });\n});\n`;
  });
  const project = tempProject(files);

  // boxflow test: the TS flows.
  const out = join(project, 'out');
  const run = await runCli(['test', 'flows', '--reporter', 'json', '-o', out], { cwd: project, env: { CI: '1' } });
  const flows = readResults(out).flows;
  const viaRunner = new Map(flows.map((f) => [f.name, { passed: f.status === 'passed', why: f.error?.message ?? '' }]));
  assert.equal(viaRunner.size, kCases.length, `${run.stdout}\n${run.stderr}`);

  // Playwright Test: the same specs on boxflow/test's fixture.
  const pw = await sh([join(repoRoot, 'node_modules/@playwright/test/cli.js'), 'test', '-c', 'playwright.config.mjs', '--reporter=json'], project);
  let report: { suites: PwSuite[] };
  try {
    report = JSON.parse(pw.stdout) as { suites: PwSuite[] };
  } catch {
    throw new Error(`no JSON report (exit ${pw.code}):\n${pw.stdout.slice(0, 2000)}\n${pw.stderr.slice(-3000)}`);
  }
  const viaPlaywright = new Map<string, { passed: boolean; why: string }>();
  const walk = (suites: PwSuite[]) => {
    for (const s of suites) {
      for (const spec of s.specs) {
        const r = spec.tests[0]!.results.at(-1)!;
        viaPlaywright.set(spec.title, { passed: r.status === 'passed', why: r.errors.map((e) => e.message).join('\n').replace(/\x1b\[[0-9;]*m/g, '') });
      }
      walk(s.suites ?? []);
    }
  };
  walk(report.suites);
  assert.equal(viaPlaywright.size, kCases.length, `${pw.stdout.slice(0, 3000)}\n${pw.stderr.slice(-3000)}`);

  for (const c of kCases) {
    const a = viaRunner.get(c.name)!;
    const b = viaPlaywright.get(c.name)!;
    assert.equal(a.passed, c.passes, `boxflow test, "${c.name}": ${a.why}`);
    assert.equal(b.passed, c.passes, `boxflow/test, "${c.name}": ${b.why}`);
  }
  // Failed for the same reason: the match's text, not a missing element.
  const reason = /text is "Welcome", expected Welcome back/;
  assert.match(viaRunner.get(kCases[0]!.name)!.why, reason);
  assert.match(viaPlaywright.get(kCases[0]!.name)!.why, reason);
});
