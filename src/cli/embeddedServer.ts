// The embedded Box API server in a child process of its own (embedded.ts), for a Playwright
// worker: in the worker, Playwright Test would record the server's own browser calls as steps of
// the running test. Reads {dataDir, secret} as one JSON line on stdin, prints {baseUrl}, and stops (boxes
// terminated, Chromium killed) when stdin closes, so a worker that dies takes it along.
import { createInterface } from 'node:readline';
import { startServer } from '../server/index.js';

const lines = createInterface({ input: process.stdin });
const first = await new Promise<string>((resolve, reject) => {
  lines.once('line', resolve);
  lines.once('close', () => reject(new Error('no settings on stdin')));
});
const { dataDir, secret } = JSON.parse(first) as { dataDir: string; secret: string };
const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, secret, log: () => {} });
process.stdout.write(`${JSON.stringify({ baseUrl: server.baseUrl })}\n`);
lines.once('close', () => {
  void server.close().finally(() => process.exit(0));
});
