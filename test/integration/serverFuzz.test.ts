// Seeded fuzzing of boxflow serve over real HTTP with a real Chromium box: 1,200 malformed requests
// over every route of the contract (bad JSON, wrong types, huge numbers and strings, deep nesting,
// unknown fields, wrong content types, bad box ids and query strings, with and without a key).
// None may get a 5xx or go unanswered, every refusal is `{code, message}`, and the server still
// works at the end. Then 600 on an Android box (on the fake adb server, a TEST DOUBLE:
// test/support/fakeAdbServer.ts): package, activity, album and media names and texts full of shell
// metacharacters, and random multipart install bodies; besides the above, no command line may reach
// the device with a metacharacter outside quotes. Then CDP payloads on the Linux box's pre-signed CDP
// URL (deep nesting, keys twice, other shapes, frames over 16 MiB, bytes that are not UTF-8): each
// is answered, refused with an error answer, or closes its own connection with a code that says
// why, and the server goes on. BOXFLOW_FUZZ_SEED replays another sequence.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../../src/api/client.js';
import { endpoints, kKeyNames, type Box, type Endpoint } from '../../src/api/schemas.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { rawRequest, type RawRequest } from '../support/rawHttp.js';
import { FakeAdbServer, packagesFromFixture, type FakeDevice } from '../support/fakeAdbServer.js';
import { rawCdp } from '../support/rawCdpClient.js';

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
let fake: FakeAdbServer;
let dev: FakeDevice;
let android: Box;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'boxflow-fuzz-'));
  fake = await FakeAdbServer.start();
  dev = fake.addDevice('emulator-5554', (d) => {
    d.packages = [...packagesFromFixture(), { packageName: 'com.example.app', apkPath: '/data/app/com.example.app-1/base.apk', system: false, versionName: '1', launcher: '.Main' }];
  });
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {}, adb: fake.socketSpec });
  key = await createApiKey(kSecret, 'fuzz');
  otherKey = await createApiKey(kSecret, 'someone-else');
  client = new BoxClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0 });
  box = await client.createLinuxBox();
  await client.openTab(box.id, { url: `data:text/html,${encodeURIComponent('<input autofocus><p>fuzz target</p>')}` });
  android = await client.createAndroidBox();
});

after(async () => {
  await client?.close();
  await server?.close();
  await fake?.close();
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
  detectElements: { screenshot: { outputFormat: 'base64', presignedExpiresIn: '1m' } },
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
  // Which refusals a seed reaches moves with the endpoints table (each request is of the next endpoint).
  assert.ok([...seen.keys()].filter((s) => s >= 400).length >= 4, `several kinds of refusal: ${[...seen.keys()].join(', ')}`);

  // Still alive and serving: the box takes work and the server takes new boxes' worth of requests.
  assert.equal((await client.getBox(box.id)).status, 'running');
  await client.resetSettings(box.id);
  await client.setResolution(box.id, { width: 1280, height: 800 });
  await client.openTab(box.id, { url: `data:text/html,${encodeURIComponent('<input autofocus>')}` });
  await client.type(box.id, { text: 'still here' });
  assert.match((await client.screenLayout(box.id)).content, /value="still here"/);
  assert.equal((await client.listBoxes()).total, 2, 'no stray boxes');
});

// ------------------------------------------------------------------ the Android box

const kAndroidRequests = 600;
/** What a tenant may put in a name to reach the device's shell, and a few other troublemakers. */
const kMeta = [';', '$', '(', ')', '`', '|', '&', '#', ' ', "'", '"', '\\', '*', '?', '~', '<', '>', '{', '}', '[', ']', '!', '%', '\n', '\t', '\r', '=', ',', '@', ':', '+', 'é', '🙂', '$(id)', '`id`', ';id #', '&&', '\u0000'];
const kInstalled = ['com.example.app', 'com.google.android.youtube', 'android'];

function metaString(r: Rng, max = 24): string {
  let out = '';
  const n = 1 + r.int(max);
  for (let i = 0; i < n; i++) out += r.chance(0.4) ? r.pick(kMeta) : r.pick(['a', 'Z', '0', '9', '_', '.', '-', '/', 'com', 'app', 'Main']);
  return out;
}

/** A package name: mostly with metacharacters, sometimes valid (installed or not), URL-encoded for the path. */
function packageName(r: Rng): string {
  const name = r.pick([
    () => metaString(r),
    () => `com.example${r.pick(kMeta)}${metaString(r, 6)}`,
    () => `${r.pick(kInstalled)}${r.pick(kMeta)}`,
    () => r.pick(kInstalled),
    () => `org.fuzz${r.int(1000)}.app`,
    () => r.pick(['x', '..', '.', 'a..b', '.a.b', 'a.b.', '1a.b', 'a._b', 'a'.repeat(101), 'x;id #', 'x$(id)', 'x`id`']),
  ])();
  return encodeURIComponent(name);
}

function activityName(r: Rng): string {
  return r.pick([
    () => metaString(r),
    () => `.Main${r.pick(kMeta)}`,
    () => r.pick(['.Main', 'Main', 'com.example.app.Main', 'com.example.app/.Main', '.Outer$Inner', 'com.other/.Main', '', '/', '.', 'a..b']),
    () => `.${metaString(r, 8)}`,
  ])();
}

function androidJson(r: Rng, route: string): unknown {
  switch (route) {
    case 'open':
    case 'restart':
      return r.pick([
        () => ({}),
        () => ({ activityName: activityName(r) }),
        () => ({ activityName: activityName(r), extras: Object.fromEntries(Array.from({ length: r.int(4) }, () => [metaString(r, 8), metaString(r, 16)])) }),
        () => ({ extras: { [metaString(r, 6)]: metaString(r) } }),
        () => ({ activityName: r.int(5) }),
      ])();
    case 'type':
      return { text: r.pick([() => metaString(r, 60), () => `${metaString(r, 8)}\n`.repeat(1 + r.int(50)), () => "it's a\n\nb %s c", () => 'x'.repeat(r.pick([1, 1_500, 4_000]))])(), ...(r.chance(0.3) ? { mode: 'replace' } : {}), ...(r.chance(0.3) ? { pressEnter: true } : {}) };
    case 'openTab':
      return { url: r.pick([() => `https://example.com/${metaString(r)}`, () => metaString(r), () => `intent:${metaString(r)}`, () => `http://x/${"'".repeat(r.int(5))}$(id)`]) () };
    case 'rename':
      return { oldPath: metaString(r), newPath: metaString(r), ...(r.chance(0.3) ? { workingDir: metaString(r) } : {}) };
    case 'pressKey':
      return { keys: r.pick([['a'], ['enter', 'tab'], ['control', 'a']]), combination: r.chance(0.5) };
    default:
      return {};
  }
}

/** A multipart install body: random parts (files of junk, URLs the server may not fetch, odd names), often broken. */
function multipartBody(r: Rng): { body: Buffer; type: string } {
  const boundary = r.pick(['X', 'b0uNd4ry', '----x', 'a'.repeat(70)]);
  const chunks: Buffer[] = [];
  const n = r.int(4);
  for (let i = 0; i < n; i++) {
    const file = r.chance(0.5);
    const name = r.pick(['apk', 'apk', 'apk', 'open', '__proto__', 'constructor', 'x', '', metaString(r, 6).replaceAll('"', '')]);
    const filename = r.pick(['a.apk', 'x.zip', '../../etc/passwd', 'a;b$(id).apk', '']);
    const head = `Content-Disposition: form-data; name="${name}"${file ? `; filename="${filename}"` : ''}${r.chance(0.15) ? '\r\nContent-Type: application/json' : ''}`;
    const content = file
      ? r.pick([() => Buffer.from('PK\x03\x04 not a zip'), () => Buffer.from(Array.from({ length: r.int(3_000) }, () => r.int(256))), () => Buffer.alloc(0), () => Buffer.from(`--${boundary}`)])()
      : Buffer.from(r.pick(['true', 'false', 'http://127.0.0.1:1/a.apk', 'http://[::1]/a.apk', 'http://10.1.2.3/a.apk', 'http://169.254.169.254/latest', 'not a url', 'file:///etc/passwd', '{"a":', '', metaString(r)]));
    chunks.push(Buffer.from(`--${boundary}\r\n${head}\r\n\r\n`), content, Buffer.from('\r\n'));
  }
  if (r.chance(0.7)) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  let body = Buffer.concat(chunks);
  if (r.chance(0.25)) body = body.subarray(0, r.int(body.length + 1));
  if (r.chance(0.1)) body = Buffer.from(body.toString('latin1').replaceAll('\r\n', '\n'), 'latin1');
  const type = r.pick([`multipart/form-data; boundary=${boundary}`, `multipart/form-data; boundary=${boundary}`, `multipart/form-data; boundary=${boundary}`, 'multipart/form-data', 'multipart/form-data; boundary=other', `multipart/mixed; boundary=${boundary}`, 'application/json']);
  return { body, type };
}

function androidRequest(r: Rng): RawRequest {
  const base = `${new URL(server.baseUrl).pathname}/boxes/${android.id}`;
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  const json = (route: string, path: string, method = 'POST'): RawRequest => {
    headers['content-type'] = 'application/json';
    return { method, path: base + path, headers, body: JSON.stringify(androidJson(r, route)), timeoutMs: kHang };
  };
  const roll = r.int(14);
  switch (roll) {
    case 0:
    case 1:
      return json('open', `/android/packages/${packageName(r)}/open`);
    case 2:
      return json('restart', `/android/packages/${packageName(r)}/restart`);
    case 3:
      return { method: 'POST', path: `${base}/android/packages/${packageName(r)}/${r.pick(['close', 'clear'])}`, headers, timeoutMs: kHang };
    case 4:
      return { method: 'GET', path: `${base}/android/packages/${packageName(r)}`, headers, timeoutMs: kHang };
    case 5:
    case 6:
    case 7: {
      const { body, type } = multipartBody(r);
      headers['content-type'] = type;
      return { method: 'POST', path: `${base}/android/packages`, headers, body, timeoutMs: kHang };
    }
    case 8:
      return json('type', '/actions/type');
    case 9:
      return json('openTab', '/browser/tabs');
    case 10:
      return { method: 'DELETE', path: `${base}/media/albums/${encodeURIComponent(r.pick(['Camera', metaString(r)]))}${r.chance(0.5) ? `/media/${encodeURIComponent(metaString(r))}` : ''}`, headers, timeoutMs: kHang };
    case 11:
      return json('rename', '/fs/rename');
    case 12:
      return json('pressKey', '/actions/press-key');
    default:
      return { method: 'GET', path: `${base}/android/packages${r.pick(['', '?pkgType=system', '?runningFilter=running', '?pkgType=x'])}`, headers, timeoutMs: kHang };
  }
}

test(`${kAndroidRequests} seeded requests on an Android box (seed ${kSeed}): metacharacter names and random multipart bodies, no 5xx, nothing unquoted on the device`, async (t) => {
  const r = prng(kSeed ^ 0xad8);
  dev.writeFile('/sdcard/DCIM/Camera/IMG_1.jpg', 'x');
  const requests = Array.from({ length: kAndroidRequests }, () => androidRequest(r));
  const seen = new Map<number, number>();
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < requests.length; i = next++) {
      const req = requests[i]!;
      const what = `#${i} ${req.method} ${req.path.slice(0, 160)} ${JSON.stringify(String(req.body ?? '').slice(0, 160))}`;
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
        try {
          const json = JSON.parse(res.text) as Record<string, unknown>;
          if (typeof json.code !== 'string' || typeof json.message !== 'string' || Object.keys(json).some((k) => !['code', 'message', 'details'].includes(k))) problems.push(`${what}: ${res.status} body is not {code, message}: ${res.text.slice(0, 200)}`);
        } catch {
          problems.push(`${what}: ${res.status} body is not JSON: ${res.text.slice(0, 200)}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: kParallel }, worker));
  assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems; statuses ${JSON.stringify(Object.fromEntries(seen))}`);
  t.diagnostic(`statuses ${JSON.stringify(Object.fromEntries([...seen].sort((a, b) => a[0] - b[0])))}; ${dev.shellCommands.length} device command lines`);
  assert.deepEqual(dev.unquotedLines.slice(0, 20), [], 'a command line reached the device with a metacharacter outside quotes');
  assert.ok([...seen.keys()].some((s) => s < 300), `some requests were served: ${[...seen.keys()].join(', ')}`);
  assert.ok((seen.get(400) ?? 0) > 50, `names with metacharacters were refused: ${JSON.stringify(Object.fromEntries(seen))}`);
  assert.ok(dev.shellCommands.length > 20, 'and the device did work');

  // Alive: the box is running, takes work, and no install upload was left behind.
  assert.equal((await client.getBox(android.id)).status, 'running');
  const log = dev.inputLog.length;
  await client.type(android.id, { text: 'still here' });
  assert.equal(dev.inputLog.slice(log), 'still here');
  assert.equal((await client.getBox(box.id)).status, 'running');
});

// ------------------------------------------------------------------ CDP payloads

const kCdpPayloads = 240;
/** Commands that leave the box as it is (no tab opened, closed or navigated). */
const kCdpCommands = ['Browser.getVersion', 'Target.getTargets', 'Target.getBrowserContexts', 'Storage.getCookies', 'Browser.resetPermissions', 'Runtime.evaluate', 'DOM.getDocument', 'Target.attachToBrowserTarget'];
/** Closes that say why a frame was refused: too big (1009), not UTF-8 (1007). */
const kCdpCloses = [1009, 1007];

/** What `work` resolves to, or `late` when that takes longer than `ms`. */
async function within<T>(work: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(late), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

const deepJson = (r: Rng, n: number) => (r.chance(0.5) ? `${'{"a":'.repeat(n)}1${'}'.repeat(n)}` : `${'['.repeat(n)}${']'.repeat(n)}`);

/** One frame for the CDP URL: `session` is a page session of this connection. */
function cdpPayload(r: Rng, id: number, session: string): { data: string | Buffer; binary?: boolean } {
  const method = () => JSON.stringify(r.pick(kCdpCommands));
  const params = () => r.pick(['{}', '{"expression":"1+1","returnByValue":true}', '{"permissions":["geolocation"]}', weirdValue(r)]);
  const sessionKey = () => (r.chance(0.5) ? `,"sessionId":${JSON.stringify(session)}` : '');
  switch (r.int(12)) {
    case 0: // well formed, to the browser or to the page
      return { data: `{"id":${id},"method":${method()},"params":${params()}${sessionKey()}}` };
    case 1: // an id of another type or range
      return { data: `{"id":${r.pick([...kWeirdNumbers, '"1"', 'null', '[]', '{}', '1.5', '-7'])},"method":${method()},"params":{}}` };
    case 2: // a method that is not one
      return { data: `{"id":${id},"method":${r.pick([...kWeirdStrings.map((s) => JSON.stringify(s)), '1', 'null', '{}', JSON.stringify('Target.createTarget'.repeat(50))])},"params":{}}` };
    case 3: // a session that is not this connection's, or not a string
      return { data: `{"id":${id},"method":${method()},"params":{},"sessionId":${r.pick([...kWeirdStrings.map((s) => JSON.stringify(s)), '1', 'null', '{}', JSON.stringify('A'.repeat(32)), JSON.stringify(session.toLowerCase()), JSON.stringify(`${session} `)])}}` };
    case 4: // a key twice: which one counts must not be a way to another session
      return {
        data: r.pick([
          `{"id":${id},"method":${method()},"params":{},"id":${id + 1}}`,
          `{"id":${id},"method":"Browser.getVersion","params":{},"method":"Target.closeTarget"}`,
          `{"id":${id},"method":${method()},"params":{},"sessionId":"${session}","sessionId":"${'B'.repeat(32)}"}`,
          `{"id":${id},"method":${method()},"params":{},"params":{"expression":"1"}}`,
          `{"id":${id},"method":"Runtime.evaluate","params":{"expression":"1"},"x":{},"sessionId":"${session}"}`,
        ]),
      };
    case 5: // nested just under, just over and far over what Chromium reads, in params, or the whole message
      return {
        data: r.pick([
          () => `{"id":${id},"method":${method()},"params":{"a":${deepJson(r, r.pick([297, 299, 301, 1_000, 100_000, 1_000_000]))}}${sessionKey()}}`,
          () => `{"method":${method()},"params":${deepJson(r, r.pick([301, 100_000]))},"id":${id}}`,
          () => deepJson(r, r.pick([1_000, 1_000_000, 4_000_000])),
        ])(),
      };
    case 6:
      return { data: badJson(r) };
    case 7: // other key orders and spacing (as other clients write them)
      return { data: r.pick([`{ "id" : ${id} , "method" : ${method()} , "params" : {} }`, `{"method":${method()},"id":${id}}`, `{"sessionId":"${session}","id":${id},"method":"Runtime.evaluate","params":{"expression":"2"}}`, `{"id":${id},"method":${method()},"params":{}}\n`]) };
    case 8: // large: under, at and over the 16 MiB a frame may carry (rarely: they cost)
      if (!r.chance(0.25)) return { data: `{"id":${id},"method":${method()},"params":{"pad":"${'x'.repeat(r.pick([1_000, 100_000, 1_000_000]))}"}}` };
      return { data: `{"id":${id},"method":"Browser.getVersion","params":{"pad":"${'x'.repeat(r.pick([15 * 1024 * 1024, 16 * 1024 * 1024 - 80, 17 * 1024 * 1024]))}"}}` };
    case 9: // bytes: a binary frame, or text that is not UTF-8
      return r.chance(0.5)
        ? { data: Buffer.from(Array.from({ length: r.int(2_000) }, () => r.int(256))), binary: true }
        : { data: Buffer.concat([Buffer.from(`{"id":${id},"method":"Browser.getVersion","params":{"s":"`), Buffer.from([0xff, 0xfe, 0xc0]), Buffer.from('"}}')]) };
    case 10: // a context-scoped command the proxy reads on its way (it names the box's context)
      return { data: `{"id":${id},"method":"${r.pick(['Storage.getCookies', 'Browser.resetPermissions', 'Browser.grantPermissions'])}","params":${r.pick(['{}', '{"browserContextId":1}', '{"browserContextId":null}', `{"a":${deepJson(r, r.pick([301, 100_000]))}}`, weirdValue(r)])}}` };
    default: // an answer's or an event's shape instead of a command's
      return { data: r.pick([`{"id":${id},"result":{}}`, `{"method":"Target.attachedToTarget","params":{"sessionId":"${'C'.repeat(32)}"}}`, `{"id":${id},"error":{"code":1,"message":"x"},"sessionId":"${session}"}`]) };
  }
}

test(`${kCdpPayloads} seeded CDP payloads (seed ${kSeed}): every frame is answered, refused with an error answer or closes its own connection; the server and other tenants go on`, { timeout: 300_000 }, async (t) => {
  const r = prng(kSeed ^ 0xcd9);
  const someoneElse = new BoxClient({ baseUrl: server.baseUrl, apiKey: otherKey, maxRetries: 0 });
  // What the other tenant holds (an earlier fuzz request may have made it a box): the same after.
  const othersBefore = (await someoneElse.listBoxes()).data.map((b) => b.id);
  const url = await client.cdpUrl(box.id, {});
  const problems: string[] = [];
  const closes = new Map<number, number>();
  let answered = 0;
  const open = async () => {
    const conn = await rawCdp(url);
    const { result } = await conn.call('Target.getTargets');
    const target = (result!.targetInfos as Array<{ targetId: string; type: string }>).find((x) => x.type === 'page')!;
    const session = (await conn.call('Target.attachToTarget', { targetId: target.targetId, flatten: true })).result!.sessionId as string;
    return { conn, session };
  };
  let { conn, session } = await open();
  for (let i = 0; i < kCdpPayloads; i++) {
    const id = 10 * i + 1;
    const { data, binary } = cdpPayload(r, id, session);
    const what = `#${i} ${JSON.stringify(typeof data === 'string' ? data.slice(0, 160) : data.subarray(0, 160).toString('latin1'))}`;
    conn.send(data, binary);
    // A command after it is answered, or the connection closed for a reason it gives.
    const sentinel = conn.call('Browser.getVersion').then(
      (m) => (m.result ? 'answered' : `error ${JSON.stringify(m.error)}`),
      () => 'closed',
    );
    const outcome = await within(sentinel, kHang, 'no answer');
    if (outcome === 'answered') answered++;
    else if (outcome === 'closed') {
      const { code } = await conn.closed;
      closes.set(code, (closes.get(code) ?? 0) + 1);
      if (!kCdpCloses.includes(code)) problems.push(`${what}: closed with ${code}`);
    } else problems.push(`${what}: the command after it got ${outcome}`);
    if (conn.unreadable.length) problems.push(`${what}: the server sent something that is not a JSON object: ${conn.unreadable.splice(0).join(' | ').slice(0, 200)}`);
    const refusal = conn.received.find((m) => m.id === id && m.error);
    if (refusal && (typeof refusal.error!.message !== 'string' || refusal.error!.message.length > 1_000)) problems.push(`${what}: error answer ${JSON.stringify(refusal).slice(0, 200)}`);
    if (outcome !== 'answered') {
      conn.close();
      ({ conn, session } = await open());
    }
    conn.received.length = 0;
  }
  conn.close();
  assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems; closes ${JSON.stringify(Object.fromEntries(closes))}`);
  t.diagnostic(`${answered} answered after their payload; closes ${JSON.stringify(Object.fromEntries(closes))}`);
  assert.ok(answered > kCdpPayloads / 2, 'most payloads leave their connection serving');

  // Alive: the box takes work over the API and over its CDP URL, and another tenant is served.
  assert.equal((await client.getBox(box.id)).status, 'running');
  await client.openTab(box.id, { url: `data:text/html,${encodeURIComponent('<input autofocus>')}` });
  await client.type(box.id, { text: 'after cdp' });
  assert.match((await client.screenLayout(box.id)).content, /value="after cdp"/);
  const again = await open();
  assert.match(String((await again.conn.call('Runtime.evaluate', { expression: '6*7', returnByValue: true }, again.session)).result?.result?.value), /^42$/);
  again.conn.close();
  assert.deepEqual((await someoneElse.listBoxes()).data.map((b) => b.id), othersBefore);
  await someoneElse.close();
});
