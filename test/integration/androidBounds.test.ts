// Reads from an Android device are bounded while they stream, on a real `boxflow serve` against the
// fake adb server (a TEST DOUBLE of the adb protocol replaying device output, test/support/
// fakeAdbServer.ts): a command's output that looks like its exit marker for 32 MiB, or that never
// ends; a file whose pull never ends (a link to /dev/zero, 9 bytes to STAT); shell and exec output
// without end; a recording whose file never ends. Each is cut at its bound, answers at once, closes
// the device's stream, and leaves the other tenant's box answering.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket, type RawData } from 'ws';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import type { FakeDevice } from '../support/fakeAdbServer.js';
import { kCommandOutputMax, kFsLimits, type Box } from '../../src/api/schemas.js';
import { Adb } from '../../src/server/devices/android/adbkit.js';
import { AndroidBox } from '../../src/server/devices/android/androidBox.js';
import { startAndroidRecording } from '../../src/server/devices/android/recording.js';

const kSerialA = 'emulator-5590';
const kSerialB = 'emulator-5592';
const srv = useGboxServer('android-bounds', [kSerialA, kSerialB]);
const a = () => srv.client('a');
const b = () => srv.client('b');

let box: Box;
let other: Box;
let dev: FakeDevice;

before(async () => {
  await srv.ready();
  [box, other] = await Promise.all([a().createAndroidBox({ config: { deviceSerial: kSerialA } }), b().createAndroidBox({ config: { deviceSerial: kSerialB } })]);
  dev = srv.fake.device(kSerialA);
});

const kMarker = 'boxflow-exit:';
const kChunk = 64 * 1024;

/**
 * Output of a device command that comes over time: `first`, then `chunk` `count` times (forever
 * without a count), then `last`; `stopped` resolves once the device stops sending (the end, or
 * the server closed the stream). `gate` holds everything after `first` until it resolves.
 */
function deviceOutput(o: { first: string; chunk: Buffer; count?: number; last?: string; gate?: Promise<void> }) {
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  const reply = () => ({
    stream: (async function* () {
      try {
        yield o.first;
        await o.gate;
        for (let i = 0; o.count === undefined || i < o.count; i++) yield o.chunk;
        if (o.last) yield o.last;
      } finally {
        stop();
      }
    })(),
  });
  return { reply, stopped };
}

interface Frame {
  event: string;
  data?: string;
  exitCode?: number;
}

/** A command over the command websocket: every frame until the server closes it; `onStdout` sees the stdout bytes so far. */
async function streamed(command: Record<string, unknown>, onStdout: (bytes: number) => void): Promise<{ frames: Frame[]; stdout: string; stderr: string }> {
  const ws = new WebSocket((await a().websocketUrl(box.id)).command, { headers: { authorization: `Bearer ${srv.key('a')}` } });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const frames: Frame[] = [];
  let bytes = 0;
  ws.on('message', (raw: RawData) => {
    const f = JSON.parse(raw.toString()) as Frame;
    frames.push(f);
    if (f.event === 'stdout') onStdout((bytes += Buffer.byteLength(f.data!)));
  });
  const closed = new Promise((resolve) => ws.once('close', resolve));
  ws.send(JSON.stringify({ command }));
  await closed;
  const of = (event: string) => frames.filter((f) => f.event === event).map((f) => f.data).join('');
  return { frames, stdout: of('stdout'), stderr: of('stderr') };
}

const cutNote = (wrote: number) => `\n[boxflow: output cut at ${kCommandOutputMax} bytes; the command wrote ${wrote}]`;

test('a command whose output is `boxflow-exit:` and 32 MiB of digits: passed on as it comes, cut at 1 MiB, then its exit code', { timeout: 60_000 }, async () => {
  // The device sends the rest only once the client has had output: the server holds none of it back whole.
  let reached!: () => void;
  const gate = new Promise<void>((r) => (reached = r));
  const out = deviceOutput({ first: kMarker + '7'.repeat(kChunk), chunk: Buffer.alloc(kChunk, '7'), count: 511, gate });
  dev.on(/^digits$/, out.reply);
  const s = await streamed({ command: 'digits', timeout: '10s' }, () => reached());
  const wrote = kMarker.length + 32 * 2 ** 20;
  assert.deepEqual(s.frames.at(-1), { event: 'end', exitCode: 0, truncated: { stdout: wrote - kCommandOutputMax } });
  assert.equal(s.stderr, '');
  assert.equal(s.stdout, kMarker + '7'.repeat(kCommandOutputMax - kMarker.length) + cutNote(wrote));

  // POST /commands reads the same output to the same answer.
  dev.on(/^digits$/, deviceOutput({ first: kMarker, chunk: Buffer.alloc(kChunk, '7'), count: 512 }).reply);
  assert.deepEqual(await a().runCommand(box.id, { command: 'digits' }), { exitCode: 0, stdout: kMarker + '7'.repeat(kCommandOutputMax - kMarker.length) + cutNote(wrote), stderr: '', truncated: { stdout: wrote - kCommandOutputMax } });
});

test('a device that sends `boxflow-exit:` and digits without end: cut at 1 MiB, 124 at the timeout, its stream closed; the other tenant is answered meanwhile', { timeout: 60_000 }, async () => {
  const out = deviceOutput({ first: kMarker, chunk: Buffer.alloc(kChunk, '7') });
  dev.on(/^endless$/, out.reply);
  const order: string[] = [];
  let asked: Promise<unknown> | undefined;
  const s = await streamed({ command: 'endless', timeout: '3s' }, (bytes) => {
    if (bytes < kCommandOutputMax || asked) return;
    // a's command has sent its 1 MiB and the device goes on: b's box answers all the same.
    asked = b()
      .runCommand(other.id, { command: 'echo hi' })
      .then((r) => {
        assert.deepEqual(r, { exitCode: 0, stdout: 'hi\n', stderr: '' });
        order.push('b answered');
      });
  });
  order.push('a ended');
  await asked;
  assert.deepEqual(order, ['b answered', 'a ended']);
  const note = /^\n\[boxflow: output cut at 1048576 bytes; the command wrote (\d+)\]$/.exec(s.stdout.slice(kCommandOutputMax));
  assert.ok(note && Number(note[1]) > kCommandOutputMax, s.stdout.slice(kCommandOutputMax));
  assert.deepEqual(s.frames.at(-1), { event: 'end', exitCode: 124, truncated: { stdout: Number(note[1]) - kCommandOutputMax } });
  assert.equal(s.stdout.slice(0, kCommandOutputMax), kMarker + '7'.repeat(kCommandOutputMax - kMarker.length));
  assert.match(s.stderr, /^\[boxflow: timed out after 3000 ms; the command's shell stream to the device was closed\]$/);
  await out.stopped;
});

test('fs/read of a link to /dev/zero (9 bytes to STAT): 413 FILE_TOO_LARGE once the pull passes 8 MiB, and the pull is closed', { timeout: 120_000 }, async () => {
  const dir = `/data/local/tmp/boxflow/${box.id}`;
  const zero = dev.linkToZero(`${dir}/zero`);
  const info = await a().fileInfo(box.id, `${dir}/zero`);
  assert.deepEqual([info.type, info.type === 'file' && info.size], ['file', '9 B'], 'STAT sees the link');
  const err = await rejects(a().readFile(box.id, 'zero'), 413, 'FILE_TOO_LARGE');
  assert.match(err.message, new RegExp(`: ${dir}/zero is too large: fs/read answers at most ${kFsLimits.readBytes / 2 ** 20} MiB`));
  await zero.closed;
  assert.ok(zero.sent() > kFsLimits.readBytes, 'the bound was reached by counting, not by the size STAT gave');
  // The box goes on.
  await a().writeFile(box.id, { path: 'small.txt', content: 'ok' });
  assert.deepEqual(await a().readFile(box.id, 'small.txt'), { content: 'ok' });
});

test('shell and exec output without end: 502 DEVICE_ERROR at the bound (16 MiB, 64 MiB), the stream closed, not read until the 60 s timeout', { timeout: 180_000 }, async () => {
  const shell = deviceOutput({ first: '', chunk: Buffer.alloc(kChunk, 'x') });
  dev.on(/^input keyevent 26$/, shell.reply);
  const err = await rejects(a().pressButton(box.id, { buttons: ['power'] }), 502, 'DEVICE_ERROR');
  assert.match(err.message, /`input keyevent 26` wrote more than 16 MiB on emulator-5590; its stream was closed there/);
  await shell.stopped;

  const exec = deviceOutput({ first: '', chunk: Buffer.alloc(kChunk, 0x89) });
  dev.on(/^screencap -p$/, exec.reply);
  const shot = await rejects(a().screenshot(box.id), 502, 'DEVICE_ERROR');
  assert.match(shot.message, /`screencap -p` wrote more than 64 MiB on emulator-5590; its stream was closed there/);
  await exec.stopped;
});

test('a recording whose file never ends (a link to /dev/zero): the pull stops at the size bound and is closed; stop says the recording is too large', { timeout: 90_000 }, async () => {
  const serial = 'emulator-5594';
  const boxId = `bounds-${randomUUID()}`;
  const d = srv.fake.addDevice(serial);
  let zero: ReturnType<FakeDevice['linkToZero']> | undefined;
  let ended!: (out: string) => void;
  d.on(/^screenrecord .*$/, () => new Promise<string>((r) => (ended = r)));
  d.on(/^pkill -INT -f .*$/, () => {
    zero = d.linkToZero(`/data/local/tmp/boxflow/${boxId}/rec.mp4`);
    ended('');
    return '';
  });
  const client = Adb.createClient({ host: '127.0.0.1', port: srv.fake.port, bin: '/nonexistent/adb' });
  const info = { serial, sdk: 33, release: '13', model: 'Pixel 6', manufacturer: 'Google', virtual: true };
  const android = new AndroidBox(client.getDevice(serial), info, boxId, { host: '127.0.0.1', port: srv.fake.port });
  const limits = { maxMs: 60_000, maxBytes: 2 * 2 ** 20 };
  const recorder = await startAndroidRecording(android, limits, boxId);
  try {
    await assert.rejects(recorder.stop(), (e: Error) => /the recording on emulator-5594 is larger than 2097152 bytes/.test(e.message));
    await zero!.closed;
    assert.ok(zero!.sent() > limits.maxBytes);
    // The part cut at the bound is not left on the server's disk.
    const dirs = (await readdir(tmpdir())).filter((n) => n.startsWith(`boxflow-rec-${boxId}-`));
    assert.equal(dirs.length, 1);
    assert.deepEqual(await readdir(join(tmpdir(), dirs[0]!)), []);
  } finally {
    await recorder.abort();
  }
});

test('a media download of a file that carries more than STAT said: exactly the size STAT gave, then the pull is closed', { timeout: 90_000 }, async () => {
  const path = '/sdcard/DCIM/Grown/IMG_1.jpg';
  const photo = Buffer.from('the photo\n');
  dev.writeFile(path, photo);
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  // The file goes on growing while it is read: RECV sends its bytes, then more without end.
  dev.files.get(path)!.recv = async function* () {
    try {
      yield photo;
      for (;;) yield Buffer.alloc(kChunk, 1);
    } finally {
      stop();
    }
  };
  assert.ok((await a().downloadMedia(box.id, 'Grown', 'IMG_1.jpg')).equals(photo));
  await stopped;
});
