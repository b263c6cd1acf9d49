// The result model: what the runner records, streams to reporters and writes to
// <output>/results.jsonl (events) and <output>/results.json (the final RunResult).
// Reporters consume these types only. docs/results.md documents them.
import type { ErrorCode } from '../errors.js';
import type { BaselineWritten } from '../visual/index.js';

export type StepStatus = 'passed' | 'failed' | 'skipped' | 'warned';
export type FlowStatus = 'passed' | 'failed' | 'flaky' | 'skipped';

export interface ErrorInfo {
  /** One of the stable codes of docs/errors.md. */
  code: ErrorCode;
  message: string;
  /** Code frame of the flow file around the step, when the step has a source. */
  snippet?: string;
}

/** Paths are relative to the output dir: `data/<sha1>.png`, stored once each. */
export interface StepImages {
  before?: string;
  after?: string;
  trace?: string;
  /** The screen when the step failed (every failed step that is not a container of steps). */
  failure?: string;
}

/** The JSON of a `layout.snapshot` written by this version: the tree the step searched. */
export type { SerializedTree } from '../layout/index.js';

export interface VisualRecord {
  name: string;
  /** Baseline file path, relative to the project (cwd). */
  baseline: string;
  /** Baseline written by this run: why. */
  written?: BaselineWritten;
  expected?: string;
  actual?: string;
  diff?: string;
  /** The earlier frame of an unstable capture. */
  previous?: string;
  diffPixels?: number;
  diffRatio?: number;
  /** How the image was captured: `POST /actions/screenshot`, or the after-phase of an empty `type`. */
  capture: 'screenshot' | 'type';
  sizes?: { expected: { width: number; height: number }; actual: { width: number; height: number } };
}

export interface LayoutEvidence {
  /**
   * Path (in the output dir) of the layout the failing step searched: JSON of that very tree
   * (SerializedTree), or the box's raw XML/HTML when there was no tree.
   */
  snapshot: string;
  format: 'android' | 'html';
  /** Human-readable description of the selector. */
  selector: string;
  /** Near matches, for the report to mark. */
  candidates: { text: string; id: string; desc: string; tag: string; order: number }[];
}

export interface StepRecord {
  /** Dotted path in the flow: "3", "5.2" (nested under runFlow/repeat/retry). */
  id: string;
  index: number;
  label: string;
  command: string;
  /** The step's arguments with secrets masked. */
  args: unknown;
  source?: { file: string; line: number; column: number };
  status: StepStatus;
  attempts: number;
  startedAt: string;
  durationMs: number;
  actionId?: string;
  /** The server's message, or the runner's. */
  message?: string;
  screenshots?: StepImages;
  /** `screenshot:` steps and other attachments. */
  attachments?: { name: string; path: string; contentType: string }[];
  visual?: VisualRecord;
  layout?: LayoutEvidence;
  error?: ErrorInfo;
  /** Nested steps (runFlow, repeat, retry). For retry, `attempt` on each child tells which attempt. */
  children?: StepRecord[];
  attempt?: number;
  /** Pre-signed URLs recorded by webTerminal/cdpUrl steps. */
  url?: string;
}

export interface BoxInfo {
  id: string;
  type: 'linux' | 'android';
}

/** A step's moment in its attempt's video. */
export interface VideoChapter {
  stepId: string;
  label: string;
  actionId?: string;
  /** From the recording's start (the video's 0). */
  startMs: number;
  durationMs?: number;
}

/** The video of one attempt (config `video`); paths are relative to the output dir. */
export interface VideoRecord {
  /** `data/<sha1>.webm` (Linux boxes on boxflow serve) or `.mp4`. */
  path: string;
  contentType: string;
  /** The same chapters as WebVTT (`data/<sha1>.vtt`), for a `<track kind="chapters">`. */
  vtt: string;
  chapters: VideoChapter[];
  durationMs?: number;
  /** The service ended the video early: at its length bound (`duration`) or its size bound (`size`). */
  truncated?: string;
}

export interface FlowAttempt {
  attempt: number;
  status: 'passed' | 'failed' | 'skipped';
  startedAt: string;
  durationMs: number;
  box?: BoxInfo;
  steps: StepRecord[];
  error?: ErrorInfo;
  /** The attempt's video, when the run records one and keeps it (`video: 'on'`, or it failed under `retain-on-failure`). */
  video?: VideoRecord;
}

export interface FlowInfo {
  /** Stable id: sha1 of file + name, 12 hex chars. */
  id: string;
  name: string;
  /** Flow file, relative to the project root. */
  file: string;
  tags: string[];
}

export interface FlowResult extends FlowInfo {
  status: FlowStatus;
  durationMs: number;
  box?: BoxInfo;
  /** Every attempt (flow-level retries); the last one is the result. */
  attempts: FlowAttempt[];
  error?: ErrorInfo;
}

export interface RunInfo {
  startedAt: string;
  shard?: { index: number; total: number };
  workers: number;
  flows: FlowInfo[];
  outputDir: string;
}

export interface RunResult {
  version: 1;
  startedAt: string;
  durationMs: number;
  status: 'passed' | 'failed' | 'interrupted';
  shard?: { index: number; total: number };
  boxes: BoxInfo[];
  flows: FlowResult[];
  stats: { total: number; passed: number; failed: number; flaky: number; skipped: number };
  /** Baselines written or changed by this run. */
  baselines: { path: string; written: BaselineWritten }[];
  errors: ErrorInfo[];
  /**
   * What the run could not put back on a box after a flow (an Android device's state, a resolution):
   * that box was retired, or (at the end of the run) a box the user named is left changed. Present
   * when there is one; they do not fail the run.
   */
  warnings?: ErrorInfo[];
}

/** One line of results.jsonl. */
export type RunEvent =
  | { type: 'begin'; time: string; run: RunInfo }
  | { type: 'flowBegin'; time: string; flow: FlowInfo; attempt: number; box?: BoxInfo }
  | { type: 'stepBegin'; time: string; flowId: string; attempt: number; step: { id: string; label: string; command: string } }
  | { type: 'stepEnd'; time: string; flowId: string; attempt: number; step: StepRecord }
  | { type: 'flowEnd'; time: string; flow: FlowResult }
  | { type: 'error'; time: string; error: ErrorInfo }
  | { type: 'end'; time: string; result: RunResult };

/** A reporter implements any of these hooks. One that throws does not stop the run. */
export interface Reporter {
  printsToStdio?(): boolean;
  onBegin?(run: RunInfo): void | Promise<void>;
  onFlowBegin?(flow: FlowInfo, attempt: number, box?: BoxInfo): void | Promise<void>;
  onStepBegin?(flow: FlowInfo, step: { id: string; label: string; command: string }): void | Promise<void>;
  onStepEnd?(flow: FlowInfo, step: StepRecord): void | Promise<void>;
  onFlowEnd?(flow: FlowResult): void | Promise<void>;
  onError?(error: ErrorInfo): void | Promise<void>;
  onEnd?(result: RunResult): void | Promise<void>;
}

export interface ReporterContext {
  outputDir: string;
  /** Root the flow files are relative to. */
  rootDir: string;
  /** Where a reporter prints (stdout by default). */
  write?: (text: string) => void;
  /**
   * Hides the run's secrets in text a reporter makes itself (a code frame read from a flow file).
   * What the runner hands over is masked already.
   */
  mask?: (text: string) => string;
}

/** A reporter module's default export. */
export type ReporterFactory = (options: Record<string, unknown>, ctx: ReporterContext) => Reporter;
