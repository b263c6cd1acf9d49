// Seeded fuzzing of boxflow serve over real HTTP with a real Chromium box: 1,200 malformed requests
// over every route of the contract (bad JSON, wrong types, huge numbers and strings, deep nesting,
// unknown fields, wrong content types, bad box ids and query strings, with and without a key).
// None may get a 5xx or go unanswered, every refusal is `{code, message}`, and the server still
// works at the end. BOXFLOW_FUZZ_SEED replays another sequence.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { endpoints, kKeyNames, type Box, type Endpoint } from '../../src/api/schemas.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { rawRequest, type RawRequest } from '../support/rawHttp.js';

const kSeed = Number(process.env.BOXFLOW_FUZZ_SEED ?? 0xb0f1);
const kRequests = 1_200;
const kParallel = 6;
/** An answer later than this is a hang. */
const kHang = 30_000;
const kSecret = 'fuzz-test-secret-0123456789abcdef';

let dataDir: string;
let server: Awaited<ReturnType<typeof startServer>>;
let client: BoxClient;
let box: Box;
let key: string;
let otherKey: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-fuzz-'));
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {} });
  key = await createApiKey(kSecret, 'fuzz');
  otherKey = await createApiKey(kSecret, 'someone-else');
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0 });
  box = await client.createLinuxBox();
  await client.openTab(box.id, { url: `data:text/html,${encodeURIComponent('<input autofocus><p>fuzz target</p>')}` });
});

after(async () => {
  await client?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** mulberry32: a small seeded PRNG, so a failure can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Rng = ReturnType<typeof prng>;

// A well-formed body per route, which the mutations below then break (or, sometimes, leave valid).
const kGood: Partial<Record<keyof typeof endpoints, Record<string, unknown>>> = {
  drag: { start: { x: 10, y: 10 }, end: { x: 20, y: 20 }, duration: '20ms' },
  pressKey: { keys: ['a'], combination: false },
  type: { text: 'fz', mode: 'append' },
  updateSettings: { scale: 1 },
  openTab: { url: 'about:blank' },
  cdpUrl: { expiresIn: '1m' },
  setResolution: { width: 1280, height: 800 },
  webTerminalUrl: { expiresIn: '1m' },
  renameFile: { oldPath: 'nope-a', newPath: 'nope-b' },
  createLinuxBox: { config: { labels: { a: 'b' }, expiresIn: '1h' }, wait: true },
  createAndroidBox: { config: {} },
  terminateBox: { wait: true },
  screenshot: { outputFormat: 'base64', clip: { x: 0, y: 0, width: 10, height: 10 } },
};

const kWeirdStrings = ['', ' ', 'NaN', 'Infinity', '-Infinity', '-0', '1e400', '0x10', 'null', 'true', '\u0000', '\ud800', '../../../../etc/passwd', '%00', '${HOME}', '<script>', '🙂'.repeat(3), 'a\nb', '999999999999999999999999h', '1e308ms', '.5h', '500 ms'];
const kWeirdNumbers = ['1e308', '-1e308', '1e999', '-1e999', '0', '-0', '1e-400', '9007199254740993', '-1', '0.1', '123456789012345678901234567890'];

function weirdValue(r: Rng, depth = 0): string {
  switch (r.int(depth > 2 ? 6 : 9)) {
    case 0: return r.pick(kWeirdNumbers);
    case 1: return JSON.stringify(r.pick(kWeirdStrings));
    case 2: return r.pick(['null', 'true', 'false', '[]', '{}']);
    case 3: return JSON.stringify(r.pick(kKeyNames).toUpperCase());
    case 4: return JSON.stringify('x'.repeat(r.pick([1_000, 70_000, 100_001, 1_500_000])));
    case 5: return `[${Array(r.pick([101, 1_001, 50_000])).fill(r.pick(['"a"', '1', '{"x":1,"y":1}', 'null'])).join(',')}]`;
    case 6: return `{${Array.from({ length: r.int(4) }, () => `${JSON.stringify(r.pick(kWeirdStrings))}:${weirdValue(r, depth + 1)}`).join(',')}}`;
    case 7: return `[${Array.from({ length: r.int(4) }, () => weirdValue(r, depth + 1)).join(',')}]`;
    default: return JSON.stringify(Object.fromEntries(Array.from({ length: r.pick([65, 300]) }, (_, i) => [`k${i}`, 'v'])));
  }
}

/** A JSON text built from the good body with one field broken (as text, so 1e999 and friends survive). */
function mutatedJson(r: Rng, good: Record<string, unknown>): string {
  const fields = Object.keys(good);
  const entries = fields.map((k) => [k, JSON.stringify(good[k])] as [string, string]);
  switch (r.int(5)) {
    case 0: // one field gets a weird value
      if (entries.length) entries[r.int(entries.length)]![1] = weirdValue(r);
      break;
    case 1: // one field dropped, another added
      if (entries.length) entries.splice(r.int(entries.length), 1);
      entries.push([r.pick(['extra', '__proto__', 'constructor', 'options', 'keys']), weirdValue(r)]);
      break;
    case 2: { // a nested field broken (points, clip, config, options)
      const nestedKey = fields.find((k) => typeof good[k] === 'object' && good[k] !== null && !Array.isArray(good[k]));
      const target = nestedKey ?? 'options';
      const inner = Object.keys((good[target] as Record<string, unknown>) ?? { screenshot: 1 });
      const at = entries.findIndex(([k]) => k === target);
      const value = `{${inner.map((k) => `${JSON.stringify(k)}:${weirdValue(r)}`).join(',')}}`;
      if (at >= 0) entries[at]![1] = value;
      else entries.push([target, `{"screenshot":{"delay":${weirdValue(r)},"phases":${weirdValue(r)}}}`]);
      break;
    }
    case 3: // the whole value some other shape
      return r.pick(['null', '[]', '"x"', '42', 'true', '[{}]', weirdValue(r)]);
    default: // unknown fields only
      entries.push([`unknown${r.int(100)}`, weirdValue(r)]);
  }
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
}

function badJson(r: Rng): string {
  const n = r.pick([10, 1_000, 100_000, 400_000]);
  return r.pick([
    '{', '{"a":', '[1,', '"unterminated', 'nul', '{"a":1}}', "{'a':1}", '{"a":1,}', '\u0000', 'NaN', '{"a": NaN}', '{"x": Infinity}', '01', '{"a":"\\ud800"}',
    '['.repeat(n) + ']'.repeat(n),
    '{"a":'.repeat(Math.min(n, 200_000)) + '1' + '}'.repeat(Math.min(n, 200_000)),
    '['.repeat(n),
    ' '.repeat(n),
  ]);
}

const kContentTypes = ['application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', '', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'APPLICATION/JSON', 'application/jsonx', '*/*', 'application/json; charset="utf-8"; x=y'];
const kQueries = ['', '', '', '?page=-1', '?pageSize=1e9', '?page=NaN&pageSize=Infinity', '?status=foo,bar', '?status=running,running,error,all,terminated,pending,running,error,all,terminated,pending,running,error,all,terminated,pending,running', '?labels[a]=b', '?labels[]=x', '?a[b][c][d]=1', '?%zz=1', '?page=1&page=2', '?type=android%2Clinux', `?labels[${'k'.repeat(5000)}]=v`, '?pkgType=system,thirdParty,x', '?runningFilter=', '?=&=&&', '?\u00e9=\u00e9'];

function boxIdFor(r: Rng): string {
  return r.pick([box.id, box.id, box.id, box.id, '', 'x', 'b'.repeat(100), 'b'.repeat(101), '%zz', '..', '%2e%2e', '%00', encodeURIComponent('🙂'), '00000000-0000-0000-0000-000000000000', `${box.id}%20`, encodeURIComponent(box.id.toUpperCase())]);
}

function authFor(r: Rng): Record<string, string> {
  return r.pick<Record<string, string>>([
    { authorization: `Bearer ${key}` }, { authorization: `Bearer ${key}` }, { authorization: `Bearer ${key}` }, { authorization: `Bearer ${key}` },
    {}, { authorization: 'Bearer ' }, { authorization: 'Bearer abc.def.ghi' }, { authorization: `bearer ${key}` }, { authorization: `Basic ${key}` },
    { authorization: `Bearer ${otherKey}` }, { authorization: `Bearer ${key.slice(0, -3)}xyz` }, { authorization: `Bearer ${'a'.repeat(8_000)}` },
  ]);
}

function generate(r: Rng, name: keyof typeof endpoints): RawRequest {
  const ep = endpoints[name] as Endpoint;
  const headers: Record<string, string> = authFor(r);
  const protectBox = name === 'terminateBox' || name === 'createLinuxBox';
  let path = ep.path.replace(/\{(\w+)\}/g, (_, p: string) => (p === 'boxId' ? boxIdFor(r) : r.pick(['com.example', '', 'a'.repeat(150), '%zz', 'x%2Fy', '..'])));
  path = new URL(server.baseUrl).pathname + path + r.pick(kQueries);
  let body: string | undefined;
  const good = kGood[name];
  const hasBody = ep.method !== 'GET' || r.chance(0.1);
  if (hasBody) {
    const roll = r.next();
    if (roll < 0.2) body = badJson(r);
    else if (roll < 0.9 && good) body = mutatedJson(r, good);
    else body = weirdValue(r);
    headers['content-type'] = r.pick(kContentTypes);
    if (r.chance(0.05)) delete headers['content-type'];
  }
  // Never let a generated request end the fuzzed box or start many more: both get a body that
  // the schema refuses (`wait` must be a boolean) whatever else was generated.
  if (protectBox && headers.authorization?.includes(key)) {
    headers['content-type'] = 'application/json';
    body = `{"wait":${r.pick(['"yes"', '1', 'null', '[]'])},"config":${r.pick(['{}', '[]', weirdValue(r)])}}`;
  }
  return { method: ep.method, path, headers, ...(body !== undefined ? { body } : {}), timeoutMs: kHang };
}

test(`${kRequests} seeded malformed requests (seed ${kSeed}): no 5xx, no hang, {code, message} refusals, the server alive`, async () => {
  const r = prng(kSeed);
  const names = Object.keys(endpoints) as Array<keyof typeof endpoints>;
  const requests = Array.from({ length: kRequests }, (_, i) => generate(r, names[i % names.length]!));
  const seen = new Map<number, number>();
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < requests.length; i = next++) {
      const req = requests[i]!;
      const what = `#${i} ${req.method} ${req.path.slice(0, 120)} ${String(req.body ?? '').slice(0, 120)}`;
      let res;
      try {
        res = await rawRequest(server.baseUrl, req);
      } catch (err) {
        problems.push(`${what}: ${(err as Error).message}`);
        continue;
      }
      seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
      if (res.status >= 500) problems.push(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
      if (res.status >= 400) {
        let json: Record<string, unknown> | undefined;
        try {
          json = JSON.parse(res.text) as Record<string, unknown>;
        } catch {
          problems.push(`${what}: ${res.status} body is not JSON: ${res.text.slice(0, 200)}`);
          continue;
        }
        const keys = Object.keys(json).filter((k) => k !== 'details').sort();
        if (keys.join() !== 'code,message' || typeof json.code !== 'string' || typeof json.message !== 'string') problems.push(`${what}: ${res.status} body is not {code, message}: ${res.text.slice(0, 200)}`);
        else if ((json.message as string).length > 1_000) problems.push(`${what}: a ${(json.message as string).length}-character message`);
        else if ((json.message as string).includes(dataDir)) problems.push(`${what}: the message names the data dir`);
      }
    }
  };
  await Promise.all(Array.from({ length: kParallel }, worker));
  assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems; statuses ${JSON.stringify(Object.fromEntries(seen))}`);
  assert.ok([...seen.keys()].some((s) => s < 300), 'some requests were valid and served');
  assert.ok([...seen.keys()].filter((s) => s >= 400).length >= 5, `several kinds of refusal: ${[...seen.keys()].join(', ')}`);

  // Still alive and serving: the box takes work and the server takes new boxes' worth of requests.
  assert.equal((await client.getBox(box.id)).status, 'running');
  await client.resetSettings(box.id);
  await client.setResolution(box.id, { width: 1280, height: 800 });
  await client.openTab(box.id, { url: `data:text/html,${encodeURIComponent('<input autofocus>')}` });
  await client.type(box.id, { text: 'still here' });
  assert.match((await client.screenLayout(box.id)).content, /value="still here"/);
  assert.equal((await client.listBoxes()).total, 1, 'no stray boxes');
});
