// `junit`: <output>/junit.xml. A testsuite per flow file, a testcase per flow; times in seconds
// (millisecond precision). A failed flow's <failure> names the failing step, its code and its
// actionId; infrastructure codes (exit class 3) become <error>. Earlier failed attempts are
// <rerunFailure> (still failed) or <flakyFailure> (passed on retry), as Maven Surefire writes them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { exitClassOf } from '../src/errors.js';
import type { FlowAttempt, FlowResult, Reporter, ReporterContext, ReporterFactory, RunResult } from '../src/runner/types.js';
import { codeFrameFor, describeFailure, failedSteps, formatLocation, stepImages, stripAnsi, walkSteps } from './common.js';

export interface JunitOptions {
  /** Output file (default <output>/junit.xml; env BOXFLOW_JUNIT_OUTPUT_FILE). */
  outputFile?: string;
  /** `[[ATTACHMENT|path]]` paths: relative to the project root (default) or absolute. */
  attachmentPaths?: 'relative' | 'absolute';
}

// XML 1.0 forbids most control characters even when escaped.
// eslint-disable-next-line no-control-regex
const kInvalidXml = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function escapeXml(text: string): string {
  return stripAnsi(text)
    .replace(kInvalidXml, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);

export function junitXml(result: RunResult, ctx: ReporterContext, options: JunitOptions = {}): string {
  const attach = (rel: string) => {
    const abs = resolve(ctx.outputDir, rel);
    return options.attachmentPaths === 'absolute' ? abs : relative(ctx.rootDir, abs);
  };
  const byFile = new Map<string, FlowResult[]>();
  for (const f of result.flows) {
    const list = byFile.get(f.file) ?? [];
    list.push(f);
    byFile.set(f.file, list);
  }
  const count = (fs: FlowResult[]) => {
    let failures = 0;
    let errors = 0;
    let skipped = 0;
    for (const f of fs) {
      if (f.status === 'skipped') skipped++;
      else if (f.status === 'failed') {
        if (isError(f)) errors++;
        else failures++;
      }
    }
    return { tests: fs.length, failures, errors, skipped };
  };
  const total = count(result.flows);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  out.push(`<testsuites name="boxflow" tests="${total.tests}" failures="${total.failures}" errors="${total.errors}" skipped="${total.skipped}" time="${seconds(result.durationMs)}">\n`);
  for (const [file, flows] of byFile) {
    const c = count(flows);
    const time = flows.reduce((t, f) => t + f.durationMs, 0);
    const started = flows.map((f) => f.attempts[0]?.startedAt).filter(Boolean).sort()[0] ?? result.startedAt;
    out.push(`  <testsuite name="${escapeXml(file)}" tests="${c.tests}" failures="${c.failures}" errors="${c.errors}" skipped="${c.skipped}" time="${seconds(time)}" timestamp="${escapeXml(started.replace(/\.\d+Z$|Z$/, ''))}">\n`);
    const props: [string, string][] = [];
    if (result.shard) props.push(['shard', `${result.shard.index}/${result.shard.total}`]);
    if (props.length) {
      out.push('    <properties>\n');
      for (const [n, v] of props) out.push(`      <property name="${escapeXml(n)}" value="${escapeXml(v)}"/>\n`);
      out.push('    </properties>\n');
    }
    for (const f of flows) out.push(testcase(f, ctx, attach));
    out.push('  </testsuite>\n');
  }
  out.push('</testsuites>\n');
  return out.join('');
}

function isError(f: FlowResult): boolean {
  const code = failedSteps(f.attempts[f.attempts.length - 1])[0]?.error?.code ?? f.error?.code;
  return code !== undefined && exitClassOf(code) === 3;
}

function failureOf(a: FlowAttempt | undefined, f: FlowResult, ctx: ReporterContext): { message: string; type: string; body: string } {
  const steps = failedSteps(a);
  const first = steps[0];
  if (!first) {
    const err = a?.error ?? f.error;
    return { message: err ? `${err.code}: ${err.message}` : 'flow failed', type: err?.code ?? 'FAILED', body: err?.message ?? '' };
  }
  const body: string[] = [];
  for (const s of steps) {
    body.push(describeFailure(s));
    if (s.error?.message) body.push(s.error.message);
    const loc = formatLocation(s.source);
    if (loc) body.push(`at ${loc}`);
    if (s.actionId) body.push(`actionId: ${s.actionId}`);
    if (s.message && s.message !== s.error?.message) body.push(`server: ${s.message}`);
    const frame = codeFrameFor(ctx.rootDir, s.source, s.error?.snippet, ctx.mask);
    if (frame) body.push(frame);
    body.push('');
  }
  return { message: describeFailure(first), type: first.error?.code ?? 'FAILED', body: body.join('\n') };
}

function systemOut(a: FlowAttempt | undefined, attach: (rel: string) => string): string {
  if (!a) return '';
  const lines: string[] = [];
  if (a.box) lines.push(`box: ${a.box.type} ${a.box.id}`);
  for (const s of walkSteps(a.steps)) {
    const depth = s.id.split('.').length - 1;
    lines.push(`${'  '.repeat(depth)}${s.status === 'passed' ? 'ok  ' : s.status === 'failed' ? 'FAIL' : s.status === 'warned' ? 'warn' : 'skip'} ${s.id} ${s.label} (${s.command}) ${s.durationMs}ms${s.actionId ? ` actionId=${s.actionId}` : ''}`);
  }
  const seen = new Set<string>();
  for (const s of walkSteps(a.steps)) {
    for (const img of stepImages(s)) {
      if (seen.has(img.path)) continue;
      seen.add(img.path);
      lines.push(`[[ATTACHMENT|${attach(img.path)}]]`);
    }
  }
  // The attempt's video (config `video`), and its chapters (a cue per step) as WebVTT.
  if (a.video) lines.push(`video: ${attach(a.video.path)} (chapters: ${attach(a.video.vtt)})`, `[[ATTACHMENT|${attach(a.video.path)}]]`);
  return lines.join('\n');
}

function testcase(f: FlowResult, ctx: ReporterContext, attach: (rel: string) => string): string {
  const out: string[] = [];
  out.push(`    <testcase name="${escapeXml(f.name)}" classname="${escapeXml(f.file)}" time="${seconds(f.durationMs)}">\n`);
  const props: [string, string][] = [['flow.id', f.id]];
  const box = f.box ?? f.attempts[f.attempts.length - 1]?.box;
  if (box) props.push(['box.id', box.id], ['box.type', box.type]);
  if (f.tags.length) props.push(['tags', f.tags.join(',')]);
  for (const t of f.tags) props.push(['tag', t]);
  out.push('      <properties>\n');
  for (const [n, v] of props) out.push(`        <property name="${escapeXml(n)}" value="${escapeXml(v)}"/>\n`);
  out.push('      </properties>\n');
  const last = f.attempts[f.attempts.length - 1];
  const earlier = f.attempts.slice(0, -1).filter((a) => a.status === 'failed');
  if (f.status === 'failed') {
    const fail = failureOf(last, f, ctx);
    const tag = isError(f) ? 'error' : 'failure';
    if (tag === 'failure') {
      out.push(`      <failure message="${escapeXml(fail.message)}" type="${escapeXml(fail.type)}">${escapeXml(fail.body)}</failure>\n`);
      for (const a of earlier) out.push(rerun('rerunFailure', a, f, ctx, attach));
    } else {
      // Surefire's order puts <error> after <skipped>; reruns of an error are rerunError.
      out.push(`      <error message="${escapeXml(fail.message)}" type="${escapeXml(fail.type)}">${escapeXml(fail.body)}</error>\n`);
      for (const a of earlier) out.push(rerun('rerunError', a, f, ctx, attach));
    }
  } else if (f.status === 'flaky') {
    for (const a of earlier) out.push(rerun('flakyFailure', a, f, ctx, attach));
  } else if (f.status === 'skipped') {
    out.push(`      <skipped${f.error ? ` message="${escapeXml(`${f.error.code}: ${f.error.message}`)}"` : ''}/>\n`);
  }
  const sysout = systemOut(last, attach);
  if (sysout) out.push(`      <system-out>${escapeXml(sysout)}</system-out>\n`);
  out.push('    </testcase>\n');
  return out.join('');
}

function rerun(tag: string, a: FlowAttempt, f: FlowResult, ctx: ReporterContext, attach: (rel: string) => string): string {
  const fail = failureOf(a, f, ctx);
  const sysout = systemOut(a, attach);
  return `      <${tag} message="${escapeXml(`attempt ${a.attempt}: ${fail.message}`)}" type="${escapeXml(fail.type)}">\n        <stackTrace>${escapeXml(fail.body)}</stackTrace>\n${sysout ? `        <system-out>${escapeXml(sysout)}</system-out>\n` : ''}      </${tag}>\n`;
}

class JunitReporter implements Reporter {
  constructor(
    private readonly _options: JunitOptions,
    private readonly _ctx: ReporterContext,
  ) {}

  onEnd(result: RunResult): void {
    const file = resolve(this._ctx.outputDir, this._options.outputFile ?? process.env.BOXFLOW_JUNIT_OUTPUT_FILE ?? 'junit.xml');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, junitXml(result, this._ctx, this._options));
  }
}

const factory: ReporterFactory = (options, ctx) => new JunitReporter(options as JunitOptions, ctx);
export default factory;
