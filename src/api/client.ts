// BoxClient: one method per Box API v1 operation, over an undici keep-alive pool.
// undici times each attempt (headersTimeout/bodyTimeout) and repeats it (its retry interceptor);
// boxflow decides only which failures are safe to repeat (`retryable`, `retryableError`). Every
// response is validated against the contract, and a failure is a BoxApiError with a stable code
// that names method, path and box, never the key.
import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, FormData, interceptors, request, type Dispatcher } from 'undici';
import type { Static, TSchema } from '@sinclair/typebox';
import { BoxflowError, type ErrorCode } from '../errors.js';
import { Masker } from '../mask.js';
import { endpoints, kFsLimits, kInstallMaxBytes, kMediaLimits, type EndpointName } from './schemas.js';
import { parseDuration } from './duration.js';
import { check, formatProblem } from './validate.js';
import { boxflowVersion } from './version.js';

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

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
}

type Body<N extends EndpointName> = (typeof endpoints)[N] extends { body: infer S extends TSchema } ? Static<S> : never;
type Result<N extends EndpointName> = (typeof endpoints)[N] extends { response: infer S extends TSchema } ? Static<S> : void;
type Query<N extends EndpointName> = (typeof endpoints)[N] extends { query: infer S extends TSchema } ? Static<S> : never;

interface Call {
  pathParams?: Record<string, string>;
  query?: Record<string, unknown>;
  json?: unknown;
  form?: FormData;
}

/** A file for an album: a local path or file:// URL (streamed from disk), or bytes with the file's name. */
export type MediaUpload = string | { name: string; data: Buffer | Uint8Array | Blob };

export class BoxApiError extends BoxflowError {
  readonly method: string;
  readonly path: string;
  readonly boxId: string | undefined;
  /** HTTP status, when a response arrived. */
  readonly httpStatus: number | undefined;
  /** The `code` of the service's error body, when it sent one. */
  readonly serverCode: string | undefined;
  /** The action's id when the service gave one for a failed action (`x-boxflow-action-id`). */
  actionId: string | undefined;
  constructor(code: ErrorCode, message: string, init: { method: string; path: string; boxId?: string; httpStatus?: number; serverCode?: string; actionId?: string; cause?: unknown; details?: unknown }) {
    super(code, message, { cause: init.cause, details: init.details });
    this.name = 'BoxApiError';
    this.method = init.method;
    this.path = init.path;
    this.boxId = init.boxId;
    this.httpStatus = init.httpStatus;
    this.serverCode = init.serverCode;
    this.actionId = init.actionId;
  }
}

const kStatusCodes: Record<number, ErrorCode> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  422: 'UNPROCESSABLE',
  429: 'RATE_LIMITED',
};
export function codeForStatus(status: number): ErrorCode {
  return kStatusCodes[status] ?? (status >= 500 ? 'SERVER_ERROR' : 'HTTP_ERROR');
}

// Connection failures that happen before any byte of the request left: safe to retry for any method.
const kNotSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const kTimeoutCodes = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The retry callback of undici's RetryHandler: `next(null)` sends the request again, `next(err)` gives up. */
type RetryFn = (err: Error, context: { state: { counter: number } }, next: (err: Error | null) => void) => void;

export class BoxClient {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #retryBaseMs: number;
  readonly #retryMaxMs: number;
  readonly #validate: boolean;
  readonly #dispatcher: Dispatcher;
  /** #dispatcher with undici's retry interceptor: API calls go through it, pre-signed downloads do not. */
  readonly #retrying: Dispatcher;
  readonly #ownDispatcher: boolean;
  #boxflowService = false;

  constructor(options: BoxClientOptions = {}, env: NodeJS.ProcessEnv = process.env) {
    const baseUrl = options.baseUrl ?? env.BOXFLOW_BASE_URL ?? env.GBOX_BASE_URL;
    const apiKey = options.apiKey ?? env.BOXFLOW_API_KEY ?? env.GBOX_API_KEY;
    if (!baseUrl) throw new BoxflowError('INVALID_ARGUMENT', 'No base URL: pass baseUrl or set BOXFLOW_BASE_URL (e.g. https://gbox.ai/api/v1)');
    if (!apiKey) throw new BoxflowError('INVALID_ARGUMENT', 'No API key: pass apiKey or set BOXFLOW_API_KEY');
    this.baseUrl = normalizeBaseUrl(baseUrl);
    this.#apiKey = apiKey;
    this.#timeoutMs = options.timeoutMs ?? 60_000; // 60 s per attempt
    this.#maxRetries = options.maxRetries ?? 2;
    this.#retryBaseMs = options.retryBaseMs ?? 500; // .5 s, doubling
    this.#retryMaxMs = options.retryMaxMs ?? 8_000; // 8 s cap
    this.#validate = options.validateResponses ?? true;
    this.#ownDispatcher = !options.dispatcher;
    this.#dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 64 });
    // throwOnError: false hands the last refused answer through, so its status and body make the error.
    this.#retrying = this.#dispatcher.compose(interceptors.retry({ throwOnError: false }));
  }

  async close(): Promise<void> {
    if (this.#ownDispatcher) await this.#dispatcher.close();
  }

  /** The service answered an action as `boxflow serve` does (`x-boxflow-action-id`): it honours boxflow's extensions (docs/api.md). */
  get isBoxflowService(): boolean {
    return this.#boxflowService;
  }

  // ------------------------------------------------------------------ UI actions
  drag(boxId: string, body: Body<'drag'>, opts?: RequestOptions) {
    return this.#call('drag', { pathParams: { boxId }, json: body }, opts);
  }
  pressKey(boxId: string, body: Body<'pressKey'>, opts?: RequestOptions) {
    return this.#call('pressKey', { pathParams: { boxId }, json: body }, opts);
  }
  type(boxId: string, body: Body<'type'>, opts?: RequestOptions) {
    return this.#call('type', { pathParams: { boxId }, json: body }, opts);
  }
  screenLayout(boxId: string, opts?: RequestOptions) {
    return this.#call('screenLayout', { pathParams: { boxId } }, opts);
  }
  updateSettings(boxId: string, body: Body<'updateSettings'>, opts?: RequestOptions) {
    return this.#call('updateSettings', { pathParams: { boxId }, json: body }, opts);
  }
  getSettings(boxId: string, opts?: RequestOptions) {
    return this.#call('getSettings', { pathParams: { boxId } }, opts);
  }
  resetSettings(boxId: string, opts?: RequestOptions) {
    return this.#call('resetSettings', { pathParams: { boxId } }, opts);
  }
  screenshot(boxId: string, body: Body<'screenshot'> = {}, opts?: RequestOptions) {
    return this.#call('screenshot', { pathParams: { boxId }, json: body }, opts);
  }
  /** `button` (default left) and `double` (default false) come back in `actual`, as the service applied them. */
  click(boxId: string, body: Body<'click'>, opts?: RequestOptions) {
    return this.#call('click', { pathParams: { boxId }, json: body }, opts);
  }
  tap(boxId: string, body: Body<'tap'>, opts?: RequestOptions) {
    return this.#call('tap', { pathParams: { boxId }, json: body }, opts);
  }
  /** Held for `duration` (default 1s). */
  longPress(boxId: string, body: Body<'longPress'>, opts?: RequestOptions) {
    return this.#call('longPress', { pathParams: { boxId }, json: body }, opts);
  }
  /** The pointer to (x, y) without a click: hover. */
  move(boxId: string, body: Body<'move'>, opts?: RequestOptions) {
    return this.#call('move', { pathParams: { boxId }, json: body }, opts);
  }
  /** `{scrollX, scrollY, x, y}` (positive reveals what is below / right) or `{direction, distance?, duration?, location?}`. */
  scroll(boxId: string, body: Body<'scroll'>, opts?: RequestOptions) {
    return this.#call('scroll', { pathParams: { boxId }, json: body }, opts);
  }
  /** `{direction, distance?, duration?, location?}` (the finger's direction from the screen's centre) or `{start, end, duration?}`. */
  swipe(boxId: string, body: Body<'swipe'>, opts?: RequestOptions) {
    return this.#call('swipe', { pathParams: { boxId }, json: body }, opts);
  }
  /** One entry of `points` per finger, each a start and its moves and waits. */
  touch(boxId: string, body: Body<'touch'>, opts?: RequestOptions) {
    return this.#call('touch', { pathParams: { boxId }, json: body }, opts);
  }
  screenRotation(boxId: string, body: Body<'screenRotation'>, opts?: RequestOptions) {
    return this.#call('screenRotation', { pathParams: { boxId }, json: body }, opts);
  }
  getClipboard(boxId: string, opts?: RequestOptions) {
    return this.#call('getClipboard', { pathParams: { boxId } }, opts);
  }
  /** A bare string is sent as `{content}`, as the reference SDK's wrapper does. */
  setClipboard(boxId: string, body: Body<'setClipboard'> | string, opts?: RequestOptions) {
    return this.#call('setClipboard', { pathParams: { boxId }, json: typeof body === 'string' ? { content: body } : body }, opts);
  }

  /**
   * The interactive elements on the screen (`{elements, screenshot: {source, marked}}`), each with its
   * box and centre in the action scale; one given back as a click, tap or long-press `target` acts at
   * its centre. Sends `{}` when no body is given, as the SDK's wrapper does.
   */
  detectElements(boxId: string, body: Body<'detectElements'> = {}, opts?: RequestOptions) {
    return this.#call('detectElements', { pathParams: { boxId }, json: body }, opts);
  }

  // ------------------------------------------------------------------ Android
  listPackages(boxId: string, query: Query<'listPackages'> = {}, opts?: RequestOptions) {
    return this.#call('listPackages', { pathParams: { boxId }, query }, opts);
  }
  getPackage(boxId: string, packageName: string, opts?: RequestOptions) {
    return this.#call('getPackage', { pathParams: { boxId, packageName } }, opts);
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
        throw this.#error('INVALID_ARGUMENT', `cannot read the APK ${file}: ${(cause as Error).message}`, where, undefined, undefined, cause);
      });
      if (info.size > kInstallMaxBytes) {
        throw this.#error('FILE_TOO_LARGE', `${basename(file)} is ${(info.size / 2 ** 20).toFixed(0)} MB; the limit is 512 MB`, where);
      }
      form.set('apk', await openAsBlob(file), basename(file));
    }
    if (body.open !== undefined) form.set('open', String(body.open));
    return this.#call('installPackage', { pathParams: { boxId }, form }, opts);
  }
  listApps(boxId: string, opts?: RequestOptions) {
    return this.#call('listApps', { pathParams: { boxId } }, opts);
  }
  closeAllApps(boxId: string, opts?: RequestOptions) {
    return this.#call('closeAllApps', { pathParams: { boxId } }, opts);
  }
  /** Starts `activityName`, else the app's launcher activity. */
  openApp(boxId: string, packageName: string, body: Body<'openApp'> = {}, opts?: RequestOptions) {
    return this.#call('openApp', { pathParams: { boxId, packageName }, json: body }, opts);
  }
  restartApp(boxId: string, packageName: string, body: Body<'restartApp'> = {}, opts?: RequestOptions) {
    return this.#call('restartApp', { pathParams: { boxId, packageName }, json: body }, opts);
  }
  closeApp(boxId: string, packageName: string, opts?: RequestOptions) {
    return this.#call('closeApp', { pathParams: { boxId, packageName } }, opts);
  }
  /** boxflow serve's own: `pm clear`, the app's data and permissions reset. */
  clearAppData(boxId: string, packageName: string, opts?: RequestOptions) {
    return this.#call('clearAppData', { pathParams: { boxId, packageName } }, opts);
  }
  /** Hardware buttons (Android: power, volume, home, back, menu, appSwitch; Linux: back). */
  pressButton(boxId: string, body: Body<'pressButton'>, opts?: RequestOptions) {
    return this.#call('pressButton', { pathParams: { boxId }, json: body }, opts);
  }

  // ------------------------------------------------------------------ browser, utilities, media
  openTab(boxId: string, body: Body<'openTab'>, opts?: RequestOptions) {
    return this.#call('openTab', { pathParams: { boxId }, json: body }, opts);
  }
  closeBrowser(boxId: string, opts?: RequestOptions) {
    return this.#call('closeBrowser', { pathParams: { boxId } }, opts);
  }
  cdpUrl(boxId: string, body: Body<'cdpUrl'> = {}, opts?: RequestOptions) {
    return this.#call('cdpUrl', { pathParams: { boxId }, json: body }, opts);
  }
  /** Starts the box's browser if it is closed; `{cdpUrl}`. */
  openBrowser(boxId: string, body: Body<'openBrowser'> = {}, opts?: RequestOptions) {
    return this.#call('openBrowser', { pathParams: { boxId }, json: body }, opts);
  }
  listTabs(boxId: string, opts?: RequestOptions) {
    return this.#call('listTabs', { pathParams: { boxId } }, opts);
  }
  /** Navigates the tab to `url` (waits for DOMContentLoaded). */
  updateTab(boxId: string, tabId: string, body: Body<'updateTab'>, opts?: RequestOptions) {
    return this.#call('updateTab', { pathParams: { boxId, tabId }, json: body }, opts);
  }
  /** Makes the tab the active one: the screen the actions see. */
  switchTab(boxId: string, tabId: string, opts?: RequestOptions) {
    return this.#call('switchTab', { pathParams: { boxId, tabId } }, opts);
  }
  closeTab(boxId: string, tabId: string, opts?: RequestOptions) {
    return this.#call('closeTab', { pathParams: { boxId, tabId } }, opts);
  }
  setResolution(boxId: string, body: Body<'setResolution'>, opts?: RequestOptions) {
    return this.#call('setResolution', { pathParams: { boxId }, json: body }, opts);
  }
  webTerminalUrl(boxId: string, body: Body<'webTerminalUrl'> = {}, opts?: RequestOptions) {
    return this.#call('webTerminalUrl', { pathParams: { boxId }, json: body }, opts);
  }
  renameFile(boxId: string, body: Body<'renameFile'>, opts?: RequestOptions) {
    return this.#call('renameFile', { pathParams: { boxId }, json: body }, opts);
  }
  deleteMedia(boxId: string, albumName: string, mediaName: string, opts?: RequestOptions) {
    return this.#call('deleteMedia', { pathParams: { boxId, albumName, mediaName } }, opts);
  }
  deleteAlbum(boxId: string, albumName: string, opts?: RequestOptions) {
    return this.#call('deleteAlbum', { pathParams: { boxId, albumName } }, opts);
  }

  // ------------------------------------------------------------------ boxes
  listBoxes(query: Query<'listBoxes'> = {}, opts?: RequestOptions) {
    return this.#call('listBoxes', { query }, opts);
  }
  getBox(boxId: string, opts?: RequestOptions) {
    return this.#call('getBox', { pathParams: { boxId } }, opts);
  }
  createLinuxBox(body: Body<'createLinuxBox'> = {}, opts?: RequestOptions) {
    return this.#call('createLinuxBox', { json: body }, opts);
  }
  createAndroidBox(body: Body<'createAndroidBox'> = {}, opts?: RequestOptions) {
    return this.#call('createAndroidBox', { json: body }, opts);
  }
  terminateBox(boxId: string, body: Body<'terminateBox'> = {}, opts?: RequestOptions) {
    return this.#call('terminateBox', { pathParams: { boxId }, json: body }, opts);
  }
  startBox(boxId: string, body: Body<'startBox'> = {}, opts?: RequestOptions) {
    return this.#call('startBox', { pathParams: { boxId }, json: body }, opts);
  }
  /** `{orientation, resolution}` of the box's screen. */
  getDisplay(boxId: string, opts?: RequestOptions) {
    return this.#call('getDisplay', { pathParams: { boxId } }, opts);
  }

  // ------------------------------------------------------------------ recording (docs/api.md)

  /** Starts recording the box's screen; one that is already running is thrown away. No body, as the SDK sends it. */
  startRecording(boxId: string, opts?: RequestOptions) {
    return this.#call('startRecording', { pathParams: { boxId } }, opts);
  }
  /** Stops the recording: `{presignedUrl, storageKey}` of the video (boxflow serve adds contentType, durationMs, size, truncated). A body only when given (boxflow's `presignedExpiresIn`). */
  stopRecording(boxId: string, body?: Body<'stopRecording'>, opts?: RequestOptions) {
    return this.#call('stopRecording', { pathParams: { boxId }, ...(body ? { json: body } : {}) }, opts);
  }

  // ------------------------------------------------------------------ live view (docs/api.md)

  /** A pre-signed, expiring page that shows the box's screen live and passes clicks, drags and typing on as actions: `{url, rawUrl}` (boxflow serve adds `websocketUrl`). */
  liveViewUrl(boxId: string, body: Body<'liveViewUrl'> = {}, opts?: RequestOptions) {
    return this.#call('liveViewUrl', { pathParams: { boxId }, json: body }, opts);
  }

  /** Runs a command in the box (docs/api.md): `{exitCode, stdout, stderr}`; exit 124 when it timed out. */
  runCommand(boxId: string, body: Body<'runCommand'>, opts?: RequestOptions) {
    return this.#call('runCommand', { pathParams: { boxId }, json: body }, opts);
  }
  /**
   * The two websockets that stream a command's or run-code's output (docs/api.md):
   * `{command, runCode}`. Connect with this client's `Authorization` header; the URLs carry no key.
   */
  websocketUrl(boxId: string, opts?: RequestOptions) {
    return this.#call('websocketUrl', { pathParams: { boxId } }, opts);
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
    return this.#call('runCode', { pathParams: { boxId }, json }, { ...opts, timeoutMs: opts.timeoutMs ?? Math.max(this.#timeoutMs, runsMs + 30_000) });
  }
  /** The entries under a directory (a string is `{path}`): `{data: (File | Dir)[]}`; `depth` 1 (the default) lists its own entries. */
  listFiles(boxId: string, query: Query<'listFiles'> | string, opts?: RequestOptions) {
    return this.#call('listFiles', { pathParams: { boxId }, query: typeof query === 'string' ? { path: query } : query }, opts);
  }
  /** A file's content as text: `{content}`. */
  readFile(boxId: string, query: Query<'readFile'> | string, opts?: RequestOptions) {
    return this.#call('readFile', { pathParams: { boxId }, query: typeof query === 'string' ? { path: query } : query }, opts);
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
    if (blob.size > kFsLimits.writeFileBytes) throw this.#error('FILE_TOO_LARGE', `the content is ${(blob.size / 2 ** 20).toFixed(0)} MiB; fs/write takes at most ${kFsLimits.writeFileBytes / 2 ** 20} MiB`, where);
    const form = new FormData();
    form.set('path', body.path);
    if (body.workingDir !== undefined) form.set('workingDir', body.workingDir);
    form.set('content', blob, basename(body.path) || 'unknown_file');
    return this.#call('writeFile', { pathParams: { boxId }, form }, opts);
  }
  /** `{exists: true, type}` or `{exists: false}` (a string is `{path}`). */
  fileExists(boxId: string, body: Body<'fileExists'> | string, opts?: RequestOptions) {
    return this.#call('fileExists', { pathParams: { boxId }, json: typeof body === 'string' ? { path: body } : body }, opts);
  }
  /** A path's File or Dir (a string is `{path}`). */
  fileInfo(boxId: string, query: Query<'fileInfo'> | string, opts?: RequestOptions) {
    return this.#call('fileInfo', { pathParams: { boxId }, query: typeof query === 'string' ? { path: query } : query }, opts);
  }
  /** Removes a file, or a directory with everything in it: `{message}`. DELETE with a JSON body, as the SDK sends it. */
  removeFile(boxId: string, body: Body<'removeFile'> | string, opts?: RequestOptions) {
    return this.#call('removeFile', { pathParams: { boxId }, json: typeof body === 'string' ? { path: body } : body }, opts);
  }

  // ------------------------------------------------------------------ Android apps and packages (docs/api.md)

  /** A launcher app of the box: `{packageName, activityName, activityClassName}`. */
  getApp(boxId: string, packageName: string, opts?: RequestOptions) {
    return this.#call('getApp', { pathParams: { boxId, packageName } }, opts);
  }
  /** Package names, APK paths and types only (faster than listPackages); `pkgType` defaults to thirdParty on the service. */
  listPackagesSimple(boxId: string, query: Query<'listPackagesSimple'> = {}, opts?: RequestOptions) {
    return this.#call('listPackagesSimple', { pathParams: { boxId }, query }, opts);
  }
  /** The activities a package declares: `{data: [{name, className, packageName, isExported, isMain, isLauncher}]}`. */
  listActivities(boxId: string, packageName: string, opts?: RequestOptions) {
    return this.#call('listActivities', { pathParams: { boxId, packageName } }, opts);
  }
  /** Uninstalls a package; `keepData` keeps its data and cache. The body goes out as `{}` when not given, as the SDK sends it. */
  uninstallPackage(boxId: string, packageName: string, body: Body<'uninstallPackage'> = {}, opts?: RequestOptions) {
    return this.#call('uninstallPackage', { pathParams: { boxId, packageName }, json: body }, opts);
  }
  /** `{adb}`: the address `adb connect` takes to reach the box's device. */
  getConnectAddress(boxId: string, opts?: RequestOptions) {
    return this.#call('getConnectAddress', { pathParams: { boxId } }, opts);
  }

  // ------------------------------------------------------------------ media and storage (docs/api.md)

  listAlbums(boxId: string, opts?: RequestOptions) {
    return this.#call('listAlbums', { pathParams: { boxId } }, opts);
  }
  /** Creates an album: multipart, a `name` text part and a `media[]` file part per file (a local path, a file:// URL, or `{name, data}`). */
  async createAlbum(boxId: string, body: { name: string; media?: MediaUpload[] }, opts?: RequestOptions) {
    const form = new FormData();
    form.set('name', body.name);
    await this.#mediaParts(form, body.media ?? [], { method: 'POST', path: expandPath(endpoints.createAlbum.path, { boxId }, 'POST'), boxId });
    return this.#call('createAlbum', { pathParams: { boxId }, form }, opts);
  }
  getAlbum(boxId: string, albumName: string, opts?: RequestOptions) {
    return this.#call('getAlbum', { pathParams: { boxId, albumName } }, opts);
  }
  /** Adds media to an album: multipart, a `media[]` file part per file. */
  async updateAlbum(boxId: string, albumName: string, body: { media: MediaUpload[] }, opts?: RequestOptions) {
    const form = new FormData();
    await this.#mediaParts(form, body.media, { method: 'PATCH', path: expandPath(endpoints.updateAlbum.path, { boxId, albumName }, 'PATCH'), boxId });
    return this.#call('updateAlbum', { pathParams: { boxId, albumName }, form }, opts);
  }
  listMedia(boxId: string, albumName: string, opts?: RequestOptions) {
    return this.#call('listMedia', { pathParams: { boxId, albumName } }, opts);
  }
  getMedia(boxId: string, albumName: string, mediaName: string, opts?: RequestOptions) {
    return this.#call('getMedia', { pathParams: { boxId, albumName, mediaName } }, opts);
  }
  /** A media file's bytes (`Accept: application/octet-stream`, as the SDK asks). */
  async downloadMedia(boxId: string, albumName: string, mediaName: string, opts: RequestOptions = {}): Promise<Buffer> {
    const path = expandPath(endpoints.downloadMedia.path, { boxId, albumName, mediaName }, 'GET');
    const where = { method: 'GET', path, boxId };
    const timeoutMs = opts.timeoutMs ?? this.#timeoutMs;
    if (opts.signal?.aborted) throw this.#error('ABORTED', 'aborted by the caller', where, undefined, undefined, opts.signal.reason);
    try {
      const res = await request(this.baseUrl + path, {
        method: 'GET',
        headers: { authorization: `Bearer ${this.#apiKey}`, accept: 'application/octet-stream', 'user-agent': `boxflow/${boxflowVersion()}` },
        signal: opts.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        dispatcher: this.#dispatcher,
      });
      if (res.statusCode !== 200) throw this.#httpError(res.statusCode, await res.body.text().catch(() => ''), where);
      return Buffer.from(await res.body.arrayBuffer());
    } catch (cause) {
      throw BoxflowError.is(cause) ? cause : this.#transportError(cause, opts.signal, timeoutMs, where);
    }
  }
  /** `{photo, video}`: the file extensions an album takes. */
  getMediaSupport(boxId: string, opts?: RequestOptions) {
    return this.#call('getMediaSupport', { pathParams: { boxId } }, opts);
  }
  /** A new pre-signed URL for a stored object of the box (a screenshot's `uri` with storageKey, a recording's `storageKey`): the URL string. */
  createPresignedUrl(boxId: string, body: Body<'createPresignedUrl'>, opts?: RequestOptions) {
    return this.#call('createPresignedUrl', { pathParams: { boxId }, json: body }, opts);
  }

  /** Appends each file as a `media[]` part (the name the SDK gives an array); a local file over 512 MB is refused before sending. */
  async #mediaParts(form: FormData, media: MediaUpload[], where: { method: string; path: string; boxId: string }): Promise<void> {
    for (const item of media) {
      if (typeof item !== 'string') {
        form.append('media[]', item.data instanceof Blob ? item.data : new Blob([Uint8Array.from(item.data)]), item.name);
        continue;
      }
      const file = item.startsWith('file://') ? fileURLToPath(item) : item;
      const info = await stat(file).catch((cause: unknown) => {
        throw this.#error('INVALID_ARGUMENT', `cannot read the media file ${file}: ${(cause as Error).message}`, where, undefined, undefined, cause);
      });
      if (info.size > kMediaLimits.fileBytes) throw this.#error('FILE_TOO_LARGE', `${basename(file)} is ${(info.size / 2 ** 20).toFixed(0)} MB; the limit is ${kMediaLimits.fileBytes / 2 ** 20} MB per file`, where);
      form.append('media[]', await openAsBlob(file), basename(file));
    }
  }

  /** Downloads a stored object (a screenshot's pre-signed URL). Pre-signed URLs carry no API key. */
  async fetchObject(url: string, opts: RequestOptions = {}): Promise<Buffer> {
    const body = await this.streamObject(url, opts);
    try {
      return Buffer.from(await body.arrayBuffer());
    } catch (cause) {
      throw this.#transportError(cause, opts.signal, opts.timeoutMs ?? this.#timeoutMs, { method: 'GET', path: new URL(url).pathname });
    }
  }

  /** `fetchObject` as a stream: the body is passed on as it arrives, never held whole (it may stall at most `timeoutMs` between chunks). */
  async streamObject(url: string, opts: RequestOptions = {}): Promise<Dispatcher.ResponseData['body']> {
    const where = { method: 'GET', path: new URL(url).pathname };
    const timeoutMs = opts.timeoutMs ?? this.#timeoutMs;
    try {
      const res = await request(url, { method: 'GET', signal: opts.signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, dispatcher: this.#dispatcher });
      if (res.statusCode !== 200) throw this.#httpError(res.statusCode, await res.body.text().catch(() => ''), where);
      return res.body;
    } catch (cause) {
      throw BoxflowError.is(cause) ? cause : this.#transportError(cause, opts.signal, timeoutMs, where);
    }
  }

  // ------------------------------------------------------------------ transport

  async #call<N extends EndpointName>(name: N, call: Call, opts: RequestOptions = {}): Promise<Result<N>> {
    const ep = endpoints[name];
    const boxId = call.pathParams?.boxId;
    const path = expandPath(ep.path, call.pathParams ?? {}, ep.method);
    const url = this.baseUrl + path + encodeQuery(call.query);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: 'response' in ep ? 'application/json' : '*/*',
      'user-agent': `boxflow/${boxflowVersion()}`,
    };
    let body: string | FormData | undefined;
    if (call.form) body = call.form;
    else if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      headers['content-type'] = 'application/json';
    }
    const maxRetries = opts.maxRetries ?? this.#maxRetries;
    const timeoutMs = opts.timeoutMs ?? this.#timeoutMs;
    const where = { method: ep.method, path, boxId };
    if (opts.signal?.aborted) throw this.#error('ABORTED', 'aborted by the caller', where, undefined, undefined, opts.signal.reason);

    const attempt = { answered: false, waiting: false };
    // The retry bookkeeping of attempts after the first: `first` of them already went (see below).
    const retryAfterFirst = (first: number): RetryFn => (err, { state }, next) => {
      const status = (err as { statusCode?: number }).statusCode;
      const headers = (err as { headers?: Dispatcher.ResponseData['headers'] }).headers ?? {};
      const again = status === undefined ? !attempt.answered && retryableError(ep.method, err) : retryable(ep.method, status, headers);
      if (!again || state.counter + first > maxRetries || opts.signal?.aborted) return next(err);
      attempt.waiting = true;
      const timer = setTimeout(() => {
        attempt.waiting = false;
        opts.signal?.removeEventListener('abort', onAbort);
        next(null);
      }, (status === undefined ? undefined : retryAfterMs(headers)) ?? this.#backoff(state.counter - 1 + first));
      // An abort while waiting after a refused answer rejects the request through its signal;
      // after a failed connection there is no request in flight, so the wait itself gives up.
      const onAbort = () => {
        clearTimeout(timer);
        if (status === undefined) next(err);
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
    };
    const send = (dispatcher: Dispatcher, retry?: RetryFn, retries = maxRetries) =>
      request(url, {
        method: ep.method,
        headers,
        body,
        signal: opts.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        dispatcher,
        ...(retry ? { retryOptions: { maxRetries: retries, retry } } : {}),
      } as Parameters<typeof request>[1]);

    let res: Dispatcher.ResponseData<unknown>;
    try {
      if (maxRetries === 0 || (typeof body !== 'string' && body !== undefined)) {
        // No retries, or a form (a stream cannot be sent twice): undici's retry handler as it is.
        res = await send(maxRetries === 0 ? this.#dispatcher : this.#retrying, maxRetries === 0 ? undefined : retryAfterFirst(0));
      } else {
        // The common case, a request that succeeds, pays nothing for retries it does not make: the
        // first attempt goes straight to the pool; only a retryable failure goes on through undici's
        // retry handler, for the attempts left.
        let refused: Dispatcher.ResponseData['headers'] | undefined;
        let failed: unknown;
        try {
          const first = await send(this.#dispatcher);
          if (retryable(ep.method, first.statusCode, first.headers)) {
            refused = first.headers;
            await first.body.dump().catch(() => {});
          } else res = first;
        } catch (err) {
          if (!retryableError(ep.method, err) || opts.signal?.aborted) throw err;
          failed = err;
        }
        if (!res!) {
          // Wait as the retry policy says (Retry-After, else the first backoff), then the attempts left.
          attempt.waiting = true;
          try {
            await wait((refused ? retryAfterMs(refused) : undefined) ?? this.#backoff(0), opts.signal);
          } catch {
            throw opts.signal?.reason ?? failed;
          }
          attempt.waiting = false;
          res = await send(this.#retrying, retryAfterFirst(1), maxRetries - 1);
        }
      }
    } catch (cause) {
      throw this.#transportError(cause, opts.signal, timeoutMs, where, attempt.waiting);
    }
    attempt.answered = true;

    if (res.statusCode >= 200 && res.statusCode < 300) {
      if (res.headers['x-boxflow-action-id'] !== undefined) this.#boxflowService = true;
      let text: string;
      try {
        if (res.statusCode === 204 || !('response' in ep)) {
          await res.body.dump();
          return undefined as Result<N>;
        }
        text = await res.body.text();
      } catch (cause) {
        throw this.#transportError(cause, opts.signal, timeoutMs, where);
      }
      return this.#decode(ep, res, text, where) as Result<N>;
    }

    const text = await res.body.text().catch(() => '');
    const err = this.#httpError(res.statusCode, text, where);
    const actionId = res.headers['x-boxflow-action-id'];
    if (typeof actionId === 'string') err.actionId = actionId;
    throw err;
  }

  #decode(ep: (typeof endpoints)[EndpointName], res: Dispatcher.ResponseData<unknown>, text: string, where: { method: string; path: string; boxId?: string | undefined }): unknown {
    let data: unknown = text;
    if (/application\/json|\+json/.test(String(res.headers['content-type'] ?? ''))) {
      try {
        data = JSON.parse(text);
      } catch {
        throw this.#error('INVALID_RESPONSE', `response is not valid JSON (${text.length} bytes)`, where, res.statusCode);
      }
    }
    if (this.#validate && 'response' in ep) {
      const problem = check(ep.response, data);
      if (problem) throw this.#error('INVALID_RESPONSE', `response does not match the API schema: ${formatProblem(problem)}`, where, res.statusCode);
    }
    return data;
  }

  #backoff(attempt: number): number {
    const base = Math.min(this.#retryBaseMs * 2 ** attempt, this.#retryMaxMs);
    return base * (1 - Math.random() * 0.25);
  }

  #httpError(status: number, text: string, where: { method: string; path: string; boxId?: string | undefined }): BoxApiError {
    let serverCode: string | undefined;
    let detail = text.trim() || 'no body';
    let details: unknown;
    try {
      const json = JSON.parse(text) as { code?: unknown; message?: unknown; details?: unknown };
      if (typeof json.code === 'string') serverCode = json.code;
      if (json.message !== undefined) detail = typeof json.message === 'string' ? json.message : JSON.stringify(json.message);
      details = json.details;
    } catch {
      // a non-JSON body: keep its text
    }
    if (detail.length > 2000) detail = `${detail.slice(0, 2000)}…`;
    return this.#error(codeForStatus(status), `${status}${serverCode ? ` ${serverCode}` : ''}: ${detail}`, where, status, serverCode, undefined, details);
  }

  #transportError(cause: unknown, userSignal: AbortSignal | undefined, timeoutMs: number, where: { method: string; path: string; boxId?: string | undefined }, waitingToRetry = false): BoxApiError {
    if (userSignal?.aborted) return this.#error('ABORTED', waitingToRetry ? 'aborted by the caller while waiting to retry' : 'aborted by the caller', where, undefined, undefined, cause);
    const name = (cause as Error)?.name;
    if (name === 'TimeoutError' || kTimeoutCodes.has(errorCode(cause))) {
      return this.#error('TIMEOUT', `no response within ${timeoutMs} ms`, where, undefined, undefined, cause);
    }
    const code = errorCode(cause);
    return this.#error('NETWORK_ERROR', `connection failed${code ? ` (${code})` : ''}: ${(cause as Error)?.message ?? String(cause)}`, where, undefined, undefined, cause);
  }

  #error(code: ErrorCode, text: string, where: { method: string; path: string; boxId?: string | undefined }, httpStatus?: number, serverCode?: string, cause?: unknown, details?: unknown): BoxApiError {
    const box = where.boxId ? ` (box ${where.boxId})` : '';
    const message = new Masker([this.#apiKey]).text(`${where.method} ${where.path}${box}: ${text}`);
    return new BoxApiError(code, message, { ...where, httpStatus, serverCode, cause: scrub(cause, this.#apiKey), details: scrubJson(details, this.#apiKey) });
  }
}

export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BoxflowError('INVALID_ARGUMENT', `base URL "${raw}" is not a URL; expected e.g. http://127.0.0.1:28080/api/v1`);
  }
  const s = url.href.replace(/\/+$/, '');
  if (!s.endsWith('/api/v1')) throw new BoxflowError('INVALID_ARGUMENT', `base URL "${s}" must end in /api/v1 (e.g. ${url.origin}/api/v1)`);
  return s;
}

// Templates split once into literal text (even indexes) and parameter names (odd indexes).
const kTemplates = new Map<string, string[]>();

function expandPath(template: string, params: Record<string, string>, method: string): string {
  let parts = kTemplates.get(template);
  if (!parts) kTemplates.set(template, (parts = template.split(/\{(\w+)\}/)));
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const key = parts[i]!;
    const value = params[key];
    if (value === undefined || value === '' || value === '.' || value === '..') {
      throw new BoxApiError('INVALID_ARGUMENT', `${method} ${template}${params.boxId ? ` (box ${params.boxId})` : ''}: path parameter ${key} ${value === undefined || value === '' ? 'is empty' : `may not be "${value}"`}`, { method, path: template, boxId: params.boxId });
    }
    out += encodeURIComponent(value) + parts[i + 1]!;
  }
  return out;
}

/** Arrays go out comma-joined, then percent-encoded, as the reference SDK sends them. */
export function encodeQuery(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    const text = Array.isArray(value) ? value.join(',') : value === null ? '' : String(value);
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(text)}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Resolves after `ms` (the global timer, so that a test's fake clock drives it); rejects on abort. */
function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function retryable(method: string, status: number, headers: Dispatcher.ResponseData['headers']): boolean {
  // 429: the service refused before doing anything, so even an action may be sent again.
  if (status === 429) return true;
  // 503 with Retry-After is the service asking to come back; other 5xx may have done the work.
  if (status === 503 && retryAfterMs(headers) !== undefined) return true;
  return method === 'GET' && (status === 408 || status >= 500);
}

/** A request that got no answer: sent again when it never left, or when it is a GET (reading is safe to repeat). */
function retryableError(method: string, err: unknown): boolean {
  const code = errorCode(err);
  if (kNotSentCodes.has(code)) return true;
  return method === 'GET' && code !== 'UND_ERR_ABORTED' && (err as Error)?.name !== 'AbortError';
}

/** `retry-after-ms` (ms) first, then `retry-after` (seconds or an HTTP date); honoured when 0 ≤ v < 60 s. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const ms = Number.parseFloat(first(headers['retry-after-ms']) ?? '');
  if (Number.isFinite(ms) && ms >= 0 && ms < 60_000) return ms;
  const ra = first(headers['retry-after']);
  if (ra === undefined) return undefined;
  const secs = Number.parseFloat(ra);
  const fromDate = Number.isFinite(secs) ? secs * 1000 : Date.parse(ra) - Date.now();
  return Number.isFinite(fromDate) && fromDate >= 0 && fromDate < 60_000 ? fromDate : undefined;
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  return String(e?.code ?? e?.cause?.code ?? '');
}

// A cause is shown by loggers and reporters (message, stack, own fields such as `path`, nested
// causes), so the key is removed from all of them, not only from the message.
function scrub(value: unknown, key: string, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    const fields = value as unknown as Record<string, unknown>;
    for (const name of ['message', 'stack', ...Object.keys(value)]) {
      const v = fields[name];
      if (typeof v === 'string' && v.includes(key)) {
        try {
          fields[name] = new Masker([key]).text(v);
        } catch {
          // a read-only field: leave it
        }
      }
    }
    if (value.cause !== undefined) scrub(value.cause, key, depth + 1);
    if (value instanceof AggregateError) for (const e of value.errors) scrub(e, key, depth + 1);
  }
  return value;
}

/** The service's `details` may echo the request, key included. */
function scrubJson(value: unknown, key: string): unknown {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  if (!text.includes(key)) return value;
  try {
    return JSON.parse(new Masker([key]).text(text));
  } catch {
    return '[redacted]';
  }
}
