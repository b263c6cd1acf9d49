// `boxflow studio [flow file]`: a local web page for writing flows by pointing at a box's screen
// (src/studio). The box is the embedded local one by default (a `boxflow serve` in this process, as
// `boxflow test` starts it), or one of a configured service (--base-url / the config's baseUrl, the
// key from BOXFLOW_API_KEY): an existing one with --box, else a new one, terminated at the end.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BoxClient } from '../api/client.js';
import { BoxflowError, exitClassOf } from '../errors.js';
import { isMaestroFlow } from '../flow/maestro.js';
import type { BoxInfo } from '../runner/types.js';
import { startStudioServer } from '../studio/server.js';
import { printError } from './commands.js';
import { loadConfigFile, resolveConfig } from './config.js';
import { connectService, withoutMissingTrace } from './embedded.js';
import { startWebServer } from './webServer.js';

export interface StudioFlags {
  config?: string;
  baseUrl?: string;
  /** An existing box of the service to use (left running at the end). */
  box?: string;
  /** Create an Android box (the embedded server's adb devices, or the service's). */
  android?: boolean;
  host?: string;
  port?: string;
  /** Open the page in the system's browser (default true). */
  open?: boolean;
  env?: string[];
  /** The embedded server's adb server(s), as `boxflow serve --adb`. */
  adb?: string[];
}

export interface Studio {
  url: string;
  box: BoxInfo;
  file: string;
  client: BoxClient;
  close(): Promise<void>;
}

const kDefaultFile = 'new.flow.yaml';

/** Starts everything `boxflow studio` needs and answers the page's URL; close() ends it all. */
export async function startStudio(fileArg: string | undefined, flags: StudioFlags = {}, cwd = process.cwd()): Promise<Studio> {
  const { config, file: configFile } = await loadConfigFile(cwd, flags.config);
  const r = resolveConfig({ paths: [], ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}), ...(flags.env ? { env: flags.env } : {}) }, config, configFile, cwd);
  const file = resolve(cwd, fileArg ?? kDefaultFile);
  const port = flags.port === undefined ? 0 : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new BoxflowError('CONFIG_INVALID', `--port must be 0..65535, got "${flags.port}"`);
  const cleanup: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of cleanup.splice(0).reverse()) await c().catch(() => {});
  };
  try {
    // As `boxflow test` (and Playwright): a server already at the app's URL is used when reuseExistingServer says so.
    if (r.webServer) cleanup.push(await startWebServer(r.webServer));
    const service = await connectService(r, { keyName: 'studio', keyTtl: '7d', ...(flags.adb?.length ? { adb: flags.adb } : {}) });
    cleanup.push(service.close);
    const secrets = service.secrets;
    withoutMissingTrace(service, r.options.screenshots);
    const client = new BoxClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
    cleanup.push(() => client.close());

    let box: BoxInfo;
    if (flags.box) {
      const found = await client.getBox(flags.box);
      if (found.status !== 'running') throw new BoxflowError('BOX_UNAVAILABLE', `box ${flags.box} is ${found.status}, not running`);
      box = { id: found.id, type: found.type };
    } else {
      const created = wantsAndroid(file, flags) ? await client.createAndroidBox({ wait: true }) : await client.createLinuxBox({ wait: true });
      box = { id: created.id, type: created.type };
      cleanup.push(async () => void (await client.terminateBox(box.id, {}, { timeoutMs: 30_000 })));
    }

    const outputDir = await mkdtemp(join(tmpdir(), 'boxflow-studio-'));
    cleanup.push(() => rm(outputDir, { recursive: true, force: true }));
    const server = await startStudioServer({ file, client, box, options: { ...r.options, outputDir }, secrets, ...(flags.host ? { host: flags.host } : {}), port });
    cleanup.push(() => server.close());
    return { url: server.url, box, file, client, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** An Android box when asked for, or when the file is for one (`box: android`, a Maestro flow of an app id). */
function wantsAndroid(file: string, flags: StudioFlags): boolean {
  if (flags.android) return true;
  if (!existsSync(file)) return false;
  const text = readFileSync(file, 'utf8');
  if (isMaestroFlow(text)) return !/^url\s*:/m.test(text) && !/^appId\s*:\s*["']?https?:/m.test(text);
  return /^box\s*:\s*["']?android\b/m.test(text);
}

/** The CLI: starts the studio, prints its URL (and opens it), and runs until Ctrl-C. */
export async function runStudio(fileArg: string | undefined, flags: StudioFlags): Promise<number> {
  process.stderr.write('boxflow studio: starting the box…\n');
  let studio: Studio;
  try {
    studio = await startStudio(fileArg, flags);
  } catch (err) {
    // The studio runs no flow, so no error of its is "a flow failed" (1): bad input is 2, and what the
    // box or the service could not do (a refused box, a 422 from the service) is infrastructure, 3.
    printError(err);
    return BoxflowError.is(err) && exitClassOf(err.code) === 2 ? 2 : 3;
  }
  process.stdout.write(`boxflow studio: ${studio.url}\n  flow file: ${studio.file}\n  box: ${studio.box.id} (${studio.box.type})\n  Ctrl-C to stop\n`);
  if (flags.open !== false) {
    const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'start' : 'xdg-open';
    if (spawnSync('which', [opener]).status === 0) spawn(opener, [studio.url], { stdio: 'ignore', detached: true }).unref();
  }
  return new Promise<number>((resolveExit) => {
    const stop = () => void studio.close().then(() => resolveExit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

