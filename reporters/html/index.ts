// `html`: <output>/index.html + assets/ (the static viewer, copied) + data/report.js (the run,
// as a script setting a global, so the report works from file:// with no fetch and no CDN).
// Images are already in data/, content-addressed by the runner's ArtifactStore. Layout
// snapshots of failed steps are pretty-printed here and written as data/<name>.layout.js,
// loaded by the viewer only when a failure is opened.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reporter, ReporterContext, ReporterFactory, RunResult, StepRecord } from '../../src/runner/types.js';
import { codeFrameFor, walkSteps } from '../common.js';
import { prettyLayout } from './layout.js';

export interface HtmlOptions {
  /** Report folder (default: the output dir). Images must live in its data/. */
  outputFolder?: string;
  /** Report title (default "boxflow report"). */
  title?: string;
}

/** The viewer's static files, found from this module by walking up to the boxflow package root. */
export function viewerDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'boxflow') return join(dir, 'reporters', 'html', 'viewer');
      } catch {
        // not ours; keep walking
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the boxflow package root (package.json named "boxflow") above the html reporter');
    dir = up;
  }
}

export interface ReportData {
  title: string;
  generatedAt: string;
  result: RunResult;
  /** `${snapshot}\n${selector}` (from LayoutEvidence) -> the script that registers its pretty-printed form. */
  layouts: Record<string, string>;
}

/** Writes the HTML report for a result into `dir` (which holds the run's data/). Returns index.html's path. */
export function writeHtmlReport(result: RunResult, dir: string, options: { rootDir?: string; title?: string; mask?: (text: string) => string } = {}): string {
  const rootDir = options.rootDir ?? process.cwd();
  mkdirSync(join(dir, 'data'), { recursive: true });
  mkdirSync(join(dir, 'assets'), { recursive: true });
  const viewer = viewerDir();
  for (const name of readdirSync(viewer)) {
    if (name === 'index.html') continue;
    copyFileSync(join(viewer, name), join(dir, 'assets', name));
  }

  // The report fills in code frames on copies of the failed steps, swapped in as the run is
  // serialized: the caller's result stays as it was, and a long run is not copied whole.
  const enriched = new Map<StepRecord, StepRecord>();
  const layouts: Record<string, string> = {};
  for (const flow of result.flows) {
    for (const a of flow.attempts) {
      for (const s of walkSteps(a.steps)) {
        const copy = enrichStep(s, dir, rootDir, layouts, options.mask);
        if (copy) enriched.set(s, copy);
      }
    }
  }
  const data: ReportData = { title: options.title ?? 'boxflow report', generatedAt: new Date().toISOString(), result, layouts };
  const json = JSON.stringify(data, enriched.size ? (_key, value: unknown) => enriched.get(value as StepRecord) ?? value : undefined);
  writeAtomic(join(dir, 'data', 'report.js'), `window.__BOXFLOW_REPORT__ = ${json};\n`);

  const html = readFileSync(join(viewer, 'index.html'), 'utf8').replace(/\{\{title\}\}/g, escapeHtml(data.title));
  const index = join(dir, 'index.html');
  writeAtomic(index, html);
  return index;
}

/** Writes a failed step's layout script; returns a copy of the step with its code frame, when it gains one. */
function enrichStep(s: StepRecord, dir: string, rootDir: string, layouts: Record<string, string>, mask?: (text: string) => string): StepRecord | undefined {
  if (s.status !== 'failed' && s.status !== 'warned') return undefined;
  let copy: StepRecord | undefined;
  if (s.error && !s.error.snippet) {
    const frame = codeFrameFor(rootDir, s.source, undefined, mask);
    if (frame) copy = { ...s, error: { ...s.error, snippet: frame } };
  }
  writeLayout(s, dir, layouts);
  return copy;
}

function writeLayout(s: StepRecord, dir: string, layouts: Record<string, string>): void {
  const ev = s.layout;
  if (!ev) return;
  // One script per (snapshot, selector): two steps may search one snapshot for different things.
  const key = `${ev.snapshot}\n${ev.selector}`;
  if (layouts[key] !== undefined) return;
  const file = resolve(dir, ev.snapshot);
  if (!existsSync(file)) return;
  const pretty = prettyLayout(readFileSync(file, 'utf8'), ev);
  const script = `data/${createHash('sha1').update(key).digest('hex').slice(0, 16)}.layout.js`;
  writeAtomic(join(dir, script), `window.__bfLayout(${JSON.stringify(key)}, ${JSON.stringify(pretty)});\n`);
  layouts[key] = script;
}

function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

class HtmlReporter implements Reporter {
  constructor(
    private readonly _options: HtmlOptions,
    private readonly _ctx: ReporterContext,
  ) {}

  onEnd(result: RunResult): void {
    const dir = resolve(this._ctx.outputDir, this._options.outputFolder ?? '.');
    const opts: { rootDir: string; title?: string; mask?: (text: string) => string } = { rootDir: this._ctx.rootDir };
    if (this._options.title) opts.title = this._options.title;
    if (this._ctx.mask) opts.mask = this._ctx.mask;
    writeHtmlReport(result, dir, opts);
  }
}

const factory: ReporterFactory = (options, ctx) => new HtmlReporter(options as HtmlOptions, ctx);
export default factory;
