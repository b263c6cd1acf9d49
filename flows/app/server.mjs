#!/usr/bin/env node
// The demo app the example flows exercise: static pages plus a download, on 127.0.0.1:4173
// (PORT overrides; PORT=0 picks a free port and prints it).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const types = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml' };

export function createDemoServer() {
  return createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/download/report.csv') {
      res.writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="report.csv"' });
      return res.end('flow,status\nsign-in,passed\n');
    }
    if (url.pathname === '/old-home') {
      res.writeHead(302, { location: '/' });
      return res.end();
    }
    const path = normalize(url.pathname === '/' ? '/index.html' : url.pathname.endsWith('/') ? `${url.pathname}index.html` : url.pathname);
    const file = join(root, 'public', path.includes('.') ? path : `${path}.html`);
    if (!file.startsWith(join(root, 'public'))) {
      res.writeHead(403);
      return res.end();
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Not found</title><h1>Not found</h1>');
    }
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const server = createDemoServer();
  server.listen(Number(process.env.PORT ?? 4173), '127.0.0.1', () => {
    process.stdout.write(`demo app on http://127.0.0.1:${server.address().port}/\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
