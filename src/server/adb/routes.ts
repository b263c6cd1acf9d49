// The endpoints on an Android box. routes.ts does auth, tenancy and per-box serialisation, then
// hands an Android box's request here; the answers have the same shapes as a Linux box's.
import { bodyOf, checkQuery } from '../requestChecks.js';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { TSchema } from '@sinclair/typebox';
import { BoxflowError } from '../../errors.js';
import { parseDuration } from '../../api/duration.js';
import { endpoints, kInstallMaxBytes, type Box, type DragBody, type EndpointName, type ListPackagesQuery, type PressButtonBody, type PressKeyBody, type RenameBody, type Resolution, type ScreenshotBody, type TypeBody } from '../../api/schemas.js';
import { planDrag, resolveTextTarget, typeMessage, typeTraceLabel } from '../dragPlan.js';
import { screenshotAnswer, screenshotPlan, withScreenshots, type ShotContext } from '../screenshots.js';
import { presign } from '../secret.js';
import type { ObjectStore } from '../storage.js';
import { terminalPath, webTerminalReady } from '../terminal.js';
import { getPublicUrl } from '../publicUrl.js';
import type { AndroidBox } from './androidBox.js';
import { activityClass, checkMediaName, checkPackageName } from './names.js';

/** What the Android handlers need of a registry entry. */
export interface AndroidEntry {
  record: Box;
  scale: number;
  android: AndroidBox;
}

export interface AndroidCall {
  params: Record<string, string>;
  body: unknown;
  query: Record<string, unknown>;
  origin: string;
  actionId: string | undefined;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
}

export interface AndroidAnswer {
  status: number;
  body?: unknown;
}

/** A multipart request body as @fastify/multipart's `request.parts()` yields it. */
export type MultipartPart =
  | { type: 'file'; fieldname: string; filename: string; file: Readable & { truncated?: boolean } }
  | { type: 'field'; fieldname: string; value: unknown };
export const kMultipart = Symbol('multipart');
export interface MultipartBody {
  [kMultipart]: AsyncIterable<MultipartPart>;
}

export interface AndroidDeps {
  store: ObjectStore;
  /** routes.ts's body check (refuses foreign content types, names the JSON path). */
  /** The server secret, to pre-sign web terminal URLs. */
  secret: string;
  /** Let installs download from this machine and its private networks (see publicUrl.ts). Default false. */
  allowInnerDownloads?: boolean;
}

type Handler = (entry: AndroidEntry, call: AndroidCall) => Promise<AndroidAnswer>;

export function createAndroidHandlers(deps: AndroidDeps): Partial<Record<EndpointName, Handler>> {
  
  function shots(entry: AndroidEntry, call: AndroidCall, body: Parameters<typeof screenshotPlan>[0]): ShotContext | null {
    const plan = screenshotPlan(body);
    if (!plan) return null;
    const scale = entry.scale;
    return { plan, capture: () => entry.android.screenshot(scale), store: deps.store, origin: call.origin, keyPrefix: `boxes/${entry.record.id}/actions/${call.actionId}` };
  }


  /** The `{packageName}` of the path, checked against Android's package-name rule (names.ts): 400 before any device command. */
  const packageParam = (call: AndroidCall) => checkPackageName(call.params.packageName, 'packageName');

  /** An open/restart request: the package and the body, its activityName checked (names.ts) before any device command. */
  function appCall(call: AndroidCall, schema: TSchema | undefined): { packageName: string; body: { activityName?: string; extras?: Record<string, string> } } {
    const packageName = packageParam(call);
    const body = bodyOf(schema, call.body) as { activityName?: string; extras?: Record<string, string> };
    if (body.activityName !== undefined) activityClass(packageName, body.activityName);
    return { packageName, body };
  }

  const list = (v: unknown) => (v === undefined ? undefined : (Array.isArray(v) ? v.join(',') : String(v)).split(',').filter(Boolean));

  return {
    drag: async (entry, call) => {
      const body = bodyOf(endpoints.drag.body, call.body) as DragBody;
      const scale = entry.scale;
      const plan = await planDrag(body, (t, field) => resolveTextTarget(t, field, entry.scale, (text) => entry.android.resolveTarget(text)));
      const { screenshot } = await withScreenshots(shots(entry, call, body), async () => {
        await entry.android.drag(plan.points.map((p) => ({ x: p.x / scale, y: p.y / scale })), plan.segments, call.signal);
        return { value: undefined, trace: plan.trace };
      });
      return { status: 200, body: { actionId: call.actionId, message: plan.message, actual: plan.actual, ...(screenshot ? { screenshot } : {}) } };
    },
    pressKey: async (entry, call) => {
      const body = bodyOf(endpoints.pressKey.body, call.body) as PressKeyBody;
      const combination = body.combination ?? false;
      const label = body.keys.join(combination ? '+' : ', ');
      const { screenshot } = await withScreenshots(shots(entry, call, body), async () => {
        await entry.android.pressKeys(body.keys, combination);
        return { value: undefined, trace: { kind: 'label', text: `keys: ${label}` } };
      });
      return { status: 200, body: { actionId: call.actionId, message: `pressed ${label}`, ...(screenshot ? { screenshot } : {}) } };
    },
    type: async (entry, call) => {
      const body = bodyOf(endpoints.type.body, call.body) as TypeBody;
      const replace = body.mode === 'replace';
      const { screenshot } = await withScreenshots(shots(entry, call, body), async () => {
        await entry.android.type(body.text, replace, body.pressEnter ?? false);
        return { value: undefined, trace: { kind: 'label', text: typeTraceLabel(body) } };
      });
      const message = typeMessage(body);
      return { status: 200, body: { actionId: call.actionId, message, ...(screenshot ? { screenshot } : {}) } };
    },
    updateSettings: async (entry, call) => {
      const body = bodyOf(endpoints.updateSettings.body, call.body) as { scale: number };
      entry.scale = body.scale;
      return { status: 200, body: { scale: entry.scale } };
    },
    getSettings: async (entry) => ({ status: 200, body: { scale: entry.scale } }),
    resetSettings: async (entry) => {
      entry.scale = 1;
      return { status: 200, body: { scale: 1 } };
    },
    screenLayout: async (entry) => ({ status: 200, body: { content: await entry.android.layout() } }),
    screenshot: async (entry, call) => {
      const body = bodyOf(endpoints.screenshot.body, call.body) as ScreenshotBody;
      const scale = entry.scale;
      const clip = body.clip && { x: body.clip.x / scale, y: body.clip.y / scale, width: body.clip.width / scale, height: body.clip.height / scale };
      const png = await entry.android.screenshot(scale, clip);
      // The device's Pictures album, under a name of this box and action (GBOX's answer stays the same).
      if (body.saveToAlbum) await entry.android.saveToAlbum(png, `boxflow-${entry.record.id}-${call.actionId ?? Date.now().toString(36)}`);
      return screenshotAnswer(png, body, { store: deps.store, origin: call.origin, boxId: entry.record.id, actionId: call.actionId });
    },
    setResolution: async (entry, call) => {
      const body = bodyOf(endpoints.setResolution.body, call.body) as Resolution;
      await entry.android.setResolution(body);
      return { status: 200, body: { width: body.width, height: body.height } };
    },
    webTerminalUrl: async (entry, call) => {
      const body = bodyOf(endpoints.webTerminalUrl.body, call.body) as { expiresIn?: string };
      const expiresAt = Date.now() + parseDuration(body.expiresIn ?? '180m', '/expiresIn');
      await webTerminalReady();
      const path = terminalPath(entry.record.id);
      return { status: 201, body: { url: `${call.origin}${path}?${presign(deps.secret, path, expiresAt)}` } };
    },
    renameFile: async (entry, call) => {
      const body = bodyOf(endpoints.renameFile.body, call.body) as RenameBody;
      return { status: 200, body: await entry.android.rename(body.oldPath, body.newPath, body.workingDir) };
    },
    listPackages: async (entry, call) => {
      const q = { pkgType: list(call.query.pkgType), runningFilter: list(call.query.runningFilter) };
      const query = checkQuery(endpoints.listPackages.query, Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined))) as ListPackagesQuery;
      return { status: 200, body: { data: await entry.android.listPackages(query.pkgType?.length ? query.pkgType : ['thirdParty'], query.runningFilter) } };
    },
    getPackage: async (entry, call) => ({ status: 200, body: await entry.android.getPackage(packageParam(call)) }),
    listApps: async (entry) => ({ status: 200, body: { data: await entry.android.listApps() } }),
    closeAllApps: async (entry) => {
      await entry.android.closeAll();
      return { status: 204 };
    },
    installPackage: async (entry, call) => {
      const parts = (call.body as Partial<MultipartBody> | undefined)?.[kMultipart];
      if (!parts) throw new BoxflowError('INVALID_REQUEST', 'send the install as multipart/form-data with an `apk` part (a file, or an http(s) URL as text)');
      // In the box's scratch dir: removed when the box is released, and reaped after a crash of the server.
      const dir = await entry.android.installDir();
      try {
        const file = join(dir, 'upload');
        let source: 'file' | 'url' | undefined;
        let open = false;
        for await (const part of checkedParts(parts)) {
          if (part.fieldname === 'apk' && source) {
            if (part.type === 'file') part.file.resume();
            throw new BoxflowError('INVALID_REQUEST', '/apk is given twice; send one `apk` part: an APK or ZIP file, or an http(s) URL as text');
          }
          if (part.fieldname === 'open' && part.type === 'field') open = String(part.value) === 'true';
          else if (part.fieldname === 'apk' && part.type === 'file') {
            await spool(part.file, file, () => part.file.truncated === true);
            source = 'file';
          } else if (part.fieldname === 'apk' && part.type === 'field') {
            await download(String(part.value), file, deps.allowInnerDownloads === true);
            source = 'url';
          } else if (part.type === 'file') part.file.resume();
        }
        if (!source) throw new BoxflowError('INVALID_REQUEST', '/apk is required: an APK or ZIP file part, or an http(s) URL as a text part');
        return { status: 200, body: await entry.android.install(file, open) };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    pressButton: async (entry, call) => {
      const body = bodyOf(endpoints.pressButton.body, call.body) as PressButtonBody;
      const { screenshot } = await withScreenshots(shots(entry, call, body), async () => {
        await entry.android.pressButtons(body.buttons);
        return { value: undefined, trace: { kind: 'label', text: `buttons: ${body.buttons.join(', ')}` } };
      });
      return { status: 200, body: { actionId: call.actionId, message: `pressed ${body.buttons.join(', ')}`, ...(screenshot ? { screenshot } : {}) } };
    },
    openTab: async (entry, call) => {
      // A link on Android is a VIEW intent: the app that claims it (else the browser) opens it.
      const body = bodyOf(endpoints.openTab.body, call.body) as { url: string };
      const { activity } = await entry.android.openLink(body.url);
      return { status: 200, body: { id: activity ?? '', title: activity ?? '', url: body.url, favicon: '', active: true, loading: false } };
    },
    openApp: async (entry, call) => {
      const { packageName, body } = appCall(call, endpoints.openApp.body);
      await entry.android.launch(packageName, body.activityName, body.extras);
      return { status: 204 };
    },
    restartApp: async (entry, call) => {
      const { packageName, body } = appCall(call, endpoints.restartApp.body);
      await entry.android.closeApp(packageName);
      await entry.android.launch(packageName, body.activityName, body.extras);
      return { status: 204 };
    },
    closeApp: async (entry, call) => {
      await entry.android.closeApp(packageParam(call));
      return { status: 204 };
    },
    clearAppData: async (entry, call) => {
      await entry.android.clearAppData(packageParam(call));
      return { status: 204 };
    },
    deleteMedia: async (entry, call) => {
      await entry.android.deleteMedia(checkMediaName(call.params.albumName, 'albumName'), checkMediaName(call.params.mediaName, 'mediaName'));
      return { status: 204 };
    },
    deleteAlbum: async (entry, call) => {
      await entry.android.deleteAlbum(checkMediaName(call.params.albumName, 'albumName'));
      return { status: 204 };
    },
  };
}

const tooLarge = () => new BoxflowError('FILE_TOO_LARGE', `/apk is over the ${kInstallMaxBytes / 2 ** 20} MB limit`);

/** What an endpoint says when its multipart body is over a limit: the file too large, too many files, too many parts. */
export interface MultipartWords {
  tooLarge: () => BoxflowError;
  files: string;
  parts: string;
}
const kInstallWords: MultipartWords = {
  tooLarge: () => tooLarge(),
  files: 'the multipart body has more than one file part; send one `apk` part: an APK or ZIP file, or an http(s) URL as text',
  parts: 'the multipart body has too many parts; send `apk` (a file, or an http(s) URL as text) and optionally `open`',
};

/**
 * What a broken multipart body becomes: the client's mistake (4xx) in this API's terms, never a
 * 502. @fastify/multipart's limits (app.ts: one file, four fields) and busboy's parse errors
 * ("Unexpected end of multipart data", "Malformed part header", ...) arrive here.
 */
export function multipartError(err: unknown, words: MultipartWords = kInstallWords): BoxflowError {
  if (BoxflowError.is(err)) return err;
  const code = (err as { code?: string })?.code;
  const text = String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 200);
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return words.tooLarge();
    case 'FST_FILES_LIMIT':
      return new BoxflowError('INVALID_REQUEST', words.files);
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new BoxflowError('INVALID_REQUEST', words.parts);
    case 'FST_PROTO_VIOLATION':
      return new BoxflowError('INVALID_REQUEST', 'a multipart part is named like an object prototype property (__proto__, constructor, ...)');
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return new BoxflowError('INVALID_REQUEST', 'a multipart text part declared as application/json is not valid JSON');
    case 'FST_MP_PREMATURE_CLOSE':
      return new BoxflowError('INVALID_REQUEST', 'the request ended before its multipart body did');
    default:
      if (/Unexpected end/i.test(text)) return new BoxflowError('INVALID_REQUEST', `the multipart body is malformed: it ends before its closing boundary (${text})`);
      return new BoxflowError('INVALID_REQUEST', `the multipart body is malformed: ${text}`);
  }
}

/**
 * The parts of a multipart body; a parse error or limit is a 4xx (`toError`, default
 * multipartError, which an endpoint wraps to name its own parts), not a server fault.
 */
export async function* checkedParts(parts: AsyncIterable<MultipartPart>, toError: (err: unknown) => BoxflowError = multipartError): AsyncGenerator<MultipartPart> {
  const it = parts[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<MultipartPart>;
    try {
      next = await it.next();
    } catch (err) {
      throw toError(err);
    }
    if (next.done) return;
    yield next.value;
  }
}

/**
 * Streams to disk, counting: never more than the limit, never the whole file in memory. An error
 * of the incoming stream (a body cut short, a malformed part) is the client's: multipartError.
 */
async function spool(from: Readable, to: string, truncated: () => boolean = () => false): Promise<void> {
  let total = 0;
  let incoming: unknown;
  from.once('error', (err) => (incoming ??= err));
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      total += chunk.length;
      done(total > kInstallMaxBytes ? tooLarge() : null, chunk);
    },
  });
  try {
    await pipeline(from, count, createWriteStream(to));
  } catch (err) {
    // @fastify/multipart's own fileSize limit (the same 512 MB) ends the part with this code.
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    if (BoxflowError.is(err)) throw err;
    // The part may have failed before this listened (busboy destroys it with the parse error).
    incoming ??= from.errored ?? undefined;
    if (incoming !== undefined && incoming !== null) throw multipartError(incoming);
    throw err;
  }
  if (truncated()) throw tooLarge();
}

async function download(text: string, to: string, allowInner: boolean): Promise<void> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BoxflowError('INVALID_URL', `/apk "${text.slice(0, 200)}" is neither a file nor an absolute http(s) URL`);
  }
  const res = await getPublicUrl(url, { allowInner, signal: AbortSignal.timeout(10 * 60_000) });
  const length = Number(res.headers['content-length']);
  if (Number.isFinite(length) && length > kInstallMaxBytes) {
    res.destroy();
    throw tooLarge();
  }
  await spool(res, to);
}
