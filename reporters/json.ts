// `json`: <output>/results.json, the final RunResult (documented in docs/results.md).
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Reporter, ReporterContext, ReporterFactory, RunResult } from '../src/runner/types.js';

export interface JsonOptions {
  /** Output file (default <output>/results.json). */
  outputFile?: string;
}

class JsonReporter implements Reporter {
  constructor(
    private readonly _options: JsonOptions,
    private readonly _ctx: ReporterContext,
  ) {}

  onEnd(result: RunResult): void {
    const file = resolve(this._ctx.outputDir, this._options.outputFile ?? 'results.json');
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(result, null, 2)}\n`);
    renameSync(tmp, file);
  }
}

const factory: ReporterFactory = (options, ctx) => new JsonReporter(options as JsonOptions, ctx);
export default factory;
