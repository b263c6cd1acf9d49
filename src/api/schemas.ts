// The Box API v1 contract: one JSON Schema per request and response, built with TypeBox so the
// TypeScript types come from the same source. The server validates requests with these, the
// client validates responses with them. Unknown fields pass through (additionalProperties is
// left open) so a newer service does not break an older client.
import { Type, type Static, type TProperties, type TSchema } from '@sinclair/typebox';
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
  /** Items of a small list (phases, status and type filters, a click's modifierKeys). */
  listItems: 16,
  /** Fingers of one `touch`. */
  fingers: 10,
  /** Moves and waits of one finger of a `touch`. */
  touchActions: 100,
  /** The tallest `scrollCapture` screenshot, in pixels (Chromium draws no taller image in one piece). */
  captureHeight: 16_384,
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

/**
 * boxflow's extension, only from an embedded server started for one run (startServer({artifactsDir})):
 * where in that run's output folder the server already wrote the image (`data/<sha1>.png`).
 */
const ArtifactPath = Type.Optional(Type.String({ pattern: '^data/[0-9a-f]{40}\\.png$' }));
export const ScreenshotEntry = Type.Object({ uri: Type.String(), presignedUrl: Type.Optional(Type.String()), artifact: ArtifactPath });
export const TraceEntry = Type.Object({ uri: Type.String(), presignedUrl: Type.Optional(Type.String()), artifact: ArtifactPath });

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
  /** Save the screenshot to the device's album (GBOX): on an Android box the Pictures album; a Linux box has none (422). */
  saveToAlbum: Type.Optional(Type.Boolean()),
  /** A tall capture of the page from its top, `maxHeight` pixels at most (default 4000). */
  scrollCapture: Type.Optional(Type.Object({
    maxHeight: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: kLimits.captureHeight, default: 4000 })),
    scrollBack: Type.Optional(Type.Boolean()),
  })),
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

// ---------------------------------------------------------------- UI actions of the full GBOX vocabulary (docs/api.md)

/** An element of `POST /actions/elements/detect`; a click, tap or long press at it acts at its centre. */
export const DetectedElement = Type.Object({
  id: Type.String({ maxLength: kLimits.shortString }),
  x: Coordinate,
  y: Coordinate,
  width: Type.Number({ minimum: 0, maximum: kLimits.coordinate }),
  height: Type.Number({ minimum: 0, maximum: kLimits.coordinate }),
  centerX: Coordinate,
  centerY: Coordinate,
  label: Type.String({ maxLength: kLimits.target }),
  path: Type.String({ maxLength: kLimits.path }),
  source: Type.String({ maxLength: kLimits.shortString }),
  type: Type.String({ maxLength: kLimits.shortString }),
});
export type DetectedElement = Static<typeof DetectedElement>;
const TargetText = Type.String({ minLength: 1, maxLength: kLimits.target });

/** `{x, y}`, `{target: "text"}` or `{target: DetectedElement}`, each with the endpoint's own fields. */
const pointed = <P extends TProperties>(fields: P) =>
  Type.Union([
    Type.Object({ x: Coordinate, y: Coordinate, ...fields, ...ActionBase }),
    Type.Object({ target: Type.Union([TargetText, DetectedElement]), ...fields, ...ActionBase }),
  ]);
const withActual = <T extends TSchema>(actual: T) => Type.Intersect([ActionResult, Type.Object({ actual })]);

export const kMouseButtons = ['left', 'right', 'middle'] as const;
const MouseButton = Type.Union(kMouseButtons.map((b) => Type.Literal(b)));
export const ClickBody = pointed({
  button: Type.Optional(Type.Union(kMouseButtons.map((b) => Type.Literal(b)), { default: 'left' })),
  double: Type.Optional(Type.Boolean({ default: false })),
  modifierKeys: Type.Optional(Type.Array(KeyNameSchema, { maxItems: kLimits.listItems })),
});
export type ClickBody = Static<typeof ClickBody>;
export const ClickResult = withActual(Type.Object({ button: MouseButton, double: Type.Boolean(), x: Type.Number(), y: Type.Number(), modifierKeys: Type.Optional(Type.Array(Type.String())) }));

export const TapBody = pointed({});
export type TapBody = Static<typeof TapBody>;
export const TapResult = withActual(Point);

export const LongPressBody = pointed({ duration: Type.Optional(Duration({ default: '1s', maxDuration: kDurationLimits.dragMax })) });
export type LongPressBody = Static<typeof LongPressBody>;
export const LongPressResult = withActual(Type.Object({ duration: Duration(), x: Type.Number(), y: Type.Number() }));

export const MoveBody = Type.Object({ x: Coordinate, y: Coordinate, ...ActionBase });
export type MoveBody = Static<typeof MoveBody>;

/** Pixels, or a preset share of the screen (boxflow's: tiny 10 %, short 30 %, medium 50 %, long 80 %). */
export const kDistancePresets = { tiny: 0.1, short: 0.3, medium: 0.5, long: 0.8 } as const;
export type DistancePreset = keyof typeof kDistancePresets;
const Distance = Type.Union([Type.Number({ minimum: 0, maximum: kLimits.coordinate }), ...(Object.keys(kDistancePresets) as DistancePreset[]).map((d) => Type.Literal(d))]);
const GestureDuration = Duration({ default: '500ms', maxDuration: kDurationLimits.dragMax });
export const kScrollDirections = ['up', 'down', 'left', 'right'] as const;
export const kSwipeDirections = [...kScrollDirections, 'upLeft', 'upRight', 'downLeft', 'downRight'] as const;
export type SwipeDirection = (typeof kSwipeDirections)[number];
const directional = <D extends string>(directions: readonly D[]) => ({
  direction: Type.Union(directions.map((d) => Type.Literal(d))),
  distance: Type.Optional(Distance),
  duration: Type.Optional(GestureDuration),
  location: Type.Optional(TargetText),
  ...ActionBase,
});

export const ScrollAdvancedBody = Type.Object({ scrollX: Coordinate, scrollY: Coordinate, x: Coordinate, y: Coordinate, ...ActionBase });
export const ScrollSimpleBody = Type.Object(directional(kScrollDirections));
export const ScrollBody = Type.Union([ScrollAdvancedBody, ScrollSimpleBody]);
export type ScrollBody = Static<typeof ScrollBody>;
export const ScrollResult = withActual(Type.Object({ scrollX: Type.Number(), scrollY: Type.Number(), x: Type.Number(), y: Type.Number() }));

export const SwipeSimpleBody = Type.Object(directional(kSwipeDirections));
export const SwipeAdvancedBody = Type.Object({ start: Target, end: Target, duration: Type.Optional(GestureDuration), ...ActionBase });
export const SwipeBody = Type.Union([SwipeSimpleBody, SwipeAdvancedBody]);
export type SwipeBody = Static<typeof SwipeBody>;
export const SwipeResult = withActual(Type.Object({ duration: Duration(), start: Point, end: Point }));

/** One step of a finger: `{type: 'move', x, y, duration = 200ms}` or `{type: 'wait', duration = 500ms}`. */
export const TouchAction = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 32 }),
  x: Type.Optional(Coordinate),
  y: Type.Optional(Coordinate),
  duration: Type.Optional(Duration({ maxDuration: kDurationLimits.dragMax })),
});
export const TouchPoint = Type.Object({ start: RequestPoint, actions: Type.Optional(Type.Array(TouchAction, { maxItems: kLimits.touchActions })) });
export type TouchPoint = Static<typeof TouchPoint>;
export const TouchBody = Type.Object({ points: Type.Array(TouchPoint, { minItems: 1, maxItems: kLimits.fingers }), ...ActionBase });
export type TouchBody = Static<typeof TouchBody>;
export const TouchResult = withActual(Type.Object({ points: Type.Array(TouchPoint) }));

export const kOrientations = ['portrait', 'landscapeLeft', 'portraitUpsideDown', 'landscapeRight'] as const;
export const Orientation = Type.Union(kOrientations.map((o) => Type.Literal(o)));
export type Orientation = Static<typeof Orientation>;
export const ScreenRotationBody = Type.Object({ orientation: Orientation, ...ActionBase });
export type ScreenRotationBody = Static<typeof ScreenRotationBody>;

/**
 * `POST /actions/elements/detect`: how its two images come back (GBOX's `screenshot` options; the
 * wrapper sends `{}`). boxflow serve answers `actionId` too, and `truncated: true` when it stopped at
 * kDetectMaxElements elements.
 */
export const DetectElementsBody = Type.Object({
  screenshot: Type.Optional(Type.Object({
    outputFormat: Type.Optional(outputFormat({ default: 'base64' })),
    presignedExpiresIn: Type.Optional(Duration({ default: '30m', maxDuration: '6h' })),
  })),
});
export type DetectElementsBody = Static<typeof DetectElementsBody>;
/** The most elements one detect answers (the page's first ones in document order). */
export const kDetectMaxElements = 500;
export const DetectElementsResult = Type.Object({
  elements: Type.Array(DetectedElement),
  screenshot: Type.Object({ source: ScreenshotEntry, marked: ScreenshotEntry }),
  actionId: Type.Optional(Type.String()),
  truncated: Type.Optional(Type.Boolean()),
});
export type DetectElementsResult = Static<typeof DetectElementsResult>;

export const ClipboardBody = Type.Object({ content: Type.String({ maxLength: kLimits.text }) });
export type ClipboardBody = Static<typeof ClipboardBody>;
export const ClipboardResult = Type.String();

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
/** `size` is "<width>x<height>"; `maximize` wins over it. */
export const OpenBrowserBody = Type.Object({
  maximize: Type.Optional(Type.Boolean()),
  showControls: Type.Optional(Type.Boolean({ default: true })),
  size: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}x[0-9]{1,5}$' })),
});
export type OpenBrowserBody = Static<typeof OpenBrowserBody>;
export const OpenBrowserResult = Type.Object({ cdpUrl: Type.String() });
export const ListTabsResult = Type.Object({ data: Type.Array(Tab) });
export const UpdateTabBody = OpenTabBody;
export const CloseTabResult = Type.Object({ message: Type.Optional(Type.String()) });

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
/** `stopped`: kept (record, files, settings) but holding nothing: POST /boxes/{boxId}/start brings it back (docs/server.md). */
export const BoxStatus = Type.Union([Type.Literal('pending'), Type.Literal('running'), Type.Literal('stopped'), Type.Literal('error'), Type.Literal('terminated')]);
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
export const StartBoxBody = Type.Object({ wait: Type.Optional(Type.Boolean()) });
export const Display = Type.Object({ orientation: Orientation, resolution: Type.Object({ width: Type.Number(), height: Type.Number() }) });
export type Display = Static<typeof Display>;

export const ErrorBody = Type.Object({ code: Type.String(), message: Type.String(), details: Type.Optional(Type.Unknown()) });
export type ErrorBody = Static<typeof ErrorBody>;

// ---------------------------------------------------------------- recording (docs/api.md)

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
  /** When the video's first frame (its 0) was on the screen, ISO 8601 on the box's clock; absent when the box cannot tell (an Android box). */
  startedAt: Type.Optional(Type.String()),
});
export type RecordingResult = Static<typeof RecordingResult>;

// ---------------------------------------------------------------- live view (docs/api.md)

export const LiveViewUrlBody = Type.Object({ expiresIn: Type.Optional(Duration({ default: '180m' })) });
/**
 * `url`: the viewer with the box's details; `rawUrl`: the screen alone, to embed. boxflow serve adds
 * `websocketUrl`, the frames and input of the raw page (docs/server.md), and `runUrl`, where a run
 * PUTs what it is doing to show it on the page (src/api/liveRun.ts).
 */
export const LiveViewUrlResult = Type.Object({ url: Type.String(), rawUrl: Type.String(), websocketUrl: Type.Optional(Type.String()), runUrl: Type.Optional(Type.String()) });
export type LiveViewUrlResult = Static<typeof LiveViewUrlResult>;

// ---------------------------------------------------------------- commands (docs/api.md)

/** Output a command may return, per stream; more is cut and said so at its end. */
export const kCommandOutputMax = 1024 * 1024;
export const CommandBody = Type.Object({
  command: Type.String({ minLength: 1, maxLength: 100_000 }),
  envs: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String({ maxLength: 100_000 }))),
  timeout: Type.Optional(Duration({ default: '30s', maxDuration: '10m' })),
  workingDir: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
});
export type CommandBody = Static<typeof CommandBody>;
/** boxflow adds `truncated` when a stream passed kCommandOutputMax: the bytes of it that were dropped. */
export const CommandResult = Type.Object({
  exitCode: Type.Number(),
  stdout: Type.String(),
  stderr: Type.String(),
  truncated: Type.Optional(Type.Object({ stdout: Type.Optional(Type.Number()), stderr: Type.Optional(Type.Number()) })),
});
export type CommandResult = Static<typeof CommandResult>;

/**
 * `GET /websocket-url` (docs/api.md): two websockets that stream a command's or run-code's
 * output. The client connects with `Authorization: Bearer <API key>` (the URLs carry no key), sends
 * one JSON text frame `{"command": CommandBody}` or `{"runCode": RunCodeBody}`, and gets
 * `{event: 'stdout' | 'stderr', data}` frames, then `{event: 'end', exitCode}` (docs/api.md).
 */
export const WebsocketUrlResult = Type.Object({ command: Type.String(), runCode: Type.String() });
export type WebsocketUrlResult = Static<typeof WebsocketUrlResult>;

// ---------------------------------------------------------------- Android apps and packages, media, storage (docs/api.md)

/** GET /android/apps/{packageName}: a launcher app, as in the apps list. */
export const AndroidApp = LauncherApp;
export const ListPackagesSimpleQuery = Type.Object({ pkgType: Type.Optional(Type.Array(PkgType, { maxItems: kLimits.listItems })) });
export type ListPackagesSimpleQuery = Static<typeof ListPackagesSimpleQuery>;
export const PackageSimple = Type.Object({ apkPath: Type.String(), packageName: Type.String(), pkgType: PkgType });
export type PackageSimple = Static<typeof PackageSimple>;
export const ListPackagesSimpleResult = Type.Object({ data: Type.Array(PackageSimple) });
export const ListActivitiesResult = Type.Object({ data: Type.Array(Activity) });
/** DELETE /android/packages/{packageName}: `keepData` keeps the app's data and cache (`pm uninstall -k`). */
export const UninstallBody = Type.Object({ keepData: Type.Optional(Type.Boolean()) });
export type UninstallBody = Static<typeof UninstallBody>;
/** `adb connect <adb>` reaches the box's device. */
export const ConnectAddress = Type.Object({ adb: Type.String() });

/** Bounds of the media endpoints: an album or file name, the files of one upload. */
export const kMediaLimits = {
  /** Characters of an album or media name (a path parameter is at most 100 characters anyway). */
  name: 100,
  /** One media file, uploaded or downloaded (GBOX: 512 MB per file). */
  fileBytes: 512 * 1024 * 1024,
  /** Files of one createAlbum/updateAlbum request, and their bytes together. */
  files: 100,
  totalBytes: 2 * 1024 * 1024 * 1024,
} as const;
/** An album: a folder of the device's gallery. */
export const MediaAlbum = Type.Object({ name: Type.String(), path: Type.String(), mediaCount: Type.Number(), lastModified: Type.String() });
export type MediaAlbum = Static<typeof MediaAlbum>;
const mediaOf = (type: 'photo' | 'video') =>
  Type.Object({ type: Type.Literal(type), name: Type.String(), path: Type.String(), size: Type.String(), mimeType: Type.String(), lastModified: Type.String() });
export const Media = Type.Union([mediaOf('photo'), mediaOf('video')]);
export type Media = Static<typeof Media>;
export const ListAlbumsResult = Type.Object({ data: Type.Array(MediaAlbum) });
export const ListMediaResult = Type.Object({ data: Type.Array(Media) });
/** File extensions (lower case, no dot) an album takes. */
export const MediaSupport = Type.Object({ photo: Type.Array(Type.String()), video: Type.Array(Type.String()) });
export type MediaSupport = Static<typeof MediaSupport>;

/** A new pre-signed URL for a stored object of the box (a screenshot's or a recording's `storageKey`). */
export const PresignedUrlBody = Type.Object({
  storageKey: Type.String({ minLength: 1, maxLength: kLimits.path }),
  expiresIn: Type.Optional(Duration({ default: '30m', maxDuration: '6h' })),
});
export type PresignedUrlBody = Static<typeof PresignedUrlBody>;
export const PresignedUrlResult = Type.String();

// ---------------------------------------------------------------- run-code and files (docs/api.md)

/**
 * The languages of run-code: GBOX's bash, python and typescript, and boxflow's javascript and sh. A
 * Linux box runs those whose interpreter its user can run (bash, python3, node; typescript needs a
 * node that strips types); an Android box runs bash and sh, both with the device's sh.
 */
export const kRunCodeLanguages = ['bash', 'python', 'typescript', 'javascript', 'sh'] as const;
export type RunCodeLanguage = (typeof kRunCodeLanguages)[number];
export const RunCodeBody = Type.Object({
  code: Type.String({ maxLength: 1_000_000 }),
  argv: Type.Optional(Type.Array(Type.String({ maxLength: kLimits.path }), { maxItems: 256 })),
  envs: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String({ maxLength: 100_000 }))),
  language: Type.Optional(Type.Union(kRunCodeLanguages.map((l) => Type.Literal(l)))),
  timeout: Type.Optional(Duration({ default: '30s', maxDuration: '10m' })),
  workingDir: Type.Optional(Type.String({ minLength: 1, maxLength: kLimits.path })),
});
export type RunCodeBody = Static<typeof RunCodeBody>;

/** Bounds of the file-system endpoints. */
export const kFsLimits = {
  /** Bytes fs/read answers (its `content` is one JSON string); a larger file is 413 FILE_TOO_LARGE. */
  readBytes: 8 * 1024 * 1024,
  /** Bytes of an fs/write `content` sent as a text part (the SDK's string variant; held in memory). */
  writeTextBytes: 8 * 1024 * 1024,
  /** Bytes of an fs/write `content` sent as a file part (streamed to disk; GBOX's limit). */
  writeFileBytes: 512 * 1024 * 1024,
  /** The deepest fs/list `depth`, and the most entries one listing answers (then `truncated: true`). */
  listDepth: 32,
  listEntries: 10_000,
} as const;
/** A path in the box: absolute from the box's root, or relative to `workingDir` (default: the box's). */
const FsPath = Type.String({ minLength: 1, maxLength: kLimits.path });
const FsWorkingDir = Type.Optional(Type.String({ maxLength: kLimits.path }));
export const FsPathQuery = Type.Object({ path: FsPath, workingDir: FsWorkingDir });
export type FsPathQuery = Static<typeof FsPathQuery>;
/** `depth`: 1 (the default) lists the directory's own entries, 2 theirs too, and so on. */
export const FsListQuery = Type.Object({ path: FsPath, depth: Type.Optional(Type.Integer({ minimum: 1, maximum: kFsLimits.listDepth })), workingDir: FsWorkingDir });
export type FsListQuery = Static<typeof FsListQuery>;
/** boxflow adds `truncated: true` when the listing stopped at kFsLimits.listEntries entries. */
export const FsListResult = Type.Object({ data: Type.Array(FsEntry), truncated: Type.Optional(Type.Boolean()) });
export type FsListResult = Static<typeof FsListResult>;
export const FsReadResult = Type.Object({ content: Type.String() });
/** fs/exists and DELETE fs: a JSON body. */
export const FsPathBody = Type.Object({ path: FsPath, workingDir: FsWorkingDir });
export type FsPathBody = Static<typeof FsPathBody>;
export const FsExistsResult = Type.Union([Type.Object({ exists: Type.Literal(true), type: Type.String() }), Type.Object({ exists: Type.Literal(false) })]);
export type FsExistsResult = Static<typeof FsExistsResult>;
export const FsRemoveResult = Type.Object({ message: Type.String() });

// ---------------------------------------------------------------- the endpoint table

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
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
  // extra: the rest of the GBOX vocabulary (docs/api.md) that boxflow serve answers
  click: ep({ method: 'POST', path: '/boxes/{boxId}/actions/click', body: ClickBody, response: ClickResult, status: 200, spec: false }),
  tap: ep({ method: 'POST', path: '/boxes/{boxId}/actions/tap', body: TapBody, response: TapResult, status: 200, spec: false }),
  longPress: ep({ method: 'POST', path: '/boxes/{boxId}/actions/long-press', body: LongPressBody, response: LongPressResult, status: 200, spec: false }),
  move: ep({ method: 'POST', path: '/boxes/{boxId}/actions/move', body: MoveBody, response: ActionResult, status: 200, spec: false }),
  scroll: ep({ method: 'POST', path: '/boxes/{boxId}/actions/scroll', body: ScrollBody, response: ScrollResult, status: 200, spec: false }),
  swipe: ep({ method: 'POST', path: '/boxes/{boxId}/actions/swipe', body: SwipeBody, response: SwipeResult, status: 200, spec: false }),
  touch: ep({ method: 'POST', path: '/boxes/{boxId}/actions/touch', body: TouchBody, response: TouchResult, status: 200, spec: false }),
  screenRotation: ep({ method: 'POST', path: '/boxes/{boxId}/actions/screen-rotation', body: ScreenRotationBody, response: ActionResult, status: 200, spec: false }),
  detectElements: ep({ method: 'POST', path: '/boxes/{boxId}/actions/elements/detect', body: DetectElementsBody, response: DetectElementsResult, status: 200, spec: false }),
  getClipboard: ep({ method: 'GET', path: '/boxes/{boxId}/actions/clipboard', response: ClipboardResult, status: 200, spec: false }),
  setClipboard: ep({ method: 'POST', path: '/boxes/{boxId}/actions/clipboard', body: ClipboardBody, status: 204, spec: false }),
  openBrowser: ep({ method: 'POST', path: '/boxes/{boxId}/browser/open', body: OpenBrowserBody, response: OpenBrowserResult, status: 200, spec: false }),
  listTabs: ep({ method: 'GET', path: '/boxes/{boxId}/browser/tabs', response: ListTabsResult, status: 200, spec: false }),
  updateTab: ep({ method: 'PUT', path: '/boxes/{boxId}/browser/tabs/{tabId}', body: UpdateTabBody, response: Tab, status: 200, spec: false }),
  switchTab: ep({ method: 'POST', path: '/boxes/{boxId}/browser/tabs/{tabId}/switch', response: Tab, status: 200, spec: false }),
  closeTab: ep({ method: 'DELETE', path: '/boxes/{boxId}/browser/tabs/{tabId}', response: CloseTabResult, status: 200, spec: false }),
  startBox: ep({ method: 'POST', path: '/boxes/{boxId}/start', body: StartBoxBody, response: Box, status: 200, spec: false }),
  stopBox: ep({ method: 'POST', path: '/boxes/{boxId}/stop', body: StartBoxBody, response: Box, status: 200, spec: false }),
  getDisplay: ep({ method: 'GET', path: '/boxes/{boxId}/display', response: Display, status: 200, spec: false }),
  // extra: recording (src/server/http/recording.ts)
  startRecording: ep({ method: 'POST', path: '/boxes/{boxId}/actions/recording/start', status: 204, spec: false }),
  stopRecording: ep({ method: 'POST', path: '/boxes/{boxId}/actions/recording/stop', body: RecordingStopBody, response: RecordingResult, status: 200, spec: false }),
  // extra: live view (src/server/http/liveView.ts)
  liveViewUrl: ep({ method: 'POST', path: '/boxes/{boxId}/live-view-url', body: LiveViewUrlBody, response: LiveViewUrlResult, status: 201, spec: false }),
  // extra: commands (src/server/http/endpoints/commands.ts)
  runCommand: ep({ method: 'POST', path: '/boxes/{boxId}/commands', body: CommandBody, response: CommandResult, status: 200, spec: false }),
  websocketUrl: ep({ method: 'GET', path: '/boxes/{boxId}/websocket-url', response: WebsocketUrlResult, status: 200, spec: false }),
  // extra: Android apps and packages (src/server/http/endpoints/androidApps.ts)
  getApp: ep({ method: 'GET', path: '/boxes/{boxId}/android/apps/{packageName}', response: AndroidApp, status: 200, spec: false }),
  listPackagesSimple: ep({ method: 'GET', path: '/boxes/{boxId}/android/packages/simple', query: ListPackagesSimpleQuery, response: ListPackagesSimpleResult, status: 200, spec: false }),
  listActivities: ep({ method: 'GET', path: '/boxes/{boxId}/android/packages/{packageName}/activities', response: ListActivitiesResult, status: 200, spec: false }),
  uninstallPackage: ep({ method: 'DELETE', path: '/boxes/{boxId}/android/packages/{packageName}', body: UninstallBody, status: 204, spec: false }),
  getConnectAddress: ep({ method: 'GET', path: '/boxes/{boxId}/android/connect-address', response: ConnectAddress, status: 200, spec: false }),
  // extra: media and storage (src/server/http/endpoints/media.ts, storageUrl.ts)
  listAlbums: ep({ method: 'GET', path: '/boxes/{boxId}/media/albums', response: ListAlbumsResult, status: 200, spec: false }),
  createAlbum: ep({ method: 'POST', path: '/boxes/{boxId}/media/albums', multipart: true, response: MediaAlbum, status: 201, spec: false }),
  getAlbum: ep({ method: 'GET', path: '/boxes/{boxId}/media/albums/{albumName}', response: MediaAlbum, status: 200, spec: false }),
  updateAlbum: ep({ method: 'PATCH', path: '/boxes/{boxId}/media/albums/{albumName}', multipart: true, response: MediaAlbum, status: 200, spec: false }),
  listMedia: ep({ method: 'GET', path: '/boxes/{boxId}/media/albums/{albumName}/media', response: ListMediaResult, status: 200, spec: false }),
  getMedia: ep({ method: 'GET', path: '/boxes/{boxId}/media/albums/{albumName}/media/{mediaName}', response: Media, status: 200, spec: false }),
  /** The file's bytes (BoxClient.downloadMedia reads them; no JSON). */
  downloadMedia: ep({ method: 'GET', path: '/boxes/{boxId}/media/albums/{albumName}/media/{mediaName}/download', status: 200, spec: false }),
  getMediaSupport: ep({ method: 'GET', path: '/boxes/{boxId}/media/support', response: MediaSupport, status: 200, spec: false }),
  createPresignedUrl: ep({ method: 'POST', path: '/boxes/{boxId}/storage/presigned-url', body: PresignedUrlBody, response: PresignedUrlResult, status: 200, spec: false }),
  // extra: run-code and files (src/server/http/endpoints/files.ts)
  runCode: ep({ method: 'POST', path: '/boxes/{boxId}/run-code', body: RunCodeBody, response: CommandResult, status: 200, spec: false }),
  listFiles: ep({ method: 'GET', path: '/boxes/{boxId}/fs/list', query: FsListQuery, response: FsListResult, status: 200, spec: false }),
  readFile: ep({ method: 'GET', path: '/boxes/{boxId}/fs/read', query: FsPathQuery, response: FsReadResult, status: 200, spec: false }),
  writeFile: ep({ method: 'POST', path: '/boxes/{boxId}/fs/write', multipart: true, response: FsEntry, status: 200, spec: false }),
  fileExists: ep({ method: 'POST', path: '/boxes/{boxId}/fs/exists', body: FsPathBody, response: FsExistsResult, status: 200, spec: false }),
  fileInfo: ep({ method: 'GET', path: '/boxes/{boxId}/fs/info', query: FsPathQuery, response: FsEntry, status: 200, spec: false }),
  removeFile: ep({ method: 'DELETE', path: '/boxes/{boxId}/fs', body: FsPathBody, response: FsRemoveResult, status: 200, spec: false }),
} as const;

export type EndpointName = keyof typeof endpoints;
