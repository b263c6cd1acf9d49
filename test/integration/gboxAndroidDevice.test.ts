// The answers of an Android box that the official SDK found wrong, on a real `boxflow serve` whose
// devices are the fake adb server's (a TEST DOUBLE of the adb protocol replaying captured device
// output, test/support/fakeAdbServer.ts): commands with stdout, stderr and the exit code apart (adb's
// shell protocol v2, and the fallback of a device without it), in the box's working dir by default,
// output past 1 MiB said cut with the bytes dropped; fs endpoints on device paths, where what the
// shell user may not read is the device's own 403/404; screenshots saved to the Pictures album; and
// "close all apps" stopping every running app the launcher shows.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import type { FakeDevice } from '../support/fakeAdbServer.js';
import { kCommandOutputMax, type Box } from '../../src/api/schemas.js';

const kV2 = 'emulator-5590';
const kOld = 'emulator-5592';
const srv = useGboxServer('gbox-android-device', [kV2, kOld]);
const a = () => srv.client('a');

let v2Box: Box;
let oldBox: Box;
let v2: FakeDevice;
let old: FakeDevice;
const dirOf = (box: Box) => `/data/local/tmp/boxflow/${box.id}`;
/** `'…'` as shellQuote.ts writes a word inside the single-quoted `sh -c` script. */
const inner = (word: string) => `'\\''${word}'\\''`;

before(async () => {
  await srv.ready();
  v2 = srv.fake.device(kV2);
  old = srv.fake.device(kOld);
  v2.features.push('shell_v2');
  // A command writing more than the cap to each stream.
  for (const d of [v2, old]) d.on(/^big-print$/, () => ({ out: 'a'.repeat(1_500_000), err: 'e'.repeat(1_100_000) }));
  v2Box = await a().createAndroidBox({ config: { deviceSerial: kV2 } });
  oldBox = await a().createAndroidBox({ config: { deviceSerial: kOld } });
});

test('a device with shell_v2: stdout and stderr come apart with the real exit code, the command in the box dir by default', async () => {
  const dir = dirOf(v2Box);
  const from = v2.services.length;
  const r = await a().runCommand(v2Box.id, { command: 'ls /no/such/dir' });
  assert.deepEqual(r, { exitCode: 1, stdout: '', stderr: 'ls: /no/such/dir: No such file or directory\n' });
  assert.deepEqual(v2.services.slice(from), [`shell,v2,raw:sh -c 'cd ${inner(dir)} || exit 1; ls /no/such/dir'`], 'one v2 request, in the box dir');

  v2.writeFile('/sdcard/Download/seen.txt', 'x');
  const both = await a().runCommand(v2Box.id, { command: 'ls /sdcard/Download/seen.txt /sdcard/gone; exit 3', workingDir: '/sdcard' });
  assert.deepEqual(both, { exitCode: 3, stdout: '/sdcard/Download/seen.txt\n', stderr: 'ls: /sdcard/gone: No such file or directory\n' });
  assert.equal(v2.services.at(-1), `shell,v2,raw:sh -c 'cd ${inner('/sdcard')} || exit 1; ls /sdcard/Download/seen.txt /sdcard/gone; exit 3'`);

  const unknown = await a().runCommand(v2Box.id, { command: 'no-such-tool' });
  assert.equal(unknown.exitCode, 127);
  assert.equal(unknown.stdout, '');
  assert.match(unknown.stderr, /no-such-tool/);
});

test('a device without shell_v2: stderr goes to a file in the box dir, read back apart after the exit marker and removed', async () => {
  const dir = dirOf(oldBox);
  const from = old.services.length;
  const r = await a().runCommand(oldBox.id, { command: 'ls /no/such/dir' });
  assert.deepEqual(r, { exitCode: 1, stdout: '', stderr: 'ls: /no/such/dir: No such file or directory\n' });
  const lines = old.services.slice(from).filter((s) => s.startsWith('shell:')).map((s) => s.slice(6));
  const m = new RegExp(`^sh -c 'cd ${inner(dir).replace(/[\\'|]/g, '\\$&')} \\|\\| exit 1; ls /no/such/dir' 2>'(${dir}/\\.boxflow-stderr-[\\d-]+)'; echo boxflow-exit:\\$\\?$`).exec(lines[0]!);
  assert.ok(m, lines.join(' | '));
  assert.deepEqual(lines.slice(1), [`rm -f '${m[1]}'`], 'the stderr file is removed after it was read');
  assert.equal(old.files.has(m[1]!), false);
  assert.deepEqual(await a().runCommand(oldBox.id, { command: 'exit 4' }), { exitCode: 4, stdout: '', stderr: '' });
});

test('output past 1 MiB is cut and said so, and `truncated` names the bytes dropped from each stream (with and without shell_v2)', async () => {
  for (const box of [v2Box, oldBox]) {
    const r = await a().runCommand(box.id, { command: 'big-print' });
    assert.equal(r.exitCode, 0);
    assert.equal(r.stdout, `${'a'.repeat(kCommandOutputMax)}\n[boxflow: output cut at 1048576 bytes; the command wrote 1500000]`);
    assert.equal(r.stderr, `${'e'.repeat(kCommandOutputMax)}\n[boxflow: output cut at 1048576 bytes; the command wrote 1100000]`);
    assert.deepEqual(r.truncated, { stdout: 1_500_000 - kCommandOutputMax, stderr: 1_100_000 - kCommandOutputMax });
  }
});

test('fs endpoints take device paths; relative ones start at the box dir; what the shell user may not read is the device\'s own 403/404', async () => {
  const dir = dirOf(v2Box);
  const written = await a().writeFile(v2Box.id, { path: '/sdcard/Download/a.txt', content: 'on the device\n' });
  assert.deepEqual([written.type, written.path, written.type === 'file' && written.size], ['file', '/sdcard/Download/a.txt', '14 B']);
  assert.equal(v2.files.get('/sdcard/Download/a.txt')!.data.toString(), 'on the device\n');
  assert.deepEqual(await a().readFile(v2Box.id, '/sdcard/Download/a.txt'), { content: 'on the device\n' });
  assert.deepEqual(await a().readFile(v2Box.id, { path: 'Download/a.txt', workingDir: '/sdcard' }), { content: 'on the device\n' });
  assert.ok((await a().listFiles(v2Box.id, '/sdcard/Download')).data.some((e) => e.path === '/sdcard/Download/a.txt'));
  v2.mkdirs('/sdcard/DCIM/Camera');
  assert.deepEqual((await a().listFiles(v2Box.id, '/sdcard/DCIM')).data.map((e) => [e.type, e.path]), [['dir', '/sdcard/DCIM/Camera']]);
  const rel = await a().writeFile(v2Box.id, { path: 'notes/x.txt', content: 'x' });
  assert.equal(rel.path, `${dir}/notes/x.txt`);

  // An app's private folder: adbd's sync sees nothing there; the device's ls says why.
  v2.denied.add('/data/data/com.secret.app');
  v2.writeFile('/data/data/com.secret.app/shared_prefs/token.xml', '<token/>');
  const read = await rejects(a().readFile(v2Box.id, '/data/data/com.secret.app/shared_prefs/token.xml'), 403, 'FORBIDDEN');
  assert.match(read.message, /ls: \/data\/data\/com\.secret\.app\/shared_prefs\/token\.xml: Permission denied/);
  const list = await rejects(a().listFiles(v2Box.id, '/data/data/com.secret.app'), 403, 'FORBIDDEN');
  assert.match(list.message, /Permission denied/);
  await rejects(a().fileExists(v2Box.id, '/data/data/com.secret.app/shared_prefs'), 403, 'FORBIDDEN');
  const write = await rejects(a().writeFile(v2Box.id, { path: '/data/data/com.secret.app/planted', content: 'x' }), 403, 'FORBIDDEN');
  assert.match(write.message, /Permission denied/);
  assert.equal(v2.files.has('/data/data/com.secret.app/planted'), false);

  const none = await rejects(a().fileInfo(v2Box.id, '/sdcard/none.txt'), 404, 'FILE_NOT_FOUND');
  assert.match(none.message, /ls: \/sdcard\/none\.txt: No such file or directory/);
  assert.deepEqual(await a().fileExists(v2Box.id, '/sdcard/none.txt'), { exists: false });

  await rejects(a().readFile(v2Box.id, '/sdcard/a\u0000b'), 400, 'INVALID_REQUEST');
  await rejects(a().readFile(v2Box.id, `/sdcard/${'d/'.repeat(600)}x`), 400, 'INVALID_REQUEST');
  assert.deepEqual(v2.unquotedLines.filter((l) => !l.startsWith('shell:sh -c ')), [], 'every path quoted');
});

test('saveToAlbum puts the screenshot in the device\'s Pictures album and tells the media scanner; the answer is the screenshot\'s', async () => {
  const from = v2.services.length;
  const shot = await a().screenshot(v2Box.id, { saveToAlbum: true });
  assert.match(shot.uri, /^data:image\/png;base64,/);
  const saved = [...v2.files.keys()].filter((k) => /^\/sdcard\/Pictures\/boxflow-[^/]+\.png$/.test(k));
  assert.equal(saved.length, 1, [...v2.files.keys()].join(' '));
  assert.deepEqual(v2.files.get(saved[0]!)!.data, Buffer.from(shot.uri.slice('data:image/png;base64,'.length), 'base64'));
  assert.ok(v2.services.slice(from).includes(`shell:am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d 'file://${saved[0]}'`), v2.services.slice(from).join(' | '));
});

test('close all apps stops every running app the launcher shows, system apps included; the keyboard and apps without a launcher entry keep running', async () => {
  const launcher: Record<string, string> = { 'com.android.chrome': 'com.google.android.apps.chrome.Main', 'com.android.settings': '.Settings', 'com.google.android.youtube': '.HomeActivity' };
  for (const p of v2.packages) if (launcher[p.packageName]) p.launcher = launcher[p.packageName];
  v2.packages.push({ packageName: 'com.android.inputmethod.latin', apkPath: '/system/app/LatinIME/LatinIME.apk', system: true, versionName: '1', launcher: '.Settings' });
  v2.running = new Set(['com.android.chrome', 'com.android.settings', 'com.google.android.youtube', 'com.android.systemui', 'com.android.inputmethod.latin']);
  await a().closeAllApps(v2Box.id);
  assert.deepEqual([...v2.running].sort(), ['com.android.inputmethod.latin', 'com.android.systemui']);
});
