// The Box API service of `boxflow test`, `boxflow studio` and boxflow/test: the remote one the
// config and environment name (which needs an API key), else `boxflow serve` embedded on loopback
// with a data dir of its own under the system temp dir and a key for it. Before an embedded server
// starts, the data dirs that runs killed without cleaning up (SIGKILL, OOM) left behind are swept,
// with the processes their boxes left running.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BoxflowError } from '../errors.js';
import type { RunOptions } from '../runner/options.js';

export const kServeDirPrefix = 'boxflow-serve-';

export interface ServiceAccess {
  /** Ends in /api/v1. */
  baseUrl: string;
  apiKey: string;
  /** Values no output may show: the key, and an embedded server's secret. */
  secrets: string[];
  /** An embedded server: without @napi-rs/canvas it draws no traces (why, when so). */
  missingTrace?: string;
  /** The output folder an embedded server writes its action images into (EmbeddedOptions.artifactsDir). */
  writesArtifactsTo?: string;
  /** Stops an embedded server and removes its data dir; nothing for a remote service. */
  close(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Who the key is for (its `sub`) and how long it lasts. */
  keyName?: string;
  keyTtl?: string;
  /** The server's adb server(s), as `boxflow serve --adb`. */
  adb?: string[];
  /**
   * Serve from a child process: in a Playwright worker, Playwright Test would record the server's
   * own browser calls as steps of the running test (embeddedServer.ts).
   */
  childProcess?: boolean;
  /** The run's output folder: the server writes its action images there itself (startServer's artifactsDir). */
  artifactsDir?: string;
}

/** A remote service needs an API key (the embedded server makes its own): CONFIG_INVALID without one. */
export function checkServiceKey(r: { baseUrl?: string; apiKey?: string; apiKeyFrom?: { configKey?: string; env: string } }): void {
  if (!r.baseUrl || r.apiKey) return;
  const env = r.apiKeyFrom?.env ?? 'BOXFLOW_API_KEY';
  const envHint = env === 'BOXFLOW_API_KEY' ? "BOXFLOW_API_KEY (or the variable the config's apiKeyEnv names)" : `${env} (the config's apiKeyEnv)`;
  // A config's `apiKey: process.env.MY_KEY` reads a variable boxflow cannot name: say it is empty too.
  const configKey = r.apiKeyFrom?.configKey;
  throw new BoxflowError('CONFIG_INVALID', configKey
    ? `a remote base URL needs an API key: ${configKey} is empty (is the environment variable it reads set?), and ${env} is not set either`
    : `a remote base URL needs an API key: set ${envHint}`);
}

/** The remote service when one is configured (with its key), else an embedded server. */
export async function connectService(r: Parameters<typeof checkServiceKey>[0], opts: EmbeddedOptions = {}): Promise<ServiceAccess> {
  checkServiceKey(r);
  if (!r.baseUrl) return startEmbeddedServer(opts);
  return { baseUrl: r.baseUrl, apiKey: r.apiKey!, secrets: [r.apiKey!], close: async () => {} };
}

interface Started {
  baseUrl: string;
  close(): Promise<void>;
}

export async function startEmbeddedServer(opts: EmbeddedOptions = {}): Promise<ServiceAccess> {
  const { createApiKey, missingFeatures } = await import('../server/index.js');
  const { cleanStaleServeDirs } = await import('../server/boxes/reaper.js');
  const { releaseUid } = await import('../server/host/boxUser.js');
  await cleanStaleServeDirs(tmpdir(), kServeDirPrefix, releaseUid);
  const dataDir = await mkdtemp(join(tmpdir(), kServeDirPrefix));
  const secret = randomBytes(32).toString('hex');
  let server: Started;
  try {
    server = opts.childProcess ? await startInChild(dataDir, secret) : await startInProcess(dataDir, secret, opts.adb, opts.artifactsDir);
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const close = async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const apiKey = await createApiKey(secret, opts.keyName ?? 'local', opts.keyTtl ?? '1d');
    const { trace } = await missingFeatures();
    const writes = opts.artifactsDir && !opts.childProcess ? { writesArtifactsTo: opts.artifactsDir } : {};
    return { baseUrl: server.baseUrl, apiKey, secrets: [apiKey, secret], ...(trace ? { missingTrace: trace } : {}), ...writes, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Without trace drawing, a run takes no trace images rather than failing every action; `warn` says so. */
export function withoutMissingTrace(service: ServiceAccess, screenshots: RunOptions['screenshots'], warn?: (message: string) => void): void {
  if (!service.missingTrace || !screenshots.phases.includes('trace')) return;
  screenshots.phases = screenshots.phases.filter((p) => p !== 'trace');
  warn?.(`${service.missingTrace}; running without trace images`);
}

async function startInProcess(dataDir: string, secret: string, adb: string[] | undefined, artifactsDir: string | undefined): Promise<Started> {
  const { startServer } = await import('../server/index.js');
  const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, secret, log: () => {}, ...(adb?.length ? { adb } : {}), ...(artifactsDir ? { artifactsDir } : {}) });
  return { baseUrl: server.baseUrl, close: () => server.close() };
}

/** The server in a child process (embeddedServer.ts) that stops when its stdin closes. */
async function startInChild(dataDir: string, secret: string): Promise<Started> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./embeddedServer.js', import.meta.url))], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const close = async () => {
    child.stdin.end();
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(killer);
  };
  child.stdin.write(`${JSON.stringify({ dataDir, secret })}\n`);
  const line = await new Promise<string | undefined>((resolve) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    lines.once('close', () => resolve(undefined));
  });
  const baseUrl = line && (JSON.parse(line) as { baseUrl?: string }).baseUrl;
  if (!baseUrl) {
    await close();
    throw new BoxflowError('BOX_UNAVAILABLE', `the embedded box server did not start: ${stderr.trim() || 'it exited'}`);
  }
  return { baseUrl, close };
}
