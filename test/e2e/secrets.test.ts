// `boxflow test` as a user runs it (the built CLI, the embedded server, every reporter): the values a
// flow names in `secrets:` and the API key appear in no output file and no terminal line, in a
// passing flow (messages, typed text) and a failing one (its selector, its layout snapshot, its code
// frame); pre-signed URLs keep their path and lose their signature.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { StepRecord } from '../../src/runner/types.js';
import { readResults, runCli, startDemoApp, tempProject } from './helpers.js';

let app: Awaited<ReturnType<typeof startDemoApp>>;
before(async () => {
  app = await startDemoApp();
});
after(() => app.close());

const flatten = (steps: StepRecord[]): StepRecord[] => steps.flatMap((s) => [s, ...flatten(s.children ?? [])]);

const kApiKey = 'bfk-e2e-9f3c1d7a5b';
const header = 'env: { USER: demo@example.com, PASSWORD: hunter2 }\nsecrets: [USER, PASSWORD]\n';

test('no secret reaches results.jsonl, results.json, JUnit, the HTML report, layout snapshots or the terminal', async () => {
  const dir = tempProject({
    'a-pass.flow.yaml': `name: secret sign-in\n${header}steps:\n  - openTab: ${app.url}/login\n  - tap: { css: "#email" }\n  - type: \${USER}\n  - tap: { id: password }\n  - type: { text: "\${PASSWORD}", pressEnter: true }\n  - assertVisible: { text: "/Welcome, .+/" }\n  - assertLayout: { css: "#result", text: "Welcome, \${USER}" }\n  - cdpUrl\n  - webTerminal\n`,
    'b-fail.flow.yaml': [
      'name: secret failure',
      header.trimEnd(),
      'steps:',
      `  - openTab: ${app.url}/login`,
      '  - tap: { css: "#email" }',
      '  - type: ${USER}',
      '  - assertVisible: { text: "${env.BOXFLOW_API_KEY}" }',
      '    timeout: 300ms',
      '    optional: true',
      '  # the demo password is hunter2',
      `  - assertVisible: { css: "#email[data-secret='\${PASSWORD}']" }`,
      '    timeout: 1s',
      '',
    ].join('\n'),
  });
  const run = await runCli(['test', '--workers', '1', '--reporter', 'list,html,junit,json,github'], { cwd: dir, env: { BOXFLOW_API_KEY: kApiKey } });
  assert.equal(run.code, 1, run.stderr + run.stdout);
  const out = join(dir, 'boxflow-results');
  const result = readResults(out);
  const [pass, fail] = result.flows;
  assert.equal(pass!.status, 'passed', JSON.stringify(pass!.error));
  assert.equal(fail!.status, 'failed');

  // The runs did meet the secrets: they are masked, not absent.
  const passSteps = flatten(pass!.attempts.at(-1)!.steps);
  assert.match(passSteps.find((s) => s.command === 'assertVisible')!.message!, /^visible: <p> "Welcome, \*\*\*"$/);
  const failSteps = flatten(fail!.attempts.at(-1)!.steps);
  const warned = failSteps.find((s) => s.status === 'warned')!;
  assert.match(warned.error!.message, /\*\*\*/, 'the API key in a message');
  const failed = failSteps.find((s) => s.status === 'failed')!;
  assert.match(failed.error!.message, /#email\[data-secret='\*\*\*'\]/, 'the failed step\'s selector');
  assert.match(failed.layout!.selector, /data-secret='\*\*\*'/);
  assert.match(failed.error!.snippet!, /# the demo password is \*\*\*/, 'the code frame');
  const snapshot = readFileSync(join(out, failed.layout!.snapshot), 'utf8');
  // The snapshot is the searched tree (JSON): the email input's text is its typed value, masked.
  assert.match(snapshot, /"tag":"input","visible":true,"text":"\*\*\*","id":"email"/, 'the typed value in the layout snapshot');
  for (const command of ['cdpUrl', 'webTerminal']) {
    const url = passSteps.find((s) => s.command === command)!.url!;
    assert.match(url, /^(ws|http):\/\/127\.0\.0\.1:\d+\/(cdp|terminal)\/[\w-]+$/, `${command} keeps its path, not its query`);
  }

  // Every file the run wrote (images aside) and everything it printed.
  const files = readdirSync(out, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith('.png'))
    .map((e) => join(e.parentPath, e.name));
  const names = files.map((f) => relative(out, f));
  for (const expected of ['results.jsonl', 'results.json', 'junit.xml', 'index.html', join('data', 'report.js')]) assert.ok(names.includes(expected), `${expected} was written`);
  assert.ok(names.some((n) => n.endsWith('.json') && n.startsWith('data')), 'a layout snapshot was written');
  assert.ok(names.some((n) => n.endsWith('.layout.js')), 'the HTML report wrote the pretty-printed snapshot');
  const outputs = [...files.map((f) => ({ name: relative(out, f), text: readFileSync(f, 'utf8') })), { name: 'stdout', text: run.stdout }, { name: 'stderr', text: run.stderr }];
  for (const { name, text } of outputs) {
    for (const secret of ['hunter2', 'demo@example.com', 'demo%40example.com', kApiKey]) assert.ok(!text.includes(secret), `${name} shows ${secret}`);
    assert.doesNotMatch(text, /[?&](sig|exp)=/, `${name} shows a signed URL's query`);
  }
});

/** Every file the run wrote (images aside) and everything it printed. */
function outputsOf(out: string, run: { stdout: string; stderr: string }): { name: string; text: string }[] {
  const files = readdirSync(out, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith('.png'))
    .map((e) => join(e.parentPath, e.name));
  return [...files.map((f) => ({ name: relative(out, f), text: readFileSync(f, 'utf8') })), { name: 'stdout', text: run.stdout }, { name: 'stderr', text: run.stderr }];
}

/**
 * The text read back the ways a URL, JSON or markup may have written a secret into it: runs of
 * %XX decoded (either case), `+` as a space, JSON and JS `\uXXXX` escapes, character references.
 */
function decodedForms(text: string): string[] {
  const pct = (t: string) => t.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(/%([0-9a-fA-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    }
  });
  const js = (t: string) => t.replace(/\\u([0-9a-fA-F]{4})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/\\(["'\\/])/g, '$1');
  const refs = (t: string) => t.replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d))).replace(/&#x([0-9a-f]+);/gi, (_m, h: string) => String.fromCodePoint(parseInt(h, 16))).replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const all = (t: string) => refs(js(pct(t)));
  return [text, all(text), all(text.replace(/\+/g, ' ')), js(text), refs(text)];
}

test('a secret in a URL is hidden in every encoding the URL gives it, in every output of a failing run', async () => {
  const secret = `it's a "Secr3t" <ü>/é`;
  const dir = tempProject({
    'url.flow.yaml': [
      'name: secret in a url',
      `env: { PW: '${secret.replace(/'/g, "''")}' }`,
      'secrets: [PW]',
      'steps:',
      `  - openTab: \${env.APP}/login?t=\${PW}&u=\${PW}#\${PW}`,
      '  - assertUrl: ${env.APP}/elsewhere',
      '    timeout: 1s',
      '',
    ].join('\n'),
  });
  const run = await runCli(['test', '--workers', '1', '--reporter', 'list,html,junit,json,github'], { cwd: dir, env: { APP: app.url, GITHUB_ACTIONS: 'true' } });
  assert.equal(run.code, 1, run.stderr + run.stdout);
  const out = join(dir, 'boxflow-results');
  const [flow] = readResults(out).flows;
  assert.equal(flow!.status, 'failed');
  // The run did meet the URL (the browser encoded it): the failed step's message names it, masked.
  const [open, failed] = flatten(flow!.attempts.at(-1)!.steps);
  assert.equal(open!.status, 'passed', JSON.stringify(open!.error));
  assert.equal(failed!.status, 'failed');
  assert.match(failed!.error!.message, /\/login\?t=\*\*\*&u=\*\*\*#\*\*\*"/, 'the tab\'s URL, masked');

  const outputs = outputsOf(out, run);
  for (const expected of ['results.jsonl', 'results.json', 'junit.xml', join('data', 'report.js')]) assert.ok(outputs.some((o) => o.name === expected), `${expected} was written`);
  assert.match(run.stdout, /::error /, 'GitHub annotations were printed');
  for (const { name, text } of outputs) {
    assert.ok(!/Secr3t/i.test(text), `${name} shows a piece of the secret`);
    for (const form of decodedForms(text)) assert.ok(!form.includes(secret), `${name} shows the secret encoded`);
  }
});

test('the nearest hint of a failed assertion never shows a piece of a long secret on the page', async () => {
  const token = 'tok_9f3c1d7a5b2e8f4a6c0d9e7b3a1f5c8d2e6b'; // 40 characters
  assert.equal(token.length, 40);
  const dir = tempProject({
    'nearest.flow.yaml': [
      'name: secret near a failed assertion',
      `env: { TOKEN: ${token} }`,
      'secrets: [TOKEN]',
      'steps:',
      // The page shows more than the flow expects: the hint quotes the node, 37 characters of it.
      '  - openTab: "data:text/html,<p>Token: ${TOKEN}</p>"',
      '  - assertVisible: { text: "Token:" }',
      '    timeout: 1s',
      '',
    ].join('\n'),
  });
  const run = await runCli(['test', '--workers', '1', '--reporter', 'list,html,junit,json,github'], { cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
  assert.equal(run.code, 1, run.stderr + run.stdout);
  const out = join(dir, 'boxflow-results');
  const [flow] = readResults(out).flows;
  const failed = flatten(flow!.attempts.at(-1)!.steps).find((s) => s.status === 'failed')!;
  assert.match(failed.error!.message, /; nearest: "Token: \*\*\*"/, 'the hint names the node, masked');

  const pieces = new Set<string>();
  for (let i = 0; i + 8 <= token.length; i++) pieces.add(token.slice(i, i + 8));
  for (const { name, text } of outputsOf(out, run)) {
    for (const piece of pieces) assert.ok(!text.includes(piece), `${name} shows ${piece}, a piece of the secret`);
  }
});
