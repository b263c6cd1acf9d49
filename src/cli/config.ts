// boxflow.config.{ts,json,yaml}: what users write (Config), and the one place where flags,
// the config file and defaults are merged (resolveConfig): flag, else file, else default.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import YAML from 'yaml';
import { isDuration, parseDuration } from '../api/duration.js';
import { kPhases, type Phase } from '../api/schemas.js';
import { BoxflowError } from '../errors.js';
import { importTs } from '../flow/index.js';
import type { RunOptions, UpdateBaselines } from '../runner/options.js';
import { parseReporterFlag, type ReporterSpec } from '../runner/reporterHost.js';
import { kDefaultBaselineTemplate, kUpdateModes } from '../visual/index.js';
import { kVideoModes, type VideoMode } from '../runner/video.js';
import { checkConfig } from './configSchema.js';

export interface Config {
  /** Remote service, ending in /api/v1. Default: BOXFLOW_BASE_URL, else the embedded local server. */
  baseUrl?: string;
  /** Variables every flow sees as `${NAME}` (a flow's own env: wins). */
  env?: Record<string, string | number | boolean>;
  /** The application under test: `openTab: /login` opens `<appBaseUrl>/login`. Default: webServer.url. */
  appBaseUrl?: string;
  /** Read it from the environment (`process.env.X`) in a TS config; never write a key into a file. */
  apiKey?: string;
  /** Name of the environment variable holding the API key. Default BOXFLOW_API_KEY. */
  apiKeyEnv?: string;
  /** Flow files or folders. Default: the CLI's paths, else the config file's folder. */
  flows?: string[];
  /** Existing box ids to run on, or how many Linux/Android boxes to create. */
  boxes?: string[] | { ids?: string[]; linux?: number; android?: number };
  workers?: number;
  retries?: number;
  timeouts?: { step?: string; flow?: string; action?: string };
  /** Default screenshot phases of action steps, and the wait before the after-shot. */
  screenshots?: boolean | Phase[] | { phases?: Phase[]; delay?: string };
  outputDir?: string;
  reporters?: ReporterSpec[];
  webServer?: { command: string; url: string; timeout?: string; reuseExistingServer?: boolean; cwd?: string };
  baselines?: { pathTemplate?: string; update?: UpdateBaselines };
  /**
   * Video of each flow attempt, as Playwright's `video`: `off` (default), `on`, or `retain-on-failure`
   * (recorded always, kept only for failed attempts). Needs a service that records (boxflow serve does).
   */
  video?: VideoMode;
}

export function defineConfig(config: Config): Config {
  return config;
}

export interface CliFlags {
  paths?: string[];
  config?: string;
  grep?: string;
  tag?: string[];
  retries?: string;
  workers?: string;
  shard?: string;
  reporter?: string;
  output?: string;
  baseUrl?: string;
  box?: string[];
  updateBaselines?: string | boolean;
  /** Playwright's name for --update-baselines. */
  updateSnapshots?: string | boolean;
  /** `-e KEY=VALUE`, repeatable. */
  env?: string[];
  /** off, on or retain-on-failure (over the config's `video`). */
  video?: string;
}

export interface Resolved {
  options: RunOptions;
  paths: string[];
  baseUrl?: string;
  apiKey?: string;
  /** Where the key would have come from, for the error when there is none. */
  apiKeyFrom?: { configKey?: string; env: string };
  reporters: ReporterSpec[];
  webServer?: { command: string; url: string; timeoutMs: number; reuseExistingServer: boolean; cwd: string };
  configFile?: string;
}

const kConfigNames = ['boxflow.config.ts', 'boxflow.config.mjs', 'boxflow.config.js', 'boxflow.config.json', 'boxflow.config.yaml', 'boxflow.config.yml'];

export async function loadConfigFile(cwd: string, explicit?: string): Promise<{ config: Config; file?: string }> {
  const file = explicit ? resolve(cwd, explicit) : kConfigNames.map((n) => resolve(cwd, n)).find((f) => existsSync(f));
  if (!file) return { config: {} };
  if (!existsSync(file)) throw new BoxflowError('CONFIG_INVALID', `config file ${file} does not exist`);
  let config: unknown;
  try {
    if (/\.(ts|mts|mjs|js)$/.test(file)) {
      const mod = (await importTs(file)) as { default?: unknown };
      config = mod.default;
      // A CommonJS-compiled config (no "type": "module" nearby) nests its default export once more.
      if (config && typeof config === 'object' && 'default' in config && Object.keys(config).every((k) => k === 'default' || k === '__esModule')) {
        config = (config as { default: unknown }).default;
      }
    } else {
      const text = await readFile(file, 'utf8');
      config = file.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
      if (config && typeof config === 'object' && 'apiKey' in config) {
        throw new BoxflowError('CONFIG_INVALID', `${file}: apiKey must not be written into a file; set apiKeyEnv to the name of an environment variable (default BOXFLOW_API_KEY)`);
      }
    }
  } catch (err) {
    if (BoxflowError.is(err)) throw err;
    throw new BoxflowError('CONFIG_INVALID', `${file}: cannot load: ${(err as Error).message}`);
  }
  if (!config || typeof config !== 'object') throw new BoxflowError('CONFIG_INVALID', `${file}: must export an object (use defineConfig({...}))`);
  checkConfig(config, basename(file));
  return { config: config as Config, file };
}

/** `-e KEY=VALUE` flags over the config's env (a flow's own env: still wins, as in Maestro). */
function cliEnv(config: Config['env'], flags: string[] | undefined): Record<string, string> | undefined {
  if (!config && !flags?.length) return undefined;
  const out: Record<string, string> = Object.fromEntries(Object.entries(config ?? {}).map(([k, v]) => [k, String(v)]));
  for (const f of flags ?? []) {
    const eq = f.indexOf('=');
    const key = eq < 0 ? f : f.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || eq < 0) throw new BoxflowError('CONFIG_INVALID', `-e ${JSON.stringify(f.slice(0, 60))}: write -e NAME=value (NAME: letters, digits, _)`);
    out[key] = f.slice(eq + 1);
  }
  return out;
}

function int(value: unknown, what: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < min) throw new BoxflowError('CONFIG_INVALID', `${what} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
  return n;
}

function duration(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (!isDuration(value)) throw new BoxflowError('CONFIG_INVALID', `${what} must be a duration such as 500ms, 30s or 5m, got ${JSON.stringify(value)}`);
  return parseDuration(value);
}

export function resolveConfig(flags: CliFlags, config: Config, configFile: string | undefined, cwd: string, env: NodeJS.ProcessEnv = process.env): Resolved {
  const rootDir = configFile ? dirname(configFile) : cwd;
  const take = <T>(...values: (T | undefined)[]): T | undefined => values.find((v) => v !== undefined);

  let shard: RunOptions['shard'];
  if (flags.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(flags.shard);
    const index = Number(m?.[1]);
    const total = Number(m?.[2]);
    if (!m || total < 1 || index < 1 || index > total) throw new BoxflowError('CONFIG_INVALID', `--shard must be i/n with 1 <= i <= n, got "${flags.shard}"`);
    shard = { index, total };
  }
  let grep: RegExp | undefined;
  if (flags.grep !== undefined) {
    try {
      grep = new RegExp(flags.grep);
    } catch (err) {
      throw new BoxflowError('CONFIG_INVALID', `--grep: ${(err as Error).message}`);
    }
  }
  // Playwright's updateSnapshots: no flag writes a missing baseline and fails; the flag alone is `changed`.
  let update: UpdateBaselines = config.baselines?.update ?? 'default';
  if (update !== 'default' && !kUpdateModes.includes(update)) throw new BoxflowError('CONFIG_INVALID', `baselines.update must be one of ${kUpdateModes.join(', ')}, got "${update}"`);
  const flag = flags.updateSnapshots ?? flags.updateBaselines;
  if (flag !== undefined) update = flag === true ? 'changed' : (flag as UpdateBaselines);
  if (!kUpdateModes.includes(update) && update !== 'default') throw new BoxflowError('CONFIG_INVALID', `--update-snapshots must be one of ${kUpdateModes.join(', ')}, got "${update}"`);

  const video = (flags.video ?? config.video ?? 'off') as VideoMode;
  if (!kVideoModes.includes(video)) throw new BoxflowError('CONFIG_INVALID', `${flags.video !== undefined ? '--video' : 'video'} must be one of ${kVideoModes.join(', ')}, got ${JSON.stringify(video)}`);

  const shots = config.screenshots;
  const phases: Phase[] = shots === false ? [] : shots === true || shots === undefined ? [...kPhases] : Array.isArray(shots) ? shots : (shots.phases ?? [...kPhases]);
  const delay = (typeof shots === 'object' && !Array.isArray(shots) && shots.delay) || '100ms';
  duration(delay, 'screenshots.delay');

  const boxCfg = Array.isArray(config.boxes) ? { ids: config.boxes } : (config.boxes ?? {});
  const ids = flags.box?.length ? flags.box : (boxCfg.ids ?? []);
  // `boxes: {linux: n}` alone runs n flows at once, one per box.
  const workers = take(int(flags.workers, '--workers', 1), int(config.workers, 'workers', 1), boxCfg.linux || undefined) ?? 1;

  const reporterFlag = flags.reporter === undefined ? undefined : parseReporterFlag(flags.reporter);
  const apiKeyEnv = config.apiKeyEnv ?? 'BOXFLOW_API_KEY';
  const baseUrl = take(flags.baseUrl, config.baseUrl, env.BOXFLOW_BASE_URL, env.GBOX_BASE_URL);
  const web = config.webServer;
  if (web && (typeof web.command !== 'string' || typeof web.url !== 'string')) throw new BoxflowError('CONFIG_INVALID', 'webServer needs a command and a url');
  const appBaseUrl = config.appBaseUrl ?? web?.url;
  if (appBaseUrl !== undefined && !URL.canParse(appBaseUrl)) throw new BoxflowError('CONFIG_INVALID', `appBaseUrl must be an absolute URL such as http://127.0.0.1:3000, got ${JSON.stringify(appBaseUrl)}`);

  return {
    configFile,
    paths: flags.paths?.length ? flags.paths.map((p) => resolve(cwd, p)) : (config.flows ?? ['.']).map((p) => resolve(rootDir, p)),
    baseUrl,
    apiKey: take(config.apiKey, env[apiKeyEnv], env.GBOX_API_KEY),
    // A TS config's `apiKey: process.env.X` is there, undefined, when X is unset.
    apiKeyFrom: { ...('apiKey' in config ? { configKey: `${configFile ? basename(configFile) : 'the config'}'s apiKey` } : {}), env: apiKeyEnv },
    reporters: reporterFlag?.length ? reporterFlag : (config.reporters ?? ['list', 'html']),
    webServer: web && {
      command: web.command,
      url: web.url,
      timeoutMs: duration(web.timeout, 'webServer.timeout') ?? 60_000,
      // As Playwright: a server already answering at the URL is used only when asked.
      reuseExistingServer: web.reuseExistingServer ?? false,
      cwd: resolve(rootDir, web.cwd ?? '.'),
    },
    options: {
      rootDir,
      ...(appBaseUrl ? { appBaseUrl } : {}),
      ...(cliEnv(config.env, flags.env) ? { env: cliEnv(config.env, flags.env)! } : {}),
      outputDir: resolve(flags.output ? cwd : rootDir, take(flags.output, config.outputDir) ?? 'boxflow-results'),
      workers,
      retries: take(int(flags.retries, '--retries', 0), int(config.retries, 'retries', 0)) ?? 0,
      shard,
      grep,
      tags: flags.tag ?? [],
      stepTimeout: duration(config.timeouts?.step, 'timeouts.step') ?? 5_000,
      flowTimeout: duration(config.timeouts?.flow, 'timeouts.flow') ?? 120_000,
      actionTimeout: duration(config.timeouts?.action, 'timeouts.action') ?? 60_000,
      screenshots: { phases, delay },
      baselines: { pathTemplate: config.baselines?.pathTemplate ?? kDefaultBaselineTemplate, update },
      boxes: { ids, createLinux: boxCfg.linux ?? workers, createAndroid: boxCfg.android ?? 0 },
      ...(video !== 'off' ? { video } : {}),
    },
  };
}
