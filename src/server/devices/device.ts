// The one interface under every kind of box (docs/server.md, "Adding a kind of box"). A local Linux
// box (Chromium under the box's uids), a grid Linux box (a Selenium Grid session) and an Android box
// (a device over adb) each implement BoxDevice; an endpoint's handler is written once against it.
// What a kind cannot do is declared once, in its KindDeclaration: a facet it lacks (with the one
// code and reason every endpoint of that facet answers) and the requests it refuses by what their
// body asks. refusal() answers both, before the request reaches the device.
import { BoxflowError, type ErrorCode } from '../../errors.js';
import { endpoints, type CommandBody, type CommandResult, type Display, type EndpointName, type FsEntry, type FsExistsResult, type FsListQuery, type FsListResult, type FsPathBody, type FsPathQuery, type KeyName, type Orientation, type Point, type RenameBody, type Resolution, type RunCodeBody, type Tab } from '../../api/schemas.js';
import type { OutputSink } from './commandOutput.js';
import type { Gesture, GestureContext } from './gesture.js';
import type { WriteRequest } from './fsEntries.js';
import type { Recorder, RecordingLimits } from './recording.js';
import type { TargetResolution } from './targets.js';
import type { AndroidBox } from './android/androidBox.js';

export type DeviceKind = 'local' | 'grid' | 'android';

export type { TargetMatch, TargetResolution } from './targets.js';

/** An element the box's own layout describes (detect-elements), in real pixels. */
export interface FoundElement {
  x: number;
  y: number;
  width: number;
  height: number;
  label: string;
  path: string;
  type: string;
}

/** How the images around an action are taken. */
export interface ShotSource {
  capture: () => Promise<Buffer>;
  /** The screen as it is, when the box knows it without a capture. */
  screen?: () => Promise<Buffer>;
  /** The box's own wait for a still screen, when it has one. */
  settle?: (maxMs: number, signal: AbortSignal | undefined) => Promise<Buffer | undefined>;
}

/** A Chromium of the box's own, driven over CDP (local and grid Linux boxes). */
export interface BrowserFacet {
  /** Starts it if it is not running; `size` sets the window (the box's screen). */
  open(size?: Resolution): Promise<void>;
  close(): Promise<void>;
  tabs(): Promise<Tab[]>;
  navigate(tabId: string, url: string, signal?: AbortSignal): Promise<Tab>;
  switchTo(tabId: string): Promise<Tab>;
  closeTab(tabId: string): Promise<{ message: string }>;
  /** The page from its top, at most `maxHeight` pixels tall in the action scale. */
  tallScreenshot(scale: number, maxHeight: number): Promise<Buffer>;
  /** Where a DevTools client reaches the browser (started if it is not), and the browser context the box's pages are in. */
  devtools(): Promise<{ endpoint: string; contextId: string | undefined }>;
}

export interface ClipboardFacet {
  read(): Promise<string>;
  write(text: string): Promise<void>;
}

/** Commands in the box: its shell, as the box's user (Linux) or the device's shell user (Android). */
export interface ShellFacet {
  run(body: CommandBody, signal?: AbortSignal, output?: OutputSink): Promise<CommandResult>;
  runCode(body: RunCodeBody, signal?: AbortSignal, output?: OutputSink): Promise<CommandResult>;
}

/** The box's files: box paths (Linux) or device paths (Android). */
export interface FilesFacet {
  list(q: FsListQuery): Promise<FsListResult>;
  /** The file's content as text. */
  read(q: FsPathQuery): Promise<string>;
  info(q: FsPathQuery): Promise<FsEntry>;
  exists(q: FsPathBody): Promise<FsExistsResult>;
  remove(q: FsPathBody): Promise<string>;
  rename(body: RenameBody): Promise<FsEntry>;
  /** A folder to spool an upload into, removed by the caller. */
  spoolDir(): Promise<string>;
  write(req: WriteRequest): Promise<FsEntry>;
}

export interface BoxDevice {
  readonly kind: DeviceKind;

  // ---- the screen
  shots(scale: number): ShotSource;
  screenshot(scale: number, clip?: { x: number; y: number; width: number; height: number }): Promise<Buffer>;
  /** The layout as the box describes it: the page's HTML, or the device's uiautomator XML. */
  layout(): Promise<string>;
  elements(): Promise<{ found: FoundElement[]; truncated: boolean; by: string }>;
  resolveTarget(text: string): Promise<TargetResolution>;
  display(): Promise<Display>;
  setResolution(res: Resolution): Promise<void>;
  /** Turns the screen; answers what the action's message says. */
  rotate(orientation: Orientation): Promise<string>;
  record(limits: RecordingLimits, boxId: string): Promise<Recorder>;

  // ---- input (real pixels; every one stops when `signal` aborts)
  gestures(scale: number): GestureContext;
  /** Refuses, before any image is taken, a gesture the box cannot perform. */
  checkGesture(g: Gesture): void;
  perform(g: Gesture, signal?: AbortSignal): Promise<void>;
  drag(points: Point[], segmentMs: number[], signal?: AbortSignal): Promise<void>;
  pressKeys(keys: readonly KeyName[], combination: boolean, signal?: AbortSignal): Promise<void>;
  /** Answers a note for the action's message (e.g. no field had focus). */
  type(text: string, opts: { replace: boolean; pressEnter: boolean }, signal?: AbortSignal): Promise<string | undefined>;
  pressButtons(buttons: readonly string[], signal?: AbortSignal): Promise<string | undefined>;
  /** Opens a URL: a new tab of the box's browser, or the app that claims the link. */
  openLink(url: string, signal?: AbortSignal): Promise<Tab>;

  // ---- facets: what a kind lacks, its KindDeclaration says
  readonly browser?: BrowserFacet;
  readonly clipboard?: ClipboardFacet;
  readonly shell?: ShellFacet;
  readonly files?: FilesFacet;
  /** Apps, packages and the gallery of an Android device. */
  readonly apps?: AndroidBox;
}

export type Facet = 'browser' | 'clipboard' | 'shell' | 'files' | 'apps';

/** The endpoints each facet serves: a kind without the facet refuses every one. */
export const kFacetEndpoints = {
  browser: ['openBrowser', 'closeBrowser', 'listTabs', 'updateTab', 'switchTab', 'closeTab', 'cdpUrl'],
  clipboard: ['getClipboard', 'setClipboard'],
  shell: ['runCommand', 'runCode', 'websocketUrl', 'webTerminalUrl'],
  files: ['listFiles', 'readFile', 'writeFile', 'fileExists', 'fileInfo', 'removeFile', 'renameFile'],
  apps: ['listPackages', 'getPackage', 'installPackage', 'listApps', 'closeAllApps', 'openApp', 'restartApp', 'closeApp', 'clearAppData', 'deleteMedia', 'deleteAlbum', 'getApp', 'listPackagesSimple', 'listActivities', 'uninstallPackage', 'getConnectAddress', 'listAlbums', 'createAlbum', 'getAlbum', 'updateAlbum', 'listMedia', 'getMedia', 'downloadMedia'],
} as const satisfies Record<Facet, readonly EndpointName[]>;

/** Why a kind refuses: the code of the answer and the reason it gives. */
export interface Refusal {
  readonly code: Extract<ErrorCode, 'UNSUPPORTED_BOX_TYPE' | 'GRID_UNSUPPORTED' | 'UNPROCESSABLE'>;
  /** The reason, after "METHOD path: ". */
  readonly reason: string;
}

/** A refusal of the requests whose body asks for something the kind has not got. */
export interface BodyRefusal extends Refusal {
  readonly when: (body: unknown) => boolean;
  /** Which requests, for the docs. */
  readonly only: string;
}

export interface KindDeclaration {
  readonly kind: DeviceKind;
  /** The facets the kind has not got. */
  readonly lacks: { readonly [F in Facet]?: Refusal };
  /** Requests refused by what they ask. */
  readonly refuses: { readonly [E in EndpointName]?: BodyRefusal };
}

/** The endpoints a kind refuses, each with its refusal: for the docs and their tests. */
export function refusedEndpoints(decl: KindDeclaration): Array<[EndpointName, Refusal & { only?: string }]> {
  const out: Array<[EndpointName, Refusal & { only?: string }]> = [];
  for (const [facet, refusal] of Object.entries(decl.lacks) as Array<[Facet, Refusal]>) for (const name of kFacetEndpoints[facet]) out.push([name, refusal]);
  for (const [name, refusal] of Object.entries(decl.refuses) as Array<[EndpointName, BodyRefusal]>) out.push([name, refusal]);
  return out;
}

const kFacetOf = new Map<EndpointName, Facet>(Object.entries(kFacetEndpoints).flatMap(([facet, names]) => names.map((n) => [n as EndpointName, facet as Facet] as const)));

/** The facet an endpoint needs, if any. */
export function facetOf(name: EndpointName): Facet | undefined {
  return kFacetOf.get(name);
}

const answer = (name: EndpointName, r: Refusal) => new BoxflowError(r.code, `${endpoints[name].method} ${endpoints[name].path}: ${r.reason}`);

/** What a box of this kind answers to `name` with `body`, when it refuses it: the one place refusals are made. */
export function refusal(decl: KindDeclaration, name: EndpointName, body: unknown): BoxflowError | undefined {
  const facet = facetOf(name);
  const lack = facet && decl.lacks[facet];
  if (lack) return answer(name, lack);
  const byBody = decl.refuses[name];
  if (byBody?.when(body)) return answer(name, byBody);
  return undefined;
}

/** A facet of the device; a kind without it refuses the endpoint as its declaration says. */
export function need<F extends Facet>(device: BoxDevice, decl: KindDeclaration, facet: F, name: EndpointName): NonNullable<BoxDevice[F]> {
  const got = device[facet];
  if (got) return got as NonNullable<BoxDevice[F]>;
  throw answer(name, decl.lacks[facet] ?? { code: 'UNSUPPORTED_BOX_TYPE', reason: `a ${decl.kind} box has no ${facet}` });
}
