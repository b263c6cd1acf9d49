// The normalised step model: YAML flows and TypeScript flows (both forms) end up here.
// Strings may still hold `${VAR}` references; the runner resolves them when the step runs.
import type { Phase, KeyName } from '../api/schemas.js';
import type { Selector } from '../layout/types.js';

export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where a step acts: an element, a point (pixels or percent of the screen), or an NL prompt. */
export type Target =
  | { selector: Selector }
  | { point: { x: number; y: number } }
  | { percent: { x: number; y: number } }
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
  | { kind: 'swipe'; direction?: 'up' | 'down' | 'left' | 'right'; on?: Selector; from?: Target; to?: Target; duration?: number }
  | { kind: 'drag'; from?: Target; to?: Target; duration?: number; path?: { x: number; y: number }[]; interval?: number }
  | { kind: 'scrollUntilVisible'; selector: Selector; direction: 'up' | 'down' | 'left' | 'right'; maxSwipes: number }
  | { kind: 'pressKey'; keys: KeyName[]; combination: boolean }
  | { kind: 'type'; text: string; mode?: 'append' | 'replace'; pressEnter?: boolean }
  | { kind: 'setScale'; scale: number }
  | { kind: 'setResolution'; width: number; height: number }
  | { kind: 'installApp'; apk: string; open?: boolean }
  | { kind: 'closeAllApps' }
  | { kind: 'assertPackage'; package: string; installed?: boolean; running?: boolean; type?: 'system' | 'thirdParty'; version?: string; launcher?: boolean }
  | { kind: 'openTab'; url: string; expect?: { title?: string; url?: string } }
  | { kind: 'closeBrowser' }
  | { kind: 'renameFile'; from: string; to: string; workingDir?: string }
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
      threshold?: number;
      maxDiffPixels?: number;
      maxDiffPixelRatio?: number;
      mask?: (Selector | Rect)[];
      clip?: Selector | Rect;
    }
  | { kind: 'screenshot'; name: string }
  | { kind: 'sleep'; ms: number }
  | { kind: 'runFlow'; file: string; env?: Record<string, string>; when?: Condition }
  | { kind: 'repeat'; times?: number; while?: Condition; max?: number; env?: Record<string, string>; steps: Step[] }
  | { kind: 'retry'; times: number; steps: Step[] }
  | { kind: 'launchApp'; appId?: string; clearState?: boolean; stopApp: boolean; arguments?: Record<string, string> }
  | { kind: 'stopApp'; appId?: string }
  | { kind: 'clearState'; appId?: string }
  | { kind: 'back' }
  | { kind: 'home' }
  | { kind: 'hideKeyboard' }
  | { kind: 'eraseText'; chars?: number }
  | { kind: 'openLink'; link: string }
  | { kind: 'waitForAnimationToEnd' }
  | { kind: 'copyTextFrom'; selector: Selector }
  | { kind: 'pasteText' }
  | { kind: 'inputRandom'; type: 'text' | 'number' | 'email' | 'personName' | 'cityName' | 'countryName' | 'colorName'; length?: number }
  | { kind: 'assertTrue'; condition: string }
  | { kind: 'evalScript'; script: string }
  | { kind: 'runScript'; file: string; env?: Record<string, string> };

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
