// Good flows (YAML and TypeScript) normalise into the Step model the runner consumes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BoxflowError } from '../../src/errors.js';
import { callerLocation, discoverFlows, flow, isFlowDefinition, loadFlowFile, normalizeStep, parseFlowYaml } from '../../src/flow/index.js';
import type { Step } from '../../src/flow/index.js';

const kGood = resolve('test/fixtures/flows/good');
const kTs = resolve('test/fixtures/flows/ts');

type Bare<T> = T extends unknown ? Omit<T, 'source'> : never;
function strip(steps: Step[]): Bare<Step>[] {
  return steps.map((s) => {
    const { source: _source, ...rest } = s as Step & { steps?: Step[] };
    if ('steps' in rest && Array.isArray(rest.steps)) (rest as { steps: unknown }).steps = strip(rest.steps);
    return rest as Bare<Step>;
  });
}

test('every step and shorthand normalises to the expected Step', async () => {
  const f = await loadFlowFile(join(kGood, 'all_steps.flow.yaml'));
  assert.equal(f.name, 'Every step and shorthand');
  assert.equal(f.file, join(kGood, 'all_steps.flow.yaml'));
  assert.deepEqual(f.tags, ['smoke', 'all']);
  assert.equal(f.box, 'linux');
  assert.deepEqual(f.env, { USER: 'demo@example.com', PORT: '4173', DEBUG: 'true' });
  assert.deepEqual(f.secrets, ['PASSWORD']);
  assert.equal(f.timeout, 120_000);
  assert.deepEqual(strip(f.onStart), [{ kind: 'openTab', url: 'http://127.0.0.1:${PORT}/login' }]);
  assert.deepEqual(strip(f.onFinish), [{ kind: 'closeBrowser' }]);
  const sub = join(kGood, 'subflows/login.yaml');
  assert.deepEqual(strip(f.steps), [
    { kind: 'tap', target: { selector: 'Login' } },
    { kind: 'tap', target: { selector: { css: '#email', index: 1 } } },
    { kind: 'tap', target: { point: { x: 10, y: 20 } } },
    { kind: 'tap', target: { point: { x: 30, y: 40 } } },
    { kind: 'tap', target: { percent: { x: 50, y: 80 } } },
    { kind: 'tap', target: { prompt: 'the blue button' } },
    { kind: 'tap', target: { selector: { text: 'Edit', below: { text: 'Name' }, enabled: true } } },
    { kind: 'longPress', target: { selector: 'Photo' }, duration: 1000 },
    { kind: 'longPress', target: { selector: { text: 'Photo' } }, duration: 2000 },
    { kind: 'longPress', target: { point: { x: 1, y: 2 } }, duration: 300 },
    { kind: 'swipe', direction: 'up' },
    { kind: 'swipe', from: { percent: { x: 50, y: 80 } }, to: { percent: { x: 50, y: 20 } }, duration: 300 },
    { kind: 'swipe', direction: 'left', on: { id: 'carousel' } },
    { kind: 'drag', from: { selector: { text: 'Card' } }, to: { point: { x: 100, y: 200 } }, duration: 1000 },
    { kind: 'drag', path: [{ x: 0, y: 0 }, { x: 10, y: 10 }, { x: 20, y: 20 }], interval: 20 },
    { kind: 'scrollUntilVisible', selector: 'Settings', direction: 'down', maxSwipes: 10 },
    { kind: 'scrollUntilVisible', selector: { text: 'About' }, direction: 'up', maxSwipes: 5 },
    { kind: 'pressKey', keys: ['enter'], combination: false },
    { kind: 'pressKey', keys: ['a', 'b'], combination: false },
    { kind: 'pressKey', keys: ['control', 'a'], combination: true },
    { kind: 'pressKey', keys: ['control', 'shift', 't'], combination: true },
    { kind: 'pressKey', keys: ["'", '\\'], combination: false },
    { kind: 'type', text: '${USER}' },
    { kind: 'type', text: '${env.PASSWORD}', mode: 'replace', pressEnter: true },
    { kind: 'setScale', scale: 0.5 },
    { kind: 'setResolution', width: 1280, height: 800 },
    { kind: 'installApp', apk: join(kGood, 'app.apk') },
    { kind: 'installApp', apk: 'https://example.test/app.apk', open: true },
    { kind: 'closeAllApps' },
    { kind: 'closeAllApps', label: 'Clean slate' },
    { kind: 'assertPackage', package: 'com.example.app' },
    { kind: 'assertPackage', package: 'com.example.app', installed: true, running: false, type: 'thirdParty', version: '1.2', launcher: true },
    { kind: 'openTab', url: 'http://127.0.0.1:4173/' },
    { kind: 'openTab', url: 'http://127.0.0.1:4173/shop', expect: { title: 'Shop', url: '/shop' } },
    { kind: 'closeBrowser' },
    { kind: 'renameFile', from: 'a.txt', to: 'b.txt', workingDir: '/tmp' },
    { kind: 'deleteMedia', album: 'Camera', media: 'photo.png' },
    { kind: 'deleteAlbum', album: 'Camera' },
    { kind: 'deleteAlbum', album: 'Screenshots' },
    { kind: 'webTerminal' },
    { kind: 'cdpUrl' },
    { kind: 'assertVisible', selector: 'Welcome' },
    { kind: 'assertVisible', selector: { text: '/Welcome, .+/i' } },
    { kind: 'assertNotVisible', selector: { textContains: 'Loading' } },
    { kind: 'assertLayout', selector: { class: 'li' }, count: 3 },
    { kind: 'assertLayout', selector: { id: 'title' }, text: 'Shop', attributes: { role: 'heading' } },
    { kind: 'assertScreenshot', name: 'home' },
    {
      kind: 'assertScreenshot',
      name: 'cart',
      threshold: 0.2,
      maxDiffPixels: 10,
      maxDiffPixelRatio: 0.01,
      mask: [{ id: 'clock' }, { x: 0, y: 0, width: 10, height: 10 }, 'Ads'],
      clip: { css: 'main' },
    },
    { kind: 'screenshot', name: 'after-login' },
    { kind: 'sleep', ms: 500 },
    { kind: 'runFlow', file: sub },
    { kind: 'runFlow', file: sub, env: { USER: 'bob', N: '2' }, when: { visible: 'Login' } },
    { kind: 'repeat', times: 3, steps: [{ kind: 'tap', target: { selector: 'Next' } }] },
    {
      kind: 'repeat',
      while: { notVisible: 'Done' },
      max: 10,
      steps: [{ kind: 'tap', target: { selector: 'More' } }, { kind: 'sleep', ms: 1000 }],
    },
    { kind: 'retry', times: 2, steps: [{ kind: 'tap', target: { selector: 'Reload' } }] },
    { kind: 'tap', target: { selector: 'Submit' }, label: 'Send the form', optional: true, timeout: 10_000, screenshots: ['before', 'trace'] },
    { kind: 'tap', target: { selector: 'Quiet' }, screenshots: false }, ...webSteps(), { kind: 'runCommand', command: 'echo ready' }, { kind: 'runCommand', command: 'exit 3', workingDir: '/work', expectExit: 3 },
  ]);
  const kinds = new Set(f.steps.map((s) => s.kind));
  const { kStepNames } = await import('../../src/flow/index.js');
  assert.deepEqual(kStepNames.filter((n) => !kinds.has(n)), [], 'a step has no good example');
});

test('each step carries the file:line:col of its list entry, nested steps too', async () => {
  const file = join(kGood, 'all_steps.flow.yaml');
  const f = await loadFlowFile(file);
  assert.deepEqual(f.steps[0]!.source, { file, line: 13, column: 5 });
  assert.deepEqual(f.onStart[0]!.source, { file, line: 9, column: 5 });
  const repeat = f.steps.find((s) => s.kind === 'repeat' && s.while) as Step & { kind: 'repeat' };
  assert.deepEqual(repeat.source, { file, line: 73, column: 5 });
  assert.deepEqual(repeat.steps.map((s) => `${s.source.line}:${s.source.column}`), ['77:11', '78:11']);
  assert.deepEqual(f.source, { file, line: 1, column: 1 });
});

test('the name defaults to the file name without .flow.yaml', () => {
  assert.equal(parseFlowYaml('steps: [closeBrowser]\n', '/x/checkout.flow.yaml').name, 'checkout');
  assert.equal(parseFlowYaml('steps: [closeBrowser]\n', '/x/plain.yml').name, 'plain');
});

test('discoverFlows finds *.flow.yaml, *.flow.yml and *.flow.ts recursively and takes named files whatever their name', async () => {
  const found = await discoverFlows(['test/fixtures/flows/good', 'test/fixtures/flows/good/subflows/login.yaml'], process.cwd());
  assert.deepEqual(found, [
    join(kGood, 'all_steps.flow.yaml'),
    join(kGood, 'minimal.flow.yaml'),
    join(kGood, 'nested/deep.flow.yml'),
    join(kGood, 'subflows/login.yaml'),
  ]);
  const ts = await discoverFlows(['ts'], resolve('test/fixtures/flows'));
  assert.ok(ts.every((f) => f.endsWith('.flow.ts')) && ts.length === 6, ts.join());
  await assert.rejects(discoverFlows(['nope.flow.yaml'], kGood), (e: BoxflowError) => e.code === 'FLOW_NOT_FOUND' && e.message.includes('nope.flow.yaml'));
});

test('loadFlowFile on a missing file is FLOW_NOT_FOUND', async () => {
  await assert.rejects(loadFlowFile(join(kGood, 'missing.flow.yaml')), (e: BoxflowError) => e.code === 'FLOW_NOT_FOUND');
});

test('runFlow targets are loaded and validated with their own runFlow targets', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'boxflow-flow-'));
  try {
    await mkdir(join(dir, 'lib'));
    await writeFile(join(dir, 'main.flow.yaml'), 'steps:\n  - repeat:\n      times: 2\n      steps:\n        - runFlow: lib/a.yaml\n');
    await writeFile(join(dir, 'lib/a.yaml'), 'steps:\n  - runFlow: b.yaml\n');
    await writeFile(join(dir, 'lib/b.yaml'), 'steps:\n  - swipe: diagonal\n');
    await assert.rejects(loadFlowFile(join(dir, 'main.flow.yaml')), (e: BoxflowError) => {
      assert.equal(e.code, 'FLOW_SCHEMA');
      assert.ok(e.message.startsWith(`${join(dir, 'lib/b.yaml')}:2:12: steps[0].swipe: "diagonal"`), e.message);
      return true;
    });
    await writeFile(join(dir, 'lib/b.yaml'), 'steps:\n  - runFlow: ${WHICH}.yaml\n  - runFlow: a.yaml\n');
    await assert.rejects(loadFlowFile(join(dir, 'main.flow.yaml')), (e: BoxflowError) =>
      e.message.startsWith(`${join(dir, 'lib/b.yaml')}:3:5: runFlow: cycle a.yaml -> b.yaml -> a.yaml`),
    );
    await writeFile(join(dir, 'lib/b.yaml'), 'steps:\n  - runFlow: ${WHICH}.yaml\n');
    const ok = await loadFlowFile(join(dir, 'main.flow.yaml'));
    assert.equal(ok.steps[0]!.kind, 'repeat');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a declarative TypeScript flow goes through the same validation as YAML', async () => {
  const file = join(kTs, 'decl.flow.ts');
  const f = await loadFlowFile(file);
  const at = { file, line: 3, column: 16 };
  assert.deepEqual(f.source, at);
  assert.equal(f.name, 'declarative');
  assert.equal(f.fn, undefined);
  assert.deepEqual(f.steps, [
    { kind: 'tap', target: { selector: 'Login' }, source: { file, line: 6, column: 11 } }, // each step at its own element
    { kind: 'closeBrowser', source: { file, line: 6, column: 29 } },
    { kind: 'pressKey', keys: ['control', 'a'], combination: true, label: 'select all', source: { file, line: 6, column: 45 } },
  ]);
});

test('a function TypeScript flow keeps its function and options, with no steps', async () => {
  const f = await loadFlowFile(join(kTs, 'fn.flow.ts'));
  assert.equal(f.name, 'function flow');
  assert.deepEqual([f.tags, f.box, f.timeout, f.steps], [['smoke'], 'linux', 60_000, []]);
  assert.equal(typeof f.fn, 'function');
});

test('TypeScript flows that fail to load are located errors', async (t) => {
  const cases: [string, string, string, string][] = [
    ['throws', 'FLOW_SYNTAX', '4:22', 'TypeScript flow failed to load: boom at import'],
    ['syntax', 'FLOW_SYNTAX', '3:32', 'TypeScript flow failed to load: Unexpected ";"'],
    ['badStep', 'FLOW_SCHEMA', '3:16', 'steps[1].swipe: "sideways" must be one of up, down, left, right'],
    ['noExport', 'FLOW_SCHEMA', '1:1', 'must `export default flow(...)`'],
  ];
  for (const [name, code, at, has] of cases) {
    await t.test(name, async () => {
      const file = join(kTs, `${name}.flow.ts`);
      await assert.rejects(loadFlowFile(file), (e: BoxflowError) => {
        assert.equal(e.code, code);
        const head = e.message.split('\n')[0]!;
        assert.ok(head.startsWith(`${file}:${at}: `), head);
        assert.ok(head.includes(has), head);
        return true;
      });
    });
  }
});

test('flow() options are validated like YAML top-level keys', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'boxflow-flow-'));
  try {
    const file = join(dir, 'opts.flow.ts');
    const api = resolve('src/flow/index.ts');
    await writeFile(file, `import { flow } from ${JSON.stringify(api)};\n\nexport default flow('x', { timeout: 'soon' } as never, async () => {});\n`);
    await assert.rejects(loadFlowFile(file), (e: BoxflowError) => e.code === 'FLOW_SCHEMA' && e.message.startsWith(`${file}:3:16: timeout: "soon" is not a duration`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('flow() returns a tagged definition recording where it was called', () => {
  const def = flow({ steps: ['closeBrowser'] });
  assert.ok(isFlowDefinition(def));
  assert.ok(!isFlowDefinition({ doc: {} }));
  assert.equal(def.source?.file, resolve('test/unit/flowLoad.test.ts'));
  assert.equal(def.source?.line, 224);
});

test('callerLocation is the first frame outside boxflow: the test file here', () => {
  const here = callerLocation();
  assert.deepEqual([here.file, here.line], [resolve('test/unit/flowLoad.test.ts'), 232]);
});

test('normalizeStep validates one YAML-shaped step and locates errors at the given source', () => {
  const source = { file: '/p/x.flow.ts', line: 7, column: 9 };
  assert.deepEqual(normalizeStep({ tap: { text: 'Buy' }, label: 'buy it' }, source), {
    kind: 'tap',
    target: { selector: { text: 'Buy' } },
    label: 'buy it',
    source,
  });
  assert.deepEqual(normalizeStep({ closeBrowser: null }, source), { kind: 'closeBrowser', source });
  assert.deepEqual(normalizeStep({ runFlow: 'sub.yaml' }, source), { kind: 'runFlow', file: '/p/sub.yaml', source });
  assert.throws(
    () => normalizeStep({ pressKey: ['control', 'entr'] }, source),
    (e: BoxflowError) =>
      e.code === 'FLOW_SCHEMA' && e.message === '/p/x.flow.ts:7:9: pressKey[1]: "entr" is not a key name (did you mean "enter"?)',
  );
  assert.throws(() => normalizeStep({ tap: 'a', timeout: 'later' }, source), /timeout: "later" is not a duration/);
});

test('stepTimeout sets the default timeout of a flow\'s steps; a step\'s own timeout wins', () => {
  const flow = parseFlowYaml('stepTimeout: 12s\nsteps:\n  - assertVisible: A\n  - assertVisible: B\n    timeout: 2s\n', '/tmp/st.flow.yaml');
  assert.equal(flow.stepTimeout, 12_000);
  assert.equal(flow.steps[0]!.timeout, undefined);
  assert.equal(flow.steps[1]!.timeout, 2_000);
});

// The web interaction steps at the end of all_steps.flow.yaml.
function webSteps() {
  return [
    { kind: 'doubleTap', target: { selector: { css: '.todo label' } } },
    { kind: 'hover', target: { selector: 'Products' } },
    { kind: 'selectOption', selector: { id: 'country' }, by: 'label', option: 'France' },
    { kind: 'selectOption', selector: { id: 'country' }, by: 'value', option: 'jp' },
    { kind: 'fill', selector: { id: 'when' }, value: '2024-02-29' },
    { kind: 'fill', selector: { id: 'qty' }, value: '3' },
    { kind: 'check', selector: { id: 'terms' } },
    { kind: 'uncheck', selector: 'Newsletter' },
    { kind: 'uploadFile', selector: { id: 'avatar' }, files: [join(kGood, 'fixtures/a.png')] },
    { kind: 'uploadFile', selector: { css: 'input[type=file]' }, files: [join(kGood, 'a.txt'), '/tmp/b.txt'] },
    { kind: 'assertUrl', url: '/\\/welcome$/' },
    { kind: 'assertTitle', title: 'Welcome' },
    { kind: 'assertClipboard', text: 'ORDER-1234' },
    ...appSteps(),
  ];
}

function appSteps() {
  const script = join(kGood, 'scripts/setup.js');
  return [
    { kind: 'launchApp', stopApp: true },
    { kind: 'launchApp', stopApp: true, appId: 'com.example.app' },
    { kind: 'launchApp', stopApp: false, appId: 'com.example.app', clearState: true },
    { kind: 'stopApp' },
    { kind: 'stopApp', appId: 'com.example.app' },
    { kind: 'clearState', appId: 'com.example.app' },
    { kind: 'back' },
    { kind: 'home' },
    { kind: 'hideKeyboard' },
    { kind: 'eraseText' },
    { kind: 'eraseText', chars: 3 },
    { kind: 'openLink', link: 'https://example.com/a' },
    { kind: 'openLink', link: '/b' },
    { kind: 'waitForAnimationToEnd' },
    { kind: 'copyTextFrom', selector: { id: 'order' } },
    { kind: 'pasteText' },
    { kind: 'inputRandom', type: 'email' },
    { kind: 'inputRandom', type: 'number', length: 4 },
    { kind: 'assertTrue', condition: '${output.n > 1}' },
    { kind: 'assertTrue', condition: 'true' },
    { kind: 'evalScript', script: 'output.n = 2' },
    { kind: 'runScript', file: script },
    { kind: 'runScript', file: script, env: { N: '3' } },
    { kind: 'setDevice', airplaneMode: 'toggle', location: { latitude: 52.52, longitude: 13.405 } },
    { kind: 'assertDevice', darkMode: false },
    { kind: 'record', action: 'start', name: 'demo' },
    { kind: 'record', action: 'stop' },
  ];
}
