// `boxflow show-report [DIR]`: serves a report folder on loopback (read-only static files, with the
// byte ranges a video's player asks for to seek), answering errors as every boxflow server does.
import { resolve } from 'node:path';
import { listenLoopback, loopbackApp } from '../../src/loopback/app.js';
import { serveFiles } from '../../src/loopback/files.js';

export async function serveReport(dir: string, options: { host?: string; port?: number } = {}): Promise<{ url: string; close: () => Promise<void> }> {
  const app = loopbackApp();
  // Revalidated on every load: a report folder is rewritten by the next run under the same names.
  await serveFiles(app, { root: resolve(dir), prefix: '/', headers: { 'cache-control': 'no-cache' } });
  const { origin } = await listenLoopback(app, options.host, options.port);
  return { url: `${origin}/`, close: () => app.close() };
}
