// The commands behind the CLI. Each returns its exit code; only main.ts exits.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { BoxClient } from '../api/client.js';
import { BoxflowError, exitClassOf } from '../errors.js';
import { loadFlows, undefinedVariables } from '../flow/index.js';
import { Masker } from '../mask.js';
import { EventLog, writeResultsJson } from '../runner/events.js';
import { readEvents, resultFromEvents } from '../runner/eventsRead.js';
import { mergeRunDirs } from '../runner/eventsMerge.js';
import { loadReporters, ReporterHost, replayResult, parseReporterFlag } from '../runner/reporterHost.js';
import { runFlows, selectFlows } from '../runner/run.js';
import type { ErrorInfo, RunResult } from '../runner/types.js';
import { builtinReporters, serveReport } from '../../reporters/index.js';
import { countsLine } from '../../reporters/common.js';
import { closeVisualPool } from '../visual/index.js';
import { loadConfigFile, resolveConfig, type CliFlags } from './config.js';
import { checkServiceKey, connectService, withoutMissingTrace } from './embedded.js';
import { startWebServer } from './webServer.js';
import { liveReporter, opensBrowser } from './live.js';

/** The run's secrets (API key, server secret, flow secrets as flows run): hidden in every output. */
const masker = new Masker();

export function printError(err: unknown): void {
  const e = err as { code?: string; message?: string; details?: { frame?: string; snippet?: string } };
  const code = BoxflowError.is(err) ? `${err.code}: ` : '';
  const frame = e?.details?.frame ?? e?.details?.snippet;
  // A located error's message already holds its code frame: print each frame once.
  const extra = frame && !(e?.message ?? '').includes(frame) ? frame : undefined;
  process.stderr.write(`${masker.text(`error ${code}${e?.message ?? String(err)}`)}\n${extra ? `${masker.text(extra)}\n` : ''}`);
}

async function loadOrReport(paths: string[], configEnv?: Record<string, string>, opts: { allMaestro?: boolean } = {}) {
  const { flows, errors, via } = await loadFlows(paths, process.cwd(), opts);
  for (const flow of flows) errors.push(...undefinedVariables(flow, configEnv));
  errors.push(...via);
  for (const err of errors) printError(err);
  const bad = new Set(errors.map((e) => (e.details as { file?: string } | undefined)?.file ?? e.message));
  return { flows, errors: [...bad] };
}

export async function runValidate(paths: string[], opts: { config?: string; env?: string[] }): Promise<number> {
  const cwd = process.cwd();
  const { config, file } = await loadConfigFile(cwd, opts.config);
  const r = resolveConfig({ paths, ...(opts.env ? { env: opts.env } : {}) }, config, file, cwd);
  const { flows, errors } = await loadOrReport(r.paths, r.options.env, { allMaestro: true });
  // Every file gets a verdict: the invalid ones are named with their problems above, the valid ones here.
  const bad = new Set(errors);
  const valid = flows.filter((f) => !bad.has(f.file));
  for (const f of valid) process.stdout.write(`${relative(cwd, f.file).startsWith('..') ? f.file : relative(cwd, f.file)}: valid\n`);
  if (errors.length) {
    process.stderr.write(`${errors.length} flow file${errors.length === 1 ? '' : 's'} invalid, ${valid.length} valid\n`);
    return 2;
  }
  if (!flows.length) {
    process.stderr.write(`no flow files in ${r.paths.map((p) => relative(cwd, p) || '.').join(', ')} (*.flow.yaml, *.flow.yml, *.flow.ts, or Maestro flows)\n`);
    return 2;
  }
  process.stdout.write(`${flows.length} flow${flows.length === 1 ? '' : 's'} valid\n`);
  return 0;
}

export async function runTest(flags: CliFlags & { live?: boolean }): Promise<number> {
  const cwd = process.cwd();
  const { config, file } = await loadConfigFile(cwd, flags.config);
  const r = resolveConfig(flags, config, file, cwd);
  masker.add([r.apiKey]);

  // The embedded server starts while the flows load (it acts on nothing until a flow asks), and is
  // closed again when they do not run. A remote service has nothing to start.
  const early = r.baseUrl ? undefined : connectService(r, { artifactsDir: r.options.outputDir });
  early?.catch(() => {});
  const closeEarly = async () => (await early?.catch(() => undefined))?.close();

  // 1. Every selected flow is valid before any runs.
  const { flows, errors } = await loadOrReport(r.paths, r.options.env);
  if (errors.length) {
    await closeEarly();
    process.stderr.write(`${errors.length} flow file${errors.length === 1 ? '' : 's'} invalid: nothing was run\n`);
    return 2;
  }
  const selected = selectFlows(flows, r.options);
  if (!selected.length && !r.options.shard) {
    await closeEarly();
    process.stderr.write(`no flows to run (${flows.length} found${r.options.grep || r.options.tags.length ? ', none matches the filters' : ''})\n`);
    return 2;
  }
  // Before anything starts: a remote service without its key is a configuration error.
  checkServiceKey(r);

  const cleanup: (() => Promise<void>)[] = [];
  const onSignal = () => void Promise.allSettled(cleanup.reverse().map((c) => c())).then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // Until the run has ended, a node that exits by itself (nothing left to do, a promise never
  // settled) exits 3, never 0: a CI job must not go green on a run that did not finish.
  const exitCodeBefore = process.exitCode;
  process.exitCode = 3;
  // A promise a TS flow rejected and nobody awaited (its own, not a box call: those are caught where
  // they are made) is the run's error, never the end of the process.
  const strays: ErrorInfo[] = [];
  const onStray = (reason: unknown) => {
    const message = masker.text(`a promise that nothing awaited was rejected during the run: ${reason instanceof Error ? reason.message : String(reason)}`);
    strays.push({ code: 'FLOW_ERROR', message });
    process.stderr.write(`error: ${message}\n`);
  };
  process.on('unhandledRejection', onStray);
  try {
    // 2. The app under test, then the boxes' server (embedded when no remote one is set).
    try {
      await prepareOutput(r.options.outputDir);
      if (r.webServer) cleanup.push(await startWebServer(r.webServer));
    } catch (err) {
      await closeEarly();
      throw err;
    }
    const service = await (early ?? connectService(r, { artifactsDir: r.options.outputDir }));
    cleanup.push(service.close);
    masker.add(service.secrets);
    withoutMissingTrace(service, r.options.screenshots, (message) => void process.stderr.write(`warning: ${message}\n`));
    const client = new BoxClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
    cleanup.push(() => client.close());
    if (r.baseUrl) await checkService(client, r.baseUrl);

    // 3. Reporters, then the run.
    const ctx = { outputDir: r.options.outputDir, rootDir: r.options.rootDir, mask: (text: string) => masker.text(text) };
    const reporters = await loadReporters(r.reporters, ctx, builtinReporters);
    const log = new EventLog(r.options.outputDir);
    cleanup.push(async () => log.close());
    // --live: each box's live view, with the running step over it (src/cli/live.ts).
    const live = flags.live ? [{ name: 'live', reporter: liveReporter({ client, print: (line) => void process.stdout.write(`${line}\n`), warn: (message) => void process.stderr.write(`warning: ${masker.text(message)}\n`), open: opensBrowser() }) }] : [];
    const host = new ReporterHost([...reporters, ...live], log);
    const result = await endEvenIfStalled(runFlows(selected, r.options, { client, reporter: host, secrets: [], masker, serverWritesArtifacts: service.writesArtifactsTo === r.options.outputDir }), log, host);
    result.errors.push(...strays);
    writeResultsJson(r.options.outputDir, result);
    // A reporter that prints (list, github) prints its own summary; with only file reporters, say how it went.
    if (!host.printsToStdio()) {
      process.stdout.write(`${summaryLine(result)}; results in ${relative(cwd, r.options.outputDir) || '.'}\n`);
    }
    return exitCode(result, host.hadReporterError);
  } finally {
    process.exitCode = exitCodeBefore;
    process.removeListener('unhandledRejection', onStray);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    for (const c of cleanup.reverse()) await c().catch(() => {});
    await closeVisualPool();
  }
}

/**
 * The run's result; or, when the event loop empties while the run has not settled (nothing left
 * that could finish its flows: a lost worker, a reporter hook or a TypeScript flow awaiting a
 * promise that never settles), the run ended from its results.jsonl: its unfinished flows
 * RUN_INTERRUPTED, those that never began skipped, and a RUN_STALLED error, so that it still ends
 * with its summary, its reports and exit code 3.
 */
async function endEvenIfStalled(run: Promise<RunResult>, log: EventLog, host: ReporterHost): Promise<RunResult> {
  let onIdle!: () => void;
  const stalled = new Promise<RunResult>((resolveStalled, rejectStalled) => {
    onIdle = () => {
      const result = resultFromEvents(readEvents(log.file));
      const unfinished = result.flows.filter((f) => f.error?.code === 'RUN_INTERRUPTED').length;
      const error: ErrorInfo = { code: 'RUN_STALLED', message: `the run stopped with ${unfinished} of ${result.flows.length} flow${result.flows.length === 1 ? '' : 's'} unfinished: nothing was left running that could finish them` };
      result.errors.push(error);
      host.abandonStuck();
      void host.onError(error).then(() => host.onEnd(result)).then(() => resolveStalled(result), rejectStalled);
    };
  });
  process.once('beforeExit', onIdle);
  try {
    return await Promise.race([run, stalled]);
  } finally {
    process.removeListener('beforeExit', onIdle);
  }
}

export function summaryLine(result: RunResult): string {
  const { total } = result.stats;
  return `${total} flow${total === 1 ? '' : 's'}: ${countsLine(result.stats)}`;
}

export function exitCode(result: RunResult, reporterError: boolean): number {
  let code = 0;
  for (const e of result.errors) code = Math.max(code, exitClassOf(e.code));
  for (const f of result.flows) if (f.status === 'failed') code = Math.max(code, f.error ? exitClassOf(f.error.code) === 3 ? 3 : 1 : 1);
  if (reporterError) code = Math.max(code, 3);
  return code;
}

/** A --base-url that is not a Box API v1 service is named as such, with its host, before any flow runs. */
async function checkService(client: BoxClient, baseUrl: string): Promise<void> {
  try {
    await client.listBoxes({ pageSize: 1 }, { maxRetries: 1, timeoutMs: 15_000 });
  } catch (err) {
    if (!BoxflowError.is(err) || err.code === 'UNAUTHORIZED' || err.code === 'FORBIDDEN') throw err;
    let host = baseUrl;
    try {
      host = new URL(baseUrl).host;
    } catch {
      // keep what the user wrote
    }
    throw new BoxflowError(err.code, `${host} does not answer as a Box API v1 service (base URL ${baseUrl}; it should end in /api/v1): ${err.message}`);
  }
}

/** Clears an earlier run's output, but never a folder that does not look like one. */
async function prepareOutput(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  const entries = readdirSync(dir);
  if (!entries.length) return;
  if (!entries.includes('results.jsonl') && !entries.includes('results.json')) {
    throw new BoxflowError('CONFIG_INVALID', `output folder ${dir} holds files that are not a boxflow run; choose another --output`);
  }
  await rm(dir, { recursive: true, force: true });
}


export async function runMergeReports(dirs: string[], opts: { reporter: string; output: string }): Promise<number> {
  const outputDir = resolve(opts.output);
  const result = mergeRunDirs(dirs.map((d) => resolve(d)), outputDir);
  const ctx = { outputDir, rootDir: process.cwd() };
  const host = new ReporterHost(await loadReporters(parseReporterFlag(opts.reporter), ctx, builtinReporters));
  await replayResult(result, host, outputDir);
  process.stdout.write(`merged ${dirs.length} runs into ${relative(process.cwd(), outputDir) || '.'}: ${summaryLine(result)}\n`);
  return exitCode(result, host.hadReporterError);
}

export async function runShowReport(dir: string, opts: { host: string; port: string }): Promise<number> {
  if (!existsSync(join(resolve(dir), 'index.html'))) throw new BoxflowError('CONFIG_INVALID', `no HTML report in ${dir}: run boxflow test with --reporter html (or give the report's folder)`);
  const { url, close } = await serveReport(resolve(dir), { host: opts.host, port: Number(opts.port) });
  process.stdout.write(`serving ${dir} at ${url} (Ctrl-C to stop)\n`);
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'start' : 'xdg-open';
  if (spawnSync('which', [opener]).status === 0) spawn(opener, [url], { stdio: 'ignore', detached: true }).unref();
  return new Promise<number>((resolveExit) => {
    const stop = () => void close().then(() => resolveExit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
