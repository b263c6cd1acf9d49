// The exit marker of an Android command (src/server/devices/exitMarker.ts): the device's output ends
// with `boxflow-exit:<$?>`; the scanner passes the output on as it comes and holds back at most the
// marker line's length, whatever the output looks like.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExitMarkerScanner, kMarkerLineMax } from '../../src/server/devices/exitMarker.js';

/** The output `chunks` make: what the scanner passed on, what it held back at the end and the code. */
function scan(chunks: Array<string | Buffer>): { out: string; held: string; code: number | undefined } {
  const s = new ExitMarkerScanner();
  let out = '';
  for (const c of chunks) {
    out += s.push(Buffer.from(c)).toString('latin1');
    assert.ok(s.held.length <= kMarkerLineMax, `held ${s.held.length} bytes`);
  }
  return { out, held: s.held.toString('latin1'), code: s.end() };
}

/** Every way to cut `text` in two. */
const cuts = (text: string) => Array.from({ length: text.length + 1 }, (_, i): [string, string] => [text.slice(0, i), text.slice(i)]);

test('the last line is the marker and the code, wherever the chunks are cut; the output before it is passed on whole', () => {
  for (const [text, out, code] of [
    ['hello\nboxflow-exit:0\n', 'hello\n', 0],
    ['no newline at the endboxflow-exit:127\n', 'no newline at the end', 127],
    ['pty\r\nboxflow-exit:255\r\n', 'pty\r\n', 255],
    ['boxflow-exit:1\n', '', 1],
    ['boxflow-exit:12\nboxflow-exit:3\n', 'boxflow-exit:12\n', 3],
    ['bboxflow-exit:42', 'b', 42],
  ] as const) {
    for (const [a, b] of cuts(text)) {
      const r = scan([a, b]);
      assert.deepEqual([r.out, r.code], [out, code], JSON.stringify([a, b]));
    }
  }
});

test('without the marker at the end there is no code, and nothing but a possible start of it is held', () => {
  assert.deepEqual(scan(['some output\n']), { out: 'some output\n', held: '', code: undefined });
  assert.deepEqual(scan(['cut short boxf']), { out: 'cut short ', held: 'boxf', code: undefined });
  assert.deepEqual(scan(['boxflow-exit:\n']), { out: 'boxflow-exit:\n', held: '', code: undefined });
  assert.deepEqual(scan(['boxflow-exit:1234\n']), { out: 'boxflow-exit:1234\n', held: '', code: undefined }, 'no $? has four digits');
  assert.deepEqual(scan(['boxflow-exit:1\nmore']), { out: 'boxflow-exit:1\nmore', held: '', code: undefined }, 'a marker before the end is output');
});

test('`boxflow-exit:` and then 32 MiB of digits: passed on as it comes, one scan per chunk, never more than the marker line held', () => {
  const s = new ExitMarkerScanner();
  const digits = Buffer.alloc(64 * 1024, '7');
  let passed = s.push(Buffer.from('boxflow-exit:')).length;
  for (let i = 0; i < 512; i++) {
    passed += s.push(digits).length;
    assert.ok(s.held.length <= kMarkerLineMax);
  }
  passed += s.push(Buffer.from('boxflow-exit:0\n')).length;
  assert.equal(passed, 13 + 32 * 2 ** 20, 'everything but the marker line went on');
  assert.equal(s.end(), 0);
});
