// A real `boxflow serve` on loopback with one Linux box (real Chromium), for the benches that time
// the runner or the client against it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { BoxClient } from '../src/api/client.js';
import { createApiKey, startServer } from '../src/server/index.js';

/** `artifactsDir`: as boxflow test's embedded server, write action images into that run output folder. */
export async function localBox(prefix: string, opts: { artifactsDir?: (dataDir: string) => string } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const secret = randomBytes(16).toString('hex');
  const artifactsDir = opts.artifactsDir?.(dataDir);
  const server = await startServer({ port: 0, dataDir, secret, log: () => {}, ...(artifactsDir ? { artifactsDir } : {}) });
  const client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'bench') });
  const box = await client.createLinuxBox({ wait: true });
  return {
    dataDir,
    artifactsDir,
    client,
    box,
    async close(): Promise<void> {
      await client.terminateBox(box.id);
      await client.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
