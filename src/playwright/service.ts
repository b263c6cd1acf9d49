// The worker-scoped side of the `box` fixture: the Box API service (remote, as `boxflow test`
// resolves it from config and environment, else the embedded server started once per worker,
// in a child process)
// and the pools tests lease boxes from. Boxes the worker created are terminated at its end.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BoxClient } from '../api/client.js';
import { loadConfigFile, resolveConfig } from '../cli/config.js';
import { BoxflowError } from '../errors.js';
import type { Flow } from '../flow/types.js';
import { BoxPool, type Lease } from '../runner/boxPool.js';
import type { RunOptions } from '../runner/options.js';
import { closeVisualPool } from '../visual/index.js';

export interface ServiceStart {
  /** The Box API service (ends in /api/v1); overrides config and environment. */
  baseUrl?: string;
  /** Where boxflow.config.* is looked up and relative paths resolve (the Playwright config's folder). */
  rootDir: string;
  /** Playwright's parallel index: picks this worker's box among the config's box ids. */
  parallelIndex: number;
  env?: NodeJS.ProcessEnv;
}

export interface BoxWant {
  boxType: 'linux' | 'android';
  boxId?: string;
}

/** `boxflow serve` on loopback in a child process (see embeddedServer.ts), with a key for it. */
async function startEmbedded(): Promise<{ baseUrl: string; apiKey: string; close: () => Promise<void> }> {
  const { createApiKey } = await import('../server/index.js');
  const { cleanStaleServeDirs } = await import('../server/reaper.js');
  const { releaseUid } = await import('../server/boxUser.js');
  // Runs killed without cleaning up (SIGKILL, OOM) left their Chromiums and data dirs behind.
  await cleanStaleServeDirs(tmpdir(), 'boxflow-serve-', releaseUid);
  const dataDir = await mkdtemp(join(tmpdir(), 'boxflow-serve-'));
  const secret = randomBytes(32).toString('hex');
  const child = spawn(process.execPath, [fileURLToPath(new URL('./embeddedServer.js', import.meta.url))], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const stop = async () => {
    child.stdin.end();
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(killer);
    await rm(dataDir, { recursive: true, force: true });
  };
  child.stdin.write(`${JSON.stringify({ dataDir, secret })}\n`);
  const line = await new Promise<string | undefined>((resolve) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    lines.once('close', () => resolve(undefined));
  });
  const baseUrl = line && (JSON.parse(line) as { baseUrl?: string }).baseUrl;
  if (!baseUrl) {
    await stop();
    throw new BoxflowError('BOX_UNAVAILABLE', `the embedded box server did not start: ${stderr.trim() || 'it exited'}`);
  }
  return { baseUrl, apiKey: await createApiKey(secret, 'local', '1d'), close: stop };
}

export class BoxService {
  readonly #pools = new Map<string, Promise<BoxPool>>();
  readonly #cleanup: (() => Promise<void>)[] = [];

  private constructor(
    readonly client: BoxClient,
    /** Resolved like `boxflow test` does; each test sets its own outputDir. */
    readonly options: RunOptions,
    /** Values no report may show (the API key). */
    readonly secrets: string[],
    private readonly parallelIndex: number,
  ) {}

  static async start(opts: ServiceStart): Promise<BoxService> {
    const env = opts.env ?? process.env;
    const { config, file } = await loadConfigFile(opts.rootDir);
    const r = resolveConfig({ baseUrl: opts.baseUrl }, config, file, opts.rootDir, env);
    let { baseUrl, apiKey } = r;
    if (baseUrl && !apiKey) throw new BoxflowError('CONFIG_INVALID', 'a remote base URL needs an API key: set BOXFLOW_API_KEY (or the config\'s apiKeyEnv)');
    const cleanup: (() => Promise<void>)[] = [];
    if (!baseUrl) {
      const embedded = await startEmbedded();
      cleanup.push(embedded.close);
      baseUrl = embedded.baseUrl;
      apiKey = embedded.apiKey;
    }
    const client = new BoxClient({ baseUrl, apiKey: apiKey! });
    cleanup.push(() => client.close());
    const service = new BoxService(client, r.options, [apiKey!], opts.parallelIndex);
    service.#cleanup.push(...cleanup);
    return service;
  }

  /** A box for one test: the named one, else this worker's box among the config's ids, else one of `boxType` created on demand. */
  async acquire(want: BoxWant): Promise<{ lease: Lease; pool: BoxPool }> {
    const ids = this.options.boxes.ids;
    const id = want.boxId ?? (ids.length ? ids[this.parallelIndex % ids.length] : undefined);
    const pool = await this.#pool(id);
    const lease = await pool.acquire({ box: id ?? want.boxType } as Pick<Flow, 'box'> as Flow);
    if (lease.box.type !== want.boxType && !want.boxId) {
      lease.release('ok');
      throw new BoxflowError('BOX_UNAVAILABLE', `box ${lease.box.id} is a ${lease.box.type} box; the test asks for boxType ${want.boxType}`);
    }
    return { lease, pool };
  }

  #pool(id: string | undefined): Promise<BoxPool> {
    const key = id ?? '';
    let pool = this.#pools.get(key);
    if (!pool) {
      const options: RunOptions = { ...this.options, boxes: { ids: id ? [id] : [], createLinux: 1, createAndroid: 1 } };
      const p = new BoxPool(this.client, options);
      pool = p.start(1).then(() => p);
      // A pool that failed to start is not kept: the next test tries again.
      pool.catch(() => this.#pools.delete(key));
      this.#pools.set(key, pool);
    }
    return pool;
  }

  /** Terminates the boxes this worker created, then stops the embedded server. */
  async close(): Promise<void> {
    const pools = await Promise.allSettled([...this.#pools.values()]);
    const closed = await Promise.allSettled(pools.flatMap((p) => (p.status === 'fulfilled' ? [p.value.close()] : [])));
    for (const c of this.#cleanup.reverse()) await c().catch(() => {});
    await closeVisualPool();
    const failed = closed.find((c): c is PromiseRejectedResult => c.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
