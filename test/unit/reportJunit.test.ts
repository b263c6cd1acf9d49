import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOMParser } from '@xmldom/xmldom';
import { validateXML } from 'xmllint-wasm';
import { loadReporters, ReporterHost } from '../../src/runner/reporterHost.js';
import { junitXml } from '../../reporters/junit.js';
import { builtinReporters } from '../../reporters/index.js';
import { kFailActionId, kFixtureRoot, kVisualActionId, runFixture } from '../fixtures/results/fixture.js';
import type { RunResult } from '../../src/runner/types.js';

const xsd = readFileSync(fileURLToPath(new URL('../fixtures/junit/junit.xsd', import.meta.url)), 'utf8');

async function validate(xml: string) {
  return validateXML({ xml: { fileName: 'junit.xml', contents: xml }, schema: { fileName: 'junit.xsd', contents: xsd } });
}

async function fixtureJunit(): Promise<{ dir: string; xml: string; result: RunResult }> {
  const dir = mkdtempSync(join(tmpdir(), 'bf-junit-'));
  const reps = await loadReporters(['junit'], { outputDir: dir, rootDir: kFixtureRoot }, builtinReporters);
  const result = await runFixture(new ReporterHost(reps), { outputDir: dir, shard: { index: 1, total: 2 } });
  return { dir, xml: readFileSync(join(dir, 'junit.xml'), 'utf8'), result };
}

test('junit.xml validates against the JUnit XSD (and the XSD does reject a broken report)', async () => {
  const { dir, xml } = await fixtureJunit();
  try {
    const ok = await validate(xml);
    assert.equal(ok.valid, true, ok.rawOutput);
    const bad = await validate(xml.replace(/ time="[0-9.]+"/, ' time="1.23456"'));
    assert.equal(bad.valid, false, 'a time with more than millisecond precision is refused');
    const unordered = await validate(xml.replace(/(<system-out>[\s\S]*?<\/system-out>\n)(\s*)<\/testcase>/, '$1$2<properties/></testcase>'));
    assert.equal(unordered.valid, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a testsuite per flow file, a testcase per flow, times in seconds with ms precision', async () => {
  const { dir, xml, result } = await fixtureJunit();
  try {
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const suites = Array.from(doc.getElementsByTagName('testsuite'));
    assert.deepEqual(suites.map((s) => s.getAttribute('name')), result.flows.map((f) => f.file));
    const cases = Array.from(doc.getElementsByTagName('testcase'));
    assert.equal(cases.length, 5);
    const login = cases.find((c) => c.getAttribute('name') === 'Sign in with a valid account')!;
    const loginFlow = result.flows.find((f) => f.name === 'Sign in with a valid account')!;
    assert.equal(login.getAttribute('time'), (loginFlow.durationMs / 1000).toFixed(3));
    assert.match(login.getAttribute('time')!, /^\d+\.\d{3}$/);
    assert.equal(login.getAttribute('classname'), 'flows/login.flow.yaml');
    const root = doc.documentElement!;
    assert.deepEqual(['tests', 'failures', 'errors', 'skipped'].map((a) => root.getAttribute(a)), ['5', '2', '0', '1']);

    const props = Object.fromEntries(Array.from(login.getElementsByTagName('property')).filter((p) => p.getAttribute('name') !== 'tag').map((p) => [p.getAttribute('name'), p.getAttribute('value')]));
    assert.equal(props['box.id'], 'box-lin-01');
    assert.equal(props['box.type'], 'linux');
    assert.equal(props.tags, 'smoke,auth');
    assert.equal(suites[0]!.getElementsByTagName('property')[0]!.getAttribute('value'), '1/2', 'the shard is a suite property');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('failures name the failing step, its code and its actionId; images are ATTACHMENT lines', async () => {
  const { dir, xml } = await fixtureJunit();
  try {
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const byName = (n: string) => Array.from(doc.getElementsByTagName('testcase')).find((c) => c.getAttribute('name') === n)!;
    const checkout = byName('Checkout from the cart');
    const failure = checkout.getElementsByTagName('failure')[0]!;
    assert.equal(failure.getAttribute('type'), 'ELEMENT_NOT_FOUND');
    const message = failure.getAttribute('message')!;
    assert.match(message, /step 3 › tap Buy now:/);
    assert.match(message, /ELEMENT_NOT_FOUND/);
    assert.ok(message.includes(kFailActionId));
    assert.match(failure.textContent!, /> 7 \|   - tap: Buy now/, 'the body carries a code frame of the flow file');

    const visual = byName('Home page looks right').getElementsByTagName('failure')[0]!;
    assert.equal(visual.getAttribute('type'), 'ASSERT_SCREENSHOT');
    assert.ok(visual.getAttribute('message')!.includes(kVisualActionId));
    const out = byName('Home page looks right').getElementsByTagName('system-out')[0]!.textContent!;
    const attachments = [...out.matchAll(/^\[\[ATTACHMENT\|(.+)\]\]$/gm)].map((m) => m[1]!);
    assert.ok(attachments.length >= 5, 'before/after/trace + expected/actual/diff');
    for (const a of attachments) assert.ok(existsSync(resolve(kFixtureRoot, a)), `${a} resolves from the project root`);

    const skipped = byName('Change the language');
    assert.equal(skipped.getElementsByTagName('skipped').length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a flow that passed on retry is a passing testcase with a flakyFailure per failed attempt', async () => {
  const { dir, xml } = await fixtureJunit();
  try {
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const search = Array.from(doc.getElementsByTagName('testcase')).find((c) => c.getAttribute('name') === 'Search finds a product')!;
    assert.equal(search.getElementsByTagName('failure').length, 0);
    assert.equal(search.getElementsByTagName('error').length, 0);
    const flaky = Array.from(search.getElementsByTagName('flakyFailure'));
    assert.equal(flaky.length, 1);
    assert.equal(flaky[0]!.getAttribute('type'), 'STEP_TIMEOUT');
    assert.match(flaky[0]!.getAttribute('message')!, /attempt 1: step 2 › type lamp:.*act_search_a1_02/);
    assert.equal(flaky[0]!.getElementsByTagName('stackTrace').length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('infrastructure failures are <error>, and text is escaped and stripped of ANSI and control characters', async () => {
  const { dir, result } = await fixtureJunit();
  try {
    const flow = result.flows.find((f) => f.name === 'Checkout from the cart')!;
    const step = flow.attempts[0]!.steps[2]!;
    step.error = { code: 'BOX_UNAVAILABLE', message: 'box <gone> & "away" \u001b[31mred\u001b[39m \u0007bell' };
    flow.name = 'Checkout <&> "quoted"';
    const xml = junitXml(result, { outputDir: dir, rootDir: kFixtureRoot });
    const v = await validate(xml);
    assert.equal(v.valid, true, v.rawOutput);
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const tc = Array.from(doc.getElementsByTagName('testcase')).find((c) => c.getAttribute('name') === 'Checkout <&> "quoted"')!;
    const err = tc.getElementsByTagName('error')[0]!;
    assert.equal(err.getAttribute('type'), 'BOX_UNAVAILABLE');
    assert.ok(err.textContent!.includes('box <gone> & "away" red bell'));
    assert.equal(doc.documentElement!.getAttribute('errors'), '1');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
