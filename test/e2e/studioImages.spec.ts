// Every image the studio shows is served: a failed screenshot assertion shows its expected, actual and
// diff images, and a tap its before, after and trace, each loaded by the browser (not a broken image).
import { test, expect, type Locator, type Page } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { openStudio, waitIdle } from './studioFixture.js';

let app: Server;
let base: string;
let dir: string;
/** The page's heading: changed between runs, so that the screenshot no longer matches its baseline. */
let heading = 'Orders';

test.beforeAll(async () => {
  app = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>Images</title><style>body { font: 18px sans-serif; margin: 24px; } button { font-size: 18px; padding: 6px 14px; }</style></head>
<body><h1>${heading}</h1><button id="save" onclick="document.getElementById('out').textContent='Saved'">Save</button><p id="out">Not saved</p></body></html>`);
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
  dir = mkdtempSync(join(tmpdir(), 'boxflow-studio-images-'));
});

test.afterAll(async () => {
  await new Promise<void>((r) => app.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

/** The image `name` of a result: shown, and decoded by the browser (a broken image has no natural width). */
async function expectLoaded(result: Locator, name: string): Promise<void> {
  const img = result.getByTestId(`image-${name}`);
  await expect(img).toBeVisible();
  await expect.poll(() => img.evaluate((i: HTMLImageElement) => (i.complete ? i.naturalWidth : -1)), { message: `${name} loads` }).toBeGreaterThan(0);
}

async function runFile(page: Page, status: string): Promise<void> {
  await page.getByTestId('run-all').click();
  await waitIdle(page);
  await expect(page.getByTestId('result-title')).toHaveText(`run: ${status}`);
}

test('a failed screenshot assertion shows its expected, actual and diff images; a tap its before, after and trace', async ({ page }) => {
  test.setTimeout(150_000);
  const file = join(dir, 'images.flow.yaml');
  writeFileSync(file, `name: Images\nsteps:\n  - setResolution: { width: 640, height: 400 }\n  - openTab: ${base}\n  - tap: { id: save }\n  - assertScreenshot: { name: page }\n`);
  const studio = await openStudio(page, file, dir);
  try {
    // The first run writes the missing baseline, and passes.
    await runFile(page, 'passed');
    expect(existsSync(join(dir, '__screenshots__', 'Images', 'page-linux.png'))).toBe(true);
    const tap = page.getByTestId('result-step').filter({ has: page.getByTestId('image-trace') });
    await expect(tap).toHaveCount(1);
    for (const name of ['before', 'after', 'trace']) await expectLoaded(tap, name);

    // The page changes: the assertion fails, and shows what it expected, what it got and where they differ.
    heading = 'Invoices';
    await runFile(page, 'failed');
    const failed = page.getByTestId('result-step').and(page.locator('[data-status="failed"]'));
    await expect(failed).toHaveCount(1);
    await expect(failed).toContainText('ASSERT_SCREENSHOT');
    for (const name of ['expected', 'actual', 'diff']) await expectLoaded(failed, name);
  } finally {
    await studio.stop();
  }
});
