// Stored screenshot objects, reachable only through pre-signed, expiring URLs.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BoxflowError } from '../errors.js';
import { presign, verifyPresigned } from './secret.js';

export const kStoragePrefix = '/storage/';
const kKeyPattern = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_.-]+)*$/;
const kSweepEveryMs = 5 * 60_000; // 5 min

export class ObjectStore {
  readonly #root: string;
  readonly #secret: string;
  /** key → ms since epoch after which no URL for it can be valid. */
  readonly #expiry = new Map<string, number>();
  readonly #timer: NodeJS.Timeout;

  constructor(root: string, secret: string) {
    this.#root = root;
    this.#secret = secret;
    this.#timer = setInterval(() => void this.sweep(), kSweepEveryMs).unref();
  }

  async put(key: string, data: Buffer, expiresAt: number): Promise<void> {
    const file = this.#file(key);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, data);
    this.#expiry.set(key, Math.max(expiresAt, this.#expiry.get(key) ?? 0));
  }

  /** `origin` is e.g. http://127.0.0.1:28080. */
  url(origin: string, key: string, expiresAt: number): string {
    const path = kStoragePrefix + key;
    return `${origin}${path}?${presign(this.#secret, path, expiresAt)}`;
  }

  /** Serves GET /storage/<key>?exp&sig: checks the signature first, then reads. */
  async get(pathname: string, query: URLSearchParams): Promise<Buffer> {
    verifyPresigned(this.#secret, pathname, query);
    const key = pathname.slice(kStoragePrefix.length);
    try {
      return await readFile(this.#file(key));
    } catch {
      throw new BoxflowError('NOT_FOUND', 'the stored object no longer exists');
    }
  }

  async sweep(now = Date.now()): Promise<void> {
    for (const [key, until] of this.#expiry) {
      if (until > now) continue;
      this.#expiry.delete(key);
      await rm(this.#file(key), { force: true }).catch(() => {});
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await rm(this.#root, { recursive: true, force: true });
  }

  #file(key: string): string {
    if (!kKeyPattern.test(key) || key.split('/').some((seg) => seg === '.' || seg === '..')) throw new BoxflowError('NOT_FOUND', 'no such stored object');
    return join(this.#root, key);
  }
}
