// Helpers shared by the built-in reporters. They read the result model only.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { codeFrame } from '../src/flow/codeFrame.js';
import type { FlowAttempt, FlowResult, RunResult, StepRecord } from '../src/runner/types.js';

/** Every step of a tree, depth first (parents before children). */
export function* walkSteps(steps: StepRecord[]): Generator<StepRecord> {
  for (const s of steps) {
    yield s;
    if (s.children) yield* walkSteps(s.children);
  }
}

/**
 * The steps that explain a failed attempt: each failed step with no failed child (the innermost
 * failure), skipping a parent whose failure is only its child's.
 */
export function failedSteps(attempt: FlowAttempt | undefined): StepRecord[] {
  if (!attempt) return [];
  const out: StepRecord[] = [];
  for (const s of walkSteps(attempt.steps)) {
    if (s.status !== 'failed') continue;
    const failedChild = s.children?.some((c) => c.status === 'failed');
    if (!failedChild) out.push(s);
  }
  return out;
}

export function lastAttempt(flow: FlowResult): FlowAttempt | undefined {
  return flow.attempts[flow.attempts.length - 1];
}

/** "3 passed, 1 failed, 1 flaky": the counts every summary prints (the list, GitHub and the CLI's line). */
export function countsLine(stats: RunResult['stats']): string {
  const parts = [`${stats.passed} passed`];
  if (stats.failed) parts.push(`${stats.failed} failed`);
  if (stats.flaky) parts.push(`${stats.flaky} flaky`);
  if (stats.skipped) parts.push(`${stats.skipped} skipped`);
  return parts.join(', ');
}

/** "1.2s", "350ms", "2m 05s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${m}m ${String(s).padStart(2, '0')}s`;
}

// eslint-disable-next-line no-control-regex
const kAnsi = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

export function stripAnsi(text: string): string {
  return text.replace(kAnsi, '');
}

/**
 * The error's own snippet (masked by the runner), or a code frame read from the flow file
 * (rootDir-relative), masked with `mask`: a flow file may hold a secret's value in its `env:`.
 */
export function codeFrameFor(rootDir: string, source: { file: string; line: number; column: number } | undefined, snippet?: string, mask: (text: string) => string = (t) => t): string | undefined {
  if (snippet) return snippet;
  if (!source) return undefined;
  const file = resolve(rootDir, source.file);
  if (!existsSync(file)) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return mask(codeFrame(text, source.line, source.column));
}

/** "flows/a.flow.yaml:12:5" */
export function formatLocation(source: { file: string; line: number; column: number } | undefined): string | undefined {
  return source ? `${source.file}:${source.line}:${source.column}` : undefined;
}

/**
 * A step as one line names it: `step 4 › tap "Buy"`, its command added when its own label does not
 * start with it (`step 4 › Log in (tap)`). The label is not quoted: it holds quotes of its own.
 */
export function stepTitle(step: { id: string; label: string; command: string }): string {
  const own = step.label === step.command || step.label.startsWith(`${step.command} `);
  return `step ${step.id} › ${step.label}${own || !step.command ? '' : ` (${step.command})`}`;
}

/** One line naming a failed step: `step 4 › tap "Buy": ELEMENT_NOT_FOUND ... [actionId abc]`. */
export function describeFailure(step: StepRecord): string {
  const parts = [stepTitle(step)];
  const err = step.error;
  parts.push(err ? `${err.code}: ${firstLine(err.message)}` : (firstLine(step.message ?? 'failed')));
  let s = parts.join(': ');
  if (step.actionId) s += ` [actionId ${step.actionId}]`;
  return s;
}

export function firstLine(text: string): string {
  const i = text.indexOf('\n');
  return i < 0 ? text : text.slice(0, i);
}

/** Every image a step refers to, with a label: screenshots, visual triplet, attachments. */
export function stepImages(step: StepRecord): { label: string; path: string }[] {
  const out: { label: string; path: string }[] = [];
  const s = step.screenshots;
  if (s?.before) out.push({ label: 'before', path: s.before });
  if (s?.after) out.push({ label: 'after', path: s.after });
  if (s?.trace) out.push({ label: 'trace', path: s.trace });
  if (s?.failure) out.push({ label: 'at failure', path: s.failure });
  const v = step.visual;
  if (v?.expected) out.push({ label: 'expected', path: v.expected });
  if (v?.actual) out.push({ label: 'actual', path: v.actual });
  if (v?.diff) out.push({ label: 'diff', path: v.diff });
  if (v?.previous) out.push({ label: 'previous', path: v.previous });
  for (const a of step.attachments ?? []) if (a.contentType.startsWith('image/')) out.push({ label: a.name, path: a.path });
  return out;
}
