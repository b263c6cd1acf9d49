// The Box API v1 contract: one JSON Schema per request and response, built with TypeBox so the
// TypeScript types come from the same source. The server validates requests with these, the
// client validates responses with them. Unknown fields pass through (additionalProperties is
// left open) so a newer service does not break an older client.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { kDurationLimits, kDurationPattern } from './duration.js';

// Every duration has a maximum (kDurationLimits.max unless the field sets a lower one).
const Duration = (options: { default?: string; maxDuration?: string; description?: string } = {}) =>
  Type.String({ pattern: kDurationPattern, maxDuration: kDurationLimits.max, ...options });

/**
 * Size limits of requests (docs/api.md, "Limits"), so that no request can hold the server or a
 * box for long: each is far above what a flow needs.
 */
export const kLimits = {
  /** press-key `keys` (the spec names 110 keys: all of them fit in one request). */
  keys: 200,
  /** `type` text, in characters. */
  text: 100_000,
  /** A natural-language drag target. */
  target: 1_000,
  /** Points of an advanced drag `path`. */
  pathPoints: 1_000,
  /** |x| and |y| of a point or a clip; points are then clamped to the screen. */
  coordinate: 100_000,
  /** A URL to open. */
  url: 1_000_000,
  /** A file path (rename, workingDir). */
  path: 4_096,
  /** Entries of `labels` and `envs`; their key and value lengths. */
  mapEntries: 64,
  mapKey: 256,
  mapValue: 4_096,
  /** Any other free string (deviceType, ...). */
  shortString: 256,
  /** Items of a small list (phases, status and type filters). */
  listItems: 16,
} as const;

// ---------------------------------------------------------------- shared pieces

export const Point = Type.Object({ x: Type.Number(), y: Type.Number() });
export type Point = Static<typeof Point>;
const Coordinate = Type.Number({ minimum: -kLimits.coordinate, maximum: kLimits.coordinate });
/** A point a request sends: bounded, so 1e308 is refused (the server clamps it to the screen). */
export const RequestPoint = Type.Object({ x: Coordinate, y: Coordinate });

/** The screenshot phases of an action, in the order they are taken. */
export const kPhases = ['before', 'after', 'trace'] as const;
export const Phase = Type.Union(kPhases.map((p) => Type.Literal(p)));
export type Phase = Static<typeof Phase>;
const outputFormat = (options: { default?: string } = {}) => Type.Union([Type.Literal('base64'), Type.Literal('storageKey')], options);
export const OutputFormat = outputFormat();

export const ScreenshotOptions = Type.Object({
  outputFormat: Type.Optional(outputFormat({ default: 'base64' })),
  presignedExpiresIn: Type.Optional(Duration({ default: '30m' })),
  delay: Type.Optional(Duration({ default: '500ms', maxDuration: '30s' })),
  phases: Type.Optional(Type.Array(Phase, { default: [...kPhases], maxItems: kLimits.listItems })),
});
export type ScreenshotOptions = Static<typeof ScreenshotOptions>;

// Decision (docs/api.md): the schema's default `gelato` wins over the field text's `ui-tars`.
export const kModels = ['gpt-5', 'gpt-4o', 'gelato', 'ui-tars', 'openai-computer-use'] as const;
export const Model = Type.Union(kModels.map((m) => Type.Literal(m)), { default: 'gelato' });

export const ActionOptions = Type.Object({
  screenshot: Type.Optional(Type.Union([Type.Boolean(), ScreenshotOptions])),
  model: Type.Optional(Model),
});

/** Deprecated top-level screenshot fields; ignored when options.screenshot is present. */
const DeprecatedScreenshotFields = {
  includeScreenshot: Type.Optional(Type.Boolean()),
  outputFormat: Type.Optional(OutputFormat),
  presignedExpiresIn: Type.Optional(Duration()),
  screenshotDelay: Type.Optional(Duration({ maxDuration: '30s' })),
  screenshotRange: Type.Optional(Type.Array(Phase, { maxItems: kLimits.listItems })),
};

const ActionBase = { options: Type.Optional(ActionOptions), ...DeprecatedScreenshotFields };

export const ScreenshotEntry = Type.Object({ uri: Type.String(), presignedUrl: Type.Optional(Type.String()) });
export const TraceEntry = Type.Object({ uri: Type.String() });

export const ActionResult = Type.Object({
  actionId: Type.String(),
  message: Type.String(),
  screenshot: Type.Optional(
    Type.Object({
      trace: Type.Optional(TraceEntry),
      before: Type.Optional(ScreenshotEntry),
      after: Type.Optional(ScreenshotEntry),
    }),
  ),
});
export type ActionResult = Static<typeof ActionResult>;

// ---------------------------------------------------------------- UI actions

const Target = Type.Union([RequestPoint, Type.String({ minLength: 1, maxLength: kLimits.target })]);

export const DragSimpleBody = Type.Object({
  start: Target,
  end: Target,
  duration: Type.Optional(Duration({ default: '500ms', maxDuration: kDurationLimits.dragMax })),
  ...ActionBase,
});
export const DragAdvancedBody = Type.Object({
  path: Type.Array(RequestPoint, { minItems: 2, maxItems: kLimits.pathPoints }),
  duration: Type.Optional(Duration({ default: '50ms', maxDuration: kDurationLimits.dragMax, description: 'interval between points; all intervals together at most 60s' })),
  ...ActionBase,
});
export const DragBody = Type.Union([DragSimpleBody, DragAdvancedBody]);
export type DragSimpleBody = Static<typeof DragSimpleBody>;
export type DragAdvancedBody = Static<typeof DragAdvancedBody>;
export type DragBody = Static<typeof DragBody>;

export const DragResult = Type.Intersect([
  ActionResult,
  Type.Object({ actual: Type.Object({ start: Point, end: Point, duration: Duration() }) }),
]);
export type DragResult = Static<typeof DragResult>;

// All 110 key names of the spec, exactly as spelled there.
export const kKeyNames = [
  ...'abcdefghijklmnopqrstuvwxyz'.split(''),
  ...'0123456789'.split(''),
  ...Array.from({ length: 12 }, (_, i) => `f${i + 1}`),
  'control', 'alt', 'shift', 'meta', 'win', 'cmd', 'option',
  'arrowUp', 'arrowDown', 'arrowLeft', 'arrowRight', 'home', 'end', 'pageUp', 'pageDown',
  'enter', 'space', 'tab', 'escape', 'backspace', 'delete', 'insert',
  'capsLock', 'numLock', 'scrollLock', 'pause', 'printScreen',
  ';', '=', ',', '-', '.', '/', '`', '[', '\\', ']', "'",
  ...Array.from({ length: 10 }, (_, i) => `numpad${i}`),
  'numpadAdd', 'numpadSubtract', 'numpadMultiply', 'numpadDivide', 'numpadDecimal', 'numpadEnter', 'numpadEqual',
  'volumeUp', 'volumeDown', 'volumeMute', 'mediaPlayPause', 'mediaStop', 'mediaNextTrack', 'mediaPreviousTrack',
] as const;
export type KeyName = (typeof kKeyNames)[number];
export const KeyNameSchema = Type.String({ enum: [...kKeyNames] });

export const PressKeyBody = Type.Object({
  keys: Type.Array(KeyNameSchema, { minItems: 1, maxItems: kLimits.keys }),
  combination: Type.Optional(Type.Boolean()),
  ...ActionBase,
});
export type PressKeyBody = Static<typeof PressKeyBody>;

export const kButtons = ['power', 'volumeUp', 'volumeDown', 'volumeMute', 'home', 'back', 'menu', 'appSwitch'] as const;
export type ButtonName = (typeof kButtons)[number];
export const PressButtonBody = Type.Object({
  buttons: Type.Array(Type.String({ enum: [...kButtons] }), { minItems: 1, maxItems: 16 }),
  ...ActionBase,
});
export type PressButtonBody = Static<typeof PressButtonBody>;

export const TypeBody = Type.Object({
  text: Type.String({ maxLength: kLimits.text }),
  mode: Type.Optional(Type.Union([Type.Literal('append'), Type.Literal('replace')], { default: 'append' })),
  pressEnter: Type.Optional(Type.Boolean()),
  ...ActionBase,
});
export type TypeBody = Static<typeof TypeBody>;

export const ScreenLayout = Type.Object({ content: Type.String() });
export type ScreenLayout = Static<typeof ScreenLayout>;

// Decision (docs/api.md): the range 0.1 <= scale <= 1 wins over the field text's "greater than 0.1".
export const ActionSettings = Type.Object({ scale: Type.Number({ minimum: 0.1, maximum: 1 }) });
export type ActionSettings = Static<typeof ActionSettings>;

export const ScreenshotBody = Type.Object({
  outputFormat: Type.Optional(outputFormat({ default: 'base64' })),
  presignedExpiresIn: Type.Optional(Duration({ default: '30m' })),
  clip: Type.Optional(
    Type.Object({
      x: Type.Number({ minimum: 0, maximum: kLimits.coordinate }),
      y: Type.Number({ minimum: 0, maximum: kLimits.coordinate }),
      width: Type.Number({ exclusiveMinimum: 0, maximum: kLimits.coordinate }),
      height: Type.Number({ exclusiveMinimum: 0, maximum: kLimits.coordinate }),
    }),
  ),
});
export type ScreenshotBody = Static<typeof ScreenshotBody>;
export const ScreenshotResult = Type.Object({ uri: Type.String(), presignedUrl: Type.Optional(Type.String()) });
export type ScreenshotResult = Static<typeof ScreenshotResult>;

// ---------------------------------------------------------------- Android

export const PkgType = Type.Union([Type.Literal('system'), Type.Literal('thirdParty')]);
export const AndroidPackage = Type.Object({
  name: Type.String(),
  packageName: Type.String(),
  apkPath: Type.String(),
  version: Type.String(),
  pkgType: PkgType,
  isRunning: Type.Boolean(),
});
export type AndroidPackage = Static<typeof AndroidPackage>;
export const ListPackagesQuery = Type.Object({
  pkgType: Type.Optional(Type.Array(PkgType, { maxItems: kLimits.listItems })),
  runningFilter: Type.Optional(Type.Array(Type.Union([Type.Literal('running'), Type.Literal('notRunning')]), { maxItems: kLimits.listItems })),
});
export type ListPackagesQuery = Static<typeof ListPackagesQuery>;
export const ListPackagesResult = Type.Object({ data: Type.Array(AndroidPackage) });

export const Activity = Type.Object({
  name: Type.String(),
  className: Type.String(),
  packageName: Type.String(),
  isExported: Type.Boolean(),
  isMain: Type.Boolean(),
  isLauncher: Type.Optional(Type.Boolean()),
});
export const InstallResult = Type.Object({
  packageName: Type.String(),
  apkPath: Type.String(),
  pkgType: PkgType,
  activities: Type.Array(Activity),
});
export type InstallResult = Static<typeof InstallResult>;
/** Multipart fields of an install: `apk` is a file part, or a text part holding an http(s) URL. */
export const kInstallMaxBytes = 512 * 1024 * 1024;

/** Open or restart an app: `activityName` (`.Main` or a full class name), else its launcher activity; `extras`: string extras of the launch intent (boxflow's, for Maestro's launchApp arguments). */
export const AppActivityBody = Type.Object({
  activityName: Type.Optional(Type.String({ minLength: 1, maxLength: kLimits.shortString })),
  extras: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: kLimits.shortString }), Type.String({ maxLength: kLimits.shortString }))),
});
export type AppActivityBody = Static<typeof AppActivityBody>;

export const LauncherApp = Type.Object({ packageName: Type.String(), activityName: Type.String(), activityClassName: Type.String() });
export type LauncherApp = Static<typeof LauncherApp>;
export const ListAppsResult = Type.Object({ data: Type.Array(LauncherApp) });

// ---------------------------------------------------------------- browser, utilities, media

export const OpenTabBody = Type.Object({ url: Type.String({ minLength: 1, maxLength: kLimits.url }) });
export const Tab = Type.Object({
  id: Type.String(),
  title: Type.String(),
  url: Type.String(),
  favicon: Type.String(),
  active: Type.Boolean(),
  loading: Type.Boolean(),
});
export type Tab = Static<typeof Tab>;
export const CdpUrlBody = Type.Object({ expiresIn: Type.Optional(Duration({ default: '120m' })) });
export const CdpUrlResult = Type.String();

export const Resolution = Type.Object({
  width: Type.Integer({ minimum: 100, maximum: 7680 }),
  height: Type.Integer({ minimum: 100, maximum: 7680 }),
});
export type Resolution = Static<typeof Resolution>;
export const WebTerminalUrlBody = Type.Object({ expiresIn: Type.Optional(Duration({ default: '180m' })) });
export const WebTerminalUrlResult = Type.Object({ url: Type.String() });

export const RenameBody = Type.Object({
  oldPath: Type.String({ minLength: 1, maxLength: kLimits.path }),
  newPath: Type.String({ minLength: 1, maxLength: kLimits.path }),
  workingDir: Type.Optional(Type.String({ maxLength: kLimits.path })),
});
export type RenameBody = Static<typeof RenameBody>;
const FsCommon = { name: Type.String(), path: Type.String(), mode: Type.String(), lastModified: Type.String() };
export const FileEntry = Type.Object({ type: Type.Literal('file'), size: Type.String(), ...FsCommon });
export const DirEntry = Type.Object({ type: Type.Literal('dir'), ...FsCommon });
export const FsEntry = Type.Union([FileEntry, DirEntry]);
export type FsEntry = Static<typeof FsEntry>;

// ---------------------------------------------------------------- boxes

export const BoxType = Type.Union([Type.Literal('linux'), Type.Literal('android')]);
export type BoxType = Static<typeof BoxType>;
export const BoxStatus = Type.Union([Type.Literal('pending'), Type.Literal('running'), Type.Literal('error'), Type.Literal('terminated')]);
export type BoxStatus = Static<typeof BoxStatus>;
const StringMap = Type.Record(Type.String(), Type.String({ maxLength: kLimits.mapValue }), { maxProperties: kLimits.mapEntries, propertyNames: { maxLength: kLimits.mapKey } });

export const Box = Type.Object({
  id: Type.String(),
  type: BoxType,
  status: BoxStatus,
  reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  expiresAt: Type.Union([Type.String(), Type.Null()]),
  config: Type.Object({
    cpu: Type.Number(),
    memory: Type.Number({ description: 'MiB' }),
    storage: Type.Number({ description: 'GiB' }),
    envs: StringMap,
    labels: StringMap,
    os: Type.Object({ version: Type.String() }),
    deviceType: Type.Optional(Type.String()),
    workingDir: Type.Optional(Type.String()),
    publicIp: Type.Optional(Type.String()),
  }),
});
export type Box = Static<typeof Box>;

const StatusFilter = Type.Union([Type.Literal('all'), BoxStatus]);
const TypeFilter = Type.Union([Type.Literal('all'), BoxType]);
export const ListBoxesQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  status: Type.Optional(Type.Array(StatusFilter, { maxItems: kLimits.listItems })),
  type: Type.Optional(Type.Array(TypeFilter, { maxItems: kLimits.listItems })),
});
export type ListBoxesQuery = Static<typeof ListBoxesQuery>;
export const ListBoxesResult = Type.Object({ data: Type.Array(Box), page: Type.Integer(), pageSize: Type.Integer(), total: Type.Integer() });
export type ListBoxesResult = Static<typeof ListBoxesResult>;

export const CreateBoxBody = Type.Object({
  config: Type.Optional(
    Type.Object({
      envs: Type.Optional(StringMap),
      labels: Type.Optional(StringMap),
      expiresIn: Type.Optional(Duration()),
      resolution: Type.Optional(Resolution),
      workingDir: Type.Optional(Type.String({ maxLength: kLimits.path })),
      deviceType: Type.Optional(Type.String({ maxLength: kLimits.shortString })),
      /** Android: claim this device (a serial `adb devices` lists). */
      deviceSerial: Type.Optional(Type.String({ minLength: 1, maxLength: kLimits.shortString })),
      /** Android: claim a device whose model, manufacturer, sdk, release or deviceType match. */
      deviceLabels: Type.Optional(StringMap),
    }),
  ),
  wait: Type.Optional(Type.Boolean()),
});
export type CreateBoxBody = Static<typeof CreateBoxBody>;
export const TerminateBody = Type.Object({ wait: Type.Optional(Type.Boolean()) });

export const ErrorBody = Type.Object({ code: Type.String(), message: Type.String(), details: Type.Optional(Type.Unknown()) });
export type ErrorBody = Static<typeof ErrorBody>;

// ---------------------------------------------------------------- recording (gbox-api-full.md §6.10-6.11)

/** A recording's bounds on `boxflow serve`: it ends by itself at the length, the file at the size. */
export const kRecordingLimits = { maxDurationMs: 10 * 60_000, maxBytes: 200 * 1024 * 1024 } as const;
/** GBOX's stop takes no body; boxflow's extension: how long the video's URL works (as a screenshot's; 6 h at most, as GBOX's presigned-url). */
export const RecordingStopBody = Type.Object({ presignedExpiresIn: Type.Optional(Duration({ default: '30m', maxDuration: '6h' })) });
export type RecordingStopBody = Static<typeof RecordingStopBody>;
/** GBOX's `{presignedUrl, storageKey}`; the rest is boxflow's (optional: other services send only those two). */
export const RecordingResult = Type.Object({
  presignedUrl: Type.String(),
  storageKey: Type.String(),
  /** `video/webm` (Linux boxes) or `video/mp4` (Android boxes). */
  contentType: Type.Optional(Type.String()),
  durationMs: Type.Optional(Type.Number()),
  size: Type.Optional(Type.Number()),
  /** The video ends before the stop: at the length bound (`duration`) or the size bound (`size`). */
  truncated: Type.Optional(Type.String()),
  limits: Type.Optional(Type.Object({ maxDurationMs: Type.Number(), maxBytes: Type.Number() })),
});
export type RecordingResult = Static<typeof RecordingResult>;

// ---------------------------------------------------------------- the endpoint table

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export interface Endpoint {
  method: Method;
  /** Relative to the base URL (which ends in /api/v1); `{name}` marks a path parameter. */
  path: string;
  body?: TSchema;
  /** Request body is multipart/form-data (install). */
  multipart?: true;
  query?: TSchema;
  /** Schema of a 2xx response; absent for 204/void endpoints. */
  response?: TSchema;
  /** Status of a success. */
  status: 200 | 201 | 204;
  /** Spec operation or one of the extra box endpoints. */
  spec: boolean;
}

const ep = <E extends Endpoint>(e: E) => e;

export const endpoints = {
  // spec: UI actions
  drag: ep({ method: 'POST', path: '/boxes/{boxId}/actions/drag', body: DragBody, response: DragResult, status: 200, spec: true }),
  pressKey: ep({ method: 'POST', path: '/boxes/{boxId}/actions/press-key', body: PressKeyBody, response: ActionResult, status: 200, spec: true }),
  type: ep({ method: 'POST', path: '/boxes/{boxId}/actions/type', body: TypeBody, response: ActionResult, status: 200, spec: true }),
  screenLayout: ep({ method: 'GET', path: '/boxes/{boxId}/actions/screen-layout', response: ScreenLayout, status: 200, spec: true }),
  updateSettings: ep({ method: 'PUT', path: '/boxes/{boxId}/actions/settings', body: ActionSettings, response: ActionSettings, status: 200, spec: true }),
  // spec: Android
  listPackages: ep({ method: 'GET', path: '/boxes/{boxId}/android/packages', query: ListPackagesQuery, response: ListPackagesResult, status: 200, spec: true }),
  getPackage: ep({ method: 'GET', path: '/boxes/{boxId}/android/packages/{packageName}', response: AndroidPackage, status: 200, spec: true }),
  installPackage: ep({ method: 'POST', path: '/boxes/{boxId}/android/packages', multipart: true, response: InstallResult, status: 200, spec: true }),
  listApps: ep({ method: 'GET', path: '/boxes/{boxId}/android/apps', response: ListAppsResult, status: 200, spec: true }),
  closeAllApps: ep({ method: 'POST', path: '/boxes/{boxId}/android/packages/close-all', status: 204, spec: true }),
  // spec: browser
  openTab: ep({ method: 'POST', path: '/boxes/{boxId}/browser/tabs', body: OpenTabBody, response: Tab, status: 200, spec: true }),
  closeBrowser: ep({ method: 'DELETE', path: '/boxes/{boxId}/browser/close', status: 200, spec: true }),
  cdpUrl: ep({ method: 'POST', path: '/boxes/{boxId}/browser/connect-url/cdp', body: CdpUrlBody, response: CdpUrlResult, status: 200, spec: true }),
  // spec: box utilities
  setResolution: ep({ method: 'POST', path: '/boxes/{boxId}/resolution', body: Resolution, response: Resolution, status: 200, spec: true }),
  webTerminalUrl: ep({ method: 'POST', path: '/boxes/{boxId}/web-terminal-url', body: WebTerminalUrlBody, response: WebTerminalUrlResult, status: 201, spec: true }),
  renameFile: ep({ method: 'POST', path: '/boxes/{boxId}/fs/rename', body: RenameBody, response: FsEntry, status: 200, spec: true }),
  // spec: media
  deleteMedia: ep({ method: 'DELETE', path: '/boxes/{boxId}/media/albums/{albumName}/media/{mediaName}', status: 204, spec: true }),
  deleteAlbum: ep({ method: 'DELETE', path: '/boxes/{boxId}/media/albums/{albumName}', status: 204, spec: true }),
  // extra: boxes, settings read/reset, on-demand screenshot
  listBoxes: ep({ method: 'GET', path: '/boxes', query: ListBoxesQuery, response: ListBoxesResult, status: 200, spec: false }),
  getBox: ep({ method: 'GET', path: '/boxes/{boxId}', response: Box, status: 200, spec: false }),
  createLinuxBox: ep({ method: 'POST', path: '/boxes/linux', body: CreateBoxBody, response: Box, status: 201, spec: false }),
  createAndroidBox: ep({ method: 'POST', path: '/boxes/android', body: CreateBoxBody, response: Box, status: 201, spec: false }),
  terminateBox: ep({ method: 'POST', path: '/boxes/{boxId}/terminate', body: TerminateBody, status: 204, spec: false }),
  getSettings: ep({ method: 'GET', path: '/boxes/{boxId}/actions/settings', response: ActionSettings, status: 200, spec: false }),
  resetSettings: ep({ method: 'DELETE', path: '/boxes/{boxId}/actions/settings', response: ActionSettings, status: 200, spec: false }),
  screenshot: ep({ method: 'POST', path: '/boxes/{boxId}/actions/screenshot', body: ScreenshotBody, response: ScreenshotResult, status: 200, spec: false }),
  // extra: the reference service's app and button endpoints (mobile flows)
  pressButton: ep({ method: 'POST', path: '/boxes/{boxId}/actions/press-button', body: PressButtonBody, response: ActionResult, status: 200, spec: false }),
  openApp: ep({ method: 'POST', path: '/boxes/{boxId}/android/packages/{packageName}/open', body: AppActivityBody, status: 204, spec: false }),
  restartApp: ep({ method: 'POST', path: '/boxes/{boxId}/android/packages/{packageName}/restart', body: AppActivityBody, status: 204, spec: false }),
  closeApp: ep({ method: 'POST', path: '/boxes/{boxId}/android/packages/{packageName}/close', status: 204, spec: false }),
  clearAppData: ep({ method: 'POST', path: '/boxes/{boxId}/android/packages/{packageName}/clear', status: 204, spec: false }),
  // extra: recording (src/server/recording.ts)
  startRecording: ep({ method: 'POST', path: '/boxes/{boxId}/actions/recording/start', status: 204, spec: false }),
  stopRecording: ep({ method: 'POST', path: '/boxes/{boxId}/actions/recording/stop', body: RecordingStopBody, response: RecordingResult, status: 200, spec: false }),
} as const;

export type EndpointName = keyof typeof endpoints;
