// Fans runner events out to reporters and to results.jsonl. Each reporter hears the events in the
// order they happened, one hook at a time: a hook is called once its previous one (async or not)
// has ended, whoever fired the event and whether or not they await it. A reporter that throws is
// isolated: the run goes on, the other reporters hear about it through onError (REPORTER_ERROR),
// and `hadReporterError` tells the CLI to exit non-zero.
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BoxflowError } from '../errors.js';
import type { EventLog } from './events.js';
import type { BoxInfo, ErrorInfo, FlowInfo, FlowResult, Reporter, ReporterContext, ReporterFactory, RunEvent, RunInfo, RunResult, StepRecord } from './types.js';

export interface NamedReporter {
  name: string;
  reporter: Reporter;
}

/** A reporter as configured: `name` or `[name, options]`; name is built-in or a module path. */
export type ReporterSpec = string | [string, Record<string, unknown>?];

type Hook = Exclude<keyof Reporter, 'printsToStdio'>;

export class ReporterHost implements Reporter {
  readonly reporters: NamedReporter[];
  readonly reporterErrors: ErrorInfo[] = [];
  private readonly _log: EventLog | undefined;
  private readonly _attempts = new Map<string, number>();
  private readonly _reported = new Set<string>();
  /** Per reporter: its last hook call (the chain every later one waits on). */
  private readonly _queues = new Map<NamedReporter, Promise<void>>();
  /** Reporters in a hook call now; and those given up on, in one when the run stalled. */
  private readonly _busy = new Set<NamedReporter>();
  private readonly _abandoned = new Set<NamedReporter>();

  constructor(reporters: NamedReporter[], eventLog?: EventLog) {
    this.reporters = reporters;
    this._log = eventLog;
  }

  get hadReporterError(): boolean {
    return this.reporterErrors.length > 0;
  }

  /** True when a reporter prints to stdio; one whose printsToStdio throws is a reporter error (and counts as printing). */
  printsToStdio(): boolean {
    return this.reporters.filter((r) => this._prints(r)).length > 0;
  }

  async onBegin(run: RunInfo): Promise<void> {
    this._emit({ type: 'begin', time: now(), run });
    await this._call('onBegin', [run]);
  }

  async onFlowBegin(flow: FlowInfo, attempt: number, box?: BoxInfo): Promise<void> {
    this._attempts.set(flow.id, attempt);
    const event: RunEvent = { type: 'flowBegin', time: now(), flow, attempt };
    if (box) event.box = box;
    this._emit(event);
    await this._call('onFlowBegin', [flow, attempt, box]);
  }

  async onStepBegin(flow: FlowInfo, step: { id: string; label: string; command: string }): Promise<void> {
    this._emit({ type: 'stepBegin', time: now(), flowId: flow.id, attempt: this._attempts.get(flow.id) ?? 1, step: { id: step.id, label: step.label, command: step.command } });
    await this._call('onStepBegin', [flow, step]);
  }

  async onStepEnd(flow: FlowInfo, step: StepRecord): Promise<void> {
    this._emit({ type: 'stepEnd', time: now(), flowId: flow.id, attempt: this._attempts.get(flow.id) ?? 1, step });
    await this._call('onStepEnd', [flow, step]);
  }

  async onFlowEnd(flow: FlowResult): Promise<void> {
    this._emit({ type: 'flowEnd', time: now(), flow });
    await this._call('onFlowEnd', [flow]);
  }

  async onError(error: ErrorInfo): Promise<void> {
    this._emit({ type: 'error', time: now(), error });
    await this._call('onError', [error]);
  }

  /**
   * Reporters that print to stdio end last, so a terminal summary can point at the files the
   * others (html, junit, json) have just written.
   */
  async onEnd(result: RunResult): Promise<void> {
    // Every earlier event is heard first, so the errors of hooks still running are in the result.
    await this._drained();
    const prints = this.reporters.filter((r) => this._prints(r));
    const withErrors = this.reporterErrors.length ? { ...result, errors: [...result.errors, ...this.reporterErrors.filter((e) => !result.errors.includes(e))] } : result;
    this._emit({ type: 'end', time: now(), result: withErrors });
    const ordered = [...this.reporters.filter((r) => !prints.includes(r)), ...prints];
    for (const r of ordered) await this._enqueue(r, 'onEnd', [withErrors]);
    // Whatever a late onError queued: the run has ended only once every reporter has heard it all.
    await this._drained();
  }

  /**
   * For a run that stalled (nothing is left running that could settle a promise): a reporter in the
   * middle of a hook now will never finish it. It hears nothing more, and nothing waits on it, so
   * the others still get the run's end.
   */
  abandonStuck(): void {
    for (const r of this._busy) {
      this._abandoned.add(r);
      this._queues.delete(r);
    }
  }

  private _emit(event: RunEvent): void {
    this._log?.append(event);
  }

  /** Delivers one event to every reporter; resolves once each has heard it (after their earlier events). */
  private async _call(hook: Hook, args: unknown[]): Promise<void> {
    await Promise.all(this.reporters.map((r) => this._enqueue(r, hook, args)));
  }

  /** Calls `hook` on `r` after every hook queued for it before: one reporter's hooks never overlap or reorder. */
  private _enqueue(r: NamedReporter, hook: Hook, args: unknown[]): Promise<void> {
    if (this._abandoned.has(r)) return Promise.resolve();
    const next = (this._queues.get(r) ?? Promise.resolve()).then(() => this._callOne(r, hook, args));
    this._queues.set(r, next);
    return next;
  }

  private async _callOne(r: NamedReporter, hook: Hook, args: unknown[]): Promise<void> {
    const fn = r.reporter[hook] as ((...a: unknown[]) => void | Promise<void>) | undefined;
    if (typeof fn !== 'function') return;
    this._busy.add(r);
    try {
      await fn.apply(r.reporter, args);
    } catch (err) {
      this._reporterFailed(r, hook, err);
    } finally {
      this._busy.delete(r);
    }
  }

  private async _drained(): Promise<void> {
    await Promise.all(this.reporters.map((r) => this._queues.get(r)));
  }

  /** Whether `r` prints to stdio; a printsToStdio that throws is that reporter's error, reported once. */
  private _prints(r: NamedReporter): boolean {
    try {
      return r.reporter.printsToStdio?.() ?? false;
    } catch (err) {
      this._reporterFailed(r, 'printsToStdio', err);
      // It may well print: a stdio reporter ends last, after the files the others write.
      return true;
    }
  }

  private _reporterFailed(failed: NamedReporter, hook: keyof Reporter, err: unknown): void {
    // One report per reporter and hook: a reporter that throws on every step must not flood the others.
    const key = `${failed.name}\u0000${hook}`;
    if (this._reported.has(key)) return;
    this._reported.add(key);
    const message = err instanceof Error ? err.message : String(err);
    const error: ErrorInfo = { code: 'REPORTER_ERROR', message: `reporter "${failed.name}" threw in ${hook}: ${message}` };
    this.reporterErrors.push(error);
    this._emit({ type: 'error', time: now(), error });
    // Queued behind what each other reporter is hearing now; never awaited here, so two reporters
    // that fail at once do not wait on each other. onEnd waits for all of it.
    for (const r of this.reporters) if (r !== failed) void this._enqueue(r, 'onError', [error]);
  }
}

/**
 * Replays a finished (or rebuilt) RunResult through reporters: `merge-reports` and report
 * regeneration. Sends onBegin and onEnd only, not per-step events.
 */
export async function replayResult(result: RunResult, host: Reporter, outputDir: string): Promise<void> {
  const run: RunInfo = {
    startedAt: result.startedAt,
    workers: 1,
    flows: result.flows.map(({ id, name, file, tags }) => ({ id, name, file, tags })),
    outputDir,
  };
  if (result.shard) run.shard = result.shard;
  await host.onBegin?.(run);
  await host.onEnd?.(result);
}

/** Parses `--reporter list,html,junit` (comma-separated; a module path may contain no comma). */
export function parseReporterFlag(flag: string): ReporterSpec[] {
  return flag.split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * Instantiates reporters. A name is looked up in `builtins` (the CLI passes
 * `builtinReporters` from reporters/index.ts), otherwise loaded as a module path resolved from
 * `ctx.rootDir`. The module's default export is a ReporterFactory or a class with hooks.
 */
export async function loadReporters(specs: ReporterSpec[], ctx: ReporterContext, builtins: Record<string, ReporterFactory> = {}): Promise<NamedReporter[]> {
  const out: NamedReporter[] = [];
  for (const spec of specs) {
    const [name, options = {}] = typeof spec === 'string' ? [spec, {}] : spec;
    if (typeof name !== 'string' || !name) throw new BoxflowError('CONFIG_INVALID', 'a reporter must be a name or [name, options]');
    const factory = Object.hasOwn(builtins, name) ? builtins[name]! : await importReporter(name, ctx.rootDir, Object.keys(builtins));
    out.push({ name, reporter: instantiate(factory, options, ctx) });
  }
  return out;
}

async function importReporter(name: string, rootDir: string, known: string[]): Promise<ReporterFactory> {
  const looksLikePath = name.startsWith('.') || isAbsolute(name) || /\.[cm]?[jt]s$/.test(name);
  if (!looksLikePath) throw new BoxflowError('CONFIG_INVALID', `unknown reporter "${name}" (built-in: ${known.join(', ')}; or a module path such as ./my-reporter.js)`);
  const file = isAbsolute(name) ? name : resolve(rootDir, name);
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (err) {
    throw new BoxflowError('CONFIG_INVALID', `cannot load reporter "${name}": ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (typeof mod.default !== 'function') throw new BoxflowError('CONFIG_INVALID', `reporter "${name}" has no default export (a ReporterFactory or a class)`);
  return mod.default as ReporterFactory;
}

function instantiate(factory: ReporterFactory, options: Record<string, unknown>, ctx: ReporterContext): Reporter {
  if (/^class[\s{]/.test(Function.prototype.toString.call(factory))) {
    const Cls = factory as unknown as new (o: Record<string, unknown>, c: ReporterContext) => Reporter;
    return new Cls(options, ctx);
  }
  const r = factory(options, ctx);
  if (!r || typeof r !== 'object') throw new BoxflowError('CONFIG_INVALID', 'a reporter factory must return an object with hooks');
  return r;
}

function now(): string {
  return new Date().toISOString();
}
