// Maestro flow files read as boxflow flows (src/flow/maestro.ts), with Maestro's parsing quirks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { discoverFlows, type Step } from '../../src/flow/index.js';
import { isMaestroFlow, parseMaestroYaml } from '../../src/flow/maestro.js';
import { parseHtml, query } from '../../src/layout/index.js';
import { tempDir } from '../support/tmp.js';

const read = (text: string) => parseMaestroYaml(text, '/m/flow.yaml');
const bare = (steps: Step[]): unknown[] => steps.map(({ source: _s, ...rest }) => ('steps' in rest ? { ...rest, steps: bare(rest.steps as Step[]) } : rest));
const flow = (...commands: string[]) => `appId: com.example.app\n---\n${commands.join('\n')}\n`;

test('a Maestro file is a config map with appId or url, ---, and a command list', () => {
  assert.equal(isMaestroFlow(flow('- launchApp')), true);
  assert.equal(isMaestroFlow('# c\n---\nurl: https://x.test\n---\n- back\n'), true);
  assert.equal(isMaestroFlow('steps:\n  - back\n'), false);
  assert.equal(isMaestroFlow('name: x\n---\n- back\n'), false, 'no appId or url');
  const f = read('appId: com.a\nurl: http://127.0.0.1:4173/\nname: N\ntags: [t]\nenv: {A: 1}\n---\n- back\n');
  assert.equal(f.appId, 'http://127.0.0.1:4173/', 'url beats appId');
  assert.equal(f.name, 'N');
  assert.deepEqual(f.tags, ['t']);
  assert.deepEqual(f.env, { A: '1' });
});

test('commands map to boxflow steps with Maestro meaning', () => {
  const f = read(
    flow(
      '- launchApp:',
      '    clearState: yes', // YAML 1.1: yes is true
      '    stopApp: false',
      '- stopApp',
      '- hide keyboard',
      '- action: back',
      '- eraseText', // Maestro: 50 characters
      '- eraseText: 3',
      '- inputText: 123456',
      '- inputRandomEmail',
      '- pressKey: enter',
      '- pressKey: Home',
      '- extendedWaitUntil: { notVisible: Loading, timeout: 10_000 }',
      '- waitForAnimationToEnd: { timeout: 3000 }',
      '- evalScript: ${output.a = 1}',
      '- retry: { maxRetries: 9, commands: [back] }',
      '- retry: { maxRetries: "3.0", commands: [back] }',
      '- repeat: { times: 2, commands: [back] }',
      '- runFlow: { commands: [back] }',
      '- takeScreenshot: home',
      '- tapOn: { point: "50%, 80%" }',
    ),
  );
  assert.deepEqual(bare(f.steps), [
    // Maestro grants every permission the app asks for at each launch, unless told otherwise.
    { kind: 'launchApp', clearState: true, stopApp: false, permissions: { all: 'allow' } },
    { kind: 'stopApp' },
    { kind: 'hideKeyboard' },
    { kind: 'back' },
    { kind: 'eraseText', chars: 50 },
    { kind: 'eraseText', chars: 3 },
    { kind: 'type', text: '123456' },
    { kind: 'inputRandom', type: 'email' },
    { kind: 'pressKey', keys: ['enter'], combination: false },
    { kind: 'home' },
    { kind: 'assertNotVisible', selector: { text: '/^Loading$/i' }, timeout: 10_000 },
    { kind: 'waitForAnimationToEnd', timeout: 3000 },
    { kind: 'evalScript', script: 'output.a = 1' },
    { kind: 'retry', times: 3, steps: [{ kind: 'back' }] },
    { kind: 'retry', times: 1, steps: [{ kind: 'back' }] },
    { kind: 'repeat', times: 2, steps: [{ kind: 'back' }] },
    { kind: 'runFlow', steps: [{ kind: 'back' }] },
    { kind: 'screenshot', name: 'home' },
    { kind: 'tap', target: { percent: { x: 50, y: 80 } } },
  ] as never);
});

test('text and id selectors match the whole string, case-insensitively, as regex or literally; id also after the last /', () => {
  const f = read(flow('- assertVisible: "price (usd)"', '- assertVisible: { id: "btn_.*" }', '- assertVisible: "Sign in"'));
  const tree = parseHtml('<html><body><p>Price (USD)</p><button id="pkg:id/btn_go">Go</button><p>Sign in now</p></body></html>');
  const sel = (i: number) => (f.steps[i] as Step & { selector: never }).selector;
  assert.equal(query(tree, sel(0)).length, 1, 'literal match of a pattern with parentheses, any case');
  assert.equal(query(tree, sel(1)).length, 1, 'id regex matches the part after /');
  assert.equal(query(tree, sel(2)).length, 0, '"Sign in" does not match "Sign in now": whole-string match');
});

test('every command boxflow cannot run is a load-time error at its line and column, all of them at once', () => {
  const text = flow('- launchApp', '- setOrientation: LANDSCAPE', '- tapOn: Next', '- clearKeychain', '- tapOn: A', '  optional: true', '- back:', '- TapOn: X');
  let message = '';
  try {
    read(text);
  } catch (err) {
    message = (err as Error).message;
  }
  assert.match(message, /4 problems/);
  assert.match(message, /flow\.yaml:4:3: Maestro command "setOrientation" is not supported: orientation is portrait, landscape_left, landscape_right or upside_down \(any case\), not "LANDSCAPE"/);
  assert.doesNotMatch(message, /clearKeychain/, 'clearKeychain is iOS-only: accepted and noted when it runs, as Maestro ignores it on Android');
  assert.match(message, /flow\.yaml:8:3: Maestro command "tapOn" is not supported: one command per list item; "optional" is a second key/);
  assert.match(message, /flow\.yaml:9:3: Maestro command "back" is not supported: "- back:" needs options/);
  assert.match(message, /flow\.yaml:10:3: "TapOn" is not a Maestro command \(did you mean "tapOn"\?\)/);
});

test('a folder yields its top-level Maestro flows, not config.yaml, not the sub-flows below it', async () => {
  const dir = tempDir('boxflow-maestro-');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'login.yaml'), flow('- back'));
  writeFileSync(join(dir, 'config.yaml'), 'flows:\n  - "*"\n');
  writeFileSync(join(dir, 'notes.yaml'), 'a: 1\n');
  writeFileSync(join(dir, 'sub/part.yaml'), flow('- back'));
  assert.deepEqual(await discoverFlows([dir]), [join(dir, 'login.yaml')]);
});
