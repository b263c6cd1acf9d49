// BoxClient: one method per Box API v1 operation. The request itself (the keep-alive pool, the
// per-attempt timeout, the retry policy through undici's retry interceptor, response validation
// and errors that never show the key) is transport.ts's.
import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FormData, type Dispatcher } from 'undici';
import type { Static, TSchema } from '@sinclair/typebox';
import { BoxflowError } from '../errors.js';
import { endpoints, kFsLimits, kInstallMaxBytes, kMediaLimits, type EndpointName } from './schemas.js';
import { parseDuration } from './duration.js';
import { expandPath, normalizeBaseUrl, Transport, type RequestOptions, type Where } from './transport.js';

export { BoxApiError, codeForStatus, encodeQuery, normalizeBaseUrl, retryAfterMs, type RequestOptions } from './transport.js';

export interface BoxClientOptions {
  /** Ends in /api/v1. Default: BOXFLOW_BASE_URL, else GBOX_BASE_URL. */
  baseUrl?: string;
  /** Default: BOXFLOW_API_KEY, else GBOX_API_KEY. */
  apiKey?: string;
  /** Per attempt. Default 60 s, as the reference SDK. */
  timeoutMs?: number;
  /** Retries of a safe request. Default 2. */
  maxRetries?: number;
  /** First backoff step; doubles per attempt up to retryMaxMs. Default 500 ms. */
  retryBaseMs?: number;
  /** Default 8 s. */
  retryMaxMs?: number;
  /** Validate responses against the schemas. Default true. */
  validateResponses?: boolean;
  dispatcher?: Dispatcher;
}

type Body<N extends EndpointName> = (typeof endpoints)[N] extends { body: infer S extends TSchema } ? Static<S> : never;
type Query<N extends EndpointName> = (typeof endpoints)[N] extends { query: infer S extends TSchema } ? Static<S> : never;

/** A file for an album: a local path or file:// URL (streamed from disk), or bytes with the file's name. */
export type MediaUpload = string | { name: string; data: Buffer | Uint8Array | Blob };

export class BoxClient {
  readonly baseUrl: string;
  readonly #t: Transport;

  constructor(options: BoxClientOptions = {}, env: NodeJS.ProcessEnv = process.env) {
    const baseUrl = options.baseUrl ?? env.BOXFLOW_BASE_URL ?? env.GBOX_BASE_URL;
    const apiKey = options.apiKey ?? env.BOXFLOW_API_KEY ?? env.GBOX_API_KEY;
    if (!baseUrl) throw new BoxflowError('INVALID_ARGUMENT', 'No base URL: pass baseUrl or set BOXFLOW_BASE_URL (e.g. https://gbox.ai/api/v1)');
    if (!apiKey) throw new BoxflowError('INVALID_ARGUMENT', 'No API key: pass apiKey or set BOXFLOW_API_KEY');
    this.baseUrl = normalizeBaseUrl(baseUrl);
    this.#t = new Transport({
      baseUrl: this.baseUrl,
      apiKey,
      timeoutMs: options.timeoutMs ?? 60_000, // 60 s per attempt
      maxRetries: options.maxRetries ?? 2,
      retryBaseMs: options.retryBaseMs ?? 500, // .5 s, doubling
      retryMaxMs: options.retryMaxMs ?? 8_000, // 8 s cap
      validateResponses: options.validateResponses ?? true,
      dispatcher: options.dispatcher,
    });
  }

  close(): Promise<void> {
    return this.#t.close();
  }

  /** The service answered an action as `boxflow serve` does (`x-boxflow-action-id`): it honours boxflow's extensions (docs/api.md). */
  get isBoxflowService(): boolean {
    return this.#t.boxflowService;
  }

  // ------------------------------------------------------------------ UI actions
  drag(boxId: string, body: Body<'drag'>, opts?: RequestOptions) {
    return this.#t.call('drag', { pathParams: { boxId }, json: body }, opts);
  }
  pressKey(boxId: string, body: Body<'pressKey'>, opts?: RequestOptions) {
    return this.#t.call('pressKey', { pathParams: { boxId }, json: body }, opts);
  }
  type(boxId: string, body: Body<'type'>, opts?: RequestOptions) {
    return this.#t.call('type', { pathParams: { boxId }, json: body }, opts);
  }
  screenLayout(boxId: string, opts?: RequestOptions) {
    return this.#t.call('screenLayout', { pathParams: { boxId } }, opts);
  }
  updateSettings(boxId: string, body: Body<'updateSettings'>, opts?: RequestOptions) {
    return this.#t.call('updateSettings', { pathParams: { boxId }, json: body }, opts);
  }
  getSettings(boxId: string, opts?: RequestOptions) {
    return this.#t.call('getSettings', { pathParams: { boxId } }, opts);
  }
  resetSettings(boxId: string, opts?: RequestOptions) {
    return this.#t.call('resetSettings', { pathParams: { boxId } }, opts);
  }
  screenshot(boxId: string, body: Body<'screenshot'> = {}, opts?: RequestOptions) {
    return this.#t.call('screenshot', { pathParams: { boxId }, json: body }, opts);
  }
  /** `button` (default left) and `double` (default false) come back in `actual`, as the service applied them. */
  click(boxId: string, body: Body<'click'>, opts?: RequestOptions) {
    return this.#t.call('click', { pathParams: { boxId }, json: body }, opts);
  }
  tap(boxId: string, body: Body<'tap'>, opts?: RequestOptions) {
    return this.#t.call('tap', { pathParams: { boxId }, json: body }, opts);
  }
  /** Held for `duration` (default 1s). */
  longPress(boxId: string, body: Body<'longPress'>, opts?: RequestOptions) {
    return this.#t.call('longPress', { pathParams: { boxId }, json: body }, opts);
  }
  /** The pointer to (x, y) without a click: hover. */
  move(boxId: string, body: Body<'move'>, opts?: RequestOptions) {
    return this.#t.call('move', { pathParams: { boxId }, json: body }, opts);
  }
  /** `{scrollX, scrollY, x, y}` (positive reveals what is below / right) or `{direction, distance?, duration?, location?}`. */
  scroll(boxId: string, body: Body<'scroll'>, opts?: RequestOptions) {
    return this.#t.call('scroll', { pathParams: { boxId }, json: body }, opts);
  }
  /** `{direction, distance?, duration?, location?}` (the finger's direction from the screen's centre) or `{start, end, duration?}`. */
  swipe(boxId: string, body: Body<'swipe'>, opts?: RequestOptions) {
    return this.#t.call('swipe', { pathParams: { boxId }, json: body }, opts);
  }
  /** One entry of `points` per finger, each a start and its moves and waits. */
  touch(boxId: string, body: Body<'touch'>, opts?: RequestOptions) {
    return this.#t.call('touch', { pathParams: { boxId }, json: body }, opts);
  }
  screenRotation(boxId: string, body: Body<'screenRotation'>, opts?: RequestOptions) {
    return this.#t.call('screenRotation', { pathParams: { boxId }, json: body }, opts);
  }
  getClipboard(boxId: string, opts?: RequestOptions) {
    return this.#t.call('getClipboard', { pathParams: { boxId } }, opts);
  }
  /** A bare string is sent as `{content}`, as the reference SDK's wrapper does. */
  setClipboard(boxId: string, body: Body<'setClipboard'> | string, opts?: RequestOptions) {
    return this.#t.call('setClipboard', { pathParams: { boxId }, json: typeof body === 'string' ? { content: body } : body }, opts);
  }

  /**
   * The interactive elements on the screen (`{elements, screenshot: {source, marked}}`), each with its
   * box and centre in the action scale; one given back as a click, tap or long-press `target` acts at
   * its centre. Sends `{}` when no body is given, as the SDK's wrapper does.
   */
  detectElements(boxId: string, body: Body<'detectElements'> = {}, opts?: RequestOptions) {
    return this.#t.call('detectElements', { pathParams: { boxId }, json: body }, opts);
  }

  // ------------------------------------------------------------------ Android
  listPackages(boxId: string, query: Query<'listPackages'> = {}, opts?: RequestOptions) {
    return this.#t.call('listPackages', { pathParams: { boxId }, query }, opts);
  }
  getPackage(boxId: string, packageName: string, opts?: RequestOptions) {
    return this.#t.call('getPackage', { pathParams: { boxId, packageName } }, opts);
  }
  /** `apk` is an http(s) URL (sent as a text part) or a local file path (streamed from disk). */
  async installPackage(boxId: string, body: { apk: string; open?: boolean }, opts?: RequestOptions) {
    const form = new FormData();
    if (/^https?:\/\//i.test(body.apk)) {
      form.set('apk', body.apk);
    } else {
      const where = { method: 'POST', path: expandPath(endpoints.installPackage.path, { boxId }, 'POST'), boxId };
      const file = body.apk.startsWith('file://') ? fileURLToPath(body.apk) : body.apk;
      const info = await stat(file).catch((cause: unknown) => {
        throw this.#t.error('INVALID_ARGUMENT', `cannot read the APK ${file}: ${(cause as Error).message}`, where, undefined, undefined, cause);
      });
      if (info.size > kInstallMaxBytes) {
        throw this.#t.error('FILE_TOO_LARGE', `${basename(file)} is ${(info.size / 2 ** 20).toFixed(0)} MB; the limit is 512 MB`, where);
      }
      form.set('apk', await openAsBlob(file), basename(file));
    }
    if (body.open !== undefined) form.set('open', String(body.open));
    return this.#t.call('installPackage', { pathParams: { boxId }, form }, opts);
  }
  listApps(boxId: string, opts?: RequestOptions) {
    return this.#t.call('listApps', { pathParams: { boxId } }, opts);
  }
  closeAllApps(boxId: string, opts?: RequestOptions) {
    return this.#t.call('closeAllApps', { pathParams: { boxId } }, opts);
  }
  /** Starts `activityName`, else the app's launcher activity. */
  openApp(boxId: string, packageName: string, body: Body<'openApp'> = {}, opts?: RequestOptions) {
    return this.#t.call('openApp', { pathParams: { boxId, packageName }, json: body }, opts);
  }
  restartApp(boxId: string, packageName: string, body: Body<'restartApp'> = {}, opts?: RequestOptions) {
    return this.#t.call('restartApp', { pathParams: { boxId, packageName }, json: body }, opts);
  }
  closeApp(boxId: string, packageName: string, opts?: RequestOptions) {
    return this.#t.call('closeApp', { pathParams: { boxId, packageName } }, opts);
  }
  /** boxflow serve's own: `pm clear`, the app's data and permissions reset. */
  clearAppData(boxId: string, packageName: string, opts?: RequestOptions) {
    return this.#t.call('clearAppData', { pathParams: { boxId, packageName } }, opts);
  }
  /** Hardware buttons (Android: power, volume, home, back, menu, appSwitch; Linux: back). */
  pressButton(boxId: string, body: Body<'pressButton'>, opts?: RequestOptions) {
    return this.#t.call('pressButton', { pathParams: { boxId }, json: body }, opts);
  }

  // ------------------------------------------------------------------ browser, utilities, media
  openTab(boxId: string, body: Body<'openTab'>, opts?: RequestOptions) {
    return this.#t.call('openTab', { pathParams: { boxId }, json: body }, opts);
  }
  closeBrowser(boxId: string, opts?: RequestOptions) {
    return this.#t.call('closeBrowser', { pathParams: { boxId } }, opts);
  }
  cdpUrl(boxId: string, body: Body<'cdpUrl'> = {}, opts?: RequestOptions) {
    return this.#t.call('cdpUrl', { pathParams: { boxId }, json: body }, opts);
  }
  /** Starts the box's browser if it is closed; `{cdpUrl}`. */
  openBrowser(boxId: string, body: Body<'openBrowser'> = {}, opts?: RequestOptions) {
    return this.#t.call('openBrowser', { pathParams: { boxId }, json: body }, opts);
  }
  listTabs(boxId: string, opts?: RequestOptions) {
    return this.#t.call('listTabs', { pathParams: { boxId } }, opts);
  }
  /** Navigates the tab to `url` (waits for DOMContentLoaded). */
  updateTab(boxId: string, tabId: string, body: Body<'updateTab'>, opts?: RequestOptions) {
    return this.#t.call('updateTab', { pathParams: { boxId, tabId }, json: body }, opts);
  }
  /** Makes the tab the active one: the screen the actions see. */
  switchTab(boxId: string, tabId: string, opts?: RequestOptions) {
    return this.#t.call('switchTab', { pathParams: { boxId, tabId } }, opts);
  }
  closeTab(boxId: string, tabId: string, opts?: RequestOptions) {
    return this.#t.call('closeTab', { pathParams: { boxId, tabId } }, opts);
  }
  setResolution(boxId: string, body: Body<'setResolution'>, opts?: RequestOptions) {
    return this.#t.call('setResolution', { pathParams: { boxId }, json: body }, opts);
  }
  webTerminalUrl(boxId: string, body: Body<'webTerminalUrl'> = {}, opts?: RequestOptions) {
    return this.#t.call('webTerminalUrl', { pathParams: { boxId }, json: body }, opts);
  }
  renameFile(boxId: string, body: Body<'renameFile'>, opts?: RequestOptions) {
    return this.#t.call('renameFile', { pathParams: { boxId }, json: body }, opts);
  }
  deleteMedia(boxId: string, albumName: string, mediaName: string, opts?: RequestOptions) {
    return this.#t.call('deleteMedia', { pathParams: { boxId, albumName, mediaName } }, opts);
  }
  deleteAlbum(boxId: string, albumName: string, opts?: RequestOptions) {
    return this.#t.call('deleteAlbum', { pathParams: { boxId, albumName } }, opts);
  }

  // ------------------------------------------------------------------ boxes
  listBoxes(query: Query<'listBoxes'> = {}, opts?: RequestOptions) {
    return this.#t.call('listBoxes', { query }, opts);
  }
  getBox(boxId: string, opts?: RequestOptions) {
    return this.#t.call('getBox', { pathParams: { boxId } }, opts);
  }
  createLinuxBox(body: Body<'createLinuxBox'> = {}, opts?: RequestOptions) {
    return this.#t.call('createLinuxBox', { json: body }, opts);
  }
  createAndroidBox(body: Body<'createAndroidBox'> = {}, opts?: RequestOptions) {
    return this.#t.call('createAndroidBox', { json: body }, opts);
  }
  terminateBox(boxId: string, body: Body<'terminateBox'> = {}, opts?: RequestOptions) {
    return this.#t.call('terminateBox', { pathParams: { boxId }, json: body }, opts);
  }
  startBox(boxId: string, body: Body<'startBox'> = {}, opts?: RequestOptions) {
    return this.#t.call('startBox', { pathParams: { boxId }, json: body }, opts);
  }
  /** Stops the box: it keeps its record, files and settings and holds nothing until startBox (docs/server.md). */
  stopBox(boxId: string, body: Body<'stopBox'> = {}, opts?: RequestOptions) {
    return this.#t.call('stopBox', { pathParams: { boxId }, json: body }, opts);
  }
  /** `{orientation, resolution}` of the box's screen. */
  getDisplay(boxId: string, opts?: RequestOptions) {
    return this.#t.call('getDisplay', { pathParams: { boxId } }, opts);
  }

  // ------------------------------------------------------------------ recording (docs/api.md)

  /** Starts recording the box's screen; one that is already running is thrown away. No body, as the SDK sends it. */
  startRecording(boxId: string, opts?: RequestOptions) {
    return this.#t.call('startRecording', { pathParams: { boxId } }, opts);
  }
  /** Stops the recording: `{presignedUrl, storageKey}` of the video (boxflow serve adds contentType, durationMs, size, truncated). A body only when given (boxflow's `presignedExpiresIn`). */
  stopRecording(boxId: string, body?: Body<'stopRecording'>, opts?: RequestOptions) {
    return this.#t.call('stopRecording', { pathParams: { boxId }, ...(body ? { json: body } : {}) }, opts);
  }

  // ------------------------------------------------------------------ live view (docs/api.md)

  /** A pre-signed, expiring page that shows the box's screen live and passes clicks, drags and typing on as actions: `{url, rawUrl}` (boxflow serve adds `websocketUrl`). */
  liveViewUrl(boxId: string, body: Body<'liveViewUrl'> = {}, opts?: RequestOptions) {
    return this.#t.call('liveViewUrl', { pathParams: { boxId }, json: body }, opts);
  }

  /** Runs a command in the box (docs/api.md): `{exitCode, stdout, stderr}`; exit 124 when it timed out. */
  runCommand(boxId: string, body: Body<'runCommand'>, opts?: RequestOptions) {
    return this.#t.call('runCommand', { pathParams: { boxId }, json: body }, opts);
  }
  /**
   * The two websockets that stream a command's or run-code's output (docs/api.md):
   * `{command, runCode}`. Connect with this client's `Authorization` header; the URLs carry no key.
   */
  websocketUrl(boxId: string, opts?: RequestOptions) {
    return this.#t.call('websocketUrl', { pathParams: { boxId } }, opts);
  }

  // ------------------------------------------------------------------ run-code and files (docs/api.md)

  /**
   * Runs code in the box (a string is `{code}`, as the SDK's wrapper sends it): `{exitCode, stdout,
   * stderr}`, 124 when it timed out. The request waits for the code's `timeout` (default 30s) and 30 s more.
   */
  runCode(boxId: string, body: Body<'runCode'> | string, opts: RequestOptions = {}) {
    const json = typeof body === 'string' ? { code: body } : body;
    let runsMs = 30_000;
    try {
      runsMs = parseDuration(json.timeout ?? '30s', '/timeout');
    } catch {
      // a bad duration: the service refuses it
    }
    return this.#t.call('runCode', { pathParams: { boxId }, json }, { ...opts, timeoutMs: opts.timeoutMs ?? Math.max(this.#t.timeoutMs, runsMs + 30_000) });
  }
  /** The entries under a directory (a string is `{path}`): `{data: (File | Dir)[]}`; `depth` 1 (the default) lists its own entries. */
  listFiles(boxId: string, query: Query<'listFiles'> | string, opts?: RequestOptions) {
    return this.#t.call('listFiles', { pathParams: { boxId }, query: typeof query === 'string' ? { path: query } : query }, opts);
  }
  /** A file's content as text: `{content}`. */
  readFile(boxId: string, query: Query<'readFile'> | string, opts?: RequestOptions) {
    return this.#t.call('readFile', { pathParams: { boxId }, query: typeof query === 'string' ? { path: query } : query }, opts);
  }
  /**
   * Writes a file, making its folders (an existing file is overwritten): multipart with `path` and
   * `workingDir` as text parts and `content` as a file part named by the path's base name, also for
   * a string (UTF-8): the SDK sends a string as a text part, in which FormData turns every line break
   * into CRLF; a file part arrives byte for byte. Answers the File.
   */
  async writeFile(boxId: string, body: { path: string; content: string | Buffer | Uint8Array | Blob; workingDir?: string }, opts?: RequestOptions) {
    const where = { method: 'POST', path: expandPath(endpoints.writeFile.path, { boxId }, 'POST'), boxId };
    const { content } = body;
    const blob = content instanceof Blob ? content : new Blob([typeof content === 'string' ? content : Uint8Array.from(content)]);
    if (blob.size > kFsLimits.writeFileBytes) throw this.#t.error('FILE_TOO_LARGE', `the content is ${(blob.size / 2 ** 20).toFixed(0)} MiB; fs/write takes at most ${kFsLimits.writeFileBytes / 2 ** 20} MiB`, where);
    const form = new FormData();
    form.set('path', body.path);
    if (body.workingDir !== undefined) form.set('workingDir', body.workingDir);
    form.set('content', blob, basename(body.path) || 'unknown_file');
    return this.#t.call('writeFile', { pathParams: { boxId }, form }, opts);
  }
  /** `{exists: true, type}` or `{exists: false}` (a string is `{path}`). */
  fileExists(boxId: string, body: Body<'fileExists'> | string, opts?: RequestOptions) {
    return this.#t.call('fileExists', { pathParams: { boxId }, json: typeof body === 'string' ? { path: body } : body }, opts);
  }
  /** A path's File or Dir (a string is `{path}`). */
  fileInfo(boxId: string, query: Query<'fileInfo'> | string, opts?: RequestOptions) {
    return this.#t.call('fileInfo', { pathParams: { boxId }, query: typeof query === 'string' ? { path: query } : query }, opts);
  }
  /** Removes a file, or a directory with everything in it: `{message}`. DELETE with a JSON body, as the SDK sends it. */
  removeFile(boxId: string, body: Body<'removeFile'> | string, opts?: RequestOptions) {
    return this.#t.call('removeFile', { pathParams: { boxId }, json: typeof body === 'string' ? { path: body } : body }, opts);
  }

  // ------------------------------------------------------------------ Android apps and packages (docs/api.md)

  /** A launcher app of the box: `{packageName, activityName, activityClassName}`. */
  getApp(boxId: string, packageName: string, opts?: RequestOptions) {
    return this.#t.call('getApp', { pathParams: { boxId, packageName } }, opts);
  }
  /** Package names, APK paths and types only (faster than listPackages); `pkgType` defaults to thirdParty on the service. */
  listPackagesSimple(boxId: string, query: Query<'listPackagesSimple'> = {}, opts?: RequestOptions) {
    return this.#t.call('listPackagesSimple', { pathParams: { boxId }, query }, opts);
  }
  /** The activities a package declares: `{data: [{name, className, packageName, isExported, isMain, isLauncher}]}`. */
  listActivities(boxId: string, packageName: string, opts?: RequestOptions) {
    return this.#t.call('listActivities', { pathParams: { boxId, packageName } }, opts);
  }
  /** Uninstalls a package; `keepData` keeps its data and cache. The body goes out as `{}` when not given, as the SDK sends it. */
  uninstallPackage(boxId: string, packageName: string, body: Body<'uninstallPackage'> = {}, opts?: RequestOptions) {
    return this.#t.call('uninstallPackage', { pathParams: { boxId, packageName }, json: body }, opts);
  }
  /** `{adb}`: the address `adb connect` takes to reach the box's device. */
  getConnectAddress(boxId: string, opts?: RequestOptions) {
    return this.#t.call('getConnectAddress', { pathParams: { boxId } }, opts);
  }

  // ------------------------------------------------------------------ media and storage (docs/api.md)

  listAlbums(boxId: string, opts?: RequestOptions) {
    return this.#t.call('listAlbums', { pathParams: { boxId } }, opts);
  }
  /** Creates an album: multipart, a `name` text part and a `media[]` file part per file (a local path, a file:// URL, or `{name, data}`). */
  async createAlbum(boxId: string, body: { name: string; media?: MediaUpload[] }, opts?: RequestOptions) {
    const form = new FormData();
    form.set('name', body.name);
    await this.#mediaParts(form, body.media ?? [], { method: 'POST', path: expandPath(endpoints.createAlbum.path, { boxId }, 'POST'), boxId });
    return this.#t.call('createAlbum', { pathParams: { boxId }, form }, opts);
  }
  getAlbum(boxId: string, albumName: string, opts?: RequestOptions) {
    return this.#t.call('getAlbum', { pathParams: { boxId, albumName } }, opts);
  }
  /** Adds media to an album: multipart, a `media[]` file part per file. */
  async updateAlbum(boxId: string, albumName: string, body: { media: MediaUpload[] }, opts?: RequestOptions) {
    const form = new FormData();
    await this.#mediaParts(form, body.media, { method: 'PATCH', path: expandPath(endpoints.updateAlbum.path, { boxId, albumName }, 'PATCH'), boxId });
    return this.#t.call('updateAlbum', { pathParams: { boxId, albumName }, form }, opts);
  }
  listMedia(boxId: string, albumName: string, opts?: RequestOptions) {
    return this.#t.call('listMedia', { pathParams: { boxId, albumName } }, opts);
  }
  getMedia(boxId: string, albumName: string, mediaName: string, opts?: RequestOptions) {
    return this.#t.call('getMedia', { pathParams: { boxId, albumName, mediaName } }, opts);
  }
  /** A media file's bytes (`Accept: application/octet-stream`, as the SDK asks). */
  async downloadMedia(boxId: string, albumName: string, mediaName: string, opts: RequestOptions = {}): Promise<Buffer> {
    const path = expandPath(endpoints.downloadMedia.path, { boxId, albumName, mediaName }, 'GET');
    return this.#t.getBytes(this.baseUrl + path, this.#t.headers('application/octet-stream'), { method: 'GET', path, boxId }, opts);
  }
  /** `{photo, video}`: the file extensions an album takes. */
  getMediaSupport(boxId: string, opts?: RequestOptions) {
    return this.#t.call('getMediaSupport', { pathParams: { boxId } }, opts);
  }
  /** A new pre-signed URL for a stored object of the box (a screenshot's `uri` with storageKey, a recording's `storageKey`): the URL string. */
  createPresignedUrl(boxId: string, body: Body<'createPresignedUrl'>, opts?: RequestOptions) {
    return this.#t.call('createPresignedUrl', { pathParams: { boxId }, json: body }, opts);
  }

  /** Appends each file as a `media[]` part (the name the SDK gives an array); a local file over 512 MB is refused before sending. */
  async #mediaParts(form: FormData, media: MediaUpload[], where: Where): Promise<void> {
    for (const item of media) {
      if (typeof item !== 'string') {
        form.append('media[]', item.data instanceof Blob ? item.data : new Blob([Uint8Array.from(item.data)]), item.name);
        continue;
      }
      const file = item.startsWith('file://') ? fileURLToPath(item) : item;
      const info = await stat(file).catch((cause: unknown) => {
        throw this.#t.error('INVALID_ARGUMENT', `cannot read the media file ${file}: ${(cause as Error).message}`, where, undefined, undefined, cause);
      });
      if (info.size > kMediaLimits.fileBytes) throw this.#t.error('FILE_TOO_LARGE', `${basename(file)} is ${(info.size / 2 ** 20).toFixed(0)} MB; the limit is ${kMediaLimits.fileBytes / 2 ** 20} MB per file`, where);
      form.append('media[]', await openAsBlob(file), basename(file));
    }
  }

  /** Downloads a stored object (a screenshot's pre-signed URL). Pre-signed URLs carry no API key. */
  fetchObject(url: string, opts: RequestOptions = {}): Promise<Buffer> {
    return this.#t.getBytes(url, undefined, { method: 'GET', path: new URL(url).pathname }, opts);
  }
  /** `fetchObject` as a stream: the body is passed on as it arrives, never held whole (it may stall at most `timeoutMs` between chunks). */
  streamObject(url: string, opts: RequestOptions = {}): Promise<Dispatcher.ResponseData['body']> {
    return this.#t.get(url, undefined, { method: 'GET', path: new URL(url).pathname }, opts);
  }
}
