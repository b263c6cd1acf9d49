// The one reading of a drag body that Linux and Android boxes share (src/server/http/endpoints/dragPlan.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planDrag, typeTraceLabel } from '../../src/server/http/endpoints/dragPlan.js';

const noTargets = async (t: { x: number; y: number } | string) => (typeof t === 'string' ? assert.fail('no text targets here') : t);

test('a path: one interval per segment; the whole move over 60s is INVALID_DURATION', async () => {
  const plan = await planDrag({ path: [{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 10, y: 10 }], duration: '20ms' }, noTargets);
  assert.deepEqual(plan.segments, [20, 20]);
  assert.equal(plan.tap, false);
  assert.match(plan.message, /dragged from \(0, 0\) to \(10, 10\) through 3 points/);
  const path = Array.from({ length: 4 }, (_, i) => ({ x: i, y: i }));
  await assert.rejects(planDrag({ path, duration: '21s' }, noTargets), (e: Error & { code?: string }) => e.code === 'INVALID_DURATION' && /60s/.test(e.message));
  await assert.rejects(planDrag({ start: { x: 1, y: 1 }, end: { x: 1, y: 1 }, duration: '61s' }, noTargets), (e: Error & { code?: string }) => e.code === 'INVALID_DURATION');
});

test('start and end: text targets resolved with their field, points fitted, a zero-length move is a tap', async () => {
  const fields: string[] = [];
  const plan = await planDrag({ start: 'OK', end: { x: 5000, y: -3 } }, async (t, field) => (fields.push(field), typeof t === 'string' ? { x: 7, y: 8 } : t), (p) => ({ x: Math.min(p.x, 100), y: Math.max(p.y, 0) }));
  assert.deepEqual(fields, ['/start', '/end']);
  assert.deepEqual(plan.points, [{ x: 7, y: 8 }, { x: 100, y: 0 }]);
  assert.deepEqual(plan.actual, { start: { x: 7, y: 8 }, end: { x: 100, y: 0 }, duration: '500ms' });
  const tap = await planDrag({ start: { x: 3, y: 4 }, end: { x: 3, y: 4 }, duration: '50ms' }, noTargets);
  assert.equal(tap.tap, true);
  assert.deepEqual(tap.trace, { kind: 'tap', point: { x: 3, y: 4 } });
  assert.equal(tap.message, 'tapped (3, 4) for 50ms');
  assert.equal((await planDrag({ start: { x: 3, y: 4 }, end: { x: 3, y: 4 }, duration: '0ms' }, noTargets)).message, 'tapped (3, 4)', 'a tap without a hold is a press and a release');
});

test('the trace label of a sensitive type never holds the text', () => {
  assert.equal(typeTraceLabel({ text: 'hunter2', pressEnter: true, sensitive: true }), 'type: •••• ⏎');
  assert.equal(typeTraceLabel({ text: 'hi' }), 'type: "hi"');
});
