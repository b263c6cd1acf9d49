// BoxClient vs a bare undici `request` loop: 10,000 sequential GET …/actions/screen-layout calls to
// a loopback server that answers a ~2 KB `{content: "<html>…</html>"}`. Both sides use the same
// Agent settings and headers and parse the JSON; ours adds what the client adds (URL building,
// timeout, retry bookkeeping, response validation). The server runs in a child process so its
// cost is not charged to the client. Short rounds alternate (ours first, then baseline first) to
// cancel drift from other load on the machine; the totals add the rounds up.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { BoxClient } from '../src/api/client.js';
import { benchSize, printResult } from './_report.js';

const kCalls = benchSize('BENCH_CALLS', 10_000, 200);
const kRounds = benchSize(undefined, 40, 4);
const kWarmup = 1_000;
const kKey = 'bench-key-0123456789';

const server = spawn(
  process.execPath,
  [
    '-e',
    `
  const { createServer } = require('node:http');
  const row = (i) => '<div class="row" id="r' + i + '"><span>Item ' + i + '</span><button>Open</button></div>';
  const html = '<html><head><title>Bench</title></head><body>' + Array.from({ length: 28 }, (_, i) => row(i)).join('') + '</body></html>';
  const body = Buffer.from(JSON.stringify({ content: html }));
  const server = createServer({ keepAliveTimeout: 30000 }, (req, res) => {
    if (req.method === 'GET' && req.url.endsWith('/actions/screen-layout')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port, bytes: body.length }) + String.fromCharCode(10)));
  process.stdin.on('end', () => process.exit(0)).resume();
  `,
  ],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const { port, bytes } = await new Promise<{ port: number; bytes: number }>((resolve, reject) => {
  server.once('error', reject);
  server.stdout!.once('data', (d: Buffer) => resolve(JSON.parse(String(d)) as { port: number; bytes: number }));
});
const baseUrl = `http://127.0.0.1:${port}/api/v1`;
const boxId = 'box-1';

// Same pool settings as BoxClient's own Agent.
const agentOptions = { keepAliveTimeout: 10_000, connections: 64 };
const client = new BoxClient({ baseUrl, apiKey: kKey }, {});
const agent = new Agent(agentOptions);
const url = `${baseUrl}/boxes/${boxId}/actions/screen-layout`;
const headers = { authorization: `Bearer ${kKey}`, accept: 'application/json', 'user-agent': 'boxflow/0.1.0' };

async function ours(n: number): Promise<number> {
  let size = 0;
  for (let i = 0; i < n; i++) size += (await client.screenLayout(boxId)).content.length;
  return size;
}

async function baseline(n: number): Promise<number> {
  let size = 0;
  for (let i = 0; i < n; i++) {
    const res = await request(url, { method: 'GET', headers, dispatcher: agent });
    const data = (await res.body.json()) as { content: string };
    size += data.content.length;
  }
  return size;
}

const cpu = { ours: 0, baseline: 0 };
async function timed(fn: (n: number) => Promise<number>, n: number): Promise<number> {
  const c = process.cpuUsage();
  const t = performance.now();
  const size = await fn(n);
  const wall = performance.now() - t;
  const used = process.cpuUsage(c);
  cpu[fn === ours ? 'ours' : 'baseline'] += (used.user + used.system) / 1000;
  if (size === 0) throw new Error('empty responses');
  return wall;
}

try {
  await ours(kWarmup);
  await baseline(kWarmup);
  let oursMs = 0;
  let baseMs = 0;
  const perRound = Math.ceil(kCalls / kRounds);
  for (let r = 0; r < kRounds; r++) {
    if (r % 2 === 0) {
      oursMs += await timed(ours, perRound);
      baseMs += await timed(baseline, perRound);
    } else {
      baseMs += await timed(baseline, perRound);
      oursMs += await timed(ours, perRound);
    }
  }
  const calls = perRound * kRounds;
  process.stderr.write(
    `client screen-layout (${bytes} B responses, ${calls} calls each): BoxClient ${oursMs.toFixed(0)} ms (${((oursMs * 1000) / calls).toFixed(1)} µs/op), ` +
      `undici request ${baseMs.toFixed(0)} ms (${((baseMs * 1000) / calls).toFixed(1)} µs/op); ` +
      `client-process CPU: ours ${cpu.ours.toFixed(0)} ms, baseline ${cpu.baseline.toFixed(0)} ms (ratio ${(cpu.ours / cpu.baseline).toFixed(3)})\n`,
  );
  printResult('client', 'screen-layout', 'ms', oursMs, baseMs);
  // Wall time on a shared machine swings with other load; the client process's CPU time does not.
  printResult('client', 'screen-layout-cpu', 'ms cpu', cpu.ours, cpu.baseline);
} finally {
  await client.close();
  await agent.close();
  server.stdin!.end();
  await new Promise((resolve) => server.once('exit', resolve));
}
