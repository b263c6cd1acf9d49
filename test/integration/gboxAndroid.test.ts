// The GBOX pointer actions and display on an Android box of a real `boxflow serve`, whose device is
// the fake adb server's (a TEST DOUBLE speaking the real adb protocol, test/support/fakeAdbServer.ts):
// the exact device command lines each sends, and a clear 422 for what adb's `input` cannot do.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import { waitFor } from '../support/waitFor.js';
import type { FakeDevice } from '../support/fakeAdbServer.js';
import type { Box } from '../../src/api/schemas.js';

const kSerial = 'emulator-5560';
const srv = useGboxServer('gbox-android', [kSerial]);
const client = () => srv.client('a');

let box: Box;
let dev: FakeDevice;
/** The rotation `dumpsys input` reports; undefined: a dump without the line. */
let rotation: number | undefined = 0;

before(async () => {
  await srv.ready();
  dev = srv.fake.device(kSerial);
  // constructed: the InputReader part of `dumpsys input` (Android 12 prints `SurfaceOrientation: N` per touch device)
  dev.on(/^dumpsys input$/, () => `Input Reader State:\n  Device 3: virtio_input_multi_touch_1\n${rotation === undefined ? '' : `    SurfaceOrientation: ${rotation}\n`}`);
  box = await client().createAndroidBox();
});

/** The shell lines `act` sent to the device. */
async function sent(act: () => Promise<unknown>): Promise<string[]> {
  const mark = dev.shellCommands.length;
  await act();
  return dev.shellCommands.slice(mark);
}

test('click, tap and long-press are `input tap` / `input swipe` in place; a double click is both taps on one line', async () => {
  assert.deepEqual(await sent(() => client().click(box.id, { x: 100, y: 200 })), ['input tap 100 200']);
  assert.deepEqual(await sent(() => client().click(box.id, { x: 100.4, y: 200.6, double: true })), ['input tap 100 201; input tap 100 201']);
  const tap = await client().tap(box.id, { x: 540, y: 1200 });
  assert.deepEqual(tap.actual, { x: 540, y: 1200 });
  const long = await client().longPress(box.id, { x: 300, y: 400 });
  assert.deepEqual(long.actual, { duration: '1s', x: 300, y: 400 });
  const lines = await sent(() => client().longPress(box.id, { x: 300, y: 400, duration: '1500ms' }));
  assert.deepEqual(lines, ['input swipe 300 400 300 400 1500']);
  const element = { id: 'n1', x: 0, y: 0, width: 100, height: 50, centerX: 50, centerY: 25, label: 'OK', path: '/hierarchy/node', source: 'uiautomator', type: 'button' };
  assert.deepEqual(await sent(() => client().tap(box.id, { target: element })), ['input tap 50 25']);
});

test('scroll and swipe: the finger moves against the content; directions start at the screen\'s centre from `wm size`', async () => {
  assert.deepEqual(await sent(() => client().scroll(box.id, { scrollX: 0, scrollY: 600, x: 540, y: 1500 })), ['input swipe 540 1500 540 900 500']);
  let r: Awaited<ReturnType<ReturnType<typeof client>['scroll']>> | undefined;
  const lines = await sent(async () => (r = await client().scroll(box.id, { direction: 'up', distance: 'short', duration: '300ms' })));
  assert.deepEqual(r!.actual, { scrollX: 0, scrollY: 720, x: 540, y: 1200 });
  assert.deepEqual(lines, ['wm size', 'dumpsys input', 'input swipe 540 1200 540 480 300']);
  const swipe = await sent(() => client().swipe(box.id, { start: { x: 100, y: 2000 }, end: { x: 100, y: 500 }, duration: '250ms' }));
  assert.deepEqual(swipe, ['input swipe 100 2000 100 500 250']);
  let s: Awaited<ReturnType<ReturnType<typeof client>['swipe']>> | undefined;
  const left = await sent(async () => (s = await client().swipe(box.id, { direction: 'left', distance: 200 })));
  assert.deepEqual(s!.actual, { duration: '500ms', start: { x: 540, y: 1200 }, end: { x: 340, y: 1200 } });
  assert.equal(left.at(-1), 'input swipe 540 1200 340 1200 500');
});

test('touch with one finger: a path of `input motionevent`s through its moves and waits', async () => {
  const lines = await sent(() => client().touch(box.id, { points: [{ start: { x: 10, y: 20 }, actions: [{ type: 'move', x: 10, y: 120, duration: '100ms' }, { type: 'wait', duration: '50ms' }] }] }));
  assert.deepEqual(lines, ['input motionevent DOWN 10 20', 'input motionevent MOVE 10 70', 'input motionevent MOVE 10 120', 'input motionevent MOVE 10 120', 'input motionevent UP 10 120']);
  assert.deepEqual(await sent(() => client().touch(box.id, { points: [{ start: { x: 5, y: 6 } }] })), ['input tap 5 6']);
});

test('a touch is stopped when its request goes away: the finger is lifted where it is and the box serves the next request', async () => {
  const mark = dev.shellCommands.length;
  const ac = new AbortController();
  // A 20 s wait before the move: only the abort ends this touch in the test's time.
  const touching = client().touch(box.id, { points: [{ start: { x: 10, y: 20 }, actions: [{ type: 'wait', duration: '20s' }, { type: 'move', x: 10, y: 120, duration: '100ms' }] }] }, { signal: ac.signal });
  touching.catch(() => {}); // awaited below, once aborted
  await waitFor(() => dev.shellCommands.slice(mark).includes('input motionevent DOWN 10 20'));
  ac.abort();
  await assert.rejects(touching);
  await client().tap(box.id, { x: 5, y: 6 });
  assert.deepEqual(dev.shellCommands.slice(mark), ['input motionevent DOWN 10 20', 'input motionevent UP 10 20', 'input tap 5 6']);
});

test('what adb\'s input cannot do is 422 before any device command: hover, two fingers, other buttons, modifiers; the clipboard (no stock shell command)', async () => {
  const lines = await sent(async () => {
    await rejects(client().move(box.id, { x: 1, y: 1 }), 422, 'UNPROCESSABLE');
    await rejects(client().touch(box.id, { points: [{ start: { x: 1, y: 1 } }, { start: { x: 2, y: 2 } }] }), 422, 'UNPROCESSABLE');
    await rejects(client().click(box.id, { x: 1, y: 1, button: 'right' }), 422, 'UNPROCESSABLE');
    await rejects(client().click(box.id, { x: 1, y: 1, modifierKeys: ['shift'] }), 422, 'UNPROCESSABLE');
    await rejects(client().getClipboard(box.id), 422, 'UNPROCESSABLE');
    await rejects(client().setClipboard(box.id, 'x'), 422, 'UNPROCESSABLE');
    await rejects(client().screenshot(box.id, { scrollCapture: {} }), 422, 'UNPROCESSABLE');
  });
  assert.deepEqual(lines, []);
  for (const call of [() => client().listTabs(box.id), () => client().openBrowser(box.id), () => client().switchTab(box.id, 't1'), () => client().closeTab(box.id, 't1')]) {
    await rejects(call(), 400, 'UNSUPPORTED_BOX_TYPE');
  }
});

test('display: `wm size` (the override wins) turned by the rotation `dumpsys input` reports; start answers the running box', async () => {
  assert.deepEqual(await client().getDisplay(box.id), { orientation: 'portrait', resolution: { width: 1080, height: 2400 } });
  rotation = 1;
  assert.deepEqual(await client().getDisplay(box.id), { orientation: 'landscapeLeft', resolution: { width: 2400, height: 1080 } });
  await client().setResolution(box.id, { width: 720, height: 1280 });
  assert.deepEqual(await client().getDisplay(box.id), { orientation: 'landscapeLeft', resolution: { width: 1280, height: 720 } });
  rotation = undefined;
  assert.deepEqual(await client().getDisplay(box.id), { orientation: 'portrait', resolution: { width: 720, height: 1280 } }, 'no rotation in the dump: the natural orientation');
  assert.equal((await client().startBox(box.id)).status, 'running');
});

test('actions get their images and action id as drag does; no line ever carries an unquoted metacharacter', async () => {
  const r = await client().tap(box.id, { x: 10, y: 10, options: { screenshot: { phases: ['before', 'after'], delay: '0ms' } } });
  assert.match(r.actionId, /^act_/);
  assert.match(r.screenshot?.before?.uri ?? '', /^data:image\/png;base64,/);
  assert.match(r.screenshot?.after?.uri ?? '', /^data:image\/png;base64,/);
  await rejects(srv.client('b').tap(box.id, { x: 1, y: 1 }), 404, 'BOX_NOT_FOUND');
  await rejects(client().tap(box.id, { x: 1, y: 1e12 }), 400, 'INVALID_REQUEST');
  assert.deepEqual(dev.unquotedLines, []);
});

test('screen-rotation: auto-rotate off and user_rotation N, the settings read before the first turn; terminating the box puts them back', async () => {
  // The device's own setting: auto-rotate on, user_rotation never set.
  dev.systemSettings.set('accelerometer_rotation', '1');
  dev.systemSettings.delete('user_rotation');
  const first = await sent(() => client().screenRotation(box.id, { orientation: 'landscapeLeft' }));
  assert.deepEqual(first, ['settings get system accelerometer_rotation', 'settings get system user_rotation', 'settings put system accelerometer_rotation 0', 'settings put system user_rotation 1']);
  let r: Awaited<ReturnType<ReturnType<typeof client>['screenRotation']>> | undefined;
  const second = await sent(async () => (r = await client().screenRotation(box.id, { orientation: 'landscapeRight' })));
  assert.deepEqual(second, ['settings put system accelerometer_rotation 0', 'settings put system user_rotation 3'], 'read once, before the first turn');
  assert.match(r!.actionId, /^act_/);
  assert.equal(r!.message, 'rotated the screen to landscapeRight (user_rotation 3, auto-rotate off until the box is released)');
  assert.deepEqual(await sent(() => client().screenRotation(box.id, { orientation: 'portraitUpsideDown' })), ['settings put system accelerometer_rotation 0', 'settings put system user_rotation 2']);
  assert.deepEqual(await sent(() => client().screenRotation(box.id, { orientation: 'portrait' })), ['settings put system accelerometer_rotation 0', 'settings put system user_rotation 0']);
  await client().screenRotation(box.id, { orientation: 'landscapeLeft' });
  assert.deepEqual([dev.systemSettings.get('accelerometer_rotation'), dev.systemSettings.get('user_rotation')], ['0', '1']);
  await rejects(srv.client('b').screenRotation(box.id, { orientation: 'portrait' }), 404, 'BOX_NOT_FOUND');

  const released = await sent(() => client().terminateBox(box.id, {}));
  assert.deepEqual(released.filter((l) => l.startsWith('settings ')), ['settings delete system user_rotation', 'settings put system accelerometer_rotation 1']);
  assert.deepEqual([dev.systemSettings.get('accelerometer_rotation'), dev.systemSettings.has('user_rotation')], ['1', false], 'the device as the box found it');
  assert.deepEqual(dev.unquotedLines, []);

  // A box that never turned the screen leaves the settings alone on release.
  const other = await client().createAndroidBox();
  const untouched = await sent(() => client().terminateBox(other.id, {}));
  assert.deepEqual(untouched.filter((l) => l.startsWith('settings ')), []);
});
