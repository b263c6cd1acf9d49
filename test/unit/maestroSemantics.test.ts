// Maestro semantics the reader maps (src/flow/maestro.ts): conditions, retry of a file, loops,
// launch arguments, tap repeats, swipes by points, the newer selector keys and lenient ${NAME}.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Step } from '../../src/flow/index.js';
import { isMaestroFlow, maestroToBoxflow, parseMaestroYaml } from '../../src/flow/maestro.js';
import { stepLabel } from '../../src/runner/label.js';
import { randomText } from '../../src/runner/steps/app.js';
import { tempDir } from '../support/tmp.js';

// Maestro reads the files runFlow, retry and runScript name when it parses: they must exist.
const kDir = tempDir('boxflow-maestro-semantics-');
const kFile = join(kDir, 'flow.yaml');
mkdirSync(join(kDir, 'sub'));
for (const f of ['a.yaml', 'b.yaml', 's.js', 'sub/flaky.yaml', 'sub/x.yaml']) writeFileSync(join(kDir, f), 'appId: a\n---\n- back\n');
const flow = (...commands: string[]) => `appId: com.example.app\n---\n${commands.join('\n')}\n`;
/** The boxflow document a Maestro file maps to (what `boxflow convert maestro` writes). */
const mapped = (text: string) => maestroToBoxflow(text, kFile).doc;
const read = (text: string) => parseMaestroYaml(text, kFile);
const bare = (steps: Step[]): unknown[] => steps.map(({ source: _s, ...rest }) => ('steps' in rest ? { ...rest, steps: bare(rest.steps as Step[]) } : rest));
const refusal = (text: string) => {
  try {
    read(text);
  } catch (err) {
    return (err as Error).message;
  }
  return '';
};

test('when: platform becomes a test of the box type, true a script condition, and all keys must hold', () => {
  const doc = mapped(
    flow(
      '- runFlow: { file: a.yaml, when: { platform: android } }',
      '- runFlow:',
      '    file: b.yaml',
      '    label: Both',
      '    when: { platform: Web, true: "${COUNT > 1}" }',
      '- runFlow: { when: { true: "${output.go}" }, commands: [back] }',
      '- runScript: { file: s.js, when: { notVisible: Ad } }',
    ),
  );
  assert.deepEqual(doc.steps, [
    { runFlow: { file: 'a.yaml', when: { true: "${maestro.platform === 'android'}" } } },
    // A condition stays a condition: inline steps with `when`.
    { runFlow: { when: { true: "${maestro.platform === 'web'}" }, steps: [{ runFlow: { file: 'b.yaml', when: { true: '${COUNT > 1}' } } }] }, label: 'Both' },
    { runFlow: { when: { true: '${output.go}' }, steps: ['back'] } },
    { runFlow: { when: { notVisible: { text: '/^Ad$/i' } }, steps: [{ runScript: { file: 's.js' } }] } },
  ]);
  const steps = bare(read(flow('- runFlow: { file: a.yaml, when: { true: "${X}" } }')).steps);
  assert.deepEqual(steps, [{ kind: 'runFlow', file: join(kDir, 'a.yaml'), when: { true: '${(X)}' } }], 'a true condition is a boxflow condition');
  assert.match(refusal(flow('- runFlow: { file: a.yaml, when: { platform: Windows } }')), /flow\.yaml:3:36: .*platform is Android, iOS or Web, not "Windows"/);
});

test('retry runs a file as a runFlow (maxRetries capped at 3); repeat with times and while is a bounded while; inline commands keep their env', () => {
  const doc = mapped(
    flow(
      '- retry: { maxRetries: 5, file: sub/flaky.yaml, env: { A: 1 } }',
      '- repeat: { times: 4, while: { visible: More }, commands: [back] }',
      '- repeat: { while: { platform: ios, true: "${output.more}" }, commands: [back] }',
    ),
  );
  assert.deepEqual(doc.steps, [
    { retry: { times: 3, steps: [{ runFlow: { file: 'sub/flaky.yaml', env: { A: 1 } } }] } },
    { repeat: { steps: ['back'], while: { visible: { text: '/^More$/i' } }, max: 4 } },
    { runFlow: { when: { true: "${maestro.platform === 'ios'}" }, steps: [{ repeat: { while: { true: '${output.more}' }, steps: ['back'] } }] } },
  ]);
  assert.match(refusal(flow('- retry: { maxRetries: 1, file: a.yaml, commands: [back] }')), /retry takes file or commands \(one of them\)/);
  // env on inline commands: variables of that block only (never dropped).
  assert.deepEqual(mapped(flow('- runFlow: { env: { A: 1 }, commands: [back] }', '- retry: { env: { B: x }, commands: [back] }')).steps, [
    { runFlow: { env: { A: '1' }, steps: ['back'] } },
    { retry: { times: 1, steps: [{ runFlow: { env: { B: 'x' }, steps: ['back'] } }] } },
  ]);
});

test('launchApp arguments, tapOn repeat and delay, swipes by points and from an element', () => {
  const f = read(
    flow(
      '- launchApp: { arguments: { lang: fr, debug: true, n: 3 } }',
      '- tapOn: { id: plus, repeat: 3, delay: 250, label: Three more }',
      '- tapOn: { text: Once, repeat: 1, waitToSettleTimeoutMs: 500, retryTapIfNoChange: false }',
      '- tapOn: { point: "120, 640" }',
      '- swipe: { start: "90%, 50%", end: "10%, 50%", duration: 500 }',
      '- swipe: { start: "100, 200", end: "300,400" }',
      '- swipe: { from: { id: card }, direction: LEFT }',
    ),
  );
  assert.deepEqual(bare(f.steps), [
    { kind: 'launchApp', stopApp: true, arguments: { lang: 'fr', debug: 'true', n: '3' }, permissions: { all: 'allow' } },
    {
      kind: 'repeat',
      times: 3,
      label: 'Three more',
      steps: [{ kind: 'tap', target: { selector: { id: '/^(?:.*\\/)?(?:plus)$/is' } } }, { kind: 'sleep', ms: 250 }],
    },
    { kind: 'tap', target: { selector: { text: '/^Once$/i' } } },
    { kind: 'tap', target: { point: { x: 120, y: 640 } } },
    { kind: 'swipe', from: { percent: { x: 90, y: 50 } }, to: { percent: { x: 10, y: 50 } }, duration: 500 },
    { kind: 'swipe', from: { point: { x: 100, y: 200 } }, to: { point: { x: 300, y: 400 } } },
    // From the element's centre toward the screen's edge, as Maestro swipes from an element.
    { kind: 'swipe', direction: 'left', from: { selector: { id: '/^(?:.*\\/)?(?:card)$/is' } } },
  ] as never);
  assert.equal(f.box, 'android', 'a package appId is a mobile app');
  assert.equal(read('url: http://127.0.0.1:1/\n---\n- back\n').box, undefined, 'a URL runs on the default (Linux) box');
  assert.match(refusal(flow('- swipe: { start: "10%, 10%", direction: UP }')), /a swipe takes start and end together, without direction or from/);
  assert.match(refusal(flow('- swipe: { direction: Up }')), /direction is UP, DOWN, LEFT or RIGHT \(all upper or all lower case\), not "Up"/);
});

test('selector keys css, traits, size, containsChild, containsDescendants and a negative index map to boxflow\'s', () => {
  const doc = mapped(
    flow(
      '- tapOn: { css: "button.primary" }',
      '- assertVisible: { traits: "text long-text", index: -1 }',
      '- assertVisible: { width: 48, height: 48, tolerance: 2, traits: square }',
      '- assertVisible: { id: row, containsChild: Title, containsDescendants: [{ id: icon }, Subtitle] }',
    ),
  );
  assert.deepEqual(doc.steps, [
    { tap: { css: 'button.primary' } },
    { assertVisible: { traits: ['text', 'long-text'], index: -1 } },
    { assertVisible: { size: { width: 48, height: 48, tolerance: 2 }, traits: ['square'] } },
    {
      assertVisible: {
        id: '/^(?:.*\\/)?(?:row)$/is',
        containsChild: { text: '/^Title$/i' },
        containsDescendants: [{ id: '/^(?:.*\\/)?(?:icon)$/is' }, { text: '/^Subtitle$/i' }],
      },
    },
  ]);
  assert.match(refusal(flow('- assertVisible: { traits: round }')), /unknown trait "round" \(Maestro knows text, long-text, square\)/);
});

test('${NAME} that the file does not define reads as undefined (a script expression); \\${ stays literal', () => {
  const doc = mapped('appId: a\nenv:\n  KNOWN: k\n  WITH_DEFAULT: ${WITH_DEFAULT || "d"}\n---\n- inputText: "${KNOWN} ${UNKNOWN} \\\\${LITERAL}"\n- evalScript: ${output.u = UNKNOWN}\n');
  assert.deepEqual(doc.env, { KNOWN: 'k', WITH_DEFAULT: '${WITH_DEFAULT || "d"}' });
  assert.deepEqual(doc.steps, [{ type: '${KNOWN} ${(UNKNOWN)} $${LITERAL}' }, { evalScript: 'output.u = UNKNOWN' }]);
  assert.deepEqual(bare(read(flow('- inputText: ${NOT_DEFINED}')).steps), [{ kind: 'type', text: '${(NOT_DEFINED)}' }]);
});

test('a Maestro file with a YAML error is still a Maestro file: the error is reported, the file is not skipped', () => {
  const text = 'appId: a\n---\n- retry:\n    env: { A: ${B} }\n    commands: [back]\n';
  assert.equal(isMaestroFlow(text), true);
  assert.equal(isMaestroFlow(`---\n${text}`), true, 'a leading --- too');
  assert.equal(isMaestroFlow('name: x\n---\n- a: { ${b} }\n'), false, 'no appId or url: not Maestro');
  assert.match(refusal(text), /flow\.yaml:4:16: YAML: /);
});

test('an error inside retry, repeat or runFlow commands points at the Maestro command that made the step', () => {
  const { locate } = maestroToBoxflow(flow('- back', '- retry:', '    maxRetries: 2', '    commands:', '      - back', '      - tapOn: Go', '- retry: { file: sub/x.yaml }'), kFile);
  // A step that is a Maestro command carries it as written: its label in reports.
  assert.deepEqual(locate(['steps', 0]), { file: kFile, line: 3, column: 3, command: 'back' });
  assert.deepEqual(locate(['steps', 1, 'retry', 'steps', 1]), { file: kFile, line: 8, column: 9, command: 'tapOn Go' });
  assert.deepEqual(locate(['steps', 2, 'retry', 'steps', 0, 'runFlow']), { file: kFile, line: 9, column: 12 }, 'retry of a file: at its file key');
});

test('mobile-only options: ignored on the web as Maestro does; permissions are set (the site\'s on the web), on Android Maestro\'s default {all: allow} too', () => {
  const web = 'url: http://127.0.0.1:1/\n---\n';
  assert.deepEqual(mapped(`${web}- launchApp: { permissions: { all: allow } }\n- openLink: { link: "http://x.test/", browser: true, autoVerify: true }\n- killApp\n`).steps, [
    { launchApp: { permissions: { all: 'allow' } } },
    { openLink: 'http://x.test/' },
    'stopApp',
  ]);
  assert.deepEqual(mapped(flow('- launchApp: { permissions: { camera: deny } }', '- launchApp', '- killApp', '- launchApp: { clearKeychain: true }')).steps, [
    { launchApp: { permissions: { camera: 'deny' } } },
    { launchApp: { permissions: { all: 'allow' } } },
    { stopApp: { processDeath: true } },
    { launchApp: { clearKeychain: true, permissions: { all: 'allow' } } },
  ]);
  // openLink's Android options: the browser rather than the app that claims the link; the chooser answered.
  assert.deepEqual(mapped(flow('- openLink: { link: "http://x.test/", browser: true, autoVerify: true }')).steps, [{ openLink: { link: 'http://x.test/', browser: true, autoVerify: true } }]);
  assert.match(refusal(flow('- launchApp: { permissions: { camera: maybe } }')), /a permission is allow, deny or unset, not "maybe"/);
});

test('scrollUntilVisible takes speed and visibilityPercentage (boxflow swipes its own way); centerElement: true scrolls on to the middle', () => {
  assert.deepEqual(mapped(flow('- scrollUntilVisible: { element: Item 80, speed: 40, visibilityPercentage: 50, centerElement: false, direction: UP }')).steps, [
    { scrollUntilVisible: { text: '/^Item 80$/i', direction: 'up', maxSwipes: 100 }, timeout: '20000ms' },
  ]);
  assert.deepEqual(mapped(flow('- scrollUntilVisible: { element: X, centerElement: true }')).steps, [
    { scrollUntilVisible: { text: '/^X$/i', direction: 'down', maxSwipes: 100, center: true }, timeout: '20000ms' },
  ]);
});

test('a runFlow, retry or runScript file that does not exist is a load-time error at its item, every one of them', () => {
  const message = refusal(flow('- runFlow: gone.yaml', '- retry: { file: sub/gone.yaml }', '- runScript: { file: gone.js }', '- runFlow: a.yaml', '- runFlow: ${DIR}/any.yaml'));
  assert.match(message, /^3 problems/);
  assert.match(message, /flow\.yaml:3:3: runFlow: no such file .*gone\.yaml/);
  assert.match(message, /flow\.yaml:4:12: retry: no such file .*sub\/gone\.yaml/);
  assert.match(message, /flow\.yaml:5:16: runScript: no such file .*gone\.js/);
  let code = '';
  try {
    read(flow('- runFlow: gone.yaml'));
  } catch (err) {
    code = (err as { code: string }).code;
  }
  assert.equal(code, 'FLOW_NOT_FOUND');
});

test('a condition that guards steps is titled "if …" in reports; a while loop "repeat while …"', () => {
  const f = read(flow('- runFlow: { when: { platform: Web }, commands: [back] }', '- repeat: { while: { true: "${output.more}" }, commands: [back] }'));
  // Read from a Maestro file, a step is titled by its command as written there.
  assert.deepEqual(f.steps.map((s) => stepLabel(s)), ['runFlow when: {platform: Web}', 'repeat while: {true: ${output.more}}']);
  // Converted, the boxflow step's own label: a condition is "if …".
  const { command: _c, ...source } = f.steps[0]!.source;
  assert.equal(stepLabel({ ...f.steps[0]!, source }), "runFlow if ${maestro.platform === 'web'} (1 step)");
});

test('maxRetries 0 is one attempt without retry; repeat times 0 runs nothing, as in Maestro', () => {
  assert.deepEqual(mapped(flow('- retry: { maxRetries: 0, commands: [back] }', '- repeat: { times: 0, commands: [back] }')).steps, [
    { runFlow: { steps: ['back'] } },
    { runFlow: { when: { true: 'false' }, steps: ['back'] } },
  ]);
  // A ${...} count is evaluated when the loop starts.
  assert.deepEqual(mapped(flow('- repeat: { times: "${N}", commands: [back] }')).steps, [{ repeat: { times: '${(N)}', steps: ['back'] } }]);
});

test('inputRandomCityName, CountryName and ColorName type a random city, country and colour', () => {
  assert.deepEqual(mapped(flow('- inputRandomCityName', '- inputRandomCountryName', '- inputRandomColorName')).steps, [
    { inputRandom: 'cityName' },
    { inputRandom: 'countryName' },
    { inputRandom: 'colorName' },
  ]);
  assert.match(randomText('cityName'), /^[A-Z][a-z]+$/);
  assert.match(randomText('countryName'), /^[A-Z][a-z]+$/);
  assert.match(randomText('colorName'), /^[a-z]+$/);
});
