// boxflow serve's log is fastify's logger (pino): one JSON line per entry, fastify's request lines and each action once with its
// actionId and tenant, and never a credential: not the signing secret, not an API key (a good one or
// a forged one), not the signature of a pre-signed URL, whatever a request carries.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { BoxClient } from '../../src/api/client.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { tempDir } from '../support/tmp.js';
import { waitFor } from '../support/waitFor.js';

const secret = randomBytes(16).toString('hex');
const lines: string[] = [];
let server: Awaited<ReturnType<typeof startServer>>;
let key: string;
let client: BoxClient;

before(async () => {
  const dir = tempDir('logs');
  server = await startServer({ port: 0, dataDir: `${dir}/srv`, secret, logger: { stream: { write: (line) => void lines.push(line) } } });
  key = await createApiKey(secret, 'logged');
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0 });
});
after(async () => {
  await client.close();
  await server.close();
});

test('each action is one JSON line with its actionId, tenant and status, and no line holds a credential', async () => {
  const box = await client.createLinuxBox({});
  const shot = await client.screenshot(box.id, { outputFormat: 'storageKey' });
  const url = new URL(shot.presignedUrl!);
  assert.ok(url.search.length > 1, 'a pre-signed URL');
  assert.equal((await fetch(url)).status, 200);
  // A forged key, a key in a header the server does not read, a secret in a path: all refused, none logged.
  const forged = await createApiKey(randomBytes(16).toString('hex'), 'mallory');
  assert.equal((await fetch(`${server.baseUrl}/boxes`, { headers: { authorization: `Bearer ${forged}` } })).status, 401);
  assert.equal((await fetch(`${server.baseUrl}/boxes/${secret}`, { headers: { authorization: `Bearer ${key}`, cookie: `k=${key}` } })).status, 404);
  await client.terminateBox(box.id);
  await waitFor(() => entries().some((e) => e.msg === 'action' && e.route === 'POST /boxes/{boxId}/actions/screenshot'), { what: 'the screenshot action in the log' });
  // fastify's own request lines are there too, the pre-signed URL without its query values.
  assert.ok(entries().some((e) => e.msg === 'incoming request' && (e.req as { url: string }).url === `${url.pathname}?${[...url.searchParams.keys()].join('&')}`), 'the pre-signed request is logged without its signature');

  const shotEntry = entries().find((e) => e.msg === 'action' && e.route === 'POST /boxes/{boxId}/actions/screenshot')!;
  assert.equal(shotEntry.level, 'info');
  assert.equal(shotEntry.tenant, 'logged');
  assert.equal(shotEntry.boxId, box.id);
  assert.equal(shotEntry.status, 200);
  assert.match(String(shotEntry.actionId), /\S/);
  const all = lines.join('');
  for (const [what, value] of [['the secret', secret], ['the API key', key], ['the forged key', forged], ['the URL signature', url.searchParams.get('sig')!]] as const) {
    assert.ok(!all.includes(value), `${what} is in the log`);
  }
});

function entries(): Array<Record<string, unknown>> {
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}
