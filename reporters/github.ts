// `github`: workflow-command annotations (`::error file=…,line=…::message`) for failed steps,
// `::warning` for the failed attempts of flaky flows.
import type { FlowResult, Reporter, ReporterContext, ReporterFactory, RunResult, StepRecord } from '../src/runner/types.js';
import { countsLine, describeFailure, failedSteps, lastAttempt } from './common.js';

/** Escapes a workflow-command message (GitHub: %, CR, LF). */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a workflow-command property value (data escapes plus `:` and `,`). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function annotation(kind: 'error' | 'warning' | 'notice', props: Record<string, string | number | undefined>, message: string): string {
  const p = Object.entries(props)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${kind}${p ? ` ${p}` : ''}::${escapeData(message)}\n`;
}

class GithubReporter implements Reporter {
  private readonly _write: (text: string) => void;

  constructor(ctx: ReporterContext) {
    this._write = ctx.write ?? ((t) => void process.stdout.write(t));
  }

  printsToStdio(): boolean {
    return true;
  }

  onFlowEnd(flow: FlowResult): void {
    if (flow.status === 'failed') {
      const steps = failedSteps(lastAttempt(flow));
      if (!steps.length) this._write(annotation('error', { file: flow.file, title: `${flow.name}` }, flow.error ? `${flow.error.code}: ${flow.error.message}` : 'flow failed'));
      for (const s of steps) this._write(this._line('error', flow, s));
    } else if (flow.status === 'flaky') {
      for (const a of flow.attempts.slice(0, -1)) for (const s of failedSteps(a)) this._write(this._line('warning', flow, s, ` (attempt ${a.attempt}; passed on retry)`));
    }
  }

  onEnd(result: RunResult): void {
    if (result.stats.failed || result.status === 'interrupted') {
      this._write(annotation('notice', { title: 'boxflow' }, `${countsLine(result.stats)}${result.status === 'interrupted' ? ' (interrupted)' : ''}`));
    }
  }

  private _line(kind: 'error' | 'warning', flow: FlowResult, s: StepRecord, suffix = ''): string {
    const src = s.source;
    const message = [describeFailure(s) + suffix, s.error?.message && s.error.message.includes('\n') ? s.error.message : undefined].filter(Boolean).join('\n');
    return annotation(kind, { file: src?.file ?? flow.file, line: src?.line, col: src?.column, title: `${flow.name} › ${s.label}` }, message);
  }
}

const factory: ReporterFactory = (_options, ctx) => new GithubReporter(ctx);
export default factory;
