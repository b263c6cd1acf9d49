// Playwright's `use.video` as the box's recording mode, attempt by attempt, with Playwright's own
// rules of which attempts it records and which videos it keeps; and the one-line warnings for what
// of `video` and `trace` cannot reach the box.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boxVideoMode, recordingWarnings } from '../../src/playwright/recording.js';

test("Playwright's video modes record the box on the attempts Playwright records, keeping what it keeps", () => {
  const modes = (video: Parameters<typeof boxVideoMode>[0]) => [0, 1, 2].map((retry) => boxVideoMode(video, retry));
  assert.deepEqual(modes('off'), [undefined, undefined, undefined], "off: boxflow.config's video decides");
  assert.deepEqual(modes('on'), ['on', 'on', 'on']);
  assert.deepEqual(modes({ mode: 'retain-on-failure' }), ['retain-on-failure', 'retain-on-failure', 'retain-on-failure']);
  assert.deepEqual(modes('on-first-retry'), ['off', 'on', 'off']);
  assert.deepEqual(modes('retry-with-video'), ['off', 'on', 'off']);
  assert.deepEqual(modes('on-all-retries'), ['off', 'on', 'on']);
  assert.deepEqual(modes('retain-on-first-failure'), ['retain-on-failure', 'off', 'off']);
  assert.deepEqual(modes('retain-on-failure-and-retries'), ['retain-on-failure', 'on', 'on']);
});

test("what of Playwright's video and trace cannot reach the box is said in one line each, with what to set", () => {
  assert.deepEqual(recordingWarnings('on', 'on', ['before', 'after', 'trace']), []);
  assert.deepEqual(recordingWarnings({ mode: 'off', size: { width: 640, height: 480 } }, 'off', []), [], 'no video asked for: nothing to say');
  const [size] = recordingWarnings({ mode: 'on', size: { width: 640, height: 480 } }, 'off', ['after']);
  assert.match(size!, /^video: video\.size applies to Playwright's own pages only; .*box\.setResolution\(\)/);
  const [trace] = recordingWarnings('off', { mode: 'retain-on-failure' }, []);
  assert.match(trace!, /^trace: .*set `screenshots: \['trace'\]` \(or true\)/);
  assert.ok(!`${size}${trace}`.includes('\n'));
});
