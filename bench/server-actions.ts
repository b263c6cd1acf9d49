// boxflow serve vs direct Playwright on the same Chromium: type, press-key and screenshot round
// trips. Ours goes through HTTP, auth, validation and the per-box queue via the project's
// BoxClient; the baseline is Playwright connected straight to the box's DevTools endpoint.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { BoxClient } from '../src/api/client.js';
import { createApiKey, startServer } from '../src/server/index.js';
import { benchSize, percentile, printResult } from './_report.js';

const kIterations = benchSize('BENCH_ITERATIONS', 300, 5);
const kWarmup = benchSize(undefined, 30, 2);

const dataDir = await mkdtemp(join(tmpdir(), 'boxflow-bench-'));
const secret = 'bench-secret-bench-secret-bench-secret';
const server = await startServer({ port: 0, dataDir, secret, log: () => {} });
const client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'bench') });
try {
  const box = await client.createLinuxBox();
  const page_ = await readFile(new URL('../test/fixtures/pages/box.html', import.meta.url), 'utf8');
  await client.openTab(box.id, { url: `data:text/html;base64,${Buffer.from(page_).toString('base64')}` });

  // The box's DevTools is a pipe only the server holds (no port): the baseline connects through the
  // box's pre-signed CDP URL, the one way in a tenant has (one WebSocket hop more than a direct port).
  const browser = await chromium.connectOverCDP(await client.cdpUrl(box.id));
  const page = browser.contexts()[0]!.pages().find((p) => p.url().startsWith('data:'))!;
  await page.focus('#name');

  const time = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  const compare = async (metric: string, ours: () => Promise<unknown>, base: () => Promise<unknown>, n = kIterations) => {
    for (let i = 0; i < kWarmup; i++) {
      await ours();
      await base();
    }
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < n; i++) {
      // Alternate the order so neither side always runs on a just-warmed renderer.
      if (i % 2) {
        a.push(await time(ours));
        b.push(await time(base));
      } else {
        b.push(await time(base));
        a.push(await time(ours));
      }
      if (i % 100 === 99) await page.fill('#name', '');
    }
    process.stderr.write(`${metric}: ours p50 ${percentile(a, 50).toFixed(2)} ms p90 ${percentile(a, 90).toFixed(2)} ms; playwright p50 ${percentile(b, 50).toFixed(2)} ms p90 ${percentile(b, 90).toFixed(2)} ms\n`);
    printResult('server-actions', metric, 'ms p50', percentile(a, 50), percentile(b, 50));
  };

  await compare('type', () => client.type(box.id, { text: 'x' }), () => page.keyboard.insertText('x'));
  await compare('press-key', () => client.pressKey(box.id, { keys: ['b'] }), () => page.keyboard.press('b'));
  await compare('screenshot', () => client.screenshot(box.id, { outputFormat: 'base64' }), () => page.screenshot(), Math.min(kIterations, 60));
  await browser.close();
} finally {
  await client.close();
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
}
