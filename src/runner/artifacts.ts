// Content-addressed artifact store: every image (or snapshot) is written once, as
// <output>/data/<sha1>.<ext>, and referred to by that relative path everywhere.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import type { Readable } from 'node:stream';
import type { BoxClient } from '../api/client.js';
import { kArtifactDataDir, kArtifactPath, writeArtifact } from '../api/artifactFile.js';
import { decodeDataUri } from '../api/dataUri.js';
import type { ActionResult } from '../api/schemas.js';
import { BoxflowError } from '../errors.js';
import type { StepImages } from './types.js';

const kExt = /^[a-z0-9]{1,8}$/;

const kMimeExt: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'text/xml': 'xml',
  'application/xml': 'xml',
  'text/html': 'html',
  'application/json': 'json',
  'text/plain': 'txt',
  'video/webm': 'webm',
  'video/mp4': 'mp4',
  'text/vtt': 'vtt',
};

export const kDataDir = kArtifactDataDir;

export function extForMime(mime: string): string {
  return kMimeExt[mime.toLowerCase()] ?? 'bin';
}

export class ArtifactStore {
  readonly outputDir: string;
  readonly dataDir: string;
  // Pending or finished writes by sha1+ext: concurrent puts of one image share one write.
  private readonly _known = new Map<string, Promise<string>>();
  private _stats = { puts: 0, written: 0, bytesWritten: 0 };

  /** This run's embedded server writes its images into `outputDir` itself (see adopt). */
  readonly serverWrites: boolean;

  constructor(outputDir: string, opts: { serverWrites?: boolean } = {}) {
    this.outputDir = outputDir;
    this.serverWrites = opts.serverWrites === true;
    this.dataDir = join(outputDir, kDataDir);
  }

  get stats(): { puts: number; written: number; bytesWritten: number } {
    return { ...this._stats };
  }

  /** Stores bytes once; returns `data/<sha1>.<ext>` (relative to the output dir). */
  put(bytes: Uint8Array, ext = 'png'): Promise<string> {
    if (!kExt.test(ext)) return Promise.reject(badExt(ext));
    this._stats.puts++;
    const sha = createHash('sha1').update(bytes).digest('hex');
    const key = `${sha}.${ext}`;
    const known = this._known.get(key);
    if (known) return known;
    const done = (async () => {
      const { rel, written } = writeArtifact(this.outputDir, bytes, ext);
      if (written) {
        this._stats.written++;
        this._stats.bytesWritten += bytes.byteLength;
      }
      return rel;
    })();
    this._known.set(key, done);
    done.catch(() => this._known.delete(key));
    return done;
  }

  /**
   * An image this run's embedded server already wrote into this output folder (its answer's
   * `artifact`), when this store was told the server does so and the file is there: its path, with
   * nothing downloaded or written again. Else undefined, and the image is fetched as from any service.
   */
  adopt(artifact: string | undefined): string | undefined {
    if (!this.serverWrites || !artifact || !kArtifactPath.test(artifact)) return undefined;
    if (!statSync(join(this.outputDir, artifact), { throwIfNoEntry: false })?.isFile()) return undefined;
    this._stats.puts++;
    this._known.set(artifact.slice(kDataDir.length + 1), Promise.resolve(artifact));
    return artifact;
  }

  /** Stores a `data:` URI (base64 or percent-encoded); the extension comes from its media type. */
  async putDataUri(uri: string): Promise<string> {
    const { mime, bytes } = decodeDataUri(uri);
    return this.put(bytes, extForMime(mime));
  }

  /** Stores a file from disk, streaming it (never read whole into memory). */
  putFile(path: string, ext?: string): Promise<string> {
    const e = ext ?? (extname(path).slice(1).toLowerCase() || 'bin');
    return this.putStream(createReadStream(path), e);
  }

  /** Streams bytes to a temporary file while hashing them, then moves it to its content address. */
  async putStream(source: Readable | AsyncIterable<Uint8Array>, ext = 'png'): Promise<string> {
    checkExt(ext);
    this._stats.puts++;
    this._ensureDir();
    const tmp = join(this.dataDir, `.incoming-${randomBytes(6).toString('hex')}.tmp`);
    const hash = createHash('sha1');
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        size += chunk.length;
        cb(null, chunk);
      },
    });
    try {
      await pipeline(source, tap, createWriteStream(tmp));
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    const key = `${hash.digest('hex')}.${ext}`;
    const rel = `${kDataDir}/${key}`;
    const abs = join(this.outputDir, rel);
    if (this._known.has(key) || this._isWhole(abs, size)) {
      rmSync(tmp, { force: true });
    } else {
      renameSync(tmp, abs);
      this._stats.written++;
      this._stats.bytesWritten += size;
    }
    if (!this._known.has(key)) this._known.set(key, Promise.resolve(rel));
    return rel;
  }

  /** Absolute path of a stored artifact's relative path. */
  resolve(rel: string): string {
    return join(this.outputDir, rel);
  }

  /** A copy of this size is at the address: it is the image (one of another size was torn by a crash). */
  private _isWhole(abs: string, size: number): boolean {
    return statSync(abs, { throwIfNoEntry: false })?.size === size;
  }

  private _ensureDir(): void {
    mkdirSync(this.dataDir, { recursive: true });
  }
}

/** How an action step asks for its images (`options.screenshot` besides phases and delay). */
export type ImageTransport = { outputFormat: 'base64' } | { outputFormat: 'storageKey'; settle?: 'frames' };

/**
 * `boxflow serve` (known once it answered an action, docs/api.md) offers every phase as a stored file
 * behind a pre-signed URL, the trace included, and its `settle: 'frames'` extension: the after-shot
 * is taken once two frames in a row agree, the delay being the longest wait (asked on Linux boxes,
 * where a frame is a quick capture). Any other service gets base64: the reference service's stored
 * trace has no URL to fetch.
 */
export function imageTransport(client: BoxClient, boxType: 'linux' | 'android'): ImageTransport {
  if (!client.isBoxflowService) return { outputFormat: 'base64' };
  return boxType === 'linux' ? { outputFormat: 'storageKey', settle: 'frames' } : { outputFormat: 'storageKey' };
}

/** Stores an action's images (data URIs decoded, pre-signed files streamed) and returns their paths. */
export async function storeActionImages(store: ArtifactStore, client: BoxClient, shots: NonNullable<ActionResult['screenshot']>, signal?: AbortSignal): Promise<StepImages> {
  const phases = (['before', 'after', 'trace'] as const).filter((p) => shots[p]?.uri);
  const paths = await Promise.all(
    phases.map(async (phase) => {
      const { uri, presignedUrl, artifact } = shots[phase] as { uri: string; presignedUrl?: string; artifact?: string };
      if (uri.startsWith('data:')) return store.putDataUri(uri);
      const adopted = store.adopt(artifact);
      if (adopted) return adopted;
      if (presignedUrl) return store.putStream(await client.streamObject(presignedUrl, signal ? { signal } : {}), 'png');
      return uri;
    }),
  );
  return Object.fromEntries(phases.map((p, i) => [p, paths[i]]));
}

function checkExt(ext: string): void {
  if (!kExt.test(ext)) throw badExt(ext);
}

function badExt(ext: string): BoxflowError {
  return new BoxflowError('INVALID_ARGUMENT', `bad artifact extension "${ext}" (expected 1-8 lowercase letters or digits)`);
}
