// `json`: <output>/results.json, the final RunResult (documented in docs/results.md).
import { resolve } from 'node:path';
import { writeJsonAtomic } from '../src/runner/events.js';
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
    writeJsonAtomic(resolve(this._ctx.outputDir, this._options.outputFile ?? 'results.json'), result);
  }
}

const factory: ReporterFactory = (options, ctx) => new JsonReporter(options as JsonOptions, ctx);
export default factory;
