// What an entry of the step table is (index.ts): the JSON Schema of the step's argument, with
// every shorthand form, the normaliser that turns a valid argument into a Step body, its label and
// how the TypeScript API calls it.
import type { IssueOptions, JsonSchema, Path } from '../parts.js';
import type { LabelCtx } from '../labels.js';
import type { Step, StepBody, StepKind } from '../types.js';

export interface NormalizeCtx {
  /** Absolute path of the flow file (relative paths in steps resolve against its folder). */
  file: string;
  /** Path of the step's argument. */
  path: Path;
  /** Normalises a nested step list found at `rel` below the argument. */
  steps(list: unknown[], rel: Path): Step[];
  fail(rel: Path, message: string, options?: IssueOptions): never;
}

export type StepOf<K extends StepKind> = Extract<Step, { kind: K }>;

/**
 * How the TypeScript API calls the step: a TS flow's `box` and `expect(box)`, and the `box`
 * fixture of boxflow/test (tsApi.ts builds both from these entries). Each call becomes the YAML
 * step `{[name]: arg, ...options}`.
 */
export interface TsCall {
  /** `box.<method>(arg, options)`. */
  method?: string;
  /** `expect(box).<matcher>(arg, options)` (`not.<name>`: `expect(box).not.<name>`). */
  matcher?: string;
  /** `none`: `box.back(options)`; `optional`: `box.launchApp(arg?, options)`, no arg being the bare step. Default: required. */
  arg?: 'none' | 'optional';
  /** Keys of the options object that belong in the step's argument (longPress `duration`, assertScreenshot `mask`, ...). */
  argKeys?: string[];
  /** The key a string argument becomes when argKeys join it in a map (`'Login'` + duration: `{text: 'Login', duration}`). */
  stringKey?: string;
}

export interface StepDef<K extends StepKind = StepKind> {
  description: string;
  /** A correct example, shown when the step is misused. */
  example: string;
  /**
   * The step's title when it has no `label` of its own: in boxflow's reports and, the same, in
   * Playwright's (runner/label.ts, playwright/titles.ts). It reads like the step: `tap #email`.
   */
  label(step: StepOf<K>, ctx: LabelCtx): string;
  /** The method or matcher of the TS API that runs this step, when it has one (else `box.step({...})`). */
  ts?: TsCall;
  /** Takes no argument and may be written as a bare string (`- closeAllApps`). */
  bare?: boolean;
  arg: JsonSchema;
  // The argument has passed `arg` when this runs; it only adds checks a schema cannot express.
  normalize(arg: any, ctx: NormalizeCtx): StepBody;
}

/** The entries of one category of steps (a file of this folder). */
export type StepDefs = { [K in StepKind]?: StepDef<K> };
