// What a step handler sees: the flow's runtime and this step's run. Kept apart from executor.ts so
// the handlers in this folder and the executor that calls them do not import each other.
import type { ActionResult } from '../../api/schemas.js';
import type { BoxClient } from '../../api/client.js';
import type { Flow, Step, StepCommon } from '../../flow/types.js';
import type { Masker } from '../../mask.js';
import type { ArtifactStore, ImageTransport } from '../artifacts.js';
import type { BoxState } from '../boxPool.js';
import type { LayoutSource } from '../layoutSource.js';
import type { RunOptions } from '../options.js';
import type { BoxInfo, FlowInfo, StepRecord } from '../types.js';
import type { BaselineWritten } from '../../visual/index.js';
import type { ScriptHost } from '../script.js';
import type { BrowserTab } from '../boxBrowser.js';

/**
 * What a flow set on a Linux box's browser. Emulation lives as long as the CDP connection that set
 * it: it is set again whenever the flow's connection is new (launchApp restarts the browser, back
 * reconnects), and ends with the flow.
 */
export interface WebState {
  offline?: boolean;
  geolocation?: { latitude: number; longitude: number };
  permissions: Array<{ origin: string; name: string; setting: 'granted' | 'denied' | 'prompt' }>;
  colorScheme?: 'dark' | 'light';
  /** The tab (its session on the flow's connection) the state was last applied to. */
  page?: BrowserTab;
}

/**
 * What one flow attempt keeps from one step to the next, on its box: made with its runtime
 * (createFlowRuntime), gone with it. Nothing here outlives the attempt or reaches another flow.
 */
export interface FlowState {
  /** The box's action scale: screen pixels times this are the Box API's action space (setScale changes it). */
  scale: number;
  /** The tab the flow's steps act on (openTab), when it opened one. */
  tabId?: string;
  /** The flow's JavaScript sandbox (`${...}` expressions, evalScript, runScript, copied text), made when first needed. */
  script?: ScriptHost;
  /** How a frame is captured on this box: `POST /actions/screenshot`, or (a service without it) an empty `type`'s after-phase. */
  captureMode?: 'screenshot' | 'type';
  /** Android: the device's SDK level, read once. */
  sdk?: number;
  /** Android: the shell may mock locations and the test providers are in place (set up on the first location). */
  mockReady?: boolean;
  /** Linux: the browser emulation setDevice set, applied again to every new page of the flow. */
  web?: WebState;
  /** The name of the recording a `record: start` began, until its `record: stop`. */
  recording?: string;
}

export interface ExecutorHooks {
  stepBegin(step: { id: string; label: string; command: string }): void;
  stepEnd(step: StepRecord): void;
  baselineWritten(path: string, why: BaselineWritten): void;
}

export interface FlowRuntime {
  client: BoxClient;
  box: BoxInfo;
  flow: Flow;
  info: FlowInfo;
  options: RunOptions;
  artifacts: ArtifactStore;
  layout: LayoutSource;
  hooks: ExecutorHooks;
  /** Loads (and caches) a runFlow file, relative to the flow that names it. */
  loadFlow(file: string): Promise<Flow>;
  /** Hides the run's secrets (every flow's, the API key; a runFlow's once it ran) in everything recorded. */
  masker: Masker;
  /** Secret values learnt while running (a runFlow's `secrets:`): masked from then on, here and in the reports. */
  addSecrets(values: Iterable<string | undefined>): void;
  state: FlowState;
  /** What the flow changes on its box that the next flow must not inherit. */
  boxState: BoxState;
}

/** What a step handler gets: the runtime plus this step's record, deadline and helpers. */
export interface StepRun {
  rt: FlowRuntime;
  record: StepRecord;
  vars: Record<string, string>;
  /** performance.now() deadline of this step. */
  deadline: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** The flow file the step came from (runFlow steps: the sub-flow's file). */
  flowFile: string;
  /**
   * The step as the flow wrote it, before its `${...}` were resolved: for a message that names what
   * was written beside what it gave (`repeat times: ${N} is "x", not a whole number`).
   */
  written: Step;
  /** Resolves `${...}` in a value: for what a handler reads again later (a repeat's `while`), or reads from elsewhere (the flow's appId). */
  resolve<T>(value: T): T;
  /** The `options` an action sends: screenshots as the step and config ask. */
  actionOptions(step: Step): { screenshot: false | ({ phases: ('before' | 'after' | 'trace')[]; delay: string } & ImageTransport) };
  /** Records an action's id, message and images. */
  recordAction(result: ActionResult): Promise<void>;
  runChildren(steps: Step[], vars: Record<string, string>, flowFile: string, attempt?: number): Promise<StepRecord[]>;
}

/** A field of a step kind's own (not its label, timeout, ...). */
export type StepField<K extends Step['kind']> = Exclude<keyof Extract<Step, { kind: K }>, 'kind' | keyof StepCommon>;

/**
 * A step kind's handler and the fields of its step that take `${...}`. The executor resolves those
 * (deeply: a selector's keys, a map's values) once, before the handler runs, as Maestro's
 * evaluateScripts does; the handler sees their values and never resolves a field itself. A field
 * not listed is used as written: a number, a name from a fixed list, child steps (resolved when
 * each runs, with its own variables), or a value evaluated again later (a repeat's `while`).
 */
export type StepHandler<K extends Step['kind'] = Step['kind']> = ((step: Extract<Step, { kind: K }>, run: StepRun) => Promise<void>) & {
  readonly resolves: readonly StepField<K>[];
};

/** A handler with the fields it takes `${...}` in (see StepHandler). */
export function handler<K extends Step['kind']>(resolves: readonly StepField<K>[], run: (step: Extract<Step, { kind: K }>, run: StepRun) => Promise<void>): StepHandler<K> {
  return Object.assign(run, { resolves });
}

/** The step with its `resolves` fields resolved (a new object; the step as written is kept for the record). */
export function resolveFields<S extends Step>(step: S, resolves: readonly string[], resolve: StepRun['resolve']): S {
  if (!resolves.length) return step;
  const out: Record<string, unknown> = { ...step };
  for (const field of resolves) if (out[field] !== undefined) out[field] = resolve(out[field]);
  return out as S;
}
