// A point given as ${...} (Maestro's `point: "${output.p}"`, a swipe's `start`/`end`): kept as written
// when the flow loads (src/flow/maestro.ts, src/flow/steps.ts), evaluated and checked when the step
// runs (evaluatePoints in src/runner/steps/target.ts), before any handler sees the step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlowYaml, type Step } from '../../src/flow/index.js';
import { parseMaestroYaml } from '../../src/flow/maestro.js';
import { evaluatePoints, parsePointText } from '../../src/runner/steps/target.js';
import type { StepRun } from '../../src/runner/steps/types.js';
import { BoxflowError } from '../../src/errors.js';

const read = (...commands: string[]) => parseMaestroYaml(`appId: com.example.app\n---\n${commands.join('\n')}\n`, '/m/flow.yaml');
const bare = (steps: Step[]): unknown[] => steps.map(({ source: _s, ...rest }) => rest);

/** A step's run as far as evaluatePoints needs it: `${name}` replaced from `vars`. */
const runWith = (vars: Record<string, string>) => ({ resolve: (v: string) => v.replace(/\$\{output\.(\w+)\}/g, (_m, k: string) => vars[k] ?? '') }) as unknown as StepRun;

test('a ${...} point loads as written: alone a point of the screen, beside selector keys a point inside the element, a swipe\'s start and end', () => {
  const f = read(
    '- tapOn: { point: "${output.x},${output.y}" }',
    '- tapOn: { id: card, point: "${output.p}" }',
    '- longPressOn: { text: Card, point: "${output.p}" }',
    '- swipe: { start: "${output.a}", end: "${output.b}", duration: 300 }',
    '- swipe: { from: { id: card, point: "${output.p}" }, direction: LEFT }',
    '- tapOn: { point: "50%, 80%" }',
  );
  assert.deepEqual(bare(f.steps), [
    { kind: 'tap', target: { runtimePoint: '${output.x},${output.y}' } },
    { kind: 'tap', target: { selector: { id: '/^(?:.*\\/)?(?:card)$/is' }, point: '${output.p}' } },
    { kind: 'longPress', target: { selector: { text: '/^Card$/i' }, point: '${output.p}' }, duration: 1000 },
    { kind: 'swipe', from: { runtimePoint: '${output.a}' }, to: { runtimePoint: '${output.b}' }, duration: 300 },
    { kind: 'swipe', direction: 'left', from: { selector: { id: '/^(?:.*\\/)?(?:card)$/is' }, point: '${output.p}' } },
    { kind: 'tap', target: { percent: { x: 50, y: 80 } } },
  ].map((s, i) => ({ ...s, ...(f.steps[i]!.label ? { label: f.steps[i]!.label } : {}) })));
  // A literal point that is not one is still refused at load, where it is.
  assert.throws(() => read('- tapOn: { id: card, point: "middle" }'), /a point inside an element is "x%,y%" \(percent of its bounds\) or "x,y" \(pixels from its top-left\), not "middle"/);
});

test('parsePointText reads "x,y" and "x%,y%" as Maestro does, whitespace ignored, both parts alike', () => {
  assert.deepEqual(parsePointText(' 120 , 640 ', 'screen'), { x: 120, y: 640, unit: 'px' });
  assert.deepEqual(parsePointText('50%, 85.5%', 'screen'), { x: 50, y: 85.5, unit: '%' });
  assert.deepEqual(parsePointText('-5,10', 'screen'), { x: -5, y: 10, unit: 'px' }, 'a screen point as Maestro gives it (the box moves it onto the screen)');
  assert.equal(parsePointText('-5,10', 'element'), undefined, 'inside an element: from its top-left');
  assert.equal(parsePointText('50%,10', 'screen'), undefined);
  assert.equal(parsePointText('101%,10%', 'element'), undefined);
  for (const bad of ['', 'abc', '1,2,3', '1', 'NaN,1', '1e3,2', 'undefined,undefined']) assert.equal(parsePointText(bad, 'screen'), undefined, bad);
});

test('evaluatePoints: each ${...} point of a step evaluated when it runs; one that is not a point is STEP_INVALID naming the value', () => {
  const steps = bare(read(
    '- tapOn: { point: "${output.x},${output.y}" }',
    '- tapOn: { id: card, point: "${output.p}" }',
    '- swipe: { start: "${output.a}", end: "${output.b}" }',
  ).steps) as Step[];
  const run = runWith({ x: '120', y: '640', p: '25%, 75%', a: '10%,90%', b: '10,20' });
  assert.deepEqual(evaluatePoints(steps[0]!, run), { kind: 'tap', target: { point: { x: 120, y: 640 } } });
  assert.deepEqual(evaluatePoints(steps[1]!, run), { kind: 'tap', target: { selector: { id: '/^(?:.*\\/)?(?:card)$/is' }, point: { x: 25, y: 75, unit: '%' } } });
  assert.deepEqual(evaluatePoints(steps[2]!, run), { kind: 'swipe', from: { percent: { x: 10, y: 90 } }, to: { point: { x: 10, y: 20 } } });
  const plain = { kind: 'tap', target: { point: { x: 1, y: 2 } } } as Step;
  assert.equal(evaluatePoints(plain, run), plain, 'a step without one is the same object');
  assert.equal((steps[0] as { target: unknown }).target && 'runtimePoint' in (steps[0] as { target: object }).target, true, 'the flow\'s step is not changed');

  const fails = (step: Step, vars: Record<string, string>, message: string) =>
    assert.throws(() => evaluatePoints(step, runWith(vars)), (err: unknown) => BoxflowError.is(err) && err.code === 'STEP_INVALID' && err.message === message);
  fails(steps[0]!, { x: 'left' }, 'point: ${output.x},${output.y} is "left,", not a point of the screen: "x,y" (pixels) or "x%,y%" (0 to 100)');
  fails(steps[1]!, { p: '150%,10%' }, 'point: ${output.p} is "150%,10%", not a point inside the element: "x%,y%" (percent of its bounds, 0 to 100) or "x,y" (pixels from its top-left)');
  fails(steps[2]!, { a: '1,1', b: 'end' }, 'to point: ${output.b} is "end", not a point of the screen: "x,y" (pixels) or "x%,y%" (0 to 100)');
});

test('boxflow YAML: `point` without selector keys is a point of the screen ("x,y", "x%,y%" or a ${...}); a swipe may end at a point inside an element', () => {
  const steps = (yaml: string) => bare(parseFlowYaml(`steps:\n${yaml}`, '/f/points.flow.yaml').steps);
  assert.deepEqual(steps('  - tap: { point: "${output.p}" }\n  - tap: { point: "25%, 75%" }\n  - tap: { point: "10,20" }\n  - longPress: { point: "${output.p}", duration: 2s }\n'), [
    { kind: 'tap', target: { runtimePoint: '${output.p}' } },
    { kind: 'tap', target: { percent: { x: 25, y: 75 } } },
    { kind: 'tap', target: { point: { x: 10, y: 20 } } },
    { kind: 'longPress', target: { runtimePoint: '${output.p}' }, duration: 2000 },
  ]);
  assert.deepEqual(steps('  - swipe: { from: { id: a, point: "${output.p}" }, to: { id: b, point: "50%,50%" } }\n'), [
    { kind: 'swipe', from: { selector: { id: 'a' }, point: '${output.p}' }, to: { selector: { id: 'b' }, point: { x: 50, y: 50, unit: '%' } } },
  ]);
  assert.throws(() => steps('  - tap: { point: "middle" }\n'), /points\.flow\.yaml:2:19: steps\[0\]\.tap\.point: "middle"/, 'refused at load, where it is');
  assert.throws(() => steps('  - tap: { point: "120%,5%" }\n'), /"120%,5%" is off the screen: percentages go from 0 to 100/);
});
