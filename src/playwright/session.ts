// One test's box: boxflow's own executor runs every call (the same handlers, waits and records
// as `boxflow test`), and each step it runs becomes a Playwright test.step with the step's
// actionId and before/after/trace images attached. Nested steps (runFlow, retry, repeat) nest.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { test as base, type TestInfo, type TestStepInfo } from '@playwright/test';
import type { Page } from 'playwright-core';
import { BoxflowError } from '../errors.js';
import { Masker } from '../mask.js';
import { callerLocation, normalizeStep } from '../flow/index.js';
import type { Flow, FlowBox, ScreenshotMatchOptions, SourceLocation, Step } from '../flow/types.js';
import { ArtifactStore } from '../runner/artifacts.js';
import type { Lease, BoxPool } from '../runner/boxPool.js';
import { Executor, StepFailure, type FlowRuntime } from '../runner/executor.js';
import { FloatingCalls } from '../runner/floating.js';
import { createFlowRuntime } from '../runner/runtime.js';
import type { RunOptions, UpdateBaselines, VideoMode } from '../runner/options.js';
import type { StepRecord } from '../runner/types.js';
import { startAttemptVideo, type AttemptVideo } from '../runner/video.js';
import type { BoxService, BoxWant } from './service.js';
import { stepTitle } from './titles.js';

type FlowBoxMethods = Omit<FlowBox, 'browser' | 'info'>;

/** The `box` fixture: a TS flow's box, plus a Playwright Page and flow files. */
export interface Box extends FlowBoxMethods {
  readonly info: FlowBox['info'];
  /** The box's active tab as a Playwright Page, over the box's pre-signed CDP URL (Linux boxes). */
  page(): Promise<Page>;
  /** Runs a boxflow flow file (YAML or TS), its steps nested under one test.step. Relative paths resolve against the Playwright config's folder. */
  run(flowFile: string, opts?: { env?: Record<string, string> }): Promise<void>;
  /** Same as page(), as a TS flow's box has it. */
  readonly browser: FlowBox['browser'];
}

const kSessions = new WeakMap<object, BoxSession>();
/** How long a step stopped at the test's end may take to end before its box is given up. */
const kSettleMs = 10_000;

export function sessionOf(value: unknown): BoxSession {
  const session = typeof value === 'object' && value !== null ? kSessions.get(value) : undefined;
  if (!session) throw new Error('expected the `box` fixture of boxflow/test, e.g. `test(\'...\', async ({ box }) => { await expect(box).toShow(\'Welcome\') })`');
  return session;
}

/** A box step failed: the message names its code (and the action, when the box gave one). */
export function stepError(record: StepRecord): BoxflowError {
  const e = record.error ?? { code: 'FLOW_ERROR', message: 'step failed' };
  const action = record.actionId ? ` (actionId ${record.actionId})` : '';
  return new BoxflowError(e.code as never, `${e.code}: ${e.message}${action}`);
}

function realLocation(source: SourceLocation | undefined): SourceLocation | undefined {
  return source && source.line > 0 && existsSync(source.file) ? source : undefined;
}

class PlaywrightExecutor extends Executor {
  constructor(
    rt: FlowRuntime,
    signal: AbortSignal,
    private readonly session: BoxSession,
  ) {
    super(rt, signal);
  }

  /** Every step, nested ones included, runs inside its own test.step. */
  override async runStep(step: Step, id: string, index: number, vars: Record<string, string>, flowFile: string): Promise<StepRecord> {
    let record: StepRecord | undefined;
    const location = realLocation(step.source);
    const title = this.session.title(step);
    try {
      await base.step(
        title,
        async (info) => {
          record = await super.runStep(step, id, index, vars, flowFile);
          if (record.actionId) info.annotations.push({ type: 'actionId', description: record.actionId });
          await this.session.attachRecord(record, info, title);
          if (record.status === 'failed') throw stepError(record);
          if (record.status === 'warned') info.annotations.push({ type: 'warning', description: record.error?.message });
        },
        location ? { location } : {},
      );
    } catch (err) {
      if (!record) throw err;
    }
    return record!;
  }

  /** A step outside any test.step of ours (the expect matchers have Playwright's own step). */
  runBare(step: Step, id: string): Promise<StepRecord> {
    return super.runStep(step, id, 0, {}, step.source.file);
  }
}

export class BoxSession {
  readonly box: Box;
  readonly #rt: FlowRuntime;
  readonly #exec: PlaywrightExecutor;
  readonly #lease: Lease;
  readonly #pool: BoxPool;
  readonly #rootDir: string;
  /** Fires when the test ends (passed, failed or timed out): every step still running is stopped. */
  readonly #ended = new AbortController();
  #expects = 0;
  /** The test's box calls until it awaits them: one it never awaited fails the test (floating.ts). */
  readonly #floating = new FloatingCalls();
  /** The box's recording of this test (Playwright's `video`, else config `video`), attached to the test on close. */
  readonly #video: { recording: AttemptVideo; testInfo: TestInfo } | undefined;
  /** The flow file box.run() is running, for the steps it runs (see open()). */
  readonly #running: AsyncLocalStorage<Flow>;

  private constructor(lease: Lease, pool: BoxPool, rt: FlowRuntime, running: AsyncLocalStorage<Flow>, rootDir: string, baseURL: string | undefined, video?: { recording: AttemptVideo; testInfo: TestInfo }) {
    this.#lease = lease;
    this.#pool = pool;
    this.#rt = rt;
    this.#running = running;
    this.#rootDir = rootDir;
    this.#video = video;
    this.#exec = new PlaywrightExecutor(rt, this.#ended.signal, this);
    const { box: flowBox } = this.#exec.flowBox({});
    this.box = this.#wrap(flowBox, baseURL);
    kSessions.set(this.box, this);
  }

  /** `opts.video`: the recording mode Playwright's own `video` gives this attempt; without it, boxflow.config's `video`. */
  static async open(service: BoxService, want: BoxWant, testInfo: TestInfo, opts: { rootDir: string; baseURL?: string; secrets?: (string | undefined)[]; video?: VideoMode }): Promise<BoxSession> {
    const { lease, pool } = await service.acquire(want);
    try {
      const options: RunOptions = { ...service.options, rootDir: opts.rootDir, outputDir: testInfo.outputPath('boxflow') };
      const flow: Flow = {
        name: testInfo.titlePath.slice(1).join(' › '),
        file: testInfo.file,
        tags: testInfo.tags,
        env: {},
        secrets: [],
        onStart: [],
        onFinish: [],
        steps: [],
        source: { file: testInfo.file, line: testInfo.line, column: testInfo.column },
      };
      const info = { id: createHash('sha1').update(testInfo.testId).digest('hex').slice(0, 12), name: flow.name, file: relative(opts.rootDir, testInfo.file), tags: testInfo.tags };
      const masker = new Masker([...service.secrets, ...(opts.secrets ?? [])]);
      const hooks = { stepBegin: () => {}, stepEnd: () => {}, baselineWritten: () => {} };
      const rt = await createFlowRuntime({ client: service.client, box: lease.box, boxState: lease.state, flow, info, options, artifacts: new ArtifactStore(options.outputDir), masker, hooks });
      // A flow file that box.run() runs is the flow of the steps it runs, as when `boxflow test`
      // runs it: its folder and name place its screenshot baselines (one baseline, whichever way
      // the flow runs), and its stepTimeout and appId apply. The test's own calls have the test.
      const running = new AsyncLocalStorage<Flow>();
      Object.defineProperty(rt, 'flow', { get: () => running.getStore() ?? flow, enumerable: true });
      // The box records the test (a service that does not record is warned about once per worker).
      const videoOptions = opts.video ? service.videoOptions(opts.video) : service.options;
      const recording = await startAttemptVideo(lease.box, { client: service.client, artifacts: rt.artifacts, options: videoOptions });
      return new BoxSession(lease, pool, rt, running, opts.rootDir, opts.baseURL, recording ? { recording, testInfo } : undefined);
    } catch (err) {
      lease.release('ok');
      throw err;
    }
  }

  title(step: Step): string {
    return stepTitle(step, this.#rootDir, this.#rt.masker);
  }

  /**
   * Ends the test's use of the box. A step still running (Playwright timed the test out and tore it
   * down while the step waited) is stopped first, and the box goes to no other test until it has
   * ended; one that does not end in time leaves the box to be replaced. A box that no longer runs
   * after a failed test is not leased again either.
   */
  async close(failed: boolean): Promise<void> {
    // A box call the test never awaited fails the test (thrown from the fixture's teardown), as
    // Playwright fails a test for an expect that rejects unawaited; that call's own failure is
    // handled, so it never surfaces as an unhandled rejection in a later test.
    const unawaited = this.#floating.error(this.#rootDir);
    this.#ended.abort(unawaited ?? new BoxflowError('FLOW_TIMEOUT', 'the test ended while this step ran (it timed out, or a call was not awaited)'));
    const settled = await this.#exec.settled(kSettleMs);
    await this.#rt.layout.close();
    await this.#attachVideo(failed || unawaited !== undefined).catch((err: unknown) => void process.stderr.write(`warning: video: the box's video could not be attached: ${(err as Error).message}\n`));
    const dead = !settled || (failed && (await this.#pool.isDead(this.#lease.box)));
    this.#lease.release(dead ? 'dead' : 'ok');
    if (unawaited) throw unawaited;
  }

  /**
   * The test's video as Playwright attaches its own (`video`, a video/* type its HTML report plays),
   * with the steps' chapters as WebVTT beside it; `retain-on-failure` keeps a failed test's only.
   */
  async #attachVideo(failed: boolean): Promise<void> {
    if (!this.#video) return;
    const video = await this.#video.recording.finish(this.#exec.records, failed);
    if (!video) return;
    const { testInfo } = this.#video;
    await testInfo.attach('video', { path: this.#rt.artifacts.resolve(video.path), contentType: video.contentType });
    await testInfo.attach('video chapters', { path: this.#rt.artifacts.resolve(video.vtt), contentType: 'text/vtt' });
  }

  /** The action's id and images, the step's attachments and its failure evidence, on the Playwright step. */
  async attachRecord(record: StepRecord, info: TestStepInfo | TestInfo, label: string): Promise<void> {
    const file = (rel: string) => this.#rt.artifacts.resolve(rel);
    // Every image a step attaches also lands in the test's gallery and in the terminal's failure
    // output: a step that passed shows the one image that tells what it did (its trace, drawn where
    // it acted), a step that failed all of them. boxflow's own report keeps every phase of every step.
    const stored = Object.entries(record.screenshots ?? {}).filter(([, p]) => p && !/^https?:/.test(p));
    const telling = ['trace', 'after', 'before'].map((phase) => stored.find(([k]) => k === phase)).find(Boolean);
    const images = record.status === 'passed' && telling ? [telling] : stored;
    const attachImages = async (to: TestStepInfo | TestInfo) => {
      for (const [phase, path] of images) await to.attach(asciiName(`${label} - ${phase}`), { path: file(path!), contentType: 'image/png' });
    };
    if (record.actionId) {
      // A child step carries the id where every reporter (HTML, JSON, trace) shows titles.
      await base.step(`actionId ${record.actionId}`, async (s) => attachImages(s));
    } else if (!record.attachments?.length) {
      await attachImages(info);
    }
    for (const a of record.attachments ?? []) await info.attach(asciiName(a.name), { path: file(a.path), contentType: a.contentType });
    const v = record.visual;
    if (v) {
      for (const kind of ['expected', 'actual', 'diff', 'previous'] as const) {
        if (v[kind]) await info.attach(asciiName(`${v.name}-${kind}.png`), { path: file(v[kind]!), contentType: 'image/png' });
      }
    }
    if (record.status !== 'passed' && record.layout) {
      // The searched tree is JSON; a box's raw layout (no tree was built) keeps its own format.
      const snapshot = record.layout.snapshot;
      const ext = snapshot.endsWith('.json') ? 'json' : record.layout.format === 'android' ? 'xml' : 'html';
      const types = { json: 'application/json', xml: 'text/xml', html: 'text/html' } as const;
      await info.attach(`layout.${ext}`, { path: file(snapshot), contentType: types[ext] });
    }
  }

  /** Runs an assertion step for an expect matcher (Playwright's expect step is its test.step). */
  async assert(raw: Record<string, unknown>, timeoutMs: number): Promise<StepRecord> {
    const step = normalizeStep({ ...raw, timeout: `${timeoutMs}ms` }, callerLocation());
    const record = await this.#exec.runBare(step, `e${++this.#expects}`);
    await this.attachRecord(record, base.info(), this.title(step));
    return record;
  }

  /** toMatchScreenshot: boxflow's stable capture and compare against a baseline at Playwright's snapshot path. */
  async assertScreenshot(name: string, baseline: string, update: UpdateBaselines, opts: ScreenshotMatchOptions, timeoutMs: number): Promise<StepRecord> {
    if (/[{}]/.test(baseline)) throw new BoxflowError('CONFIG_INVALID', `the snapshot path ${baseline} has { or } in it, which boxflow's baseline paths do not allow`);
    // Its own runtime with the snapshot's baseline options: concurrent expects never share them.
    const rt: FlowRuntime = { ...this.#rt, options: { ...this.#rt.options, baselines: { pathTemplate: baseline, update } } };
    const step = normalizeStep({ assertScreenshot: { name, ...opts }, timeout: `${timeoutMs}ms` }, callerLocation());
    const record = await new PlaywrightExecutor(rt, this.#ended.signal, this).runBare(step, `e${++this.#expects}`);
    await this.attachRecord(record, base.info(), this.title(step));
    return record;
  }

  async #page(): Promise<Page> {
    if (this.#rt.box.type !== 'linux') throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `box.page() needs a Linux box; box ${this.#rt.box.id} is an ${this.#rt.box.type} box`);
    return this.#rt.layout.page();
  }

  async #run(flowBox: FlowBox, file: string, env: Record<string, string> = {}): Promise<void> {
    const path = resolve(this.#rootDir, file);
    const flow = await this.#rt.loadFlow(path);
    if (!flow.fn) return this.#running.run(flow, () => flowBox.step({ runFlow: Object.keys(env).length ? { file: path, env } : path }));
    // A function flow: its box calls nest under one step named after the file.
    const vars = { ...flow.env, ...env };
    this.#rt.addSecrets(flow.secrets.map((name) => vars[name] ?? process.env[name]));
    const source = callerLocation();
    const location = realLocation(source);
    await base.step(
      this.title(normalizeStep({ runFlow: path }, source)),
      () =>
        this.#running.run(flow, async () => {
          const { box, expect } = this.#exec.flowBox(vars, this.#floating);
          await flow.fn!({ box, expect, env: vars });
        }),
      location ? { location } : {},
    );
  }

  #wrap(flowBox: FlowBox, baseURL: string | undefined): Box {
    const rethrow = (err: unknown): never => {
      throw err instanceof StepFailure ? stepError(err.record) : err;
    };
    const methods: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const [name, fn] of Object.entries(flowBox)) {
      if (typeof fn !== 'function') continue;
      methods[name] = (...args: unknown[]) => (fn as (...a: unknown[]) => Promise<void>)(...args).catch(rethrow);
    }
    // Like page.goto, a relative URL opens against Playwright's `baseURL`.
    const absolute = (url: string) => (baseURL && !/^[a-z][a-z0-9+.-]*:/i.test(url) ? new URL(url, baseURL).href : url);
    methods.openTab = (url: unknown, opts?: unknown) => {
      const u = url as string | { url: string };
      return flowBox.openTab(typeof u === 'string' ? absolute(u) : { ...u, url: absolute(u.url) }, opts as never).catch(rethrow);
    };
    methods.page = () => this.#page();
    methods.run = (file, opts) => this.#run(flowBox, file as string, (opts as { env?: Record<string, string> } | undefined)?.env).catch(rethrow);
    const box = this.#floating.wrapAll(methods, 'box') as unknown as Box;
    return { ...box, info: flowBox.info, browser: this.#floating.wrapAll({ page: methods.page }, 'box.browser') } as Box;
  }
}

/** Signs of boxflow's labels, in the ASCII a person would type for them. */
const kAscii: Record<string, string> = { '…': '...', '⏎': 'Enter', '·': '-', '›': '>', '×': 'x', '→': '->' };

/**
 * An attachment's name in ASCII: Playwright names the attachment's file after it (its sanitizer
 * replaces ASCII punctuation and keeps every other character), and a file name with `…`, `⏎` or an
 * accent is one some shells, archives and CI artifact stores mangle. Accents are dropped, the signs
 * of labels spelled out, anything else becomes `_`.
 */
export function asciiName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\x20-\x7e]/gu, (c) => kAscii[c] ?? '_');
}
