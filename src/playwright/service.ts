// The worker-scoped side of the `box` fixture: the Box API service (remote, as `boxflow test`
// resolves it from config and environment, else the embedded server started once per worker,
// in a child process: cli/embedded.ts) and the pools tests lease boxes from. Boxes the worker
// created are terminated at its end.
import { BoxClient } from '../api/client.js';
import { loadConfigFile, resolveConfig } from '../cli/config.js';
import { connectService, withoutMissingTrace } from '../cli/embedded.js';
import { BoxflowError } from '../errors.js';
import type { Flow } from '../flow/types.js';
import { BoxPool, type Lease } from '../runner/boxPool.js';
import type { RunOptions, VideoMode } from '../runner/options.js';
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

export class BoxService {
  readonly #pools = new Map<string, Promise<BoxPool>>();
  readonly #cleanup: (() => Promise<void>)[] = [];
  readonly #warned = new Set<string>();
  /** The options a video mode records with: one object per mode, so a service that cannot record is warned about once. */
  readonly #videoOptions = new Map<VideoMode, RunOptions>();

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
    const access = await connectService(r, { childProcess: true });
    withoutMissingTrace(access, r.options.screenshots, (message) => void process.stderr.write(`warning: ${message}\n`));
    const client = new BoxClient({ baseUrl: access.baseUrl, apiKey: access.apiKey });
    const service = new BoxService(client, r.options, access.secrets, opts.parallelIndex);
    service.#cleanup.push(access.close, () => client.close());
    return service;
  }

  /** The worker's options with `video` set to the mode a test's box records in. */
  videoOptions(mode: VideoMode): RunOptions {
    let options = this.#videoOptions.get(mode);
    if (!options) this.#videoOptions.set(mode, (options = { ...this.options, video: mode }));
    return options;
  }

  /** Writes `warning: <message>` to stderr, once per worker. */
  warnOnce(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    process.stderr.write(`warning: ${message}\n`);
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
