// Recording an Android box against the fake adb server (a TEST DOUBLE speaking the real adb protocol;
// no device here): the exact screenrecord command line, the SIGINT that stops it, the sync pull of its
// file and its removal, a chain of segments joined into one video, and a screenrecord that cannot
// record. The device's screenrecord is played by handlers plugged into the fake device (FakeDevice.on):
// it runs until pkill sends SIGINT (or "its time limit" ends it), then leaves a real MP4 at its path.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BoxApiError } from '../../src/api/client.js';
import { shellWords, type FakeDevice } from '../support/fakeAdbServer.js';
import { useAndroidServer } from '../support/localServer.js';
import { waitFor } from '../support/waitFor.js';

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0 && spawnSync('ffprobe', ['-version']).status === 0;
const serial = 'emulator-5554';
const android = useAndroidServer('rec-android', [serial]);

/** A real one-second H.264 MP4 of one colour (what screenrecord writes), or some bytes without ffmpeg. */
let clip: (colour: string) => Buffer;
before(() => {
  clip = (colour) => {
    if (!hasFfmpeg) return Buffer.from(`not an mp4: ${colour}`);
    const file = join(android.dir, `${colour}.mp4`);
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `color=${colour}:s=320x640:r=30`, '-t', '1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', file]);
    return readFileSync(file);
  };
});

interface Screenrecord {
  args: string[];
  /** Ends it as its time limit would (it writes its file first). */
  end: () => void;
}

/**
 * screenrecord on the fake device: each run is listed in `runs` and answers once it ends, writing
 * `video(n)` to its path; `pkill -INT -f <pattern>` ends every run whose command line matches.
 */
function playScreenrecord(dev: FakeDevice, video: (n: number) => Buffer): Screenrecord[] {
  const runs: Screenrecord[] = [];
  const live = new Set<{ line: string; stop: () => void }>();
  dev.on(/^screenrecord (.+)$/, (m, d) => {
    const args = shellWords(m[1]!);
    const n = runs.length + 1;
    return new Promise<string>((resolve) => {
      const run = {
        line: `screenrecord ${args.join(' ')}`,
        stop: () => {
          live.delete(run);
          d.writeFile(args.at(-1)!, video(n));
          resolve('');
        },
      };
      live.add(run);
      runs.push({ args, end: run.stop });
    });
  });
  dev.on(/^pkill -INT -f (.+)$/, (m) => {
    const pattern = new RegExp(shellWords(m[1]!)[0]!);
    for (const run of [...live]) if (pattern.test(run.line)) run.stop();
    return '';
  });
  return runs;
}

const deviceDir = (boxId: string) => `/data/local/tmp/boxflow/${boxId}`;

test('start runs screenrecord into the box dir; stop sends SIGINT, pulls the MP4 over sync and removes it from the device', { timeout: 30_000 }, async () => {
  const dev = android.fake.device(serial);
  const red = clip('red');
  const runs = playScreenrecord(dev, () => red);
  const box = await android.client.createAndroidBox({ wait: true });
  const dir = deviceDir(box.id);
  const from = dev.services.length;
  await android.client.startRecording(box.id);
  await sleep(200);
  const result = await android.client.stopRecording(box.id);

  const lines = dev.services.slice(from).filter((s) => !s.startsWith('sync:'));
  assert.deepEqual(lines, [
    `shell:screenrecord --bit-rate 2000000 --time-limit 180 '${dir}/rec.mp4'`,
    `shell:pkill -INT -f '^screenrecord .*${dir}/rec'`,
    `shell:rm -f '${dir}/rec.mp4'`,
  ]);
  assert.deepEqual(runs.map((r) => r.args), [['--bit-rate', '2000000', '--time-limit', '180', `${dir}/rec.mp4`]]);
  assert.ok(dev.syncRequests.includes(`STAT ${dir}/rec.mp4`));
  assert.ok(dev.syncRequests.includes(`RECV ${dir}/rec.mp4`));
  assert.equal(dev.files.has(`${dir}/rec.mp4`), false, 'the file is gone from the device');
  assert.deepEqual(dev.unquotedLines, [], 'every value reached the device shell quoted');

  assert.equal(result.contentType, 'video/mp4');
  assert.match(result.storageKey, new RegExp(`^boxes/${box.id}/recordings/rec_[\\w-]+\\.mp4$`));
  const res = await fetch(result.presignedUrl);
  assert.equal(res.headers.get('content-type'), 'video/mp4');
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(red), 'the download is the device\'s file, byte for byte');
  await android.client.terminateBox(box.id);
});

test('a recording longer than one screenrecord run chains segments and joins them into one video', { skip: hasFfmpeg ? false : 'no ffmpeg', timeout: 30_000 }, async () => {
  const dev = android.fake.device(serial);
  const colours = ['red', 'blue'].map(clip);
  const runs = playScreenrecord(dev, (n) => colours[n - 1]!);
  const box = await android.client.createAndroidBox({ wait: true });
  const dir = deviceDir(box.id);
  await android.client.startRecording(box.id);
  runs[0]!.end(); // its time limit: the recording goes on in a second file
  await waitFor(() => runs.length >= 2, { what: 'the second screenrecord run', timeoutMs: 5_000 });
  assert.deepEqual(runs.map((r) => r.args.at(-1)), [`${dir}/rec.mp4`, `${dir}/rec-2.mp4`]);
  const result = await android.client.stopRecording(box.id);
  assert.ok(dev.syncRequests.includes(`RECV ${dir}/rec-2.mp4`));
  const file = join(android.dir, 'joined.mp4');
  writeFileSync(file, Buffer.from(await (await fetch(result.presignedUrl)).arrayBuffer()));
  const seconds = Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], { encoding: 'utf8' }));
  assert.ok(Math.abs(seconds - 2) < 0.1, `both segments are in the video: ${seconds} s`);
  assert.equal(dev.files.has(`${dir}/rec-2.mp4`), false);
  await android.client.terminateBox(box.id);
});

test('a screenrecord that cannot record fails the start with its own words (502 DEVICE_ERROR)', { timeout: 30_000 }, async () => {
  const dev = android.fake.device(serial);
  dev.on(/^screenrecord (.+)$/, () => 'ERROR: unable to create video encoder (err=-38)\n');
  const box = await android.client.createAndroidBox({ wait: true });
  await assert.rejects(android.client.startRecording(box.id), (err: BoxApiError) => err.httpStatus === 502 && err.serverCode === 'DEVICE_ERROR' && /unable to create video encoder/.test(err.message));
  await assert.rejects(android.client.stopRecording(box.id), (err: BoxApiError) => err.httpStatus === 409);
  await android.client.terminateBox(box.id);
});
