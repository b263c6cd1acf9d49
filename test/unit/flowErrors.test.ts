// Every malformed flow under test/fixtures/flows/bad must fail with the exact code, line:col and
// a message that names what is wrong (and the fix, where one is plausible).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BoxflowError } from '../../src/errors.js';
import { loadFlowFile, loadFlows, parseFlowYaml } from '../../src/flow/index.js';
import type { FlowErrorDetails } from '../../src/flow/index.js';
import { codeFrame } from '../../src/flow/codeFrame.js';
import { codeFrameFor } from '../../reporters/common.js';

const kDir = resolve('test/fixtures/flows/bad');

interface Expect {
  code: 'FLOW_SYNTAX' | 'FLOW_SCHEMA' | 'FLOW_NOT_FOUND';
  at: string;
  has: string;
  key?: string;
  suggestion?: string;
  /** The error is located in another file (runFlow targets). */
  file?: string;
}

const kCases: Record<string, Expect> = {
  '001_bad_indent': { code: 'FLOW_SYNTAX', at: '3:4', has: 'All sequence items must start at the same column' },
  '002_unclosed_quote': { code: 'FLOW_SYNTAX', at: '4:1', has: 'Missing closing "quote' },
  '003_tab_indent': { code: 'FLOW_SYNTAX', at: '2:1', has: 'a tab is used for indentation' },
  '004_duplicate_key': { code: 'FLOW_SYNTAX', at: '2:1', has: 'duplicate key "name"', key: 'name' },
  '005_duplicate_key_in_step': { code: 'FLOW_SYNTAX', at: '4:7', has: 'duplicate key "text"', key: 'text' },
  '006_unknown_step': { code: 'FLOW_SCHEMA', at: '3:5', has: 'steps[1]: unknown step "frobnicate"', key: 'frobnicate' },
  '007_misspelt_step': { code: 'FLOW_SCHEMA', at: '2:5', has: 'unknown step "tpa" (did you mean "tap"?)', key: 'tpa', suggestion: 'tap' },
  '008_misspelt_bare_step': { code: 'FLOW_SCHEMA', at: '2:5', has: 'unknown step "closeAllApp" (did you mean "closeAllApps"?)', suggestion: 'closeAllApps' },
  '009_bare_step_needs_arg': { code: 'FLOW_SCHEMA', at: '2:5', has: 'step "tap" needs an argument, e.g. - tap: Login', key: 'tap' },
  '010_unknown_key_in_step': { code: 'FLOW_SCHEMA', at: '3:5', has: 'unknown key "lable" in a tap step (did you mean "label"?)', key: 'lable', suggestion: 'label' },
  '011_two_step_names': { code: 'FLOW_SCHEMA', at: '3:5', has: 'one step per list item: "tap" and "swipe"', key: 'swipe' },
  '012_key_not_indented': { code: 'FLOW_SCHEMA', at: '3:5', has: '"text" belongs to tap: indent it under "tap:"', key: 'text' },
  '013_unknown_selector_key': { code: 'FLOW_SCHEMA', at: '2:12', has: 'steps[0].tap: unknown key "texts" (did you mean "text"?)', key: 'texts', suggestion: 'text' },
  '014_setScale_wrong_type': { code: 'FLOW_SCHEMA', at: '2:15', has: 'steps[0].setScale: must be a number, not the string "big"' },
  '015_setScale_too_big': { code: 'FLOW_SCHEMA', at: '2:15', has: 'must be at most 1, not 1.5' },
  '016_setScale_too_small': { code: 'FLOW_SCHEMA', at: '2:15', has: 'must be at least 0.1, not 0.05' },
  '017_duration_sec': { code: 'FLOW_SCHEMA', at: '2:12', has: '"5 sec" is not a duration', suggestion: '5s' },
  '018_duration_negative': { code: 'FLOW_SCHEMA', at: '2:12', has: '"-1s" is not a duration' },
  '019_duration_bad_unit': { code: 'FLOW_SCHEMA', at: '2:12', has: '"10x" is not a duration: write a number and a unit ms, s, m or h' },
  '020_step_timeout_no_unit': { code: 'FLOW_SCHEMA', at: '3:14', has: 'steps[0].timeout: 10 has no unit', key: 'timeout' },
  '021_key_name_misspelt': { code: 'FLOW_SCHEMA', at: '2:15', has: '"entr" is not a key name (did you mean "enter"?)', suggestion: 'enter' },
  '022_key_combo_ctrl': { code: 'FLOW_SCHEMA', at: '2:15', has: '"ctrl" is not a key name (did you mean "control"?)', suggestion: 'control' },
  '023_key_in_list': { code: 'FLOW_SCHEMA', at: '2:19', has: 'steps[0].pressKey[1]: "entr" is not a key name', suggestion: 'enter' },
  '024_key_in_map_case': { code: 'FLOW_SCHEMA', at: '3:23', has: 'pressKey.keys[1]: "Enter" is not a key name (did you mean "enter"?)' },
  '025_missing_steps': { code: 'FLOW_SCHEMA', at: '1:1', has: 'missing required key "steps"' },
  '026_steps_not_list': { code: 'FLOW_SCHEMA', at: '1:8', has: 'steps: must be a list of steps, not the string "tap"', key: 'steps' },
  '027_steps_empty': { code: 'FLOW_SCHEMA', at: '1:8', has: 'steps: must not be an empty list' },
  '028_empty_file': { code: 'FLOW_SCHEMA', at: '1:1', has: 'the flow is empty' },
  '029_top_level_list': { code: 'FLOW_SCHEMA', at: '1:1', has: 'a flow file is a map, not a list: put the steps under "steps:"' },
  '030_unknown_top_key': { code: 'FLOW_SCHEMA', at: '2:1', has: 'unknown key "stepz" (did you mean "steps"?)', key: 'stepz', suggestion: 'steps' },
  '031_step_at_top_level': { code: 'FLOW_SCHEMA', at: '1:1', has: '"tap" is a step: steps go in the "steps:" list', key: 'tap' },
  '032_bad_point_string': { code: 'FLOW_SCHEMA', at: '2:10', has: '"50%," is not a point: write "x%,y%"' },
  '033_point_off_screen': { code: 'FLOW_SCHEMA', at: '2:10', has: '"150%,20%" is off the screen' },
  '034_point_array_too_long': { code: 'FLOW_SCHEMA', at: '2:10', has: 'steps[0].tap: takes at most 2 items, not 3' },
  '035_swipe_direction': { code: 'FLOW_SCHEMA', at: '2:12', has: '"sideways" must be one of up, down, left, right' },
  '036_screenshots_phase': { code: 'FLOW_SCHEMA', at: '3:27', has: 'screenshots[1]: "aftr" must be one of before, after, trace (did you mean "after"?)' },
  '037_screenshots_wrong_type': { code: 'FLOW_SCHEMA', at: '3:18', has: 'screenshots: must be true, false or a list of before, after, trace' },
  '038_repeat_without_steps': { code: 'FLOW_SCHEMA', at: '2:5', has: 'steps[0].repeat: missing required key "steps"', key: 'repeat' },
  '039_repeat_times_and_while': { code: 'FLOW_SCHEMA', at: '2:5', has: 'repeat: takes times or while, not both' },
  '040_repeat_neither': { code: 'FLOW_SCHEMA', at: '2:5', has: 'repeat: needs either times or while' },
  '041_retry_times_zero': { code: 'FLOW_SCHEMA', at: '3:14', has: 'steps[0].retry.times: must be at least 1, not 0', key: 'times' },
  '042_runFlow_missing_file': { code: 'FLOW_NOT_FOUND', at: '3:5', has: 'runFlow: no such file', key: 'runFlow' },
  '043_runFlow_cycle': {
    code: 'FLOW_SCHEMA',
    at: '3:5',
    file: 'sub/cycle_b.yaml',
    has: 'runFlow: cycle 043_runFlow_cycle.flow.yaml -> cycle_b.yaml -> 043_runFlow_cycle.flow.yaml',
  },
  '044_type_number': { code: 'FLOW_SCHEMA', at: '2:11', has: 'not the number 1234 (quote it: "1234")' },
  '045_openTab_expect_key': { code: 'FLOW_SCHEMA', at: '4:17', has: 'openTab.expect: unknown key "titel" (did you mean "title"?)', suggestion: 'title' },
  '046_installApp_no_apk': { code: 'FLOW_SCHEMA', at: '2:5', has: 'installApp: missing required key "apk"' },
  '047_bad_regex': { code: 'FLOW_SCHEMA', at: '2:20', has: '"/(unclosed/" is not a valid regular expression' },
  '048_tags_not_list': { code: 'FLOW_SCHEMA', at: '1:7', has: 'tags: must be a list, not the string "smoke"' },
  '049_bad_secret_name': { code: 'FLOW_SCHEMA', at: '1:20', has: 'secrets[1]: "my-secret" is not a variable name' },
  '050_env_bad_name': { code: 'FLOW_SCHEMA', at: '2:3', has: 'env: "my-var" is not a variable name', key: 'my-var' },
  '051_flow_map_comma': { code: 'FLOW_SCHEMA', at: '2:38', has: 'Inside { } a comma separates keys: quote a value' },
  '052_threshold_range': { code: 'FLOW_SCHEMA', at: '2:48', has: 'assertScreenshot.threshold: must be at most 1, not 2' },
  '053_nested_repeat_error': { code: 'FLOW_SCHEMA', at: '6:11', has: 'steps[0].repeat.steps[1]: unknown step "tpa" (did you mean "tap"?)' },
  '054_onFinish_bad_step': { code: 'FLOW_SCHEMA', at: '4:19', has: 'onFinish[0].closeBrowser: must be empty (this step takes no argument)' },
  '055_longPress_duration': { code: 'FLOW_SCHEMA', at: '2:41', has: 'longPress.duration: "fast" is not a duration' },
  '056_drag_path_short': { code: 'FLOW_SCHEMA', at: '3:13', has: 'drag.path: needs at least 2 items, not 1' },
  '057_setResolution_missing': { code: 'FLOW_SCHEMA', at: '2:5', has: 'setResolution: missing required key "height"' },
  '058_count_negative': { code: 'FLOW_SCHEMA', at: '2:39', has: 'assertLayout.count: must be at least 0, not -1' },
  '059_multiple_documents': { code: 'FLOW_SYNTAX', at: '3:1', has: 'a flow file holds one YAML document' },
  '060_condition_two_keys': { code: 'FLOW_SCHEMA', at: '4:7', has: 'runFlow.when: takes only one of: visible, notVisible' },
  '061_null_step': { code: 'FLOW_SCHEMA', at: '3:4', has: 'steps[1]: a step must be a map such as "- tap: Login" or a bare step name, not empty' },
  '062_index_fraction': { code: 'FLOW_SCHEMA', at: '2:31', has: 'tap.index: must be a whole number, not the number 1.5' },
  '063_flow_timeout': { code: 'FLOW_SCHEMA', at: '1:10', has: 'timeout: "2 minutes" is not a duration', suggestion: '2m' },
  '064_closeAllApps_arg': { code: 'FLOW_SCHEMA', at: '2:21', has: 'closeAllApps: takes no keys, found "force"' },
  '065_relative_selector_key': { code: 'FLOW_SCHEMA', at: '4:16', has: 'tap.below: unknown key "txt" (did you mean "text"?)' },
  '066_drag_missing_to': { code: 'FLOW_SCHEMA', at: '2:5', has: 'steps[0].drag: missing required key "to"' },
  '067_max_without_while': { code: 'FLOW_SCHEMA', at: '2:25', has: 'repeat.max: max only applies to repeat with while' },
  '068_screenshot_name_dotdot': { code: 'FLOW_SCHEMA', at: '2:17', has: '"../escape" must be a relative name' },
};

async function failure(path: string): Promise<BoxflowError> {
  try {
    await loadFlowFile(path);
  } catch (err) {
    assert.ok(BoxflowError.is(err), `not a BoxflowError: ${String(err)}`);
    return err;
  }
  assert.fail(`${path} loaded without an error`);
}

test('every bad fixture has an expectation and vice versa', () => {
  const files = readdirSync(kDir).filter((f) => f.endsWith('.flow.yaml')).map((f) => f.replace('.flow.yaml', ''));
  assert.deepEqual(files.sort(), Object.keys(kCases).sort());
  assert.ok(files.length >= 40);
});

for (const [name, want] of Object.entries(kCases)) {
  test(`bad flow ${name}: ${want.code} at ${want.at}`, async () => {
    const file = join(kDir, `${name}.flow.yaml`);
    const err = await failure(file);
    const [line, column] = want.at.split(':').map(Number);
    assert.ok(line !== undefined, want.at);
    const where = want.file ? join(kDir, want.file) : file;
    assert.equal(err.code, want.code, err.message);
    const head = err.message.split('\n')[0]!;
    assert.ok(head.startsWith(`${where}:${want.at}: `), head);
    assert.ok(head.includes(want.has), `"${head}" lacks "${want.has}"`);
    const d = err.details as FlowErrorDetails;
    assert.deepEqual([d.file, d.line, d.column], [where, line, column]);
    if (want.key !== undefined) assert.equal(d.key, want.key);
    if (want.suggestion !== undefined) assert.equal(d.suggestion, want.suggestion);
    assert.ok(d.frame?.includes(`> ${String(line).padStart(String(line + 1).length)} |`), d.frame);
    assert.ok(!head.includes('instancePath') && !head.includes('"keyword"'), 'raw ajv output leaked');
  });
}

test('the code frame shows three lines with a caret under the column', () => {
  const text = 'name: frame\nsteps:\n  - tap: Login\n  - swipe: sideways\n  - sleep: 1s\n';
  const err = (() => {
    try {
      parseFlowYaml(text, '/flows/frame.flow.yaml');
    } catch (e) {
      return e as BoxflowError;
    }
    assert.fail('no error');
  })();
  assert.equal(
    err.message,
    [
      '/flows/frame.flow.yaml:4:12: steps[1].swipe: "sideways" must be one of up, down, left, right',
      '',
      '  3 |   - tap: Login',
      '> 4 |   - swipe: sideways',
      '    |            ^',
      '  5 |   - sleep: 1s',
    ].join('\n'),
  );
});

test("a code frame never quotes the value of a secret the file names, from its env or the environment", () => {
  const failure = (text: string) => {
    try {
      parseFlowYaml(text, '/flows/secret.flow.yaml');
    } catch (e) {
      return e as BoxflowError;
    }
    assert.fail('no error');
  };
  process.env.BOXFLOW_TEST_PIN = '8642-from-env';
  try {
    const schema = failure('secrets: [TOKEN, BOXFLOW_TEST_PIN]\nenv: { TOKEN: hunter2-file, USER: demo }\ntmeout: 5s # PIN 8642-from-env\nsteps:\n  - tap: Login\n');
    assert.match(schema.message, /^\/flows\/secret\.flow\.yaml:3:1: /);
    assert.match(schema.message, /> 3 \| tmeout: 5s # PIN \*\*\*/);
    assert.match(schema.message, /env: \{ TOKEN: \*\*\*, USER: demo \}/, 'the frame is still shown, the secret hidden');
    for (const shown of [schema.message, JSON.stringify(schema.details)]) {
      assert.ok(!shown.includes('hunter2-file') && !shown.includes('8642-from-env'), shown);
    }
    // A YAML syntax error right below: what reads of the document still names the secret.
    const syntax = failure('secrets: [TOKEN]\nenv: { TOKEN: hunter2-file }\n  bad: indent\nsteps:\n  - tap: Login\n');
    assert.equal(syntax.code, 'FLOW_SYNTAX');
    assert.match(syntax.message, /  2 \| env: \{ TOKEN: \*\*\* \}\n> 3 \|   bad: indent/);
  } finally {
    delete process.env.BOXFLOW_TEST_PIN;
  }
});

test('a reporter reading the flow file prints the same frame as validate and the runner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-frame-'));
  try {
    const text = 'name: frame\nsteps:\n  - tap: Login\n  - swipe: sideways\n  - sleep: 1s\n';
    writeFileSync(join(dir, 'frame.flow.yaml'), text);
    assert.equal(codeFrameFor(dir, { file: 'frame.flow.yaml', line: 4, column: 12 }), codeFrame(text, 4, 12));
    assert.equal(codeFrameFor(dir, { file: 'frame.flow.yaml', line: 4, column: 12 }, 'the runner\'s own snippet'), 'the runner\'s own snippet');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a frame at the last line shows no empty line for the final newline; column 0 draws no caret', () => {
  const text = 'name: frame\nsteps:\n  - tap: Login\n';
  assert.equal(codeFrame(text, 3, 0), ['  2 | steps:', '> 3 |   - tap: Login'].join('\n'));
  assert.equal(codeFrame('a: "x\n', 2, 1), ['  1 | a: "x', '> 2 |', '    | ^'].join('\n'), 'an error after the final newline still points there');
  assert.equal(codeFrame('\tname: x\n', 1, 3), ['> 1 | \tname: x', '    | \t ^'].join('\n'), 'a tab before the column stays a tab');
});

test('loadFlows reports every broken file, each error once, and still returns the good flows', async () => {
  const { flows, errors } = await loadFlows(['test/fixtures/flows/bad', 'test/fixtures/flows/good/minimal.flow.yaml', 'no/such/dir']);
  assert.deepEqual(flows.map((f) => f.name), ['minimal']);
  assert.equal(errors.length, Object.keys(kCases).length + 1);
  assert.equal(new Set(errors).size, errors.length);
  assert.equal(errors.find((e) => e.code === 'FLOW_NOT_FOUND' && e.message.startsWith('no/such/dir'))?.code, 'FLOW_NOT_FOUND');
});

test('a sub-flow error is reported once though two flows run it', async () => {
  const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const dir = await mkdtemp(join(tmpdir(), 'boxflow-flow-'));
  try {
    await writeFile(join(dir, 'a.flow.yaml'), 'steps:\n  - runFlow: shared.yaml\n');
    await writeFile(join(dir, 'b.flow.yaml'), 'steps:\n  - runFlow: shared.yaml\n');
    await writeFile(join(dir, 'shared.yaml'), 'steps:\n  - tap: ok\n  - sleeep: 1s\n');
    const { flows, errors } = await loadFlows([dir]);
    assert.equal(flows.length, 0);
    assert.equal(errors.length, 1);
    assert.ok(errors[0]!.message.startsWith(`${join(dir, 'shared.yaml')}:3:5: steps[1]: unknown step "sleeep" (did you mean "sleep"?)`), errors[0]!.message);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
