// A real `boxflow serve` on port 0 for one test file, in its own temp dir, and a client for one
// tenant: started before the file's tests, stopped and removed after them.
import { after, before } from 'node:test';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { FakeAdbServer, packagesFromFixture } from './fakeAdbServer.js';

export interface LocalServer {
  /** The test's temp dir; the server's data dir is `<dir>/srv`. */
  readonly dir: string;
  /** Set once the file's `before` hooks run. */
  readonly client: BoxClient;
}

/** `cdpTimeoutMs`: the bound on the boxes' browser calls (the server's default otherwise). */
export function useLocalServer(tenant: string, opts: { cdpTimeoutMs?: number } = {}): LocalServer {
  const dir = mkdtempSync(join(tmpdir(), `boxflow-${tenant}-`));
  chmodSync(dir, 0o755); // box users (the server runs each box as its own user when root) reach their dirs
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let client: BoxClient | undefined;
  before(async () => {
    const secret = randomBytes(16).toString('hex');
    server = await startServer({ port: 0, dataDir: join(dir, 'srv'), secret, log: () => {}, ...opts });
    client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, tenant) });
  });
  after(async () => {
    await client?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir,
    get client() {
      if (!client) throw new Error('the local server starts in a before hook: use the client inside tests');
      return client;
    },
  };
}

export interface AndroidServer extends LocalServer {
  /** The fake adb server (a TEST DOUBLE speaking the real adb protocol), set in the before hook. */
  readonly fake: FakeAdbServer;
  /** The tenant's API key (a secret the runner masks). */
  readonly key: string;
}

/**
 * A real `boxflow serve` whose Android boxes run on the fake adb server's devices, each with the real
 * `pm list packages -f` capture; the client never retries, so a refusal shows as it is.
 */
export function useAndroidServer(tenant: string, serials: string[]): AndroidServer {
  const dir = mkdtempSync(join(tmpdir(), `boxflow-${tenant}-`));
  let fake: FakeAdbServer | undefined;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let client: BoxClient | undefined;
  let key: string | undefined;
  before(async () => {
    fake = await FakeAdbServer.start();
    for (const serial of serials) fake.addDevice(serial, (d) => void (d.packages = packagesFromFixture()));
    const secret = randomBytes(16).toString('hex');
    server = await startServer({ port: 0, dataDir: join(dir, 'server'), secret, log: () => {}, adb: fake.socketSpec });
    key = await createApiKey(secret, tenant);
    client = new BoxClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0 });
  });
  after(async () => {
    await client?.close();
    await server?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const started = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the server starts in a before hook: use it inside tests');
    return v;
  };
  return {
    dir,
    get client() { return started(client); },
    get fake() { return started(fake); },
    get key() { return started(key); },
  };
}
