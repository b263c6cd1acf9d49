// Built-in reporters by name. The CLI passes this table to loadReporters (src/runner/reporterHost.ts),
// which loads any other name as a module path.
import type { ReporterFactory } from '../src/runner/types.js';
import github from './github.js';
import html from './html/index.js';
import json from './json.js';
import junit from './junit.js';
import list from './list.js';

export const builtinReporters: Record<string, ReporterFactory> = { list, html, junit, json, github };

export { writeHtmlReport, viewerDir } from './html/index.js';
export { serveReport } from './html/serve.js';
export { junitXml } from './junit.js';
