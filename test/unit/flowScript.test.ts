// The flow's JavaScript sandbox: `output` shared, variables as globals, unknown names undefined,
// a time limit, and `${expression}` in interpolated strings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { interpolate } from '../../src/flow/index.js';
import { isTrueText, ScriptHost } from '../../src/runner/script.js';

const g = (vars: Record<string, string> = {}) => ({ vars, platform: 'web' as const });

test('output persists between scripts, var declarations do not, and the last expression is the result', () => {
  const host = new ScriptHost();
  assert.equal(host.run('var local = 1; output.n = Number(N) + local; output.n', g({ N: '41' }), 't'), '42');
  assert.equal(host.run('typeof local', g(), 't'), 'undefined');
  assert.equal(host.run('output.n * 2', g(), 't'), '84');
  assert.equal(host.run('UNSET_NAME || "fallback"', g(), 't'), 'fallback');
  assert.equal(host.run('({a: [1, 2]})', g(), 't'), '{"a":[1,2]}');
  assert.equal(host.run('maestro.platform', g(), 't'), 'web');
  const logs: string[] = [];
  host.run('console.log("seen", output.n)', g(), 't', logs);
  assert.deepEqual(logs, ['seen 42']);
});

test('a script error and an endless script fail with the script named; the host process is out of reach', () => {
  const host = new ScriptHost();
  assert.throws(() => host.run('nope(', g(), 'evalScript'), /evalScript: SyntaxError/);
  assert.throws(() => host.run('while (true) {}', g(), 'loop.js'), /loop.js: the script ran longer than 10s/);
  assert.equal(host.run('typeof process + typeof require', g(), 't'), 'undefinedundefined');
  assert.equal(host.run('output.constructor.constructor("return typeof process")()', g(), 't'), 'undefined');
  assert.equal(host.run('output.after = 1', g(), 't'), '1', 'the context survives a timeout');
});

test('${expression} runs in the sandbox, up to the last } before the next $; ${NAME} stays a variable', () => {
  const host = new ScriptHost();
  host.run('output.user = {name: "bo"}', g(), 't');
  const vars = { N: '3' };
  const js = (e: string) => host.run(e, g(vars), 't');
  assert.equal(interpolate('hi ${output.user.name} x${N}', vars, {}, js), 'hi bo x3');
  assert.equal(interpolate('${ [{a: 1}][0].a + Number(N) } and ${N * 2}', vars, {}, js), '4 and 6');
  assert.equal(interpolate('$${output.x}', vars, {}, js), '${output.x}');
  assert.throws(() => interpolate('${output.x}', vars, {}), /not a variable reference/, 'without a sandbox an expression is an error, as before');
});

test('the truth of a condition text follows Maestro: blank, false, undefined, null and 0 are false', () => {
  for (const t of ['', ' ', 'false', 'FALSE', 'undefined', 'null', '0', '0.0']) assert.equal(isTrueText(t), false, t);
  for (const t of ['true', '1', 'someVar', 'no', 'Undefined ']) assert.equal(isTrueText(t), true, t);
});

/** A loopback HTTP server in a worker thread: the script's thread blocks while it waits, as Maestro's does. */
async function echoServer(): Promise<{ url: string; close(): Promise<number> }> {
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(
    `const http = require('node:http');
     const { parentPort } = require('node:worker_threads');
     const server = http.createServer((req, res) => {
       let body = '';
       req.on('data', (c) => (body += c));
       req.on('end', () => {
         if (req.url === '/missing') { res.writeHead(404, { 'x-kind': 'none' }); return res.end('no such thing'); }
         res.writeHead(200, { 'content-type': 'application/json', 'x-kind': 'echo' });
         res.end(JSON.stringify({ method: req.method, url: req.url, auth: req.headers.authorization ?? null, body }));
       });
     });
     server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
    { eval: true },
  );
  const port = await new Promise<number>((resolve) => worker.once('message', resolve));
  return { url: `http://127.0.0.1:${port}`, close: () => worker.terminate() };
}

test('http calls are synchronous and answer {ok, status, body, headers}, as in Maestro scripts', async () => {
  const server = await echoServer();
  try {
    const host = new ScriptHost();
    const vars = { BASE: server.url };
    host.run(`const r = http.post(BASE + '/users', { headers: { Authorization: 'Bearer t' }, body: JSON.stringify({ name: 'bo' }) });
      output.user = json(r.body); output.status = r.status; output.ok = r.ok; output.kind = r.headers['x-kind'];`, g(vars), 'api.js');
    assert.equal(host.run('output.status + " " + output.ok + " " + output.kind', g(), 't'), '200 true echo');
    assert.equal(host.run('output.user.method + " " + output.user.url + " " + output.user.auth + " " + output.user.body', g(), 't'), 'POST /users Bearer t {"name":"bo"}');
    assert.equal(host.run('http.get(BASE + "/missing").status', g(vars), 't'), '404');
    assert.equal(host.run('http.get(BASE + "/missing").ok', g(vars), 't'), 'false');
    assert.equal(host.run('json(http.delete(BASE + "/x").body).method', g(vars), 't'), 'DELETE');
    assert.equal(host.run('json(http.request(BASE + "/y", {method: "put", body: "b"}).body).method', g(vars), 't'), 'PUT');
  } finally {
    await server.close();
  }
  const host = new ScriptHost();
  assert.throws(() => host.run('http.get("http://127.0.0.1:1/")', g(), 'api.js'), /api\.js: Error: http GET http:\/\/127\.0\.0\.1:1\/: /);
});

test('faker gives the common Datafaker generators, and names an unsupported one', () => {
  const host = new ScriptHost();
  const run = (code: string) => host.run(code, g(), 't');
  assert.match(run('faker.name().firstName()'), /^[A-Z][a-z]+$/);
  assert.match(run('faker.name().fullName()'), /^[A-Z][a-z]+ [A-Z][a-z]+$/);
  assert.match(run('faker.internet().emailAddress()'), /^[a-z.]+\d+@example\.com$/);
  assert.match(run('faker.number().digits(6)'), /^[1-9]\d{5}$/);
  const n = Number(run('faker.number().numberBetween(5, 8)'));
  assert.ok(n >= 5 && n < 8, String(n));
  assert.match(run('faker.internet().uuid()'), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.match(run('faker.lorem().sentence()'), /^[A-Z][a-z ]+\.$/);
  assert.match(run('faker.address().city()'), /^[A-Z]/);
  assert.throws(() => run('faker.name().nickname()'), /faker\.name\(\)\.nickname\(\) is not supported by boxflow \(name\(\) has firstName, lastName/);
  assert.throws(() => run('faker.pokemon().name()'), /faker\.pokemon\(\) is not supported by boxflow \(it has name, internet/);
});

test('the shell\'s MAESTRO_* variables are script globals; flow variables win over them', () => {
  process.env.MAESTRO_TEST_REGION = 'eu';
  process.env.MAESTRO_TEST_EMPTY = '';
  try {
    const host = new ScriptHost();
    assert.equal(host.run('MAESTRO_TEST_REGION + "/" + typeof MAESTRO_TEST_EMPTY', g(), 't'), 'eu/undefined');
    assert.equal(host.run('MAESTRO_TEST_REGION', g({ MAESTRO_TEST_REGION: 'us' }), 't'), 'us');
  } finally {
    delete process.env.MAESTRO_TEST_REGION;
    delete process.env.MAESTRO_TEST_EMPTY;
  }
});
