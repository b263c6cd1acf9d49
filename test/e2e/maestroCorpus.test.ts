// `boxflow validate` on 58 real public Maestro flows (test/fixtures/maestro/real, sources and
// licences in SOURCES.md there): issue 11's done-criterion. Every file gets a verdict, "valid" or
// each command boxflow cannot run at its file:line:col with a reason; the exit code is 2 only when
// something is refused; nothing crashes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot, runCli } from './helpers.js';

const kCorpus = 'test/fixtures/maestro/real';
const kRoot = join(repoRoot, kCorpus);

/** Every Maestro flow file of the corpus, relative to it; config.yml is a workspace config, not a flow. */
const corpusFlows = readdirSync(kRoot, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name) && !/^config\.ya?ml$/.test(e.name))
  .map((e) => relative(kRoot, join(e.parentPath, e.name)))
  .sort();

const kProblem = new RegExp(`${kCorpus.replaceAll('/', '\\/')}\\/(\\S+?\\.ya?ml):(\\d+):(\\d+): (.+)`, 'g');

/** Each problem the output names: the corpus file, its position and the message's first line. */
function problems(text: string): Array<{ file: string; line: number; column: number; message: string }> {
  return [...text.matchAll(kProblem)].map((m) => ({ file: m[1]!, line: Number(m[2]), column: Number(m[3]), message: m[4]! }));
}

test('the corpus holds 58 real Maestro flows from five public repositories', () => {
  assert.equal(corpusFlows.length, 58);
  assert.deepEqual([...new Set(corpusFlows.map((f) => f.split('/')[0]))], ['bluesky-social-app', 'duckduckgo-android', 'element-x-android', 'mobile-dev-inc-maestro', 'rocket-chat-react-native']);
});

test('validate on the folder of real Maestro flows: every file is valid or names each refused command at file:line:col, exit 2, no crash', async () => {
  const run = await runCli(['validate', kCorpus], { cwd: repoRoot });
  const text = run.stdout + run.stderr;
  assert.equal(run.code, 2, text.slice(0, 3000));
  assert.doesNotMatch(text, /^\s+at .+:\d+:\d+\)?$/m, 'no stack trace');
  assert.doesNotMatch(text, /\b(?:TypeError|ReferenceError|SyntaxError|RangeError)\b|undefined is not|Cannot read properties/, 'no JavaScript error leaks out');
  assert.doesNotMatch(text, /config\.yml/, 'the workspace config is never taken for a flow');

  const found = problems(text);
  const invalid = new Set(found.map((p) => p.file));
  for (const p of found) {
    assert.ok(corpusFlows.includes(p.file), `${p.file} is a corpus file`);
    assert.ok(p.line > 0 && p.column > 0, `${p.file}:${p.line}:${p.column} is a real position`);
    assert.ok(p.message.length > 20, `a reason, not a bare "invalid": ${p.message}`);
  }
  // Every file gets a verdict: the ones with no problem are reported valid, by name.
  const valid = corpusFlows.filter((f) => !invalid.has(f));
  for (const f of valid) assert.ok(text.includes(f), `${f} is named in the output (valid)`);
  assert.ok(valid.length >= 30, `at least 30 of the 58 real flows are valid (${valid.length}: ${[...invalid].join(', ')} are not)`);
  assert.match(text, new RegExp(`\\b${valid.length} (?:flows? )?valid`), 'the summary counts the valid files');
  assert.match(text, new RegExp(`\\b${invalid.size} (?:flow files? )?invalid`), 'the summary counts the invalid files');

  const at = (file: string, line: number, column: number) => found.filter((p) => p.file === file && p.line === line && p.column === column).map((p) => p.message);
  // Every command of the corpus is one boxflow runs (issue 23): what is left is files the copy does not hold.
  for (const p of found) assert.match(p.message, /no such file|is invalid: /, `${p.file}:${p.line}:${p.column} ${p.message}`);
  // A runFlow file the corpus does not hold is named at the runFlow that calls it.
  assert.match(at('element-x-android/tests/account/login.yaml', 4, 3).join('\n'), /runFlow: no such file .*assertLoginDisplayed\.yaml/);
  // … also inside a retry, where Maestro's own position is the runFlow item (line 16), not the retry (line 5).
  assert.match(at('duckduckgo-android/ad_click_detection_flows/1_-_y.js_heuristic_no_ad_domain_param_u3_param_included_1_1_1.yaml', 16, 9).join('\n'), /no such file .*click_on_fire_button\.yaml/);
  // A flow that runs an invalid flow gets its own verdict, at the runFlow that leads there.
  assert.match(at('duckduckgo-android/deeplink/deeplink_to_serp_with_query.yaml', 12, 9).join('\n'), /runFlow: \S*skip_all_onboarding\.yaml is invalid: .*runScript: no such file/);

  // What Maestro accepts and boxflow runs is not refused: hooks, when/platform, retry, scripts, legacy action, Bluesky's flows.
  for (const f of [
    'duckduckgo-android/bookmarks/open_bookmark_and_navigate_back.yaml',
    'duckduckgo-android/shared/pre_onboarding.yaml',
    'element-x-android/tests/account/verifySession.yaml',
    'element-x-android/tests/assertions/assertInitDisplayed.yaml',
    'mobile-dev-inc-maestro/demo_app/commands/repeat.yaml',
    'mobile-dev-inc-maestro/demo_app/commands/runFlow.yaml',
    'mobile-dev-inc-maestro/web/wikipedia/tour.yaml',
    'rocket-chat-react-native/helpers/go-back.yaml',
    'rocket-chat-react-native/helpers/erase-text.yaml',
    'bluesky-social-app/setupApp.yml',
    'bluesky-social-app/perf-test.yml',
    // Device state, process death, iOS-only keychain (noted when it runs), openLink's Android options (issue 23).
    'mobile-dev-inc-maestro/setOrientation/test-set-orientation-flow.yaml',
    'element-x-android/tests/init.yaml',
    'mobile-dev-inc-maestro/demo_app/commands/launchApp.yaml',
    'mobile-dev-inc-maestro/demo_app/commands/killApp.yaml',
    'mobile-dev-inc-maestro/demo_app/open_link.yaml',
  ]) {
    assert.ok(valid.includes(f), `${f} is valid: ${found.filter((p) => p.file === f).map((p) => `${p.line}:${p.column} ${p.message}`).join(' | ')}`);
  }
});

test('validate on real Maestro flows that boxflow runs entirely: exit 0, each named valid', async () => {
  const files = ['element-x-android/tests/assertions/assertHomeDisplayed.yaml', 'mobile-dev-inc-maestro/web/wikipedia/tour.yaml', 'rocket-chat-react-native/helpers/go-back.yaml'];
  const run = await runCli(['validate', ...files.map((f) => `${kCorpus}/${f}`)], { cwd: repoRoot });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /\b3 flows valid/);
  for (const f of files) assert.ok(run.stdout.includes(f), `${f} is named valid:\n${run.stdout}`);
  assert.equal(run.stderr, '');
});

test('validate on a folder with no flow in it says so (exit 2), not "0 flows valid"', async () => {
  const empty = await runCli(['validate', 'test/fixtures/maestro/real/element-x-android/scripts'], { cwd: repoRoot });
  assert.equal(empty.code, 2, empty.stdout + empty.stderr);
  assert.match(empty.stderr, /no flow files in test\/fixtures\/maestro\/real\/element-x-android\/scripts/);
  assert.doesNotMatch(empty.stdout, /0 flows valid/);
});
