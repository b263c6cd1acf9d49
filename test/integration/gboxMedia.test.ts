// GBOX's media and storage endpoints (albums list/get/create/update, media
// list/get/download, media support, storage presigned-url) on a real `boxflow serve`: Android boxes on
// the fake adb server (a TEST DOUBLE speaking the real adb protocol, test/support/fakeAdbServer.ts),
// a Linux box on Chromium. The exact wire shapes, the exact device command lines and sync requests,
// and each endpoint tried as an attacker would: another tenant's box and objects, shell
// metacharacters and `..` in album and file names, huge values.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { FormData, request } from 'undici';
import { rejects } from '../support/apiErrors.js';
import { useGboxServer } from '../support/gboxServer.js';
import type { FakeDevice } from '../support/fakeAdbServer.js';
import type { Box } from '../../src/api/schemas.js';

const kSerial = 'emulator-5570';
const kSecond = 'emulator-5572';
const srv = useGboxServer('gbox-media', [kSerial, kSecond]);
const client = () => srv.client('a');

const kTime = new Date(1_700_000_000_000).toISOString();
const kScan = 'am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d';
const jpg = randomBytes(3000);
const png = randomBytes(700);
const mp4 = randomBytes(5000);

let box: Box;
let dev: FakeDevice;

before(async () => {
  await srv.ready();
  dev = srv.fake.device(kSerial);
  dev.writeFile('/sdcard/DCIM/Camera/IMG_001.jpg', jpg);
  dev.writeFile('/sdcard/DCIM/.thumbnails/IMG_001.jpg', 'thumb');
  dev.writeFile('/sdcard/Pictures/Holiday/beach.png', png);
  dev.writeFile('/sdcard/Pictures/Holiday/notes.txt', 'not a photo');
  dev.writeFile('/sdcard/Pictures/Holiday/.nomedia.jpg', 'hidden');
  dev.writeFile('/sdcard/Pictures/Camera/other.jpg', 'the DCIM album of the same name wins');
  dev.writeFile('/sdcard/Movies/Clips/a.mp4', mp4);
  box = await client().createAndroidBox({ config: { deviceSerial: kSerial } });
});

/** The shell lines and sync requests `act` sent to the device. */
async function sent(act: () => Promise<unknown>): Promise<{ shell: string[]; sync: string[] }> {
  const [s, y] = [dev.shellCommands.length, dev.syncRequests.length];
  await act();
  return { shell: dev.shellCommands.slice(s), sync: dev.syncRequests.slice(y) };
}

const album = (name: string, path: string, mediaCount: number, lastModified = kTime) => ({ name, path, mediaCount, lastModified });

test('albums: folders of /sdcard/DCIM, Pictures and Movies (the first of a name wins, hidden ones left out), each with its count of photos and videos', async () => {
  let list: unknown;
  const { shell, sync } = await sent(async () => (list = await client().listAlbums(box.id)));
  assert.deepEqual(shell, [], 'read over sync only');
  assert.deepEqual(sync.slice(0, 2), ['LIST /sdcard/DCIM', 'LIST /sdcard/DCIM/Camera']);
  assert.deepEqual(list, {
    data: [album('Camera', '/sdcard/DCIM/Camera', 1), album('Holiday', '/sdcard/Pictures/Holiday', 1), album('Clips', '/sdcard/Movies/Clips', 1)],
  });
  const raw = await srv.raw('a', 'GET', `/boxes/${box.id}/media/albums/Holiday`);
  assert.equal(raw.status, 200);
  assert.deepEqual(JSON.parse(raw.text), album('Holiday', '/sdcard/Pictures/Holiday', 1));
  await rejects(client().getAlbum(box.id, 'Nope'), 404, 'FILE_NOT_FOUND');
});

test('media: the photos and videos of an album with type, size, MIME type and time; a file that is none is 404', async () => {
  assert.deepEqual(await client().listMedia(box.id, 'Holiday'), {
    data: [{ type: 'photo', name: 'beach.png', path: '/sdcard/Pictures/Holiday/beach.png', size: '700 B', mimeType: 'image/png', lastModified: kTime }],
  });
  const raw = await srv.raw('a', 'GET', `/boxes/${box.id}/media/albums/Clips/media/a.mp4`);
  assert.equal(raw.status, 200);
  assert.deepEqual(JSON.parse(raw.text), { type: 'video', name: 'a.mp4', path: '/sdcard/Movies/Clips/a.mp4', size: '4.9 KB', mimeType: 'video/mp4', lastModified: kTime });
  await rejects(client().getMedia(box.id, 'Holiday', 'notes.txt'), 404, 'FILE_NOT_FOUND');
  await rejects(client().getMedia(box.id, 'Holiday', '.nomedia.jpg'), 404, 'FILE_NOT_FOUND');
  await rejects(client().getMedia(box.id, 'Holiday', 'nope.jpg'), 404, 'FILE_NOT_FOUND');
  await rejects(client().listMedia(box.id, 'Nope'), 404, 'FILE_NOT_FOUND');
});

test('download: the file\'s bytes streamed over sync (RECV), with its type, length and name', async () => {
  const { shell, sync } = await sent(async () => assert.ok((await client().downloadMedia(box.id, 'Camera', 'IMG_001.jpg')).equals(jpg)));
  assert.deepEqual(shell, []);
  assert.deepEqual(sync, ['STAT /sdcard/DCIM/Camera', 'STAT /sdcard/DCIM/Camera/IMG_001.jpg', 'RECV /sdcard/DCIM/Camera/IMG_001.jpg']);
  // As the SDK asks for it (Accept: application/octet-stream): the bytes, their type, length and a file name.
  const res = await request(`${srv.baseUrl}/boxes/${box.id}/media/albums/Clips/media/a.mp4/download`, { headers: { authorization: `Bearer ${srv.key('a')}`, accept: 'application/octet-stream' } });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'video/mp4');
  assert.equal(res.headers['content-length'], String(mp4.length));
  assert.equal(res.headers['content-disposition'], `attachment; filename="a.mp4"; filename*=UTF-8''a.mp4`);
  assert.ok(Buffer.from(await res.body.arrayBuffer()).equals(mp4));
  await rejects(client().downloadMedia(box.id, 'Holiday', 'notes.txt'), 404, 'FILE_NOT_FOUND');
});

test('create an album: multipart `name` and `media[]` parts, spooled and checked, then `mkdir -p` and sync SEND into /sdcard/Pictures, each file rescanned', async () => {
  let created: unknown;
  const { shell, sync } = await sent(async () => (created = await client().createAlbum(box.id, { name: 'Trip 2025', media: [{ name: 'a.jpg', data: jpg }, { name: 'b.mp4', data: mp4 }] })));
  assert.deepEqual(created, album('Trip 2025', '/sdcard/Pictures/Trip 2025', 2, (created as { lastModified: string }).lastModified));
  assert.deepEqual(shell, [
    "mkdir -p '/sdcard/Pictures/Trip 2025'",
    `${kScan} 'file:///sdcard/Pictures/Trip 2025/a.jpg'`,
    `${kScan} 'file:///sdcard/Pictures/Trip 2025/b.mp4'`,
  ]);
  assert.deepEqual(sync.filter((s) => s.startsWith('SEND')), ['SEND /sdcard/Pictures/Trip 2025/a.jpg,33188', 'SEND /sdcard/Pictures/Trip 2025/b.mp4,33188']);
  assert.ok(dev.files.get('/sdcard/Pictures/Trip 2025/a.jpg')!.data.equals(jpg));
  assert.ok(dev.files.get('/sdcard/Pictures/Trip 2025/b.mp4')!.data.equals(mp4));
  // As the SDK sends it: a status 201 and the album; an album with no media is only `name`.
  const form = new FormData();
  form.set('name', 'Empty');
  const res = await request(`${srv.baseUrl}/boxes/${box.id}/media/albums`, { method: 'POST', body: form, headers: { authorization: `Bearer ${srv.key('a')}` } });
  assert.equal(res.statusCode, 201);
  assert.deepEqual(await res.body.json(), album('Empty', '/sdcard/Pictures/Empty', 0, kTime));
  await rejects(client().createAlbum(box.id, { name: 'Camera' }), 409, 'FILE_EXISTS');
});

test('update an album: PATCH with `media[]` parts adds (or replaces) files; an album that does not exist is 404, no files 400', async () => {
  let updated: { mediaCount: number } | undefined;
  const { shell } = await sent(async () => (updated = await client().updateAlbum(box.id, 'Holiday', { media: [{ name: 'c.gif', data: png }, { name: 'beach.png', data: jpg }] })));
  assert.equal(updated!.mediaCount, 2);
  assert.deepEqual(shell, [`${kScan} 'file:///sdcard/Pictures/Holiday/c.gif'`, `${kScan} 'file:///sdcard/Pictures/Holiday/beach.png'`]);
  assert.ok(dev.files.get('/sdcard/Pictures/Holiday/beach.png')!.data.equals(jpg));
  await rejects(client().updateAlbum(box.id, 'Nope', { media: [{ name: 'x.jpg', data: jpg }] }), 404, 'FILE_NOT_FOUND');
  await rejects(client().updateAlbum(box.id, 'Holiday', { media: [] }), 400, 'INVALID_REQUEST');
  assert.ok(!dev.files.has('/sdcard/Pictures/Nope'));
});

test('media support: the extensions an album takes (lower case, no dot), on any box', async () => {
  const support = { photo: ['jpg', 'jpeg', 'png', 'gif', 'webp', 'bmp', 'heic', 'heif'], video: ['mp4', 'm4v', '3gp', 'webm', 'mkv', 'mov'] };
  assert.deepEqual(await client().getMediaSupport(box.id), support);
  const linux = await client().createLinuxBox();
  try {
    assert.deepEqual(await client().getMediaSupport(linux.id), support);
    for (const call of [
      () => client().listAlbums(linux.id),
      () => client().getAlbum(linux.id, 'Camera'),
      () => client().createAlbum(linux.id, { name: 'x', media: [{ name: 'a.jpg', data: jpg }] }),
      () => client().updateAlbum(linux.id, 'Camera', { media: [{ name: 'a.jpg', data: jpg }] }),
      () => client().listMedia(linux.id, 'Camera'),
      () => client().getMedia(linux.id, 'Camera', 'a.jpg'),
      () => client().downloadMedia(linux.id, 'Camera', 'a.jpg'),
    ]) {
      await rejects(call(), 400, 'UNSUPPORTED_BOX_TYPE');
    }
    // A Linux box's stored screenshot gets a new URL too.
    const shot = await client().screenshot(linux.id, { outputFormat: 'storageKey' });
    const url = await client().createPresignedUrl(linux.id, { storageKey: shot.uri });
    assert.equal((await client().fetchObject(url)).subarray(1, 4).toString(), 'PNG');
  } finally {
    await client().terminateBox(linux.id);
  }
});

test('album and file names: metacharacters arrive quoted; `/`, `..`, control characters and over 100 characters are 400 before any device command', async () => {
  const name = "a;b $(id) `x` 'q' & |";
  const { shell } = await sent(() => client().createAlbum(box.id, { name, media: [{ name: "it's $(id).jpg", data: jpg }] }));
  assert.deepEqual(shell, [
    `mkdir -p '/sdcard/Pictures/a;b $(id) \`x\` '\\''q'\\'' & |'`,
    `${kScan} 'file:///sdcard/Pictures/a;b $(id) \`x\` '\\''q'\\'' & |/it'\\''s $(id).jpg'`,
  ]);
  assert.ok(dev.files.has(`/sdcard/Pictures/${name}/it's $(id).jpg`));
  assert.ok((await client().downloadMedia(box.id, name, "it's $(id).jpg")).equals(jpg));
  await client().deleteMedia(box.id, name, "it's $(id).jpg");
  await client().deleteAlbum(box.id, name);
  assert.ok(!dev.files.has(`/sdcard/Pictures/${name}`));

  const mark = dev.services.length;
  for (const bad of ['..', '.', 'a/b', '../Download', 'a..b', 'x\ny', 'nul\u0000', 'é'.repeat(101)]) {
    const enc = encodeURIComponent(bad);
    for (const [method, path] of [['GET', `/media/albums/${enc}`], ['GET', `/media/albums/${enc}/media`], ['GET', `/media/albums/Camera/media/${enc}`], ['GET', `/media/albums/Camera/media/${enc}/download`], ['DELETE', `/media/albums/${enc}`], ['DELETE', `/media/albums/Camera/media/${enc}`]] as const) {
      const r = await srv.raw('a', method, `/boxes/${box.id}${path}`);
      assert.ok([400, 404, 414].includes(r.status), `${method} ${path}: ${r.status} ${r.text}`);
      if (r.status !== 404) assert.match(JSON.parse(r.text).code, /^(INVALID_REQUEST|URI_TOO_LONG)$/);
    }
    await rejects(client().createAlbum(box.id, { name: bad, media: [{ name: 'a.jpg', data: jpg }] }), 400, 'INVALID_REQUEST');
    if (!bad.includes('\u0000')) await rejects(client().createAlbum(box.id, { name: 'Fine', media: [{ name: bad, data: jpg }] }), 400, 'INVALID_REQUEST');
  }
  await rejects(client().createAlbum(box.id, { name: 'Fine', media: [{ name: 'virus.exe', data: jpg }] }), 400, 'INVALID_REQUEST');
  await rejects(client().createAlbum(box.id, { name: 'Fine', media: [{ name: 'a.jpg', data: jpg }, { name: 'a.jpg', data: png }] }), 400, 'INVALID_REQUEST');
  await rejects(client().createAlbum(box.id, { name: 'Fine', media: Array.from({ length: 101 }, (_, i) => ({ name: `${i}.jpg`, data: Buffer.from('x') })) }), 400, 'INVALID_REQUEST');
  const noName = new FormData();
  noName.append('media[]', new Blob([jpg]), 'a.jpg');
  const r = await request(`${srv.baseUrl}/boxes/${box.id}/media/albums`, { method: 'POST', body: noName, headers: { authorization: `Bearer ${srv.key('a')}` } });
  assert.equal(r.statusCode, 400);
  assert.match(((await r.body.json()) as { message: string }).message, /\/name is required/);
  const json = await srv.raw('a', 'POST', `/boxes/${box.id}/media/albums`, { name: 'Fine' });
  assert.equal(json.status, 400, 'a JSON body is not an upload');
  assert.deepEqual(dev.services.slice(mark).filter((s) => !s.startsWith('sync:')), [], 'a refused name never reaches the device shell');
  assert.ok(!dev.syncRequests.some((s) => s.startsWith('SEND /sdcard/Pictures/Fine')), 'nothing of a refused upload was written');
  assert.deepEqual(dev.unquotedLines, [], 'no command line carried a metacharacter outside quotes');
});

test('another tenant: 404 BOX_NOT_FOUND on every media endpoint of the box; nothing changes', async () => {
  const other = srv.client('b');
  for (const call of [
    () => other.listAlbums(box.id),
    () => other.getAlbum(box.id, 'Camera'),
    () => other.createAlbum(box.id, { name: 'Theirs', media: [{ name: 'a.jpg', data: jpg }] }),
    () => other.updateAlbum(box.id, 'Camera', { media: [{ name: 'b.jpg', data: jpg }] }),
    () => other.listMedia(box.id, 'Camera'),
    () => other.getMedia(box.id, 'Camera', 'IMG_001.jpg'),
    () => other.downloadMedia(box.id, 'Camera', 'IMG_001.jpg'),
    () => other.getMediaSupport(box.id),
    () => other.deleteMedia(box.id, 'Camera', 'IMG_001.jpg'),
  ]) {
    await rejects(call(), 404, 'BOX_NOT_FOUND');
  }
  assert.ok(dev.files.has('/sdcard/DCIM/Camera/IMG_001.jpg'));
  assert.ok(!dev.files.has('/sdcard/Pictures/Theirs') && !dev.files.has('/sdcard/DCIM/Camera/b.jpg'));
});

test('storage presigned-url: a new expiring URL for this box\'s stored object; another box\'s key 403, a key not stored 404, another tenant 404', async (t) => {
  const shot = await client().screenshot(box.id, { outputFormat: 'storageKey' });
  assert.match(shot.uri, new RegExp(`^boxes/${box.id}/`));
  const raw = await srv.raw('a', 'POST', `/boxes/${box.id}/storage/presigned-url`, { storageKey: shot.uri, expiresIn: '5m' });
  assert.equal(raw.status, 200);
  assert.match(raw.contentType, /^application\/json/);
  const url = JSON.parse(raw.text) as string;
  assert.match(url, new RegExp(`/storage/boxes/${box.id}/actions/act_[\\w-]+/screenshot\\.png\\?exp=\\d+&sig=`));
  const exp = Number(new URL(url).searchParams.get('exp'));
  assert.ok(Math.abs(exp - (Date.now() / 1000 + 300)) < 5, 'expires in 5m');
  assert.ok((await client().fetchObject(url)).equals(await client().fetchObject(shot.presignedUrl!)));
  const byDefault = new URL(await client().createPresignedUrl(box.id, { storageKey: shot.uri }));
  assert.ok(Math.abs(Number(byDefault.searchParams.get('exp')) - (Date.now() / 1000 + 1800)) < 5, 'default 30m');

  const short = await client().createPresignedUrl(box.id, { storageKey: shot.uri, expiresIn: '1s' });
  // Valid for at least the second asked (exp is rounded up to a whole second), so gone two seconds
  // later: the server (in this process) reads that time from a mocked clock, not by waiting for it.
  assert.ok((await client().fetchObject(short)).length > 0, 'valid at once');
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() + 2_100 });
  try {
    await assert.rejects(client().fetchObject(short), (e: Error & { serverCode?: string }) => e.serverCode === 'PRESIGN_EXPIRED');
  } finally {
    t.mock.timers.reset();
  }

  const second = await client().createAndroidBox({ config: { deviceSerial: kSecond } });
  try {
    await rejects(client().createPresignedUrl(second.id, { storageKey: shot.uri }), 403, 'FORBIDDEN');
    await rejects(client().createPresignedUrl(second.id, { storageKey: `boxes/${second.id}/actions/act_x/screenshot.png` }), 404, 'NOT_FOUND');
  } finally {
    await client().terminateBox(second.id);
  }
  for (const storageKey of [`boxes/${box.id}/../x/actions/a.png`, `boxes/${box.id}/actions/%2e%2e/x`, `boxes/${box.id}/nope.png`, `boxes/${box.id}/`]) {
    await rejects(client().createPresignedUrl(box.id, { storageKey }), 404, 'NOT_FOUND');
  }
  await rejects(client().createPresignedUrl(box.id, { storageKey: '../../server-secret' }), 403, 'FORBIDDEN');
  await rejects(client().createPresignedUrl(box.id, { storageKey: shot.uri, expiresIn: '7h' }), 400, 'INVALID_DURATION');
  await rejects(client().createPresignedUrl(box.id, { storageKey: 'x'.repeat(5000) }), 400, 'INVALID_REQUEST');
  await rejects(srv.client('b').createPresignedUrl(box.id, { storageKey: shot.uri }), 404, 'BOX_NOT_FOUND');
  const theirs = await srv.client('b').createAndroidBox({ config: { deviceSerial: kSecond } });
  try {
    await rejects(srv.client('b').createPresignedUrl(theirs.id, { storageKey: shot.uri }), 403, 'FORBIDDEN');
  } finally {
    await srv.client('b').terminateBox(theirs.id);
  }
});
