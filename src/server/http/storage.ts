// Stored screenshot objects, reachable only through pre-signed, expiring URLs.
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BoxflowError } from '../../errors.js';
import { writeArtifact } from '../../api/artifactFile.js';
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
  /** Objects still being made (a trace drawn after its action answered): a GET waits for them. */
  readonly #pending = new Map<string, Promise<void>>();
  /** The output folder of the one run this (embedded) server serves, when it writes images there. */
  readonly artifactsDir: string | undefined;
  /** key → a file of the run's output folder: served as any object, never removed (the run's report holds it). */
  readonly #artifacts = new Map<string, string>();

  constructor(root: string, secret: string, artifactsDir?: string) {
    this.#root = root;
    this.#secret = secret;
    this.artifactsDir = artifactsDir;
    this.#timer = setInterval(() => void this.sweep(), kSweepEveryMs).unref();
  }

  async put(key: string, data: Buffer, expiresAt: number): Promise<void> {
    const file = this.#file(key);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, data);
    this.#expiry.set(key, Math.max(expiresAt, this.#expiry.get(key) ?? 0));
  }

  /**
   * Stores an image in the run's output folder under its content address (artifactFile.ts), where the
   * runner takes it as it is; `key` serves it as any object. Returns its path there.
   */
  putArtifact(key: string, png: Buffer, expiresAt: number): string {
    this.#file(key);
    const { rel } = writeArtifact(this.artifactsDir!, png, 'png');
    this.#artifacts.set(key, join(this.artifactsDir!, rel));
    this.#expiry.set(key, Math.max(expiresAt, this.#expiry.get(key) ?? 0));
    return rel;
  }

  /** Stores `data` once it is ready; its URL works at once (a GET that comes earlier waits). A failed `data` stores nothing. */
  putWhenReady(key: string, data: Promise<Buffer>, expiresAt: number): void {
    this.#file(key);
    const done = data.then((bytes) => this.put(key, bytes, expiresAt)).catch(() => {});
    this.#pending.set(key, done);
    void done.finally(() => {
      if (this.#pending.get(key) === done) this.#pending.delete(key);
    });
  }

  /** Whether `key` is stored (or being stored); if so it is kept at least until `expiresAt`, for a new URL (POST /storage/presigned-url). */
  async keep(key: string, expiresAt: number): Promise<boolean> {
    const file = this.#file(key);
    if (!this.#pending.has(key) && !this.#artifacts.has(key) && !(await stat(file).then((s) => s.isFile(), () => false))) return false;
    this.#expiry.set(key, Math.max(expiresAt, this.#expiry.get(key) ?? 0));
    return true;
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
    await this.#pending.get(key);
    try {
      return await readFile(this.#artifacts.get(key) ?? this.#file(key));
    } catch {
      throw new BoxflowError('NOT_FOUND', 'the stored object no longer exists');
    }
  }

  async sweep(now = Date.now()): Promise<void> {
    for (const [key, until] of this.#expiry) {
      if (until > now) continue;
      this.#expiry.delete(key);
      if (this.#artifacts.delete(key)) continue;
      await rm(this.#file(key), { force: true }).catch(() => {});
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all(this.#pending.values());
    await rm(this.#root, { recursive: true, force: true });
  }

  #file(key: string): string {
    if (!kKeyPattern.test(key) || key.split('/').some((seg) => seg === '.' || seg === '..')) throw new BoxflowError('NOT_FOUND', 'no such stored object');
    return join(this.#root, key);
  }
}
