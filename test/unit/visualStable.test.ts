import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BoxflowError } from '../../src/errors.js';
import { closeVisualPool, stableCapture, type Rect } from '../../src/visual/index.js';

const dir = join(import.meta.dirname, '../fixtures/visual');
const png = (name: string) => readFileSync(join(dir, `${name}.png`));
const clockRect = (JSON.parse(readFileSync(join(dir, 'rects.json'), 'utf8')) as { clock: Rect }).clock;
const fast = [0, 10];

after(() => closeVisualPool());

/** A capture function that plays real frames in order, repeating the last (or cycling). */
function frames(names: string[], cycle = false) {
  const shots = names.map(png);
  let i = 0;
  const capture = async () => {
    const shot = shots[cycle ? i % shots.length : Math.min(i, shots.length - 1)]!;
    i++;
    return shot;
  };
  return { capture, taken: () => i };
}

test('a progress bar that settles gives the settled frame after at least two agreeing frames', async () => {
  const f = frames(['settle-0', 'settle-1', 'base', 'base-again']);
  const r = await stableCapture(f.capture, { timeoutMs: 60_000, backoffMs: fast });
  assert.equal(r.stable, true);
  assert.equal(r.frames, 4);
  assert.ok(r.png.equals(png('base')), 'the settled frame is returned');
});

test('a screen that is already still needs exactly two frames', async () => {
  const f = frames(['base']);
  const r = await stableCapture(f.capture, { timeoutMs: 0 });
  assert.equal(r.stable, true);
  assert.equal(r.frames, 2);
});

test('a spinner that never settles fails with the last two differing frames', async () => {
  const f = frames(['spin-0', 'spin-1', 'spin-2'], true);
  const r = await stableCapture(f.capture, { timeoutMs: 200, backoffMs: [0, 20, 50] });
  assert.equal(r.stable, false);
  if (r.stable) return;
  assert.ok(r.frames >= 2, 'at least two frames');
  assert.equal(r.frames, f.taken());
  assert.ok(!r.png.equals(r.previous), 'previous and png differ');
  const spins = ['spin-0', 'spin-1', 'spin-2'].map(png);
  assert.ok(r.png.equals(spins[(r.frames - 1) % 3]!), 'png is the last frame taken');
  assert.ok(r.previous.equals(spins[(r.frames - 2) % 3]!), 'previous is the frame before it');
});

test('even with no time left two frames are taken and compared', async () => {
  const f = frames(['spin-0', 'spin-1'], true);
  const r = await stableCapture(f.capture, { timeoutMs: 0 });
  assert.equal(r.stable, false);
  assert.equal(r.frames, 2);
});

test('masks let a ticking clock count as stable; a pixel tolerance absorbs a one-pixel flicker', async () => {
  const ticking = () => frames(['base', 'clock'], true);
  const unmasked = await stableCapture(ticking().capture, { timeoutMs: 50, backoffMs: fast });
  assert.equal(unmasked.stable, false);
  const masked = await stableCapture(ticking().capture, { timeoutMs: 60_000, masks: [clockRect] });
  assert.equal(masked.stable, true);
  assert.equal(masked.frames, 2);
  const flicker = await stableCapture(frames(['base', 'pixel'], true).capture, { timeoutMs: 60_000, maxDiffPixels: 1 });
  assert.equal(flicker.stable, true);
});

test('an aborted signal stops the loop with ABORTED instead of waiting out the backoff', { timeout: 30_000 }, async () => {
  const ac = new AbortController();
  const f = frames(['spin-0', 'spin-1', 'spin-2'], true);
  const capture = async () => {
    if (f.taken() === 1) ac.abort();
    return f.capture();
  };
  await assert.rejects(stableCapture(capture, { timeoutMs: 120_000, signal: ac.signal, backoffMs: [0, 60_000] }),
    (err: unknown) => BoxflowError.is(err) && err.code === 'ABORTED');
  assert.equal(f.taken(), 2);
});
