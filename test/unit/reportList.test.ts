import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadReporters, ReporterHost } from '../../src/runner/reporterHost.js';
import { annotation, escapeData, escapeProperty } from '../../reporters/github.js';
import { builtinReporters } from '../../reporters/index.js';
import { summaryLine } from '../../src/cli/commands.js';
import list from '../../reporters/list.js';
import { kFailActionId, kFixtureRoot, kFlows, kVisualActionId, runFixture } from '../fixtures/results/fixture.js';

async function capture(names: (string | [string, Record<string, unknown>])[], opts: { flows?: string[] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bf-list-'));
  let text = '';
  try {
    const reps = await loadReporters(names, { outputDir: dir, rootDir: kFixtureRoot, write: (t) => void (text += t) }, builtinReporters);
    await runFixture(new ReporterHost(reps), { outputDir: dir, ...opts });
    return { text, dir };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

test('list: a line per flow with live progress, failures summarised with actionIds, and the report path', async () => {
  const { text, dir } = await capture(['html', 'list']);
  try {
    const flowLines = text.split('\n').filter((l) => / flows · \d+ failed/.test(l));
    assert.deepEqual(flowLines.map((l) => /(\d+\/\d+ flows · \d+ failed)/.exec(l)![1]), ['1/5 flows · 0 failed', '2/5 flows · 1 failed', '3/5 flows · 2 failed', '4/5 flows · 2 failed', '5/5 flows · 2 failed']);
    assert.match(flowLines[0]!, /✓ flows\/login\.flow\.yaml › Sign in with a valid account/);
    assert.match(flowLines[3]!, /± .*Search finds a product.*2 attempts/);
    const summary = text.slice(text.indexOf('2 failed\n'));
    assert.ok(summary.includes(`actionId: ${kFailActionId}`));
    assert.ok(summary.includes(`actionId: ${kVisualActionId}`));
    assert.match(summary, /at flows\/checkout\.flow\.yaml:7:5/);
    assert.match(summary, /1 passed, 2 failed, 1 flaky, 1 skipped/);
    assert.ok(summary.includes('index.html'), 'html ran before list printed the summary, so its path is shown');
    assert.ok(!/\u001b\[/.test(text), 'no colour codes when writing to a custom writer');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('list: a step that runs long prints a heartbeat every 15 s of quiet, and none after the end', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval', 'Date'] });
  const dir = mkdtempSync(join(tmpdir(), 'bf-list-'));
  try {
    let text = '';
    const reporter = list({}, { outputDir: dir, rootDir: kFixtureRoot, write: (chunk) => void (text += chunk) });
    const flow = kFlows.checkout!;
    await reporter.onBegin!({ startedAt: new Date().toISOString(), workers: 1, flows: [flow], outputDir: dir });
    await reporter.onFlowBegin!(flow, 1);
    await reporter.onStepBegin!(flow, { id: '3', label: 'tap Buy now', command: 'tap' });
    t.mock.timers.tick(14_999);
    assert.doesNotMatch(text, /still running/);
    t.mock.timers.tick(1);
    assert.match(text, /still running: Checkout from the cart › step 3 › tap Buy now \(15s\)\s+0\/1 flows · 0 failed/);
    t.mock.timers.tick(15_000);
    assert.match(text, /\(30s\)/);
    await reporter.onEnd!({ version: 1, startedAt: new Date().toISOString(), durationMs: 0, status: 'interrupted', boxes: [], flows: [], stats: { total: 0, passed: 0, failed: 0, flaky: 0, skipped: 0 }, baselines: [], errors: [] });
    const ended = text;
    t.mock.timers.tick(60_000);
    assert.equal(text, ended);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('github: an ::error annotation per failed step, with file, line and escaped text', async () => {
  const { text, dir } = await capture(['github']);
  try {
    const errors = text.split('\n').filter((l) => l.startsWith('::error '));
    assert.equal(errors.length, 2);
    assert.match(errors[0]!, /^::error file=flows\/checkout\.flow\.yaml,line=7,col=5,title=Checkout from the cart › tap Buy now::step 3 › tap Buy now: ELEMENT_NOT_FOUND/);
    assert.ok(errors[0]!.includes(kFailActionId));
    assert.match(errors[1]!, /line=6,.*4\.81%25\)/, 'a % in the message is escaped');
    assert.equal(text.split('\n').filter((l) => l.startsWith('::warning ')).length, 1, 'the flaky flow\'s failed attempt is a warning');
    assert.ok(text.includes('::notice title=boxflow::1 passed, 2 failed, 1 flaky, 1 skipped\n'), 'the counts read as the list and the CLI print them');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('github escaping follows the workflow-command rules', () => {
  assert.equal(escapeData('50% done\r\nnext'), '50%25 done%0D%0Anext');
  assert.equal(escapeProperty('a:b,c%'), 'a%3Ab%2Cc%25');
  assert.equal(annotation('error', { file: 'f,1.yaml', line: 3, col: undefined }, 'x\ny'), '::error file=f%2C1.yaml,line=3::x%0Ay\n');
});

test('the CLI\'s one-line summary prints the counts as the list does (a zero count other than passed is left out)', () => {
  const result = (stats: { total: number; passed: number; failed: number; flaky: number; skipped: number }) => ({ stats }) as Parameters<typeof summaryLine>[0];
  assert.equal(summaryLine(result({ total: 2, passed: 2, failed: 0, flaky: 0, skipped: 0 })), '2 flows: 2 passed');
  assert.equal(summaryLine(result({ total: 1, passed: 0, failed: 1, flaky: 0, skipped: 0 })), '1 flow: 0 passed, 1 failed');
  assert.equal(summaryLine(result({ total: 5, passed: 1, failed: 2, flaky: 1, skipped: 1 })), '5 flows: 1 passed, 2 failed, 1 flaky, 1 skipped');
});

test('the reporters that print their own summary say so; with file reporters alone the CLI prints one', async () => {
  const ctx = { outputDir: tmpdir(), rootDir: kFixtureRoot, write: () => {} };
  for (const name of ['list', 'github']) assert.equal(new ReporterHost(await loadReporters([name], ctx, builtinReporters)).printsToStdio(), true, name);
  assert.equal(new ReporterHost(await loadReporters(['html', 'junit', 'json'], ctx, builtinReporters)).printsToStdio(), false);
  assert.equal(new ReporterHost(await loadReporters(['json', ['github', {}]], ctx, builtinReporters)).printsToStdio(), true, 'a reporter with options');
});
