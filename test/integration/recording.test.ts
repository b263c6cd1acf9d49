// Recording a Linux box on a real Chromium, over real HTTP: the video decodes (ffprobe/ffmpeg read
// it), lasts as long as the recording did, and shows each moment of the page at its real time (a page
// that turns from red to blue 3 s after it loaded is red before and blue after, in the video), and
// stop gives the time of its first frame (`startedAt`, its 0). The endpoints hold serve's rules: another tenant's box is 404, the video's URL is pre-signed and expires,
// a stop without a start is 409, terminating the box ends the recording and leaves no ffmpeg behind.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BoxApiError, BoxClient } from '../../src/api/client.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { findChromium } from '../../src/server/devices/linux/chromium/findChromium.js';
import { LinuxBox } from '../../src/server/devices/linux/chromium/linuxBox.js';
import { startLinuxRecording } from '../../src/server/devices/linux/recording.js';
import { waitFor } from '../support/waitFor.js';

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0 && spawnSync('ffprobe', ['-version']).status === 0;
const skip = hasFfmpeg ? false : "no ffmpeg/ffprobe on PATH (scripts/setup.mjs installs Debian's ffmpeg as root)";

const dir = mkdtempSync(join(tmpdir(), 'boxflow-recording-'));
chmodSync(dir, 0o755);
let server: Awaited<ReturnType<typeof startServer>>;
let client: BoxClient;
let other: BoxClient;

before(async () => {
  const secret = randomBytes(16).toString('hex');
  server = await startServer({ port: 0, dataDir: join(dir, 'srv'), secret, log: () => {} });
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'rec-a'), maxRetries: 0 });
  other = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'rec-b'), maxRetries: 0 });
});
after(async () => {
  await client?.close();
  await other?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }); // a killed Chromium may still be writing its crash folder
});

/** The video's length in seconds, as ffprobe reads it. */
function duration(file: string): number {
  return Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], { encoding: 'utf8' }).trim());
}

/** The colour of the video's middle pixel at `seconds`: the frame shown then (frames last until the next one; `fps` makes that a frame every 20 ms). */
function colourAt(file: string, seconds: number): [number, number, number] {
  const rgb = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-vf', `fps=50,trim=start=${seconds},crop=2:2:iw/2:ih/2,scale=1:1`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-']);
  return [rgb[0]!, rgb[1]!, rgb[2]!];
}
const isRed = ([r, g, b]: number[]) => r! > 180 && g! < 80 && b! < 80;
const isBlue = ([r, g, b]: number[]) => b! > 180 && r! < 80 && g! < 80;


test('a recording of a real Chromium decodes, lasts as long as it ran, and shows the page at its real times', { skip, timeout: 90_000 }, async () => {
  const box = await client.createLinuxBox({ wait: true });
  const page = `data:text/html,<body style="margin:0;background:red"><script>setTimeout(() => document.body.style.background = 'blue', 3000)</script></body>`;
  const asked = Date.now();
  await client.startRecording(box.id);
  const startAnswered = Date.now();
  const t0 = performance.now();
  await client.openTab(box.id, { url: page });
  const loaded = (performance.now() - t0) / 1000;
  await sleep(loaded * 1000 + 4_200 - (performance.now() - t0));
  // The recording ends when the stop arrives: after it was sent, before its answer came back.
  const wall = (performance.now() - t0) / 1000;
  const result = await client.stopRecording(box.id);
  const answered = (performance.now() - t0) / 1000;

  assert.equal(result.contentType, 'video/webm');
  assert.match(result.storageKey, new RegExp(`^boxes/${box.id}/recordings/rec_[\\w-]+\\.webm$`));
  assert.deepEqual(result.limits, { maxDurationMs: 600_000, maxBytes: 200 * 1024 * 1024 });
  assert.equal(result.truncated, undefined);
  // The video's 0 is its first frame, on the box's clock (this process's): the recording began once
  // the start was asked, and its first frame was written before the start answered.
  const zero = Date.parse(result.startedAt!);
  assert.ok(zero >= asked && zero <= startAnswered, `startedAt ${result.startedAt} lies between the start asked (${new Date(asked).toISOString()}) and answered (${new Date(startAnswered).toISOString()})`);
  const res = await fetch(result.presignedUrl);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'video/webm');
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(bytes.length, result.size);
  const file = join(dir, 'linux.webm');
  writeFileSync(file, bytes);

  // It decodes from start to end, and lasts as long as the recording did (start answered → stop asked).
  assert.equal(spawnSync('ffmpeg', ['-v', 'error', '-xerror', '-i', file, '-f', 'null', '-']).status, 0, 'ffmpeg decodes every frame');
  const seconds = duration(file);
  assert.ok(seconds > wall - 0.3 && seconds < answered + 0.3, `the video lasts ${seconds} s, the recording from ${wall.toFixed(3)} to ${answered.toFixed(3)} s`);
  assert.ok(Math.abs(seconds * 1000 - result.durationMs!) < 50, `durationMs ${result.durationMs} agrees with the file's ${seconds} s`);
  // The page was red from its load until 3 s later, then blue: so is the video, at those times.
  assert.ok(isRed(colourAt(file, loaded + 1)), `red at ${(loaded + 1).toFixed(2)} s: ${colourAt(file, loaded + 1)}`);
  assert.ok(isBlue(colourAt(file, loaded + 3.6)), `blue at ${(loaded + 3.6).toFixed(2)} s: ${colourAt(file, loaded + 3.6)}`);

  // The URL is pre-signed: a changed signature or path is refused, and the object is the caller's box's.
  const url = new URL(result.presignedUrl);
  const sig = url.searchParams.get('sig')!;
  // Another last two characters (a signature that ends in AA would otherwise stay the same).
  url.searchParams.set('sig', `${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`);
  assert.equal((await fetch(url)).status, 403);
  const bare = new URL(result.presignedUrl);
  bare.search = '';
  assert.equal((await fetch(bare)).status, 403);
  await client.terminateBox(box.id);
});

test('the video URL expires when asked to', { skip, timeout: 60_000 }, async (t) => {
  const box = await client.createLinuxBox({ wait: true });
  await client.startRecording(box.id);
  await sleep(300);
  const result = await client.stopRecording(box.id, { presignedExpiresIn: '1s' });
  assert.equal((await fetch(result.presignedUrl)).status, 200);
  // Valid for at least the second asked (exp is rounded up to a whole second), so gone two seconds
  // later: the server (in this process) reads that time from a mocked clock, not by waiting for it.
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() + 2_100 });
  try {
    const expired = await fetch(result.presignedUrl);
    assert.equal(expired.status, 403);
    assert.equal(((await expired.json()) as { code: string }).code, 'PRESIGN_EXPIRED');
  } finally {
    t.mock.timers.reset();
  }
  await assert.rejects(client.stopRecording(box.id, { presignedExpiresIn: '7h' }), (err: BoxApiError) => err.httpStatus === 400);
  await client.terminateBox(box.id);
});

test("another tenant's box is 404 for both endpoints; a stop with no recording is 409", { skip, timeout: 60_000 }, async () => {
  const box = await client.createLinuxBox({ wait: true });
  await assert.rejects(other.startRecording(box.id), (err: BoxApiError) => err.httpStatus === 404 && err.serverCode === 'BOX_NOT_FOUND');
  await assert.rejects(other.stopRecording(box.id), (err: BoxApiError) => err.httpStatus === 404 && err.serverCode === 'BOX_NOT_FOUND');
  await assert.rejects(client.stopRecording(box.id), (err: BoxApiError) => err.httpStatus === 409 && err.serverCode === 'CONFLICT');
  // The owner's recording is untouched by the other tenant's tries, and a second start replaces the first.
  await client.startRecording(box.id);
  await assert.rejects(other.stopRecording(box.id), (err: BoxApiError) => err.httpStatus === 404);
  await client.startRecording(box.id);
  const result = await client.stopRecording(box.id);
  assert.ok(result.size! > 0);
  await assert.rejects(client.stopRecording(box.id), (err: BoxApiError) => err.httpStatus === 409);
  await client.terminateBox(box.id);
});

test('terminating a box ends its recording: no ffmpeg and no temporary folder stay', { skip, timeout: 60_000 }, async () => {
  // Other test files may record at the same time: this test follows the folder its own box's
  // recording made (named after the box).
  const box = await client.createLinuxBox({ wait: true });
  const list = () => new Set(readdirSync(tmpdir()).filter((n) => n.startsWith(`boxflow-rec-${box.id}-`)));
  await client.startRecording(box.id);
  await client.openTab(box.id, { url: 'data:text/html,<h1>bye</h1>' });
  const mine = [...list()];
  assert.equal(mine.length, 1, `one recording folder was made: ${mine.join(', ')}`);
  await client.terminateBox(box.id);
  await waitFor(() => !list().has(mine[0]!), { what: 'the recording folder to be removed', intervalMs: 100 });
  const ffmpegs = spawnSync('pgrep', ['-f', `${mine[0]}.*video.webm`], { encoding: 'utf8' }).stdout.trim();
  assert.equal(ffmpegs, '', 'no ffmpeg of the recording runs');
});

test('a recording ends by itself at its length bound, and stop answers it', { skip, timeout: 60_000 }, async () => {
  const work = mkdtempSync(join(dir, 'bound-'));
  const linux = new LinuxBox({ resolution: { width: 640, height: 400 }, executablePath: findChromium(process.env), userDataDir: join(work, 'profile'), cwd: work });
  try {
    await (await linux.activePage()).goto('data:text/html,<body style="background:red">');
    const rec = await startLinuxRecording(linux, { maxMs: 1_500, maxBytes: 50_000_000 });
    await sleep(2_500);
    const video = await rec.stop();
    assert.equal(video.truncated, 'duration');
    assert.equal(video.durationMs, 1_500);
    assert.ok(Math.abs(duration(video.file) - 1.5) < 0.1, `the file lasts ${duration(video.file)} s`);
    assert.ok(isRed(colourAt(video.file, 0.5)));
    rmSync(video.dir, { recursive: true, force: true });
  } finally {
    await linux.closeBrowser({ final: true });
  }
});
