// The server's one secret signs API keys (HS256 JWTs) and pre-signed URLs (HMAC-SHA256).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { SignJWT, jwtVerify } from 'jose';
import { BoxflowError, errorCodes } from '../../errors.js';

const kSecretFile = 'server-secret';

/** BOXFLOW_SERVER_SECRET, else the secret kept in `<dataDir>/server-secret` (mode 0600, also made so). */
export async function resolveSecret(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const fromEnv = env.BOXFLOW_SERVER_SECRET?.trim();
  if (fromEnv) return fromEnv;
  const file = join(dataDir, kSecretFile);
  const existing = await readSecretFile(file);
  if (existing) return existing;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  try {
    await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (err) {
    // Another process created it first: use theirs so both agree.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      const raced = await readSecretFile(file);
      if (raced) return raced;
    }
    throw err;
  }
}

async function readSecretFile(file: string): Promise<string | undefined> {
  try {
    const text = await readFile(file, 'utf8');
    // Written by hand or by an older boxflow with a looser mode: only the server may read it.
    if ((await stat(file)).mode & 0o077) await chmod(file, 0o600);
    return text.trim() || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

const keyOf = (secret: string) => new TextEncoder().encode(secret);

/** An API key for tenant `sub`: an HS256 JWT that expires after `ttl` (e.g. 30d, 12h, 90m). */
export async function createApiKey(secret: string, sub: string, ttl = '30d'): Promise<string> {
  if (!sub.trim()) throw new BoxflowError('INVALID_ARGUMENT', 'the tenant (--sub) must not be empty');
  try {
    return await new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(sub).setIssuedAt().setExpirationTime(ttl).sign(keyOf(secret));
  } catch (cause) {
    throw new BoxflowError('INVALID_ARGUMENT', `ttl "${ttl}" is not a time span; use e.g. 30d, 12h or 90m`, { cause });
  }
}

interface CachedKey {
  sub: string;
  /** ms since epoch; Infinity when the key has no exp. */
  expiresAt: number;
}

/** Verifies API keys, remembering good ones so the hot path skips the HMAC. */
export class KeyVerifier {
  readonly #key: Uint8Array;
  readonly #cache = new Map<string, CachedKey>();
  constructor(secret: string) {
    this.#key = keyOf(secret);
  }

  /** Returns the tenant, or throws UNAUTHORIZED. */
  async verify(header: string | undefined): Promise<string> {
    if (!header) throw new BoxflowError('UNAUTHORIZED', 'missing Authorization header; send "Authorization: Bearer <API key>"');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw new BoxflowError('UNAUTHORIZED', 'malformed Authorization header; expected "Bearer <API key>"');
    const token = m[1]!;
    const hit = this.#cache.get(token);
    if (hit) {
      if (hit.expiresAt > Date.now()) return hit.sub;
      this.#cache.delete(token);
      throw new BoxflowError('UNAUTHORIZED', 'the API key has expired');
    }
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.#key, { algorithms: ['HS256'] }));
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ERR_JWT_EXPIRED') throw new BoxflowError('UNAUTHORIZED', 'the API key has expired');
      if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') throw new BoxflowError('UNAUTHORIZED', 'the API key is not signed by this server');
      throw new BoxflowError('UNAUTHORIZED', 'the API key is not a valid HS256 JWT');
    }
    if (typeof payload.sub !== 'string' || !payload.sub) throw new BoxflowError('UNAUTHORIZED', 'the API key names no tenant (sub)');
    if (this.#cache.size >= 10_000) this.#cache.clear();
    this.#cache.set(token, { sub: payload.sub, expiresAt: typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity });
    return payload.sub;
  }
}

/** Signs `path` until `expiresAt` (ms since epoch): returns the query string `exp=…&sig=…`. */
export function presign(secret: string, path: string, expiresAt: number): string {
  // Rounded up: a URL asked to last N seconds lasts at least that long.
  const exp = Math.ceil(expiresAt / 1000);
  return `exp=${exp}&sig=${signature(secret, path, exp)}`;
}

function signature(secret: string, path: string, exp: number): string {
  return createHmac('sha256', secret).update(`presign\n${path}\n${exp}`).digest('base64url');
}

/** Checks a pre-signed URL's `exp` and `sig`; throws PRESIGN_INVALID or PRESIGN_EXPIRED. */
export function verifyPresigned(secret: string, path: string, query: URLSearchParams, now = Date.now()): void {
  const expText = query.get('exp');
  const sig = query.get('sig');
  if (!expText || !sig || !/^\d{1,12}$/.test(expText)) throw new BoxflowError('PRESIGN_INVALID', 'the URL is not pre-signed (exp and sig are required)');
  const exp = Number(expText);
  const want = Buffer.from(signature(secret, path, exp));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw new BoxflowError('PRESIGN_INVALID', 'the URL signature does not match; it was altered or signed by another server');
  if (exp * 1000 <= now) throw new BoxflowError('PRESIGN_EXPIRED', `the pre-signed URL expired at ${new Date(exp * 1000).toISOString()}`);
}

/** Answers a refused websocket upgrade (bad or expired pre-signed URL, gone box) with `{code, message}`. */
export function refuseUpgrade(socket: Duplex, err: unknown): void {
  const e = BoxflowError.is(err) ? err : new BoxflowError('INTERNAL', 'internal error');
  const status = (errorCodes[e.code] as { status?: number }).status ?? 500;
  const body = JSON.stringify({ code: e.code, message: e.message });
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(`HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => socket.destroy());
}
