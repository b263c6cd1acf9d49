// The steps boxflow studio writes for what the hand did, as the flow readers take them: a drag along
// its path (fewer points, same turns), a quick straight flick as a swipe, a tap at its point inside
// a large element or on the screen; boxflow YAML and Maestro alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { parseFlowYaml, parseMaestroYaml } from '../../src/flow/index.js';
import { dragSteps, elementSteps, pointInside, screenTapSteps, simplifyPath } from '../../src/studio/steps.js';

const boxflow = (items: unknown[]) => parseFlowYaml(stringify({ name: 'x', steps: items }), '/x/x.flow.yaml').steps;
const maestro = (items: unknown[]) => parseMaestroYaml(`url: http://127.0.0.1/\n---\n${stringify(items)}`, '/x/x.yaml').steps;

/** A pointer's path from `a` to `b` in `n` even steps. */
const line = (a: [number, number], b: [number, number], n = 10) => Array.from({ length: n + 1 }, (_, k) => ({ x: a[0] + ((b[0] - a[0]) * k) / n, y: a[1] + ((b[1] - a[1]) * k) / n }));

test('a stroke with turns is a drag along the points it turns at, in pixels, its time spread over them', () => {
  const path = [...line([10, 10], [100, 80]), ...line([100, 80], [200, 20]).slice(1), ...line([200, 20], [260.4, 90.6]).slice(1)];
  const items = dragSteps('boxflow', path, 900);
  assert.deepEqual(items, [{ drag: { path: [[10, 10], [100, 80], [200, 20], [260, 91]], interval: '300ms' } }]);
  const [step] = boxflow(items);
  assert.equal(step!.kind, 'drag');
  assert.equal((step as { path: unknown[] }).path.length, 4);
});

test('a straight move: a quick one is a swipe, a slow one a drag, from and to; Maestro has a swipe from start to end', () => {
  const path = line([300, 500], [300.6, 120]);
  assert.deepEqual(dragSteps('boxflow', path, 180), [{ swipe: { from: [300, 500], to: [301, 120], duration: '180ms' } }]);
  assert.deepEqual(dragSteps('boxflow', path, 1200), [{ drag: { from: [300, 500], to: [301, 120], duration: '1200ms' } }]);
  assert.equal(boxflow(dragSteps('boxflow', path, 180))[0]!.kind, 'swipe');
  const m = dragSteps('maestro', [...line([10, 10], [100, 80]), ...line([100, 80], [200, 20])], 700);
  assert.deepEqual(m, [{ swipe: { start: '10,10', end: '200,20', duration: 700 } }]);
  assert.equal(maestro(m)[0]!.kind, 'swipe');
});

test('a long scribble keeps at most 40 points, its ends kept', () => {
  const path = Array.from({ length: 600 }, (_, k) => ({ x: k, y: 200 + 150 * Math.sin(k / 7) }));
  const kept = (dragSteps('boxflow', path, 5000)[0] as { drag: { path: number[][] } }).drag.path;
  assert.ok(kept.length > 2 && kept.length <= 40, String(kept.length));
  assert.deepEqual([kept[0], kept.at(-1)], [[0, 200], [599, Math.round(200 + 150 * Math.sin(599 / 7))]]);
  assert.deepEqual(simplifyPath(line([0, 0], [50, 50])), [{ x: 0, y: 0 }, { x: 50, y: 50 }]);
});

test('a tap inside a large element is the element plus where in it; on the screen, a share of the screen', () => {
  const at = pointInside([100, 200, 500, 400], { x: 200, y: 350 });
  assert.equal(at, '25%,75%');
  const tap = elementSteps('boxflow', 'tap', { id: 'map' }, { at });
  assert.deepEqual(tap, [{ tap: { id: 'map', point: '25%,75%' } }]);
  assert.deepEqual(elementSteps('boxflow', 'tap', 'Map', { at }), [{ tap: { text: 'Map', point: '25%,75%' } }]);
  assert.deepEqual((boxflow(tap as unknown[])[0] as { target: unknown }).target, { selector: { id: 'map' }, point: { x: 25, y: 75, unit: '%' } });
  const m = elementSteps('maestro', 'tap', { id: 'map' }, { at });
  assert.deepEqual(m, [{ tapOn: { id: 'map', point: '25%,75%' } }]);
  assert.equal(maestro(m as unknown[])[0]!.kind, 'tap');
  // An assertion is on the element, wherever the pointer was.
  assert.deepEqual(elementSteps('boxflow', 'assertVisible', { id: 'map' }, { at }), [{ assertVisible: { id: 'map' } }]);
  assert.deepEqual(screenTapSteps('boxflow', { x: 720, y: 540 }, { width: 800, height: 600 }), [{ tap: { point: '90%,90%' } }]);
  assert.deepEqual(screenTapSteps('maestro', { x: 333.3, y: 10 }, { width: 1000, height: 2000 }), [{ tapOn: { point: '33.3%,0.5%' } }]);
  assert.equal(boxflow(screenTapSteps('boxflow', { x: 1, y: 1 }, { width: 10, height: 10 }))[0]!.kind, 'tap');
});
