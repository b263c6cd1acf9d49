// overlayPng (a trace's marks blended into a screenshot) and drawTrace, checked against a plain
// full decode and blend, on every PNG shape a screen can come in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { decodePng, overlayPng, type Overlay } from '../../src/png/png.js';
import { drawTrace } from '../../src/server/http/trace.js';
import { screenPng } from '../fixtures/results/fixture.js';

/** A patch: a red ring with a translucent fill, and fully transparent corners. */
function patch(x: number, y: number, size: number): Overlay {
  const data = Buffer.alloc(size * size * 4);
  const c = (size - 1) / 2;
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      const d = Math.hypot(i - c, j - c);
      const o = (j * size + i) * 4;
      if (d > c) continue;
      data.set(d > c - 2 ? [220, 38, 38, 255] : [22, 163, 74, 115], o);
    }
  }
  return { x, y, width: size, height: size, data };
}

/** The reference: every pixel decoded, then source-over in floating point. */
function blended(png: Buffer, o: Overlay): Buffer {
  const img = decodePng(png);
  const out = Buffer.from(img.data);
  for (let y = Math.max(0, o.y); y < Math.min(img.height, o.y + o.height); y++) {
    for (let x = Math.max(0, o.x); x < Math.min(img.width, o.x + o.width); x++) {
      const s = ((y - o.y) * o.width + (x - o.x)) * 4;
      const d = (y * img.width + x) * 4;
      const a = o.data[s + 3]! / 255;
      const da = out[d + 3]! / 255;
      const outA = a + da * (1 - a);
      if (!a) continue;
      for (let k = 0; k < 3; k++) out[d + k] = Math.round((o.data[s + k]! * a + out[d + k]! * da * (1 - a)) / outA);
      out[d + 3] = Math.round(outA * 255);
    }
  }
  return out;
}

function assertClose(actual: Buffer, expected: Buffer, what: string): void {
  assert.equal(actual.length, expected.length, what);
  for (let i = 0; i < actual.length; i++) {
    if (Math.abs(actual[i]! - expected[i]!) > 1) assert.fail(`${what}: byte ${i} (pixel ${Math.floor(i / 4)}) is ${actual[i]}, expected ${expected[i]}`);
  }
}

function shapes(): Record<string, Buffer> {
  const src = PNG.sync.read(screenPng(7));
  const translucent = new PNG({ width: src.width, height: src.height });
  src.data.copy(translucent.data);
  for (let i = 3; i < translucent.data.length; i += 4 * 5) translucent.data[i] = 90;
  const out: Record<string, Buffer> = { 'grey (decoded whole)': PNG.sync.write(src, { colorType: 0, inputColorType: 6 }), 'RGBA, translucent pixels': PNG.sync.write(translucent) };
  for (const filterType of [0, 1, 2, 3, 4]) out[`RGB, filter ${filterType}`] = PNG.sync.write(src, { colorType: 2, filterType });
  return out;
}

test('an overlay blends into every PNG shape exactly as a full decode and blend would', async () => {
  for (const [name, png] of Object.entries(shapes())) {
    // Inside, across the left and top edges, on the last row, and across the bottom-right corner.
    for (const o of [patch(40, 60, 31), patch(-10, -8, 25), patch(100, 189, 11), patch(300, 180, 40)]) {
      const out = await overlayPng(png, o);
      assertClose(decodePng(out).data, blended(png, o), `${name}, overlay at ${o.x},${o.y}`);
    }
  }
});

test('an overlay wholly outside the image returns the image unchanged', async () => {
  const png = screenPng(2);
  assert.equal(await overlayPng(png, patch(400, 10, 20)), png);
});

test('a trace changes the screenshot only around its mark: a tap, a drag, a label', async () => {
  const png = PNG.sync.write(PNG.sync.read(screenPng(3, { width: 600, height: 400 })), { colorType: 2, filterType: 2 });
  const before = decodePng(png);
  const unit = 400 / 300 < 1.5 ? 1.5 : 400 / 300;
  const changed = (trace: Buffer) => {
    const img = decodePng(trace);
    assert.deepEqual([img.width, img.height], [600, 400]);
    const px: { x: number; y: number; rgb: number[] }[] = [];
    for (let i = 0; i < img.data.length; i += 4) {
      if (img.data.readUInt32BE(i) !== before.data.readUInt32BE(i)) px.push({ x: (i / 4) % 600, y: Math.floor(i / 4 / 600), rgb: [...img.data.subarray(i, i + 3)] });
    }
    return px;
  };
  const tap = changed(await drawTrace(png, { kind: 'tap', point: { x: 200, y: 150 } }));
  assert.ok(tap.length > 500, `a tap marks a disc and a ring (${tap.length} pixels)`);
  assert.ok(tap.every((p) => Math.hypot(p.x - 200, p.y - 150) <= 17 * unit), 'nothing changes away from the tap');
  const centre = tap.find((p) => p.x === 200 && p.y === 150)!;
  assert.ok(centre.rgb[0]! > centre.rgb[1]! + 40, `the tap's centre is tinted red: ${centre.rgb}`);

  const path = [{ x: 100, y: 300 }, { x: 300, y: 300 }, { x: 300, y: 100 }];
  const drag = changed(await drawTrace(png, { kind: 'drag', path }));
  const near = (p: { x: number; y: number }) => Math.min(...path.map((q) => Math.hypot(p.x - q.x, p.y - q.y)), p.x >= 100 && p.x <= 300 ? Math.abs(p.y - 300) : Infinity, p.y >= 100 && p.y <= 300 ? Math.abs(p.x - 300) : Infinity);
  const far = drag.filter((p) => near(p) > 10 * unit);
  assert.deepEqual(far.slice(0, 5), [], 'nothing changes away from the path');
  for (const end of [path[0]!, path[2]!]) assert.ok(drag.some((p) => p.x === end.x && p.y === end.y), `both ends are marked (${end.x},${end.y})`);

  const label = changed(await drawTrace(png, { kind: 'label', text: 'typed 2 characters' }));
  assert.ok(label.length > 1000, 'the label is drawn');
  assert.ok(label.every((p) => p.y > 320), 'only the bottom band changes');
  const xs = label.map((p) => p.x);
  assert.ok(Math.abs((Math.min(...xs) + Math.max(...xs)) / 2 - 300) <= 2, 'the label is centred');

  // A mark at a corner is clipped, not an error.
  assert.ok(changed(await drawTrace(png, { kind: 'tap', point: { x: 599, y: 399 } })).length > 0);
});
