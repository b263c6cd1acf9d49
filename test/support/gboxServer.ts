// A real `boxflow serve` for the GBOX endpoint tests, with keys for several tenants (a tenant's ids
// must be invisible to the others) and a raw request as the reference SDK puts it on the wire.
// Android devices, when asked for, are on the fake adb server (a TEST DOUBLE of the adb protocol).
import { after, before } from 'node:test';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { BoxClient } from '../../src/api/client.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { FakeAdbServer, packagesFromFixture } from './fakeAdbServer.js';

export interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
  actionId: string | undefined;
}

export interface GboxServer {
  readonly baseUrl: string;
  /** The fake adb server, when devices were asked for. */
  readonly fake: FakeAdbServer;
  /**
   * Resolves once the server listens. A test file's own `before` awaits it first: node runs the
   * root's `before` hooks as they are registered, without waiting for the one before.
   */
  ready(): Promise<void>;
  /** A client of `tenant` (made once per tenant); it never retries, so a refusal shows as it is. */
  client(tenant: string): BoxClient;
  /** A web site on loopback for the boxes to open (closed after the file's tests); its origin. */
  site(handler: RequestListener): Promise<string>;
  /** `tenant`'s API key, for requests no helper here makes (multipart bodies, binary answers). */
  key(tenant: string): string;
  /** A request with `tenant`'s key: a JSON body when given, else none (and no content-type). */
  raw(tenant: string, method: string, path: string, json?: unknown): Promise<RawAnswer>;
}

export function useGboxServer(name: string, serials: string[] = []): GboxServer {
  const dir = mkdtempSync(join(tmpdir(), `boxflow-${name}-`));
  chmodSync(dir, 0o755); // box users (the server runs each box as its own user when root) reach their dirs
  const secret = randomBytes(16).toString('hex');
  const clients = new Map<string, BoxClient>();
  const keys = new Map<string, string>();
  const sites: Server[] = [];
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let fake: FakeAdbServer | undefined;
  const started = () => {
    if (!server) throw new Error('the server starts in a before hook: use it inside tests');
    return server;
  };
  const ready = (async () => {
    await new Promise<void>((resolve) => before(() => resolve()));
    fake = await FakeAdbServer.start();
    for (const serial of serials) fake.addDevice(serial, (d) => void (d.packages = packagesFromFixture()));
    server = await startServer({ port: 0, dataDir: join(dir, 'srv'), secret, log: () => {}, adb: fake.socketSpec });
    for (const tenant of ['a', 'b']) keys.set(tenant, await createApiKey(secret, `${name}-${tenant}`));
  })();
  ready.catch(() => {});
  before(() => ready);
  after(async () => {
    for (const c of clients.values()) await c.close();
    // The boxes' browsers may hold a connection that never sent a request (a preconnect): close() would wait for it.
    for (const site of sites) {
      site.closeAllConnections();
      await new Promise((r) => site.close(r));
    }
    await server?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const keyOf = (tenant: string) => {
    const key = keys.get(tenant);
    if (!key) throw new Error(`tenant ${tenant}: use "a" or "b"`);
    return key;
  };
  return {
    ready: () => ready,
    get baseUrl() {
      return started().baseUrl;
    },
    get fake() {
      started();
      return fake!;
    },
    client(tenant) {
      let c = clients.get(tenant);
      if (!c) clients.set(tenant, (c = new BoxClient({ baseUrl: started().baseUrl, apiKey: keyOf(tenant), maxRetries: 0 })));
      return c;
    },
    key: (tenant) => keyOf(tenant),
    async site(handler) {
      const site = createServer(handler);
      sites.push(site);
      await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(site.address() as { port: number }).port}`;
    },
    async raw(tenant, method, path, json) {
      const res = await request(started().baseUrl + path, {
        method: method as 'GET',
        headers: { authorization: `Bearer ${keyOf(tenant)}`, ...(json !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
      });
      const actionId = res.headers['x-boxflow-action-id'];
      return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), text: await res.body.text(), actionId: typeof actionId === 'string' ? actionId : undefined };
    },
  };
}
