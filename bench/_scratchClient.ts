import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { BoxClient } from '../src/api/client.js';
const server = spawn(process.execPath, ['-e', `
  const { createServer } = require('node:http');
  
  const body = Buffer.from(JSON.stringify({ content: '<html>' + 'x'.repeat(2100) + '</html>' }));
  const server = createServer({ keepAliveTimeout: 30000 }, (req, res) => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }); res.end(body); });
  server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port)+String.fromCharCode(10)));
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((r) => server.stdout!.once('data', (d) => r(Number(String(d).trim()))));
const baseUrl = `http://127.0.0.1:${port}/api/v1`;
const url = `${baseUrl}/boxes/b/actions/screen-layout`;
const headers = { authorization: 'Bearer k', accept: 'application/json', 'user-agent': 'x' };
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
const client = new BoxClient({ baseUrl, apiKey: 'kkkk' }, {});
const noval = new BoxClient({ baseUrl, apiKey: 'kkkk', validateResponses: false }, {});
const variants: Record<string, () => Promise<unknown>> = {
  bare: async () => (await request(url, { headers, dispatcher: agent })).body.json(),
  text: async () => JSON.parse(await (await request(url, { headers, dispatcher: agent })).body.text()),
  timeoutSignal: async () => (await request(url, { headers, dispatcher: agent, signal: AbortSignal.timeout(60000) })).body.json(),
  acTimer: async () => { const ac = new AbortController(); const t = setTimeout(() => ac.abort(), 60000); try { return await (await request(url, { headers, dispatcher: agent, signal: ac.signal })).body.json(); } finally { clearTimeout(t); } },
  undiciTimeouts: async () => (await request(url, { headers, dispatcher: agent, headersTimeout: 60000, bodyTimeout: 60000 })).body.json(),
  client: () => client.screenLayout('b'),
  clientNoValidate: () => noval.screenLayout('b'),
};
const n = 250;
const samples: Record<string, number[]> = {};
for (const k of Object.keys(variants)) for (let i = 0; i < 300; i++) await variants[k]!();
for (let round = 0; round < 40; round++) {
  for (const k of round % 2 ? Object.keys(variants).reverse() : Object.keys(variants)) {
    const t = performance.now();
    for (let i = 0; i < n; i++) await variants[k]!();
    (samples[k] ??= []).push((performance.now() - t) * 1000 / n);
  }
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
for (const [k, v] of Object.entries(samples)) console.log(k.padEnd(18), med(v).toFixed(1), 'µs/op', (med(v) / med(samples.bare!)).toFixed(2), 'min', Math.min(...v).toFixed(1));
await client.close(); await noval.close(); await agent.close(); server.kill();
