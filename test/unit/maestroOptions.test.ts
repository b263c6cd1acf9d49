// What the Maestro reader (src/flow/maestro.ts) must never drop: every command's label and
// optional, inputRandom*'s length; and a file it cannot parse never stops a folder's discovery.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { discoverFlows, loadFlowFile, type Step } from '../../src/flow/index.js';
import { isMaestroFlow, maestroToBoxflow, parseMaestroYaml } from '../../src/flow/maestro.js';
import { tempDir } from '../support/tmp.js';

const kDir = tempDir('boxflow-maestro-options-');
const kFile = join(kDir, 'flow.yaml');
const flow = (...commands: string[]) => `url: http://127.0.0.1:4173/login\n---\n${commands.join('\n')}\n`;
const mapped = (text: string) => maestroToBoxflow(text, kFile).doc.steps;
const read = (text: string) => parseMaestroYaml(text, kFile).steps;
const bare = (steps: Step[]) => steps.map(({ source: _s, ...rest }) => rest);

test('inputText keeps optional and label: an optional step stays optional', () => {
  const text = flow('- inputText: { text: x, optional: true, label: "L" }', '- inputText: plain');
  assert.deepEqual(mapped(text), [{ type: 'x', label: 'L', optional: true }, { type: 'plain' }], 'in the converted flow');
  assert.deepEqual(bare(read(text)), [
    { kind: 'type', text: 'x', label: 'L', optional: true },
    { kind: 'type', text: 'plain' },
  ]);
});

test('inputRandomText and inputRandomNumber keep their length; the others are named from the table\'s kinds', () => {
  const text = flow(
    '- inputRandomText: { length: 12 }',
    '- inputRandomNumber:\n    length: 5\n    label: five digits\n    optional: true',
    '- inputRandomPersonName',
  );
  assert.deepEqual(mapped(text), [
    { inputRandom: { type: 'text', length: 12 } },
    { inputRandom: { type: 'number', length: 5 }, label: 'five digits', optional: true },
    { inputRandom: 'personName' },
  ]);
  assert.deepEqual(bare(read(text)), [
    { kind: 'inputRandom', type: 'text', length: 12 },
    { kind: 'inputRandom', type: 'number', length: 5, label: 'five digits', optional: true },
    { kind: 'inputRandom', type: 'personName' },
  ]);
  // Never a no-op: an option boxflow cannot honour is an error at its place.
  assert.throws(() => read(flow('- inputRandomText: { lenght: 12 }')), /flow\.yaml:3:22: .*"lenght" is not an option of inputRandomText/);
  assert.throws(() => read(flow('- inputRandomEmail: { length: 12 }')), /flow\.yaml:3:3: .*length applies to text and number, not email/);
});

test('every command keeps its label and optional, bare commands and guarded ones included', () => {
  const commands = [
    'back', 'hideKeyboard', 'pasteText', 'waitForAnimationToEnd', 'scroll', 'stopApp', 'clearState',
  ].map((c) => `- ${c}: { label: "${c}!", optional: true }`);
  commands.push(
    '- pressKey: Enter',
    '- evalScript: { script: "${output.a = 1}", label: "set a", optional: true }',
    '- waitForAnimationToEnd: { timeout: 500, label: "settle" }',
    '- tapOn: { text: Next, repeat: 2, label: "twice" }',
    '- runFlow: { when: { platform: Web }, commands: [back], label: "web only" }',
  );
  const steps = mapped(flow(...commands)) as Record<string, unknown>[];
  for (const [i, name] of ['back', 'hideKeyboard', 'pasteText', 'waitForAnimationToEnd', 'swipe', 'stopApp', 'clearState'].entries()) {
    assert.equal(steps[i]![name] !== undefined, true, `${name}: ${JSON.stringify(steps[i])}`);
    assert.equal(steps[i]!.optional, true, JSON.stringify(steps[i]));
    assert.match(String(steps[i]!.label), /!$/, JSON.stringify(steps[i]));
  }
  assert.deepEqual(steps.slice(7).map((s) => [s.label, s.optional]), [[undefined, undefined], ['set a', true], ['settle', undefined], ['twice', undefined], ['web only', undefined]]);
  assert.equal(steps[9]!.waitForAnimationToEnd, null);
  assert.equal(steps[9]!.timeout, '500ms');
  // They run as boxflow steps: the flow is valid.
  assert.equal(read(flow(...commands)).length, commands.length);
});

test('isMaestroFlow on a file with indented --- and a YAML error gives a verdict, and its load a positioned error', async () => {
  const broken = 'appId: com.example.app\n  ---\n- launchApp\n- tapOn: [unclosed\n';
  assert.doesNotThrow(() => isMaestroFlow(broken));
  assert.equal(isMaestroFlow(broken), true, 'its config says appId: a Maestro flow, whose error must be reported');
  assert.equal(isMaestroFlow('name: notes\n  ---\n  - [unclosed\n'), false, 'no appId or url: not a Maestro flow');
  assert.equal(isMaestroFlow('  ---\nkey: [\n'), false);

  const dir = tempDir('boxflow-maestro-discovery-');
  writeFileSync(join(dir, 'a_broken.yaml'), broken);
  writeFileSync(join(dir, 'b_notes.yaml'), 'name: notes\n  ---\n  - [unclosed\n');
  writeFileSync(join(dir, 'c_login.yaml'), flow('- launchApp'));
  writeFileSync(join(dir, 'd.flow.yaml'), 'steps: [back]\n');
  const found = await discoverFlows([dir]);
  assert.deepEqual(found.map((f) => f.slice(dir.length + 1)), ['a_broken.yaml', 'c_login.yaml', 'd.flow.yaml'], 'discovery of the folder goes on');
  await assert.rejects(loadFlowFile(join(dir, 'a_broken.yaml')), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'FLOW_SYNTAX');
    assert.match(err.message, /a_broken\.yaml:\d+:\d+: YAML: /);
    return true;
  });
});
