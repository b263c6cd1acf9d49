// One meaning for each step (issue 20, item 4): the step table (src/flow/steps.ts) gives every step
// its label, and boxflow's reports (runner/label.ts), Playwright's step titles (playwright/titles.ts)
// and the TS API (flow/tsApi.ts, also behind boxflow/test's matchers) all take it from there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kStepNames, normalizeStep, stepDefs, type Step, type StepDef } from '../../src/flow/index.js';
import { flowApi, tsStep } from '../../src/flow/tsApi.js';
import { Masker } from '../../src/mask.js';
import { stepLabel } from '../../src/runner/label.js';
import { stepTitle } from '../../src/playwright/titles.js';

const src = { file: '/p/flows/a.flow.yaml', line: 1, column: 1 };
const step = (raw: Record<string, unknown> | string) => normalizeStep(raw, src);

/** Every step kind of the table, in each of the forms its label tells apart. */
const kSamples: Record<string, (Record<string, unknown> | string)[]> = {
  tap: [{ tap: { css: '#email' } }, { tap: 'Login' }, { tap: [10, 20] }, { tap: '50%,80%' }, { tap: { prompt: 'the blue button' } }, { tap: { text: 'OK', below: { id: 'title' } } }],
  longPress: [{ longPress: 'Photo' }, { longPress: { text: 'Photo', duration: '2s' } }],
  doubleTap: [{ doubleTap: { css: '.todo label' } }],
  hover: [{ hover: { text: 'Products' } }],
  selectOption: [{ selectOption: { id: 'country', label: 'France' } }, { selectOption: { id: 'country', value: 'fr' } }],
  fill: [{ fill: { css: '#birthday', value: '2024-02-29' } }],
  check: [{ check: { id: 'terms' } }],
  uncheck: [{ uncheck: { id: 'newsletter' } }],
  uploadFile: [{ uploadFile: { css: 'input[type=file]', files: ['a/one.png', 'two.png'] } }],
  assertUrl: [{ assertUrl: '/\\/welcome$/' }],
  assertTitle: [{ assertTitle: 'Welcome' }],
  assertClipboard: [{ assertClipboard: 'ORDER-1234' }, { assertClipboard: '/^ORDER-\\d+$/' }],
  swipe: [{ swipe: 'up' }, { swipe: { direction: 'down', on: { css: '#items' } } }, { swipe: { from: [1, 2], to: '50%,10%' } }],
  drag: [{ drag: { from: { text: 'Card' }, to: '50%,20%' } }, { drag: { path: [[0, 0], [5, 5], [9, 9]] } }],
  scrollUntilVisible: [{ scrollUntilVisible: { text: 'Settings', direction: 'up' } }],
  pressKey: [{ pressKey: 'control+a' }, { pressKey: ['tab', 'enter'] }],
  type: [{ type: 'demo@example.com' }, { type: { text: 'x', pressEnter: true } }],
  setScale: [{ setScale: 0.5 }],
  setResolution: [{ setResolution: { width: 1280, height: 800 } }],
  installApp: [{ installApp: 'https://example.com/apps/app.apk' }],
  closeAllApps: ['closeAllApps'],
  assertPackage: [{ assertPackage: 'com.example.app' }],
  openTab: [{ openTab: '/login' }],
  closeBrowser: ['closeBrowser'],
  renameFile: [{ renameFile: { from: 'a.txt', to: 'b.txt' } }],
  runCommand: [{ runCommand: 'npm run seed' }, { runCommand: { command: 'npm run seed', expectExit: 0 } }],
  deleteMedia: [{ deleteMedia: { album: 'Camera', media: 'p.png' } }],
  deleteAlbum: [{ deleteAlbum: 'Camera' }],
  webTerminal: ['webTerminal'],
  cdpUrl: ['cdpUrl'],
  assertVisible: [{ assertVisible: { textContains: '3 items' } }],
  assertNotVisible: [{ assertNotVisible: { text: 'Item', index: 2 } }],
  assertLayout: [{ assertLayout: { css: 'li', count: 3 } }, { assertLayout: { selector: 'Welcome', text: 'Welcome back', count: 1 } }],
  assertScreenshot: [{ assertScreenshot: { name: 'home', mask: [{ id: 'clock' }] } }],
  screenshot: [{ screenshot: 'after-login' }],
  sleep: [{ sleep: '500ms' }],
  runFlow: [{ runFlow: 'sub/login.flow.yaml' }],
  repeat: [{ repeat: { times: 2, steps: [{ tap: 'Next' }] } }, { repeat: { while: { visible: 'More' }, max: 1, steps: ['back'] } }],
  retry: [{ retry: { times: 2, steps: [{ tap: 'Reload' }] } }],
  launchApp: ['launchApp', { launchApp: 'com.example.app' }],
  stopApp: ['stopApp', { stopApp: 'com.example.app' }],
  clearState: [{ clearState: 'com.example.app' }],
  back: ['back'],
  home: ['home'],
  hideKeyboard: ['hideKeyboard'],
  eraseText: ['eraseText', { eraseText: 3 }],
  openLink: [{ openLink: 'myapp://home' }],
  waitForAnimationToEnd: ['waitForAnimationToEnd'],
  copyTextFrom: [{ copyTextFrom: { id: 'order' } }],
  pasteText: ['pasteText'],
  inputRandom: [{ inputRandom: 'email' }, { inputRandom: { type: 'text', length: 12 } }],
  assertTrue: [{ assertTrue: '${output.count > 2}' }],
  evalScript: [{ evalScript: 'output.total =\n  2' }],
  runScript: [{ runScript: 'scripts/setup.js' }],
  setDevice: [{ setDevice: { airplaneMode: true } }, { setDevice: { location: { latitude: 52.5, longitude: 13.4 }, permissions: { camera: 'allow' }, appId: 'com.example.app' } }, { setDevice: { location: { path: ['52.5,13.4', '52.6,13.5'] } } }],
  assertDevice: [{ assertDevice: { darkMode: true } }],
  record: [{ record: { start: 'checkout' } }, { record: 'stop' }],
};

test('every step kind of the table gets the same label in boxflow\'s reports and the same title in Playwright\'s', () => {
  assert.deepEqual(Object.keys(kSamples).sort(), [...kStepNames].sort(), 'a sample for every step of the table');
  const masker = new Masker([]);
  for (const raw of Object.values(kSamples).flat()) {
    const s = step(raw);
    const label = stepLabel(s);
    assert.equal(stepTitle(s, '/p', masker), label, JSON.stringify(raw));
    assert.doesNotMatch(label, /"\w+":|\{\w+: /, `reads like the step, not like JSON/a selector map: ${label}`);
    const labelled = step(typeof raw === 'string' ? { [raw]: null, label: 'My step' } : { ...raw, label: 'My step' });
    assert.equal(stepTitle(labelled, '/p', masker), 'My step', 'a step\'s own label titles it in both');
  }
  // The examples of the issue.
  assert.equal(stepTitle(step({ tap: { css: '#email' } }), '/p', masker), 'tap #email');
  assert.equal(stepTitle(step({ runFlow: 'sub/login.flow.yaml' }), '/p', masker), 'runFlow login.flow.yaml');
});

test('a secret is masked in a label and a title before the value is cut short', () => {
  const secret = 'hunter2-hunter2';
  const masker = new Masker([secret]);
  const s = step({ type: secret });
  const title = stepTitle(s, '/p', masker);
  assert.equal(title, 'type "***"');
  assert.equal(stepLabel(s, { mask: (t) => masker.text(t) }), title);
  assert.ok(!title.includes('hunter'), title);
});

function recorder() {
  const steps: Step[] = [];
  const api = flowApi({ runStep: async (s) => void steps.push(s), info: { id: 'b1', type: 'linux' }, page: () => Promise.reject(new Error('no page')) });
  return { steps, ...api };
}
const bare = (s: Step) => {
  const { source: _s, ...rest } = s;
  return rest;
};

test('toHaveLayout means the same in a TS flow and in boxflow/test: text is the expected text of the selector\'s match', async () => {
  const spec = { selector: 'Welcome', text: 'Welcome back', count: 1 };
  const { steps, box, expect } = recorder();
  await expect(box).toHaveLayout(spec);
  await expect(box).toHaveLayout({ selector: { css: 'h1' }, text: 'Sign in', attributes: { role: 'heading' } }, { timeout: 500 });
  assert.deepEqual(bare(steps[0]!), { kind: 'assertLayout', selector: 'Welcome', text: 'Welcome back', count: 1 });
  assert.deepEqual(bare(steps[1]!), { kind: 'assertLayout', selector: { css: 'h1' }, text: 'Sign in', attributes: { role: 'heading' }, timeout: 500 });
  // boxflow/test's matcher runs tsStep('assertLayout', spec): the very step the TS flow ran.
  assert.deepEqual(bare(step(tsStep('assertLayout', spec))), bare(steps[0]!));
  assert.equal(stepLabel(steps[0]!), 'assertLayout "Welcome" count 1 text "Welcome back"');
});

test('the TS API is built from the table: each method and matcher runs its step, options in their place', async () => {
  const { steps, box, expect } = recorder();
  const tsOf = (n: (typeof kStepNames)[number]) => (stepDefs[n] as StepDef).ts;
  const methods = kStepNames.filter((n) => tsOf(n)?.method);
  const fns = Object.entries(box).filter(([, v]) => typeof v === 'function').map(([k]) => k);
  // Besides the table's steps: box.step (any step) and box.page() (the tab as a Playwright Page).
  assert.deepEqual(fns.sort(), [...methods.map((n) => tsOf(n)!.method!), 'step', 'page'].sort());
  await box.tap('Login', { label: 'sign in', timeout: 500 });
  await box.longPress({ x: 10, y: 20 }, { duration: '2s' });
  await box.longPress('Photo', { duration: '2s', optional: true });
  await box.back({ label: 'close' });
  await box.launchApp();
  await box.eraseText(3);
  await expect(box).toShow('Welcome');
  await expect(box).not.toShow({ text: 'Error' });
  await expect(box).toMatchScreenshot('home', { maxDiffPixels: 5, timeout: 2000 });
  await expect(box).toMatchScreenshot('plain');
  assert.deepEqual(steps.map(bare), [
    { kind: 'tap', target: { selector: 'Login' }, label: 'sign in', timeout: 500 },
    { kind: 'longPress', target: { point: { x: 10, y: 20 } }, duration: 2000 },
    { kind: 'longPress', target: { selector: { text: 'Photo' } }, duration: 2000, optional: true },
    { kind: 'back', label: 'close' },
    { kind: 'launchApp', stopApp: true },
    { kind: 'eraseText', chars: 3 },
    { kind: 'assertVisible', selector: 'Welcome' },
    { kind: 'assertNotVisible', selector: { text: 'Error' } },
    { kind: 'assertScreenshot', name: 'home', maxDiffPixels: 5, timeout: 2000 },
    { kind: 'assertScreenshot', name: 'plain' },
  ]);
  // A "x%,y%" point has no map form to hold a duration: refused, not read as the text "50%,80%".
  await assert.rejects(box.longPress('50%,80%', { duration: '2s' }), { code: 'STEP_INVALID' });
});
