// The file-system endpoints (fs/list, read, write, exists, info, DELETE fs) on Linux boxes of a real
// `boxflow serve` (as root here, as in CI), over real HTTP, with the wire shapes of
// docs/api.md, and tried as a tenant would attack them: another tenant's box, `..` and
// absolute paths, symbolic links that lead out of the box, the browser's profile, huge files.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import { kFsLimits, type Box, type FsEntry } from '../../src/api/schemas.js';
import { isolationAvailable } from '../../src/server/host/boxUser.js';

const srv = useGboxServer('gbox-files');
const a = () => srv.client('a');
const b = () => srv.client('b');
const isolated = isolationAvailable();

let box: Box;
/** The box's directory on the server. */
let home: string;

before(async () => {
  await srv.ready();
  box = await a().createLinuxBox();
  home = (await a().runCommand(box.id, { command: 'printf %s "$HOME"' })).stdout;
});

const sh = async (command: string) => {
  const r = await a().runCommand(box.id, { command });
  assert.equal(r.exitCode, 0, r.stderr);
  return r.stdout;
};

/** A multipart body by hand: parts in the given order, text or file. */
function multipart(parts: Array<{ name: string; value: string | Buffer; filename?: string }>): { body: Buffer; contentType: string } {
  const boundary = `----boxflow${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\ncontent-disposition: ${disposition}\r\n${p.filename !== undefined ? 'content-type: application/octet-stream\r\n' : ''}\r\n`), Buffer.from(p.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function rawWrite(tenant: 'a' | 'b', boxId: string, parts: Parameters<typeof multipart>[0]): Promise<{ status: number; json: Record<string, unknown> }> {
  const { body, contentType } = multipart(parts);
  const res = await request(`${srv.baseUrl}/boxes/${boxId}/fs/write`, { method: 'POST', headers: { authorization: `Bearer ${srv.key(tenant)}`, 'content-type': contentType }, body });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
}

test('write, read, info, exists, list and remove: the GBOX shapes, with box paths', async () => {
  const written = await a().writeFile(box.id, { path: 'notes/today.txt', content: 'hello\nwörld\n' });
  assert.deepEqual({ ...written, lastModified: 'x' }, { type: 'file', name: 'today.txt', path: '/work/notes/today.txt', size: '13 B', mode: '-rw-r--r--', lastModified: 'x' });
  assert.ok(!Number.isNaN(Date.parse(written.lastModified)));
  assert.deepEqual(await a().readFile(box.id, 'notes/today.txt'), { content: 'hello\nwörld\n' });
  assert.deepEqual(await a().readFile(box.id, { path: 'today.txt', workingDir: '/work/notes' }), { content: 'hello\nwörld\n' });
  const info = await a().fileInfo(box.id, '/work/notes');
  assert.deepEqual([info.type, info.name, info.path, 'size' in info], ['dir', 'notes', '/work/notes', false]);
  assert.deepEqual(await a().fileExists(box.id, 'notes/today.txt'), { exists: true, type: 'file' });
  assert.deepEqual(await a().fileExists(box.id, { path: 'notes' }), { exists: true, type: 'dir' });
  assert.deepEqual(await a().fileExists(box.id, 'notes/none'), { exists: false });
  assert.deepEqual(await a().fileExists(box.id, 'no/such/dir/file'), { exists: false });

  // Bytes go as a file part; an existing file is overwritten and keeps its mode.
  await sh('chmod 640 notes/today.txt');
  const bytes = Buffer.from([0, 1, 2, 255, 10]);
  const over = await a().writeFile(box.id, { path: '/work/notes/today.txt', content: bytes });
  assert.deepEqual([over.type, over.mode, (over as { size: string }).size], ['file', '-rw-r-----', '5 B']);
  assert.equal(readFileSync(join(home, 'work', 'notes', 'today.txt')).compare(bytes), 0);
  if (isolated) assert.equal(statSync(join(home, 'work', 'notes', 'today.txt')).uid, statSync(join(home, 'work')).uid, "written as the box's user");

  await a().writeFile(box.id, { path: 'notes/deeper/more.txt', content: 'x' });
  const one = await a().listFiles(box.id, 'notes');
  assert.deepEqual(one.data.map((e: FsEntry) => [e.type, e.path]), [['dir', '/work/notes/deeper'], ['file', '/work/notes/today.txt']]);
  const two = await a().listFiles(box.id, { path: '/work/notes', depth: 2 });
  assert.deepEqual(two.data.map((e: FsEntry) => e.path), ['/work/notes/deeper', '/work/notes/deeper/more.txt', '/work/notes/today.txt']);
  assert.equal(two.truncated, undefined);

  assert.deepEqual(await a().removeFile(box.id, 'notes/deeper'), { message: 'removed the directory /work/notes/deeper' });
  assert.deepEqual(await a().removeFile(box.id, { path: 'today.txt', workingDir: 'notes' }), { message: 'removed /work/notes/today.txt' });
  assert.deepEqual((await a().listFiles(box.id, 'notes')).data, []);
  await rejects(a().removeFile(box.id, 'notes/today.txt'), 404, 'FILE_NOT_FOUND');
  await rejects(a().readFile(box.id, 'notes/today.txt'), 404, 'FILE_NOT_FOUND');
  await rejects(a().fileInfo(box.id, 'nothing'), 404, 'FILE_NOT_FOUND');
  await rejects(a().listFiles(box.id, 'nothing'), 404, 'FILE_NOT_FOUND');
  await rejects(a().readFile(box.id, 'notes'), 422, 'UNPROCESSABLE');
});

test('on the wire: GET with a query, POST exists and DELETE with JSON bodies, write as multipart with its parts in any order', async () => {
  await a().writeFile(box.id, { path: 'wire.txt', content: 'on the wire' });
  const list = await srv.raw('a', 'GET', `/boxes/${box.id}/fs/list?path=%2Fwork&depth=1`);
  assert.equal(list.status, 200);
  assert.ok((JSON.parse(list.text) as { data: FsEntry[] }).data.some((e) => e.path === '/work/wire.txt'));
  assert.deepEqual(JSON.parse((await srv.raw('a', 'GET', `/boxes/${box.id}/fs/read?path=wire.txt`)).text), { content: 'on the wire' });
  assert.equal(JSON.parse((await srv.raw('a', 'GET', `/boxes/${box.id}/fs/info?path=wire.txt&workingDir=%2Fwork`)).text).size, '11 B');
  assert.deepEqual(JSON.parse((await srv.raw('a', 'POST', `/boxes/${box.id}/fs/exists`, { path: 'wire.txt' })).text), { exists: true, type: 'file' });
  assert.equal((await srv.raw('a', 'GET', `/boxes/${box.id}/fs/list?path=%2Fwork&depth=0`)).status, 400);
  assert.equal((await srv.raw('a', 'GET', `/boxes/${box.id}/fs/list?depth=1`)).status, 400, 'path is required');
  assert.equal((await srv.raw('a', 'POST', `/boxes/${box.id}/fs/write`, { path: 'x', content: 'json' })).status, 400, 'fs/write is multipart');
  // `content` before `path`, as a file part, and an unknown text part
  const w = await rawWrite('a', box.id, [{ name: 'content', value: Buffer.from('first'), filename: 'blob' }, { name: 'extra', value: 'ignored' }, { name: 'path', value: 'order.txt' }, { name: 'workingDir', value: '/work' }]);
  assert.equal(w.status, 200, JSON.stringify(w.json));
  assert.equal(w.json.path, '/work/order.txt');
  assert.equal(readFileSync(join(home, 'work', 'order.txt'), 'utf8'), 'first');
  // A text part (the SDK's string) is written as it arrives.
  assert.equal((await rawWrite('a', box.id, [{ name: 'path', value: 'text.txt' }, { name: 'content', value: 'two\r\nlines ü' }])).status, 200);
  assert.equal(readFileSync(join(home, 'work', 'text.txt'), 'utf8'), 'two\r\nlines ü');
  assert.equal((await rawWrite('a', box.id, [{ name: 'content', value: 'no path' }])).status, 400);
  assert.equal((await rawWrite('a', box.id, [{ name: 'path', value: 'x' }])).status, 400, 'content is required');
  assert.equal((await rawWrite('a', box.id, [{ name: 'path', value: 'x' }, { name: 'content', value: 'a' }, { name: 'content', value: 'b' }])).status, 400, 'content twice');
  const del = await srv.raw('a', 'DELETE', `/boxes/${box.id}/fs`, { path: 'order.txt' });
  assert.deepEqual([del.status, JSON.parse(del.text)], [200, { message: 'removed /work/order.txt' }]);
});

test("another tenant's box does not exist for any fs endpoint", async () => {
  await rejects(b().listFiles(box.id, '/'), 404, 'BOX_NOT_FOUND');
  await rejects(b().readFile(box.id, 'wire.txt'), 404, 'BOX_NOT_FOUND');
  await rejects(b().fileInfo(box.id, 'wire.txt'), 404, 'BOX_NOT_FOUND');
  await rejects(b().fileExists(box.id, 'wire.txt'), 404, 'BOX_NOT_FOUND');
  await rejects(b().removeFile(box.id, 'wire.txt'), 404, 'BOX_NOT_FOUND');
  await rejects(b().writeFile(box.id, { path: 'planted.txt', content: 'x' }), 404, 'BOX_NOT_FOUND');
  assert.equal((await a().fileExists(box.id, 'planted.txt')).exists, false);
});

test('.. and absolute paths never leave the box: they are box paths', async () => {
  const hostPasswd = readFileSync('/etc/passwd', 'utf8');
  for (const path of ['../../../../../../etc/passwd', '/etc/passwd', '/../etc/passwd', `${home}/../../../etc/passwd`]) {
    const err = await rejects(a().readFile(box.id, path), 404, 'FILE_NOT_FOUND');
    assert.ok(!err.message.includes('root:'), err.message);
  }
  await rejects(a().readFile(box.id, { path: 'passwd', workingDir: '../../../../etc' }), 404, 'FILE_NOT_FOUND');
  // Written through `..`, the file lands in the box's own /etc.
  const w = await a().writeFile(box.id, { path: '../../../etc/passwd', content: 'mine' });
  assert.equal(w.path, '/etc/passwd');
  assert.equal(readFileSync(join(home, 'etc', 'passwd'), 'utf8'), 'mine');
  assert.equal(readFileSync('/etc/passwd', 'utf8'), hostPasswd);
  const root = await a().listFiles(box.id, '../..');
  assert.ok(root.data.some((e) => e.path === '/work') && root.data.some((e) => e.path === '/etc'), JSON.stringify(root.data.map((e) => e.path)));
  await rejects(a().removeFile(box.id, '/'), 403, 'FORBIDDEN');
  await rejects(a().removeFile(box.id, '../../..'), 403, 'FORBIDDEN');
  await a().removeFile(box.id, '/etc');
});

test('symbolic links that lead out of the box are refused by every endpoint; links inside it are followed', async () => {
  const work = join(home, 'work');
  symlinkSync('/etc', join(work, 'etc-link'));
  symlinkSync('/etc/hostname', join(work, 'host-link'));
  symlinkSync(join(home, '..'), join(work, 'boxes-link'));
  symlinkSync('/nonexistent/target', join(work, 'dangling'));
  await sh('mkdir -p inner && echo inside > inner/file.txt && ln -s inner inner-link && ln -s inner/file.txt file-link');
  const refused: Array<[string, () => Promise<unknown>]> = [
    ['read through a dir link', () => a().readFile(box.id, 'etc-link/passwd')],
    ['read a file link', () => a().readFile(box.id, 'host-link')],
    ['info', () => a().fileInfo(box.id, 'host-link')],
    ['exists', () => a().fileExists(box.id, 'etc-link/passwd')],
    ['list', () => a().listFiles(box.id, 'etc-link')],
    ['list the boxes', () => a().listFiles(box.id, 'boxes-link')],
    ['write through a dir link', () => a().writeFile(box.id, { path: 'etc-link/planted', content: 'x' })],
    ['write through a file link', () => a().writeFile(box.id, { path: 'host-link', content: 'x' })],
    ['write below a dangling link', () => a().writeFile(box.id, { path: 'dangling/x/y', content: 'x' })],
    ['remove through a link', () => a().removeFile(box.id, 'etc-link/hostname')],
    ['remove a link out', () => a().removeFile(box.id, 'host-link')],
    ['workingDir through a link', () => a().readFile(box.id, { path: 'passwd', workingDir: 'etc-link' })],
  ];
  for (const [what, call] of refused) {
    const err = await rejects(call(), 403, 'FORBIDDEN');
    assert.ok(!err.message.includes(home), `${what}: no server path in ${err.message}`);
  }
  assert.ok(lstatSync(join(work, 'host-link')).isSymbolicLink(), 'the links are still there');
  // Inside the box, links are followed (and a listing shows a link as what it points to, without descending).
  assert.deepEqual(await a().readFile(box.id, 'file-link'), { content: 'inside\n' });
  assert.deepEqual(await a().readFile(box.id, 'inner-link/file.txt'), { content: 'inside\n' });
  await a().writeFile(box.id, { path: 'file-link', content: 'through the link\n' });
  assert.equal(readFileSync(join(work, 'inner', 'file.txt'), 'utf8'), 'through the link\n');
  assert.ok(lstatSync(join(work, 'file-link')).isSymbolicLink(), 'writing through a link keeps the link');
  const listed = await a().listFiles(box.id, { path: '/work', depth: 3 });
  assert.deepEqual(listed.data.filter((e) => e.name === 'inner-link').map((e) => e.type), ['dir']);
  assert.ok(!listed.data.some((e) => e.path.startsWith('/work/inner-link/')), 'no descent into a link');
  assert.deepEqual(await a().removeFile(box.id, 'inner-link'), { message: 'removed /work/inner-link' });
  assert.equal(readFileSync(join(work, 'inner', 'file.txt'), 'utf8'), 'through the link\n', 'removing a link removes the link only');
});

test("the box's user does the I/O: the browser's profile is out of its reach", { skip: !isolated && 'needs root (box users)' }, async () => {
  const profile = await rejects(a().listFiles(box.id, '/profile'), 403, 'FORBIDDEN');
  assert.match(profile.message, /permission denied/);
  await rejects(a().readFile(box.id, '/profile/Default/Preferences'), 403, 'FORBIDDEN');
  await rejects(a().writeFile(box.id, { path: '/profile/planted', content: 'x' }), 403, 'FORBIDDEN');
  await rejects(a().removeFile(box.id, '/profile'), 403, 'FORBIDDEN');
  const root = await a().listFiles(box.id, { path: '/', depth: 2 });
  assert.ok(!root.data.some((e) => e.path.startsWith('/profile/')), 'a listing skips what the user may not read');
});

test('sizes: fs/read answers at most 8 MiB (413 beyond), a text part at most 8 MiB; special files are refused', async () => {
  await sh(`head -c ${kFsLimits.readBytes + 1} /dev/zero > big.bin && head -c ${kFsLimits.readBytes} /dev/zero > fits.bin && mkfifo pipe`);
  const err = await rejects(a().readFile(box.id, 'big.bin'), 413, 'FILE_TOO_LARGE');
  assert.match(err.message, /big\.bin is 8\.0 MB; fs\/read answers at most 8 MiB/);
  assert.equal((await a().readFile(box.id, 'fits.bin')).content.length, kFsLimits.readBytes);
  await rejects(a().readFile(box.id, 'pipe'), 422, 'UNPROCESSABLE');
  const tooLong = await rawWrite('a', box.id, [{ name: 'path', value: 'long.txt' }, { name: 'content', value: 'x'.repeat(kFsLimits.writeTextBytes + 1) }]);
  assert.deepEqual([tooLong.status, tooLong.json.code], [413, 'FILE_TOO_LARGE']);
  assert.equal((await a().fileExists(box.id, 'long.txt')).exists, false);
  const fits = await rawWrite('a', box.id, [{ name: 'path', value: 'long.txt' }, { name: 'content', value: 'x'.repeat(kFsLimits.writeTextBytes) }]);
  assert.equal(fits.status, 200);
  // The client sends a string as a file part: not bound by the text part's limit.
  const long = await a().writeFile(box.id, { path: 'long.txt', content: 'y'.repeat(kFsLimits.writeTextBytes + 10) });
  assert.equal(long.type === 'file' && long.size, '8.0 MB');
  await sh('rm -f big.bin fits.bin long.txt pipe');
  const left = await sh('ls -a "$HOME"');
  assert.doesNotMatch(left, /boxflow-upload/, 'the upload spool is gone');
});
