// `list`: a line per flow with live progress, a heartbeat while a step runs long, and a
// summary of failures (with their actionIds) and where the report is.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ErrorInfo, FlowInfo, FlowResult, Reporter, ReporterContext, ReporterFactory, RunInfo, RunResult } from '../src/runner/types.js';
import { codeFrameFor, countsLine, describeFailure, failedSteps, formatDuration, formatLocation, lastAttempt, stepTitle } from './common.js';

export interface ListOptions {
  /** ms without output before a "still running" line (default 15000). */
  heartbeatMs?: number;
  /** Colours (default: when the writer is a TTY stdout and NO_COLOR is unset). */
  color?: boolean;
}

const kMarks = { passed: '✓', failed: '✘', flaky: '±', skipped: '-' } as const;

class ListReporter implements Reporter {
  private readonly _write: (text: string) => void;
  private readonly _ctx: ReporterContext;
  private readonly _heartbeatMs: number;
  private readonly _color: boolean;
  private _total = 0;
  private _done = 0;
  private _failed = 0;
  private _lastOutput = Date.now();
  private _timer: NodeJS.Timeout | undefined;
  private readonly _running = new Map<string, { flow: FlowInfo; label: string; since: number }>();
  private readonly _errors: ErrorInfo[] = [];

  constructor(options: ListOptions, ctx: ReporterContext) {
    this._ctx = ctx;
    this._write = ctx.write ?? ((t) => void process.stdout.write(t));
    this._heartbeatMs = typeof options.heartbeatMs === 'number' ? options.heartbeatMs : 15_000;
    this._color = options.color ?? (!ctx.write && process.stdout.isTTY === true && !process.env.NO_COLOR);
  }

  printsToStdio(): boolean {
    return true;
  }

  onBegin(run: RunInfo): void {
    this._total = run.flows.length;
    const shard = run.shard ? `, shard ${run.shard.index}/${run.shard.total}` : '';
    this._print(`Running ${run.flows.length} flow${run.flows.length === 1 ? '' : 's'} (${run.workers} worker${run.workers === 1 ? '' : 's'}${shard})\n`);
    this._timer = setInterval(() => this._heartbeat(), Math.max(50, Math.min(this._heartbeatMs, 5_000)));
    this._timer.unref();
  }

  onFlowBegin(flow: FlowInfo, attempt: number): void {
    this._running.set(flow.id, { flow, label: attempt > 1 ? `(attempt ${attempt})` : '(starting)', since: Date.now() });
  }

  onStepBegin(flow: FlowInfo, step: { id: string; label: string; command: string }): void {
    this._running.set(flow.id, { flow, label: stepTitle(step), since: Date.now() });
  }

  onFlowEnd(flow: FlowResult): void {
    this._running.delete(flow.id);
    this._done++;
    if (flow.status === 'failed') this._failed++;
    const mark = this._paint(kMarks[flow.status], flow.status);
    const retries = flow.attempts.length > 1 ? ` (${flow.attempts.length} attempts)` : '';
    const box = flow.box ? ` [${flow.box.type} ${flow.box.id}]` : '';
    this._print(`  ${mark} ${flow.file} › ${flow.name}${box} ${this._dim(formatDuration(flow.durationMs))}${retries}  ${this._dim(this._progress())}\n`);
    if (flow.status === 'failed') {
      for (const s of failedSteps(lastAttempt(flow)).slice(0, 1)) this._print(`      ${describeFailure(s)}\n`);
    }
  }

  onError(error: ErrorInfo): void {
    this._errors.push(error);
    this._print(`  ${this._paint('error', 'failed')} ${error.code}: ${error.message}\n`);
  }

  onEnd(result: RunResult): void {
    if (this._timer) clearInterval(this._timer);
    this._timer = undefined;
    const out: string[] = ['\n'];
    const failed = result.flows.filter((f) => f.status === 'failed');
    const flaky = result.flows.filter((f) => f.status === 'flaky');
    if (failed.length) {
      out.push(this._paint(`  ${failed.length} failed\n`, 'failed'));
      failed.forEach((f, i) => out.push(...this._describeFlow(f, i + 1)));
    }
    if (flaky.length) {
      out.push(this._paint(`  ${flaky.length} flaky\n`, 'flaky'));
      for (const f of flaky) {
        out.push(`    ${f.file} › ${f.name} (passed on attempt ${f.attempts.length})\n`);
        for (const a of f.attempts.slice(0, -1)) for (const s of failedSteps(a)) out.push(`      attempt ${a.attempt}: ${describeFailure(s)}\n`);
      }
    }
    if (result.baselines.length) {
      out.push(`  ${result.baselines.length} screenshot baseline${result.baselines.length === 1 ? '' : 's'} written:\n`);
      for (const b of result.baselines) out.push(`    ${b.written === 'missing' ? 'new' : 'updated'}: ${b.path}${b.written === 'all' ? ' (--update-baselines=all)' : ''}\n`);
    }
    out.push(`  ${countsLine(result.stats)} (${formatDuration(result.durationMs)})${result.status === 'interrupted' ? ' — interrupted' : ''}\n`);
    const dir = this._ctx.outputDir;
    const show = (p: string) => relative(process.cwd(), p) || '.';
    if (existsSync(join(dir, 'index.html'))) out.push(`  Report: ${show(join(dir, 'index.html'))}  (boxflow show-report ${show(dir)})\n`);
    if (existsSync(join(dir, 'junit.xml'))) out.push(`  JUnit: ${show(join(dir, 'junit.xml'))}\n`);
    out.push(`  Results: ${show(join(dir, 'results.jsonl'))}\n`);
    this._print(out.join(''));
  }

  private _describeFlow(f: FlowResult, n: number): string[] {
    const out = [`    ${n}) ${f.file} › ${f.name}${f.box ? ` [${f.box.type} ${f.box.id}]` : ''}\n`];
    const steps = failedSteps(lastAttempt(f));
    if (!steps.length && f.error) out.push(`       ${f.error.code}: ${f.error.message}\n`);
    for (const s of steps) {
      out.push(`       ${describeFailure(s)}\n`);
      const loc = formatLocation(s.source);
      if (loc) out.push(`       at ${loc}\n`);
      if (s.actionId) out.push(`       actionId: ${s.actionId}\n`);
      const frame = codeFrameFor(this._ctx.rootDir, s.source, s.error?.snippet, this._ctx.mask);
      if (frame) out.push(`${frame.split('\n').map((l) => `       ${l}`).join('\n')}\n`);
    }
    return out;
  }

  private _progress(): string {
    const total = Math.max(this._total, this._done);
    return `${this._done}/${total} flows · ${this._failed} failed`;
  }

  private _heartbeat(): void {
    const now = Date.now();
    if (now - this._lastOutput < this._heartbeatMs) return;
    let oldest: { flow: FlowInfo; label: string; since: number } | undefined;
    for (const r of this._running.values()) if (!oldest || r.since < oldest.since) oldest = r;
    const what = oldest ? `${oldest.flow.name} › ${oldest.label} (${Math.round((now - oldest.since) / 1000)}s)` : 'waiting';
    const more = this._running.size > 1 ? ` +${this._running.size - 1} more` : '';
    this._print(`  … still running: ${what}${more}  ${this._dim(this._progress())}\n`);
  }

  private _print(text: string): void {
    this._lastOutput = Date.now();
    this._write(text);
  }

  private _paint(text: string, status: FlowResult['status']): string {
    if (!this._color) return text;
    const code = status === 'passed' ? 32 : status === 'failed' ? 31 : status === 'flaky' ? 33 : 90;
    return `\u001b[${code}m${text}\u001b[39m`;
  }

  private _dim(text: string): string {
    return this._color ? `\u001b[2m${text}\u001b[22m` : text;
  }
}

const factory: ReporterFactory = (options, ctx) => new ListReporter(options as ListOptions, ctx);
export default factory;
