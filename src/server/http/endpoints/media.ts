// GBOX's media endpoints (docs/api.md) on an Android box. An album is a folder of the
// device's gallery, /sdcard/DCIM/<album>, /sdcard/Pictures/<album> or /sdcard/Movies/<album> (the first
// of these that exists, as the delete endpoints find it; a new album is made in /sdcard/Pictures), and
// its media are the photo and video files directly in it whose extension GET /media/support lists:
//   GET   $B/media/albums                                   → {data: MediaAlbum[]}
//   POST  $B/media/albums      multipart name, media[]…     → 201 MediaAlbum
//   GET   $B/media/albums/{album}                           → MediaAlbum {name, path, mediaCount, lastModified}
//   PATCH $B/media/albums/{album}  multipart media[]…       → MediaAlbum
//   GET   $B/media/albums/{album}/media                     → {data: Media[]}
//   GET   $B/media/albums/{album}/media/{media}             → Media {type, name, path, size, mimeType, lastModified}
//   GET   $B/media/albums/{album}/media/{media}/download    → the file's bytes, streamed over adb sync (RECV)
//   GET   $B/media/support                                  → {photo, video}: extensions (any box type)
// Album and file names (path parameters, the `name` part, each file part's file name) are checked at
// the route (names.ts checkMediaName: one name of 1 to 100 characters, no `/`, no `..`, no control
// character) before any device command; folders and files are read and written over sync, never
// through a shell, and the paths that do reach a shell (`mkdir -p`, `rm`, the media scanner's
// broadcast) are quoted (shellQuote.ts). Uploads are spooled to the box's scratch dir on the server
// (reaped after a crash) and checked whole, names and sizes, before anything reaches the device:
// each file at most 512 MB, 100 files and 2 GiB per request. Each file written is announced to the
// media scanner (`am broadcast … MEDIA_SCANNER_SCAN_FILE -d file://…`) so the gallery shows it.
// Linux boxes have no gallery: 400 UNSUPPORTED_BOX_TYPE (routes.ts, kAndroidOnly), support excepted.
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BoxflowError } from '../../../errors.js';
import { kMediaLimits, type EndpointName, type Media, type MediaAlbum, type MediaSupport } from '../../../api/schemas.js';
import type { AndroidBox } from '../../devices/android/androidBox.js';
import { checkMediaName } from '../../devices/android/names.js';
import { checkedParts, kMultipart, multipartError, type MultipartBody } from '../multipart.js';
import { sh } from '../../../api/shellQuote.js';
import { humanSize } from '../../host/boxFs.js';
import { facet } from '../../devices/index.js';
import type { BoxCall, RouteAnswer as Answer, RouteCall } from './boxRoute.js';

interface MediaDeps<Call extends RouteCall> {
  boxCall: BoxCall<Call>;
}

/** The Android-only endpoints of this file (getMediaSupport answers on any box). */
export const kMediaEndpoints = ['listAlbums', 'createAlbum', 'getAlbum', 'updateAlbum', 'listMedia', 'getMedia', 'downloadMedia'] as const satisfies readonly EndpointName[];
/** Endpoints whose body is multipart; app.ts parses them with these limits (per file, files, text fields). */
export const kMediaUploads: ReadonlySet<string> = new Set<EndpointName>(['createAlbum', 'updateAlbum']);
export const kMediaUploadLimits = { fileSize: kMediaLimits.fileBytes, files: kMediaLimits.files, fields: 4, parts: kMediaLimits.files + 4 };

export const kMediaRoots = ['/sdcard/DCIM', '/sdcard/Pictures', '/sdcard/Movies'] as const;
const kNewAlbumRoot = '/sdcard/Pictures';
/** Extensions (lower case) the gallery shows, and their MIME types (Android's MediaFile names). */
const kPhoto: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp', heic: 'image/heic', heif: 'image/heif' };
const kVideo: Record<string, string> = { mp4: 'video/mp4', m4v: 'video/mp4', '3gp': 'video/3gpp', webm: 'video/webm', mkv: 'video/x-matroska', mov: 'video/quicktime' };
export const kMediaSupport: MediaSupport = { photo: Object.keys(kPhoto), video: Object.keys(kVideo) };

/** A download that gets no byte from the device for this long is cut. */
const kStallMs = 60_000;
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

interface SyncStat {
  mode: number;
  size: number;
  mtime: Date;
}

const extOf = (name: string) => {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
};
const kindOf = (name: string): { type: 'photo' | 'video'; mimeType: string } | undefined => {
  const ext = extOf(name);
  if (Object.hasOwn(kPhoto, ext)) return { type: 'photo', mimeType: kPhoto[ext]! };
  if (Object.hasOwn(kVideo, ext)) return { type: 'video', mimeType: kVideo[ext]! };
  return undefined;
};
const isDir = (st: SyncStat | undefined) => !!st && (st.mode & S_IFMT) === S_IFDIR;
const isFile = (st: SyncStat | undefined) => !!st && (st.mode & S_IFMT) === S_IFREG;
/** A name the endpoints can address (a listing leaves out the others, and hidden ones). */
const listable = (name: string) => {
  if (name.startsWith('.')) return false;
  try {
    checkMediaName(name, 'name');
    return true;
  } catch {
    return false;
  }
};

function mediaOf(dir: string, name: string, st: SyncStat): Media | undefined {
  const kind = kindOf(name);
  if (!kind || !isFile(st) || !listable(name)) return undefined;
  return { type: kind.type, name, path: `${dir}/${name}`, size: humanSize(st.size), mimeType: kind.mimeType, lastModified: st.mtime.toISOString() };
}



/** The album's folder: the first of the media roots that has it. */
async function findAlbum(box: AndroidBox, name: string): Promise<{ dir: string; st: SyncStat } | undefined> {
  for (const root of kMediaRoots) {
    const dir = `${root}/${name}`;
    const st = await box.stat(dir);
    if (isDir(st)) return { dir, st: st! };
  }
  return undefined;
}

async function requireAlbum(box: AndroidBox, name: string): Promise<{ dir: string; st: SyncStat }> {
  const album = await findAlbum(box, name);
  if (!album) throw new BoxflowError('FILE_NOT_FOUND', `no album "${name}" on device ${box.info.serial} (an album is a folder in ${kMediaRoots.join(', ')})`);
  return album;
}

async function mediaIn(box: AndroidBox, dir: string): Promise<Media[]> {
  return (await box.listDir(dir))
    .map((e) => mediaOf(dir, e.name, e))
    .filter((m): m is Media => m !== undefined)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function albumOf(box: AndroidBox, name: string, dir: string, st: SyncStat): Promise<MediaAlbum> {
  return { name, path: dir, mediaCount: (await mediaIn(box, dir)).length, lastModified: st.mtime.toISOString() };
}

/** A shell line that prints nothing on success; any output is the device's error. */
async function quiet(box: AndroidBox, line: string): Promise<void> {
  const out = (await box.shell(line)).trim();
  if (out) throw new BoxflowError('DEVICE_ERROR', `\`${line.slice(0, 80)}\` failed on ${box.info.serial}: ${out.split('\n').slice(0, 3).join(' | ')}`);
}

const scan = (box: AndroidBox, path: string) => box.shell(sh`am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d ${`file://${path}`}`);

// ---------------------------------------------------------------- uploads

interface Upload {
  name: string | undefined;
  files: Array<{ name: string; file: string; size: number }>;
}

const tooLarge = (what: string) => new BoxflowError('FILE_TOO_LARGE', what);
const kTooLargeFile = `a media[] file is over ${kMediaLimits.fileBytes / 2 ** 20} MB, the limit per file`;
const kTooLargeTotal = `the media[] files are over ${kMediaLimits.totalBytes / 2 ** 30} GiB together, the limit per request; send them in several (PATCH adds to an album)`;

/** A broken or over-limit multipart body, in this endpoint's terms (4xx, never a 5xx). */
function uploadError(err: unknown): BoxflowError {
  return multipartError(err, {
    tooLarge: () => tooLarge(kTooLargeFile),
    files: `the multipart body has more than ${kMediaLimits.files} files; send them in several requests (PATCH adds to an album)`,
    parts: 'the multipart body has too many text parts; send `name` and the `media[]` files',
  });
}

/**
 * Reads a createAlbum/updateAlbum body into `dir` (the box's scratch dir): the `name` text part and
 * every `media[]` (or `media`) file part, each checked (name, extension, size) as it arrives. Other
 * parts are read past and ignored.
 */
async function receive(body: unknown, dir: string): Promise<Upload> {
  const parts = (body as Partial<MultipartBody> | undefined)?.[kMultipart];
  if (!parts) throw new BoxflowError('INVALID_REQUEST', 'send the album as multipart/form-data: a `name` text part (creating one) and `media[]` file parts');
  const out: Upload = { name: undefined, files: [] };
  let total = 0;
  for await (const part of checkedParts(parts, uploadError)) {
    if (part.type === 'field') {
      if (part.fieldname === 'name') {
        if (out.name !== undefined) throw new BoxflowError('INVALID_REQUEST', '/name is given twice');
        out.name = String(part.value);
      }
      continue;
    }
    if (part.fieldname !== 'media[]' && part.fieldname !== 'media') {
      part.file.resume();
      continue;
    }
    const refuse = (err: BoxflowError) => {
      part.file.resume();
      return err;
    };
    const name = (() => {
      try {
        return checkMediaName(part.filename, '/media[] file name');
      } catch (err) {
        throw refuse(err as BoxflowError);
      }
    })();
    if (!kindOf(name) || name.startsWith('.')) {
      throw refuse(new BoxflowError('INVALID_REQUEST', `/media[] file ${JSON.stringify(name)} is not a photo or video an album takes: its extension must be one of ${[...kMediaSupport.photo, ...kMediaSupport.video].join(', ')}`));
    }
    if (out.files.some((f) => f.name === name)) throw refuse(new BoxflowError('INVALID_REQUEST', `/media[] holds two files named ${JSON.stringify(name)}`));
    const file = join(dir, String(out.files.length));
    let size = 0;
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        total += chunk.length;
        done(size > kMediaLimits.fileBytes ? tooLarge(kTooLargeFile) : total > kMediaLimits.totalBytes ? tooLarge(kTooLargeTotal) : null, chunk);
      },
    });
    let incoming: unknown;
    part.file.once('error', (err) => (incoming ??= err));
    try {
      await pipeline(part.file, count, createWriteStream(file));
    } catch (err) {
      if (BoxflowError.is(err)) throw err;
      throw uploadError(incoming ?? part.file.errored ?? err);
    }
    if (part.file.truncated) throw tooLarge(kTooLargeFile);
    out.files.push({ name, file, size });
  }
  return out;
}

/**
 * Writes the uploaded files into the album's folder over sync and announces each to the media
 * scanner. When one fails, the files this request wrote are removed (and rescanned) before the error.
 */
async function putFiles(box: AndroidBox, dir: string, files: Upload['files']): Promise<void> {
  const written: string[] = [];
  try {
    for (const f of files) {
      const path = `${dir}/${f.name}`;
      written.push(path);
      await box.writeStream(createReadStream(f.file), path);
    }
  } catch (err) {
    for (const path of written) {
      await box.shell(sh`rm -f ${path}`).catch(() => {});
      await scan(box, path).catch(() => {});
    }
    throw err;
  }
  for (const path of written) await scan(box, path);
}

// ---------------------------------------------------------------- downloads

/** Passes exactly `size` bytes on (a file that changes while it is read ends the answer early), failing after kStallMs without a byte. */
function exactly(size: number, path: string): Transform {
  let got = 0;
  let timer: NodeJS.Timeout | undefined;
  const t: Transform = new Transform({
    transform(chunk: Buffer, _enc, done) {
      arm();
      const room = size - got;
      got += chunk.length;
      done(null, chunk.length > room ? chunk.subarray(0, Math.max(0, room)) : chunk);
    },
    flush(done) {
      clearTimeout(timer);
      done(got < size ? new BoxflowError('DEVICE_ERROR', `${path} ended after ${got} of ${size} bytes`) : null);
    },
    destroy(err, done) {
      clearTimeout(timer);
      done(err);
    },
  });
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => t.destroy(new BoxflowError('DEVICE_ERROR', `${path}: no data from the device for ${kStallMs / 1000} s`)), kStallMs);
  };
  arm();
  return t;
}

/** `attachment; filename="…"` with an ASCII fallback and the UTF-8 name (RFC 6266). */
function disposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

// ---------------------------------------------------------------- handlers

export function createMediaHandlers<Call extends RouteCall>(deps: MediaDeps<Call>) {
  const { boxCall } = deps;
  const albumParam = (call: Call) => checkMediaName(call.params.albumName, 'albumName');
  const mediaParam = (call: Call) => checkMediaName(call.params.mediaName, 'mediaName');

  /** A media file of an album, with its stat: 404 FILE_NOT_FOUND unless it is a photo or video there. */
  async function mediaFile(box: AndroidBox, album: string, name: string): Promise<{ media: Media; st: SyncStat }> {
    const { dir } = await requireAlbum(box, album);
    const st = await box.stat(`${dir}/${name}`);
    const media = st && mediaOf(dir, name, st);
    if (!media) throw new BoxflowError('FILE_NOT_FOUND', `album "${album}" has no photo or video "${name}"`);
    return { media, st: st! };
  }

  /** An upload's scratch dir on the server (the box's, reaped after a crash), removed after the request. */
  async function withUpload<T>(box: AndroidBox, call: Call, work: (upload: Upload) => Promise<T>): Promise<T> {
    const dir = await box.installDir();
    try {
      return await work(await receive(call.body, dir));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  return {
    listAlbums: (call: Call) =>
      boxCall('listAlbums', call, async (entry): Promise<Answer> => {
        const box = facet(entry, 'apps', 'listAlbums');
        const seen = new Set<string>();
        const data: MediaAlbum[] = [];
        for (const root of kMediaRoots) {
          const dirs = (await box.listDir(root)).filter((e) => isDir(e) && listable(e.name) && !seen.has(e.name)).sort((a, b) => (a.name < b.name ? -1 : 1));
          for (const e of dirs) {
            seen.add(e.name);
            data.push(await albumOf(box, e.name, `${root}/${e.name}`, e));
          }
        }
        return { status: 200, body: { data } };
      }),
    createAlbum: (call: Call) =>
      boxCall('createAlbum', call, async (entry): Promise<Answer> => {
        const box = facet(entry, 'apps', 'createAlbum');
        return withUpload(box, call, async ({ name: given, files }) => {
          if (given === undefined) throw new BoxflowError('INVALID_REQUEST', '/name is required: the album (a folder of /sdcard/Pictures) to create');
          const name = checkMediaName(given, '/name');
          if (name.startsWith('.')) throw new BoxflowError('INVALID_REQUEST', `/name ${JSON.stringify(name)} starts with a dot: the gallery does not show hidden folders`);
          const found = await findAlbum(box, name);
          if (found) throw new BoxflowError('FILE_EXISTS', `album "${name}" exists (${found.dir}); PATCH /boxes/{boxId}/media/albums/${name} adds media to it`);
          const dir = posix.join(kNewAlbumRoot, name);
          await quiet(box, sh`mkdir -p ${dir}`);
          try {
            await putFiles(box, dir, files);
          } catch (err) {
            await box.shell(sh`rm -rf ${dir}`).catch(() => {});
            throw err;
          }
          const st = await box.stat(dir);
          if (!isDir(st)) throw new BoxflowError('DEVICE_ERROR', `\`mkdir -p ${dir}\` left no folder on ${box.info.serial}`);
          return { status: 201, body: await albumOf(box, name, dir, st!) };
        });
      }),
    getAlbum: (call: Call) =>
      boxCall('getAlbum', call, async (entry): Promise<Answer> => {
        const name = albumParam(call);
        const box = facet(entry, 'apps', 'getAlbum');
        const { dir, st } = await requireAlbum(box, name);
        return { status: 200, body: await albumOf(box, name, dir, st) };
      }),
    updateAlbum: (call: Call) =>
      boxCall('updateAlbum', call, async (entry): Promise<Answer> => {
        const name = albumParam(call);
        const box = facet(entry, 'apps', 'updateAlbum');
        const { dir } = await requireAlbum(box, name);
        return withUpload(box, call, async ({ files }) => {
          if (!files.length) throw new BoxflowError('INVALID_REQUEST', '/media[] is required: the photo and video files to add to the album');
          await putFiles(box, dir, files);
          const st = await box.stat(dir);
          return { status: 200, body: await albumOf(box, name, dir, st ?? { mode: S_IFDIR, size: 0, mtime: new Date() }) };
        });
      }),
    listMedia: (call: Call) =>
      boxCall('listMedia', call, async (entry): Promise<Answer> => {
        const name = albumParam(call);
        const box = facet(entry, 'apps', 'listMedia');
        const { dir } = await requireAlbum(box, name);
        return { status: 200, body: { data: await mediaIn(box, dir) } };
      }),
    getMedia: (call: Call) =>
      boxCall('getMedia', call, async (entry): Promise<Answer> => {
        const album = albumParam(call);
        const name = mediaParam(call);
        return { status: 200, body: (await mediaFile(facet(entry, 'apps', 'getMedia'), album, name)).media };
      }),
    downloadMedia: (call: Call) =>
      boxCall('downloadMedia', call, async (entry): Promise<Answer> => {
        const album = albumParam(call);
        const name = mediaParam(call);
        const box = facet(entry, 'apps', 'downloadMedia');
        const { media, st } = await mediaFile(box, album, name);
        if (st.size > kMediaLimits.fileBytes) throw tooLarge(`${media.path} is ${humanSize(st.size)}; a download is at most ${kMediaLimits.fileBytes / 2 ** 20} MB`);
        const from: Readable = await box.readStream(media.path, st.size);
        const body = from.pipe(exactly(st.size, media.path));
        from.once('error', (err) => body.destroy(err));
        body.once('close', () => from.destroy());
        return {
          status: 200,
          body,
          headers: { 'content-type': media.mimeType, 'content-length': String(st.size), 'content-disposition': disposition(name), 'cache-control': 'no-store' },
        };
      }),
    getMediaSupport: (call: Call) => boxCall('getMediaSupport', call, async (): Promise<Answer> => ({ status: 200, body: kMediaSupport })),
  };
}
