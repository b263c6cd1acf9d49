// The normalised step model: YAML flows and TypeScript flows (both forms) end up here.
// Strings may still hold `${VAR}` references; the runner resolves them when the step runs.
import type { Phase, KeyName } from '../api/schemas.js';
import type { Selector } from '../layout/types.js';

export interface SourceLocation {
  file: string;
  line: number;
  column: number;
  /**
   * A step read from another format (a Maestro command): the command as written there
   * (`tapOn id: email`), the step's default label in reports.
   */
  command?: string;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A point inside an element: percent of its bounds (`"56%,33%"`) or pixels from its top-left (`"10,4"`). */
export interface ElementPoint {
  x: number;
  y: number;
  unit: '%' | 'px';
}

/**
 * Where a step acts: an element (at its centre, or at `point` inside it), a point (pixels or percent
 * of the screen), or an NL prompt. A point given as `${...}` (Maestro's `point: "${output.p}"`) is
 * kept as written: a string `point` inside an element, `runtimePoint` on the screen; the executor
 * evaluates it and checks its form when the step runs (runner/steps/target.ts, evaluatePoints), so
 * step handlers only ever see the other forms.
 */
export type Target =
  | { selector: Selector; point?: ElementPoint | string }
  | { point: { x: number; y: number } }
  | { percent: { x: number; y: number } }
  | { runtimePoint: string }
  | { prompt: string };

/** One of: the selector is visible, is not visible, or the text (after `${...}`) is true. */
export interface Condition {
  visible?: Selector;
  notVisible?: Selector;
  true?: string;
}

export interface StepCommon {
  label?: string;
  optional?: boolean;
  /** ms */
  timeout?: number;
  screenshots?: boolean | Phase[];
  source: SourceLocation;
}

export type StepBody =
  | { kind: 'tap'; target: Target }
  | { kind: 'longPress'; target: Target; duration: number /* ms, default 1000 */ }
  | { kind: 'doubleTap'; target: Target }
  | { kind: 'hover'; target: Target }
  | { kind: 'selectOption'; selector: Selector; by: 'label' | 'value'; option: string }
  | { kind: 'fill'; selector: Selector; value: string }
  | { kind: 'check'; selector: Selector }
  | { kind: 'uncheck'; selector: Selector }
  | { kind: 'uploadFile'; selector: Selector; files: string[] }
  | { kind: 'assertUrl'; url: string }
  | { kind: 'assertTitle'; title: string }
  | { kind: 'assertClipboard'; text: string }
  | { kind: 'swipe'; direction?: 'up' | 'down' | 'left' | 'right'; on?: Selector; from?: Target; to?: Target; duration?: number }
  | { kind: 'drag'; from?: Target; to?: Target; duration?: number; path?: { x: number; y: number }[]; interval?: number }
  | { kind: 'scrollUntilVisible'; selector: Selector; direction: 'up' | 'down' | 'left' | 'right'; maxSwipes: number; /** Scroll on (at most 4 more swipes) until the element is past the screen's middle. */ center?: boolean }
  | { kind: 'pressKey'; keys: KeyName[]; combination: boolean; /** An Android KEYCODE sent instead of `keys` (Android boxes). */ keyCode?: number }
  | { kind: 'type'; text: string; mode?: 'append' | 'replace'; pressEnter?: boolean }
  | { kind: 'setScale'; scale: number }
  | { kind: 'setResolution'; width: number; height: number }
  | { kind: 'installApp'; apk: string; open?: boolean }
  | { kind: 'closeAllApps' }
  | { kind: 'assertPackage'; package: string; installed?: boolean; running?: boolean; type?: 'system' | 'thirdParty'; version?: string; launcher?: boolean }
  | { kind: 'openTab'; url: string; expect?: { title?: string; url?: string } }
  | { kind: 'closeBrowser' }
  | { kind: 'renameFile'; from: string; to: string; workingDir?: string }
  | { kind: 'runCommand'; command: string; workingDir?: string; /** The exit code that passes (default 0). */ expectExit?: number }
  | { kind: 'deleteMedia'; album: string; media: string }
  | { kind: 'deleteAlbum'; album: string }
  | { kind: 'webTerminal' }
  | { kind: 'cdpUrl' }
  | { kind: 'assertVisible'; selector: Selector }
  | { kind: 'assertNotVisible'; selector: Selector }
  | { kind: 'assertLayout'; selector: Selector; count?: number; text?: string; attributes?: Record<string, string> }
  | {
      kind: 'assertScreenshot';
      name: string;
      /** The baseline file, relative to the flow file (absolute once loaded), instead of the config's path template. */
      baseline?: string;
      threshold?: number;
      maxDiffPixels?: number;
      /** A number, or a `${...}` text evaluated when the step runs (a number from 0 to 1 then). */
      maxDiffPixelRatio?: number | string;
      mask?: (Selector | Rect)[];
      clip?: Selector | Rect;
      /** Compare only this region, the baseline holding only it (Maestro's cropOn); `clip` keeps whole-screen baselines. */
      crop?: Selector | Rect;
    }
  | { kind: 'screenshot'; name: string; crop?: Selector | Rect }
  | { kind: 'sleep'; ms: number }
  | {
      kind: 'runFlow';
      /** The flow file to run; absent when the steps are inline (`steps`). */
      file?: string;
      /** Inline steps (instead of a file), run as one nested block. */
      steps?: Step[];
      env?: Record<string, string>;
      when?: Condition;
      /** Timeout of each inline step: a duration, or a `${...}` text evaluated when the block runs (ms or a duration). */
      stepTimeout?: number | string;
    }
  | { kind: 'repeat'; /** A count, or a `${...}` text evaluated when the loop starts. */ times?: number | string; while?: Condition; max?: number; env?: Record<string, string>; steps: Step[] }
  | { kind: 'retry'; /** Attempts after the first, or a `${...}` text evaluated when the step runs. */ times: number | string; steps: Step[] }
  | {
      kind: 'launchApp';
      appId?: string;
      clearState?: boolean;
      stopApp: boolean;
      arguments?: Record<string, string>;
      /** Permissions set before the app starts (as setDevice's). */
      permissions?: Record<string, PermissionValue>;
      /** iOS-only; noted in the step's message, nothing done (as Maestro on Android and the web). */
      clearKeychain?: boolean;
    }
  | ({ kind: 'setDevice' } & DeviceSettings)
  | { kind: 'record'; action: 'start' | 'stop'; /** The video's name in the report (start). */ name?: string }
  | { kind: 'assertDevice'; darkMode?: boolean; airplaneMode?: boolean }
  | { kind: 'stopApp'; appId?: string; /** Android: `am kill` (process death, as the system kills a background app) instead of force-stop. */ processDeath?: boolean }
  | { kind: 'clearState'; appId?: string }
  | { kind: 'back' }
  | { kind: 'home' }
  | { kind: 'hideKeyboard' }
  | { kind: 'eraseText'; chars?: number }
  | { kind: 'openLink'; link: string; /** Android: in the browser. */ browser?: boolean; /** Android: answer the chooser and Chrome's first-run screens. */ autoVerify?: boolean }
  | { kind: 'waitForAnimationToEnd' }
  | { kind: 'copyTextFrom'; selector: Selector }
  | { kind: 'pasteText' }
  | { kind: 'inputRandom'; type: 'text' | 'number' | 'email' | 'personName' | 'cityName' | 'countryName' | 'colorName'; length?: number }
  | { kind: 'assertTrue'; condition: string }
  | { kind: 'evalScript'; script: string }
  | { kind: 'runScript'; file: string; env?: Record<string, string> };

/** Maestro's permission values: allow (grant), deny (revoke), unset (revoke, so the app asks again). */
export type PermissionValue = 'allow' | 'deny' | 'unset';

/** A place: degrees, or `${...}` texts evaluated when the step runs. */
export interface GeoPoint {
  latitude: number | string;
  longitude: number | string;
}

/** What setDevice changes; each key is optional, several may be given (applied in this order). */
export interface DeviceSettings {
  /** true: on, false: off, 'toggle': the other way (Android boxes; Linux boxes: the browser offline). */
  airplaneMode?: boolean | 'toggle';
  /** Where the device is; `path` moves it along points at `speed` m/s (Maestro's travel). */
  location?: GeoPoint | { path: GeoPoint[]; speed: number };
  /** Permissions of `appId` (default: the flow's app); `all` is every permission the app asks for. */
  permissions?: Record<string, PermissionValue>;
  appId?: string;
  orientation?: 'portrait' | 'landscapeLeft' | 'landscapeRight' | 'upsideDown' | string;
  darkMode?: boolean | 'toggle';
  /** The text pasteText types and `${maestro.copiedText}` reads (Maestro's setClipboard). */
  clipboard?: string;
  /** Photos and videos (absolute once loaded) added to the gallery's `album` (Android boxes; Maestro's addMedia). */
  media?: string[];
  album?: string;
  /** iOS-only; noted in the step's message, nothing done (as Maestro on Android and the web). */
  clearKeychain?: boolean;
}

export type Step = StepCommon & StepBody;
export type StepKind = StepBody['kind'];

export interface FlowOptions {
  name?: string;
  tags?: string[];
  /** `linux`, `android`, a box id, or absent (config default). */
  box?: string;
  env?: Record<string, string>;
  secrets?: string[];
  /** ms */
  timeout?: number;
  /** Android package (or, on Linux boxes, the URL) that launchApp/stopApp/clearState act on by default. */
  appId?: string;
}

/** The API a TypeScript function flow drives; the runner implements it, one recorded step a call. */
export interface FlowBox {
  tap(target: Selector | { x: number; y: number } | { prompt: string }, opts?: Partial<StepCommon>): Promise<void>;
  longPress(target: Selector | { x: number; y: number }, opts?: Partial<StepCommon> & { duration?: string }): Promise<void>;
  swipe(direction: 'up' | 'down' | 'left' | 'right' | Record<string, unknown>, opts?: Partial<StepCommon>): Promise<void>;
  drag(spec: Record<string, unknown>, opts?: Partial<StepCommon>): Promise<void>;
  pressKey(keys: string | string[] | { keys: string[]; combination?: boolean }, opts?: Partial<StepCommon>): Promise<void>;
  type(text: string | { text: string; mode?: 'append' | 'replace'; pressEnter?: boolean }, opts?: Partial<StepCommon>): Promise<void>;
  openTab(url: string | { url: string; expect?: { title?: string; url?: string } }, opts?: Partial<StepCommon>): Promise<void>;
  closeBrowser(opts?: Partial<StepCommon>): Promise<void>;
  setScale(scale: number, opts?: Partial<StepCommon>): Promise<void>;
  setResolution(size: { width: number; height: number }, opts?: Partial<StepCommon>): Promise<void>;
  screenshot(name: string, opts?: Partial<StepCommon>): Promise<void>;
  sleep(duration: string, opts?: Partial<StepCommon>): Promise<void>;
  /** Starts the app (default: the flow's appId; Linux boxes: opens its URL). `stopApp` defaults to true. */
  launchApp(app?: string | { appId?: string; clearState?: boolean; stopApp?: boolean; arguments?: Record<string, string | number | boolean> }, opts?: Partial<StepCommon>): Promise<void>;
  /** Stops the app (Linux boxes: closes the browser). */
  stopApp(appId?: string, opts?: Partial<StepCommon>): Promise<void>;
  /** Clears the app's data (Linux boxes: the site's cookies and storage). */
  clearState(appId?: string, opts?: Partial<StepCommon>): Promise<void>;
  /** The back button (Linux boxes: the tab's history back). */
  back(opts?: Partial<StepCommon>): Promise<void>;
  /** The home button (Android boxes only). */
  home(opts?: Partial<StepCommon>): Promise<void>;
  /** Closes the on-screen keyboard (Linux boxes: takes the focus off the focused field). */
  hideKeyboard(opts?: Partial<StepCommon>): Promise<void>;
  /** Erases `chars` characters before the cursor, or the whole field when omitted. */
  eraseText(chars?: number, opts?: Partial<StepCommon>): Promise<void>;
  /** Opens a link (Android: a VIEW intent, the app that claims it opens it; Linux boxes: a new tab). */
  openLink(url: string, opts?: Partial<StepCommon>): Promise<void>;
  /** Waits until the box's clipboard holds `text` (exact, or /regex/); Linux boxes of boxflow serve. */
  assertClipboard(text: string, opts?: Partial<StepCommon>): Promise<void>;
  /** Runs a shell command in the box (setup, teardown); its output is attached; an exit code other than `expectExit` (default 0) fails it. */
  runCommand(command: string, opts?: Partial<StepCommon> & { workingDir?: string; expectExit?: number }): Promise<void>;
  /** Runs any YAML-shaped step, e.g. `{ renameFile: { from, to } }`. */
  step(raw: Record<string, unknown>): Promise<void>;
  /** The box's active tab as a Playwright Page, over the box's pre-signed CDP URL (Linux boxes); as boxflow/test's `box.page()`. */
  page(): Promise<import('playwright-core').Page>;
  /** @deprecated Use `box.page()`, as boxflow/test has it; this is the same Page. */
  browser: { page(): Promise<import('playwright-core').Page> };
  /** The box this flow runs on. */
  readonly info: { id: string; type: 'linux' | 'android' };
}

export interface ScreenshotMatchOptions {
  threshold?: number;
  maxDiffPixels?: number;
  maxDiffPixelRatio?: number;
  mask?: (Selector | Rect)[];
  clip?: Selector | Rect;
}

export interface FlowExpect {
  (box: FlowBox): {
    toShow(selector: Selector, opts?: Partial<StepCommon>): Promise<void>;
    toHaveLayout(spec: { selector: Selector; count?: number; text?: string; attributes?: Record<string, string> }, opts?: Partial<StepCommon>): Promise<void>;
    toMatchScreenshot(name: string, opts?: ScreenshotMatchOptions & Partial<StepCommon>): Promise<void>;
    not: { toShow(selector: Selector, opts?: Partial<StepCommon>): Promise<void> };
  };
}

export type FlowFn = (ctx: { box: FlowBox; expect: FlowExpect; env: Record<string, string> }) => Promise<void>;

export interface Flow extends Required<Pick<FlowOptions, 'tags' | 'env' | 'secrets'>> {
  name: string;
  /** Absolute path of the flow file. */
  file: string;
  box?: string;
  timeout?: number;
  /** Default app of launchApp/stopApp/clearState (Android package; Linux boxes: a URL). */
  appId?: string;
  /** ms; default timeout of this flow's steps. */
  stepTimeout?: number;
  onStart: Step[];
  onFinish: Step[];
  /** Declarative flows (YAML, `flow({steps})`). */
  steps: Step[];
  /** Function flows (`flow(name, opts, fn)`); `steps` is then empty. */
  fn?: FlowFn;
  source: SourceLocation;
}
