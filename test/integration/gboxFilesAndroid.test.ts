// The file-system endpoints and run-code on an Android box of a real `boxflow serve`, against the
// fake adb server (a TEST DOUBLE of the adb protocol replaying captured device output): the exact
// device command lines and sync requests, device paths (relative ones from the box's working dir),
// shell metacharacters in names always quoted, another tenant's box.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import type { FakeDevice } from '../support/fakeAdbServer.js';
import type { Box } from '../../src/api/schemas.js';

const kSerial = 'emulator-5580';
const srv = useGboxServer('gbox-files-android', [kSerial]);
const a = () => srv.client('a');
const b = () => srv.client('b');

let box: Box;
let dev: FakeDevice;
let dir: string;

before(async () => {
  await srv.ready();
  box = await a().createAndroidBox();
  dev = srv.fake.device(kSerial);
  dir = `/data/local/tmp/boxflow/${box.id}`;
});

/** What the device was asked from `from` on: shell lines and sync requests. */
function since(mark: { services: number; sync: number }) {
  return { shell: dev.services.slice(mark.services).filter((s) => s.startsWith('shell:')).map((s) => s.slice(6)), sync: dev.syncRequests.slice(mark.sync).filter((r) => r !== 'QUIT') };
}
const mark = () => ({ services: dev.services.length, sync: dev.syncRequests.length });

test('write: mkdir -p of the folder, then SEND; read: STAT, RECV; info and exists: STAT; all in the box dir', async () => {
  let m = mark();
  const written = await a().writeFile(box.id, { path: 'notes/today.txt', content: 'hello device\n' });
  assert.deepEqual({ ...written, lastModified: 'x' }, { type: 'file', name: 'today.txt', path: `${dir}/notes/today.txt`, size: '13 B', mode: '-rw-r--r--', lastModified: 'x' });
  assert.deepEqual(since(m).shell, [`mkdir -p '${dir}/notes'`]);
  assert.deepEqual(since(m).sync.filter((r) => r.startsWith('SEND')), [`SEND ${dir}/notes/today.txt,${0o100644}`], 'a regular file, 0644');
  assert.equal(dev.files.get(`${dir}/notes/today.txt`)!.data.toString(), 'hello device\n');

  m = mark();
  assert.deepEqual(await a().readFile(box.id, { path: 'today.txt', workingDir: 'notes' }), { content: 'hello device\n' });
  assert.deepEqual(since(m).shell, [], 'no shell for a read');
  assert.ok(since(m).sync.includes(`RECV ${dir}/notes/today.txt`), since(m).sync.join(' | '));
  assert.ok(since(m).sync.every((r) => r.endsWith(`${dir}/notes/today.txt`)));

  m = mark();
  const info = await a().fileInfo(box.id, `${dir}/notes`);
  assert.deepEqual([info.type, info.name, info.path], ['dir', 'notes', `${dir}/notes`]);
  assert.deepEqual(await a().fileExists(box.id, 'notes/today.txt'), { exists: true, type: 'file' });
  assert.deepEqual(await a().fileExists(box.id, 'notes/none.txt'), { exists: false });
  assert.deepEqual(since(m), { shell: [`ls -ld '${dir}/notes/none.txt'`], sync: [`STAT ${dir}/notes`, `STAT ${dir}/notes/today.txt`, `STAT ${dir}/notes/none.txt`] }, 'nothing there: the device says why');
  await rejects(a().readFile(box.id, 'notes/none.txt'), 404, 'FILE_NOT_FOUND');
  await rejects(a().readFile(box.id, 'notes'), 422, 'UNPROCESSABLE');
});

test('list: LIST, depth by depth; remove: rm -rf of the quoted path', async () => {
  await a().writeFile(box.id, { path: 'tree/a/b.txt', content: 'b' });
  await a().writeFile(box.id, { path: 'tree/c.txt', content: Buffer.from([1, 2, 3]) });
  let m = mark();
  const one = await a().listFiles(box.id, 'tree');
  assert.deepEqual(one.data.map((e) => [e.type, e.path]), [['dir', `${dir}/tree/a`], ['file', `${dir}/tree/c.txt`]]);
  assert.deepEqual(since(m).sync, [`STAT ${dir}/tree`, `LIST ${dir}/tree`]);
  const two = await a().listFiles(box.id, { path: 'tree', depth: 2 });
  assert.deepEqual(two.data.map((e) => e.path), [`${dir}/tree/a`, `${dir}/tree/a/b.txt`, `${dir}/tree/c.txt`]);
  m = mark();
  assert.deepEqual(await a().removeFile(box.id, 'tree/a'), { message: `removed the directory ${dir}/tree/a` });
  assert.deepEqual(since(m).shell, [`rm -rf '${dir}/tree/a'`]);
  assert.deepEqual((await a().listFiles(box.id, 'tree')).data.map((e) => e.name), ['c.txt']);
  await rejects(a().removeFile(box.id, 'tree/a'), 404, 'FILE_NOT_FOUND');
  await rejects(a().listFiles(box.id, 'tree/c.txt'), 422, 'UNPROCESSABLE');
});

test("paths are the device's: `..` and absolute paths reach past the box dir; the device's root and the box dir cannot be removed", async () => {
  dev.writeFile('/sdcard/Download/shared.txt', 'for everyone');
  assert.deepEqual(await a().readFile(box.id, '../../../../../sdcard/Download/shared.txt'), { content: 'for everyone' });
  assert.deepEqual(await a().readFile(box.id, { path: 'shared.txt', workingDir: '/sdcard/Download' }), { content: 'for everyone' });
  const m = mark();
  await rejects(a().removeFile(box.id, '.'), 403, 'FORBIDDEN');
  await rejects(a().removeFile(box.id, '/'), 403, 'FORBIDDEN');
  assert.deepEqual(since(m), { shell: [], sync: [] });
});

test('shell metacharacters in names reach the device quoted, never as shell syntax', async () => {
  const names = ["x;id #", '$(id)', '`id`', "it's", 'a|b&c', 'tab\there > out', '*'];
  const m = mark();
  for (const name of names) {
    await a().writeFile(box.id, { path: `odd/${name}`, content: name });
    assert.deepEqual(await a().readFile(box.id, `odd/${name}`), { content: name });
  }
  await a().removeFile(box.id, 'odd/$(id)');
  await a().removeFile(box.id, "odd/it's");
  assert.deepEqual(dev.unquotedLines, []);
  assert.ok(since(m).shell.includes(`rm -rf '${dir}/odd/it'\\''s'`), since(m).shell.join(' | '));
  assert.ok(since(m).shell.includes(`rm -rf '${dir}/odd/$(id)'`));
  await rejects(a().writeFile(box.id, { path: 'odd/nul\u0000byte', content: 'x' }), 400, 'INVALID_REQUEST');
});

test("another tenant's Android box does not exist for fs or run-code", async () => {
  const m = mark();
  await rejects(b().listFiles(box.id, '.'), 404, 'BOX_NOT_FOUND');
  await rejects(b().writeFile(box.id, { path: 'planted', content: 'x' }), 404, 'BOX_NOT_FOUND');
  await rejects(b().removeFile(box.id, 'notes'), 404, 'BOX_NOT_FOUND');
  await rejects(b().runCode(box.id, { code: 'id', language: 'bash' }), 404, 'BOX_NOT_FOUND');
  assert.deepEqual(since(m), { shell: [], sync: [] });
});

test("run-code on Android: bash and sh run with the device's sh in the box dir, argv as positional parameters; other languages 422", async () => {
  let m = mark();
  const r = await a().runCode(box.id, { code: 'echo hi', argv: ['--flag', "it's"], envs: { MODE: 'a b' } });
  assert.deepEqual(r, { exitCode: 0, stdout: 'hi\n', stderr: '' });
  const stderrFile = (shell: string[]) => /2>'([^']+)'/.exec(shell[0] ?? '')?.[1] ?? 'none';
  let file = stderrFile(since(m).shell);
  assert.deepEqual(since(m).shell, [`sh -c 'cd '\\''${dir}'\\'' || exit 1; export MODE='\\''a b'\\''; set -- '\\''--flag'\\'' '\\''it'\\''\\'\\'''\\''s'\\''; echo hi' 2>'${file}'; echo boxflow-exit:$?`, `rm -f '${file}'`]);
  m = mark();
  await a().runCode(box.id, { language: 'sh', code: 'echo there', workingDir: 'notes' });
  file = stderrFile(since(m).shell);
  assert.deepEqual(since(m).shell, [`sh -c 'cd '\\''${dir}/notes'\\'' || exit 1; echo there' 2>'${file}'; echo boxflow-exit:$?`, `rm -f '${file}'`]);
  for (const language of ['python', 'typescript', 'javascript'] as const) {
    const err = await rejects(a().runCode(box.id, { language, code: 'print(1)' }), 422, 'UNPROCESSABLE');
    assert.match(err.message, new RegExp(`cannot run ${language}; it runs bash, sh`));
  }
  const long = await rejects(a().runCode(box.id, { code: `echo ${'x'.repeat(5000)}` }), 400, 'INVALID_REQUEST');
  assert.match(long.message, /adb takes at most 4000/);
});
