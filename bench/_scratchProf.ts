import { spawn } from 'node:child_process';
import { BoxClient } from '../src/api/client.js';
const server = spawn(process.execPath, ['-e', `
  const { createServer } = require('node:http');
  const body = Buffer.from(JSON.stringify({ content: '<html>' + 'x'.repeat(2100) + '</html>' }));
  const server = createServer({ keepAliveTimeout: 30000 }, (req, res) => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }); res.end(body); });
  server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port)+String.fromCharCode(10)));`], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((r) => server.stdout!.once('data', (d) => r(Number(String(d).trim()))));
const client = new BoxClient({ baseUrl: `http://127.0.0.1:${port}/api/v1`, apiKey: 'kkkk' }, {});
for (let i = 0; i < 60000; i++) await client.screenLayout('b');
await client.close(); server.kill();
