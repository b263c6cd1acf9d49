#!/usr/bin/env node
// The boxflow command line. The only place that exits: 0 passed, 1 a flow failed, 2 bad input,
// 3 infrastructure.
import { Command, Option } from 'commander';
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BoxflowError, exitClassOf, type ExitClass } from '../errors.js';
import { runTest, runValidate, runMergeReports, runShowReport, printError } from './commands.js';
import { runConvertMaestro } from './convert.js';
import { boxflowVersion } from '../api/version.js';
import { parseDuration } from '../api/duration.js';
import { kUpdateModes } from '../visual/index.js';

export function buildProgram(exit: (code: number) => void): Command {
  const program = new Command('boxflow')
    .description('Flows for remote device boxes: run, check layouts and screenshots, report.')
    .version(boxflowVersion())
    .showHelpAfterError()
    .exitOverride();

  const collect = (value: string, all: string[]) => [...all, value];
  const done = (p: Promise<number>) => p.then(exit, (err: unknown) => exit(fail(err)));

  program
    .command('test')
    .description('run flows (YAML or TypeScript) on boxes')
    .argument('[paths...]', 'flow files or folders (default: the config\'s flows, else the current folder)')
    .option('-c, --config <file>', 'config file (default: boxflow.config.{ts,json,yaml} in the current folder)')
    .option('-g, --grep <regex>', 'only flows whose name, file or @tag matches')
    .option('--tag <tag...>', 'only flows with one of these tags')
    .option('--retries <n>', 'retry a failed flow up to n times')
    .option('-j, --workers <n>', 'run n flows at once, each on its own box')
    .option('--shard <i/n>', 'run shard i of n')
    .option('--reporter <names>', 'comma-separated: list,html,junit,json,github or a module path')
    .option('-o, --output <dir>', 'output folder (default boxflow-results)')
    .option('--base-url <url>', 'a remote Box API service (ends in /api/v1); the key comes from BOXFLOW_API_KEY')
    .option('--box <id...>', 'run on these existing boxes')
    .option('-e, --env <NAME=value>', 'a variable every flow sees as ${NAME} (over the config\'s env; a flow\'s own env: wins); repeatable', collect, [])
    .addOption(new Option('-u, --update-snapshots [mode]', 'write screenshot baselines, as Playwright: missing, changed (also writes missing ones), all or none; the flag alone means changed; without it a missing baseline is written and its assertion fails').choices(kUpdateModes))
    .addOption(new Option('--update-baselines [mode]', 'the same as --update-snapshots').choices(kUpdateModes))
    .option('--live', 'print a live view URL for each box the run uses (opened in a browser at a terminal): the screen, with the running flow, step and actionId over it')
    .addOption(new Option('--video <mode>', 'record each flow attempt\'s box (Playwright\'s modes): off, on, or retain-on-failure (kept only for failed attempts)').choices(['off', 'on', 'retain-on-failure']))
    .action((paths: string[], opts: Record<string, unknown>) => done(runTest({ ...opts, paths })));

  program
    .command('convert')
    .description('write boxflow flows (*.flow.yaml) equivalent to Maestro flow files')
    .argument('<format>', 'the source format: maestro')
    .argument('<paths...>', 'Maestro flow files or folders')
    .requiredOption('--out <dir>', 'folder for the converted flows')
    .action((format: string, paths: string[], opts: { out: string }) =>
      done(format === 'maestro' ? runConvertMaestro(paths, opts) : Promise.reject(new BoxflowError('CONFIG_INVALID', `convert: unknown format "${format}"; boxflow converts maestro`))),
    );

  program
    .command('validate')
    .description('check flows without running them')
    .argument('[paths...]', 'flow files or folders')
    .option('-c, --config <file>', 'config file')
    .option('-e, --env <NAME=value>', 'a variable every flow sees as ${NAME}; repeatable', collect, [])
    .action((paths: string[], opts: { config?: string; env?: string[] }) => done(runValidate(paths, opts)));

  program
    .command('schema')
    .description('print the JSON Schema of flow files (for editor autocompletion)')
    .action(() =>
      done(
        import('../flow/index.js').then(({ flowSchema }) => {
          process.stdout.write(`${JSON.stringify(flowSchema, null, 2)}\n`);
          return 0;
        }),
      ),
    );

  program
    .command('serve')
    .description('serve the Box API v1 on this machine (Linux boxes on Chromium)')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', '28080')
    .option('--data-dir <dir>', 'where boxes, objects and the signing secret live', '.boxflow/server')
    .option('--adb <tcp:HOST:PORT>', 'the adb server for Android boxes (default: ADB_SERVER_SOCKET, else tcp:127.0.0.1:5037); repeatable: the devices of several adb servers are pooled', collect, [])
    .option('--allow-inner-downloads', 'let installs download APKs from this machine and its private networks (single-user servers only)')
    .option('--max-boxes-per-key <n>', 'live boxes one API key may hold at once (more: 429 TOO_MANY_BOXES)', '32')
    .option('--grid <url>', 'a Selenium Grid 4 (e.g. http://selenium-hub:4444): every Linux box is a session of it, and no Chromium runs here (docs/scaling.md)')
    .option('--grid-chromium <path>', 'with --grid: goog:chromeOptions.binary on the grid\'s nodes (default: the node\'s own Chrome)')
    .option('--grid-session-timeout <duration>', 'with --grid: how long a new box waits for a free slot of the grid before 503 GRID_UNAVAILABLE', '30s')
    .action((opts: ServeOptions) => done(serve(opts)));

  program
    .command('key')
    .description('print an API key (HS256 JWT) for a tenant of `boxflow serve`')
    .requiredOption('--sub <tenant>', 'the tenant the key acts for')
    .option('--ttl <duration>', 'lifetime', '30d')
    .option('--data-dir <dir>', 'the server\'s data dir (for its secret)', '.boxflow/server')
    .action((opts: { sub: string; ttl: string; dataDir: string }) =>
      done(
        (async () => {
          const { resolveSecret, createApiKey } = await import('../server/index.js');
          if (!process.env.BOXFLOW_SERVER_SECRET?.trim() && !existsSync(join(opts.dataDir, 'server-secret'))) {
            process.stderr.write(`warning: ${opts.dataDir} holds no server secret yet, so a new one is made there: this key will not match a running server that uses another data dir (pass its --data-dir)\n`);
          }
          process.stdout.write(`${await createApiKey(await resolveSecret(opts.dataDir), opts.sub, opts.ttl)}\n`);
          return 0;
        })(),
      ),
    );

  program
    .command('merge-reports')
    .description('merge the results of shards or partial runs into one report')
    .argument('<dirs...>', 'output folders of earlier runs')
    .option('--reporter <names>', 'reporters to run on the merged result', 'html,junit,json')
    .option('-o, --output <dir>', 'output folder', 'boxflow-report')
    .action((dirs: string[], opts: { reporter: string; output: string }) => done(runMergeReports(dirs, opts)));

  program
    .command('show-report')
    .description('serve an HTML report on loopback and open it')
    .argument('[dir]', 'report folder', 'boxflow-results')
    .option('--host <host>', 'interface', '127.0.0.1')
    .option('--port <port>', 'port', '9323')
    .action((dir: string, opts: { host: string; port: string }) => done(runShowReport(dir, opts)));

  program
    .command('studio')
    .description('write flows by pointing at a live box: a local page with its screen, layout tree and the flow file')
    .argument('[file]', 'the flow file to add steps to (boxflow YAML, or a Maestro flow); created on the first step', 'new.flow.yaml')
    .option('-c, --config <file>', 'config file (appBaseUrl, webServer, env, timeouts)')
    .option('--base-url <url>', 'a remote Box API service (ends in /api/v1); the key comes from BOXFLOW_API_KEY')
    .option('--box <id>', 'an existing box of the service (default: a new one, terminated at the end)')
    .option('--android', 'a new Android box rather than a Linux one')
    .option('--adb <tcp:HOST:PORT>', 'the embedded server\'s adb server for Android boxes; repeatable', collect, [])
    .option('--host <host>', 'interface of the studio page', '127.0.0.1')
    .option('--port <port>', 'port of the studio page (0 picks a free one)', '9400')
    .option('--no-open', 'do not open the page in a browser')
    .option('-e, --env <NAME=value>', 'a variable the flow sees as ${NAME}; repeatable', collect, [])
    .action((file: string, opts: import('./studio.js').StudioFlags) => done(import('./studio.js').then(({ runStudio }) => runStudio(file, opts))));

  return program;
}

interface ServeOptions {
  host: string;
  port: string;
  dataDir: string;
  adb: string[];
  allowInnerDownloads?: boolean;
  maxBoxesPerKey: string;
  grid?: string;
  gridChromium?: string;
  gridSessionTimeout: string;
}

async function serve(opts: ServeOptions): Promise<number> {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new BoxflowError('CONFIG_INVALID', `--port must be 0..65535, got "${opts.port}"`);
  const maxBoxesPerKey = Number(opts.maxBoxesPerKey);
  if (!/^\d{1,6}$/.test(opts.maxBoxesPerKey) || maxBoxesPerKey < 1) throw new BoxflowError('CONFIG_INVALID', `--max-boxes-per-key must be a whole number from 1, got "${opts.maxBoxesPerKey}"`);
  if (!opts.grid && (opts.gridChromium || opts.gridSessionTimeout !== '30s')) throw new BoxflowError('CONFIG_INVALID', '--grid-chromium and --grid-session-timeout go with --grid <url>');
  const grid = opts.grid ? { url: opts.grid, sessionTimeoutMs: parseDuration(opts.gridSessionTimeout, '--grid-session-timeout'), ...(opts.gridChromium ? { chromiumBinary: opts.gridChromium } : {}) } : undefined;
  const { startServer, resolveSecret, missingFeatures } = await import('../server/index.js');
  const server = await startServer({ host: opts.host, port, dataDir: opts.dataDir, secret: await resolveSecret(opts.dataDir), ...(opts.adb.length ? { adb: opts.adb } : {}), allowInnerDownloads: opts.allowInnerDownloads === true, maxBoxesPerKey, ...(grid ? { grid } : {}), keepBoxes: true });
  process.stdout.write(`${JSON.stringify({ event: 'listening', baseUrl: server.baseUrl })}\n`);
  for (const why of Object.values(await missingFeatures())) process.stderr.write(`warning: ${why}\n`);
  return new Promise<number>((resolve) => {
    const stop = () => void server.close().then(() => resolve(0), () => resolve(3));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

function fail(err: unknown): ExitClass | 0 {
  if (err && typeof err === 'object' && 'code' in err && String((err as { code: unknown }).code).startsWith('commander.')) {
    const code = String((err as { code: string }).code);
    return code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help' ? 0 : 2;
  }
  printError(err);
  return BoxflowError.is(err) ? exitClassOf(err.code) : 3;
}

export async function main(argv: string[]): Promise<void> {
  let exitCode: number | undefined;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
  } catch (err) {
    exitCode = fail(err);
  }
  // Wait for the action's promise (commander resolves before `done` calls back for async work).
  while (exitCode === undefined) await new Promise((r) => setTimeout(r, 10));
  process.exitCode = exitCode;
  // Give stdout a moment to drain, then leave even if a library keeps a handle open.
  setTimeout(() => process.exit(exitCode), 50).unref();
}

const invoked = process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invoked) void main(process.argv);

