// The HTML report of a REAL run (`boxflow test` on the embedded local box): a pass, a failure,
// a visual failure and a flaky flow, opened from file:// in Chromium as a user opens it.
import { test, expect, type Page } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { readResults, runCli, tempProject } from './helpers.js';

let app: Server;
let dir: string;
let failedActionId: string;
let banner = 'Spring sale: 20% off';
let flakyHits = 0;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  app = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    if (req.url === '/banner') return void res.end(`<!doctype html><body style="margin:0;font:24px 'DejaVu Sans'"><h1 style="padding:20px">${banner}</h1></body>`);
    if (req.url === '/flaky') return void res.end(`<!doctype html><p>${++flakyHits % 2 ? 'Not ready' : 'Ready'}</p>`);
    if (req.url === '/reorder') return void res.end('<!doctype html><ul><li>Apples</li><li>Bananas</li></ul>');
    res.end('<!doctype html><title>Home</title><h1>Welcome home</h1>');
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  dir = tempProject({
    'pass.flow.yaml': `name: Home shows a welcome\ntags: [smoke]\nsteps:\n  - openTab: ${base}/\n  - assertVisible: Welcome home\n  - tap: Welcome home\n`,
    'fail.flow.yaml': `name: Drag to the trash\nsteps:\n  - openTab: ${base}/reorder\n  - drag: { from: Apples, to: { prompt: "the trash can" } }\n`,
    'visual.flow.yaml': `name: Banner looks right\ntags: [visual]\nsteps:\n  - setResolution: { width: 640, height: 360 }\n  - openTab: ${base}/banner\n  - assertScreenshot: banner\n`,
    'flaky.flow.yaml': `name: Eventually ready\ntags: [smoke]\nsteps:\n  - openTab: ${base}/flaky\n  - assertVisible: Ready\n    timeout: 1s\n`,
  });
  const first = await runCli(['test', '--reporter', 'json', '-o', 'first'], { cwd: dir });
  expect(first.code, first.stderr).toBe(1);
  banner = 'Spring sale: 30% off';
  flakyHits = 0;
  const run = await runCli(['test', '--retries', '1', '--workers', '2', '--reporter', 'html,json', '-o', 'report'], { cwd: dir });
  expect(run.code, run.stderr).toBe(1);
  const result = readResults(join(dir, 'report'));
  const fail = result.flows.find((f) => f.name === 'Drag to the trash')!;
  failedActionId = fail.attempts.at(-1)!.steps.find((s) => s.status === 'failed')!.actionId!;
  expect(failedActionId).toMatch(/\S/);
});

test.afterAll(() => new Promise<void>((r) => app.close(() => r())));

const flow = (page: Page, name: string) => page.getByTestId('flow').filter({ has: page.getByTestId('flow-name').getByText(name, { exact: true }) });

test('a real run: counts, the failed step\'s actionId, a trace image, the diff views, filters', async ({ page }, testInfo) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(join(dir, 'report', 'index.html')).href);
  for (const [k, n] of Object.entries({ passed: 1, failed: 2, flaky: 1 })) {
    await expect(page.getByTestId(`count-${k}`).locator('.count-n')).toHaveText(String(n));
  }
  await expect(page.getByTestId('flow')).toHaveCount(4);

  const failed = flow(page, 'Drag to the trash');
  await expand(failed);
  const step = failed.locator('[data-testid=step][data-status=failed]');
  await expect(step.getByTestId('action-id')).toHaveText(failedActionId);
  await expect(step.getByTestId('error-code')).toHaveText('UNPROCESSABLE');

  const passed = flow(page, 'Home shows a welcome');
  await expand(passed);
  await passed.locator('[data-testid=thumb][data-label=trace]').first().click();
  const img = page.getByTestId('lightbox-img');
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(100);
  await page.keyboard.press('Escape');

  const visual = flow(page, 'Banner looks right');
  await expand(visual);
  const view = visual.getByTestId('visual-view');
  await expect(view.locator('img')).toHaveCount(3);
  await expect.poll(() => view.locator('img[data-kind=diff]').evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(640);
  await visual.getByTestId('visual-mode-slider').click();
  await expect(view).toHaveAttribute('data-mode', 'slider');
  await visual.getByTestId('visual-mode-diff').click();
  await expect(view).toHaveAttribute('data-mode', 'diff');

  await page.getByTestId('filter-status-failed').click();
  await expect(page.getByTestId('flow-name')).toHaveText(['Drag to the trash', 'Banner looks right']);
  await page.getByTestId('filter-status-all').click();
  await page.getByTestId('filter-tag').selectOption('smoke');
  await expect(page.getByTestId('flow')).toHaveCount(2);
  await page.getByTestId('filter-tag').selectOption('');
  await page.getByTestId('filter-text').fill(failedActionId);
  await expect(page.getByTestId('flow-name')).toHaveText(['Drag to the trash']);

  const shot = await page.screenshot({ fullPage: true });
  writeFileSync(testInfo.outputPath('real-run-report.png'), shot);
  await testInfo.attach('real-run-report', { body: shot, contentType: 'image/png' });
  expect(errors).toEqual([]);
  expect(readFileSync(join(dir, 'report', 'index.html'), 'utf8')).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
});

/** Opens a flow's row unless it is open already (failed flows open by themselves). */
async function expand(flowRow: import('@playwright/test').Locator): Promise<void> {
  const head = flowRow.getByTestId('flow-head');
  if ((await head.getAttribute('aria-expanded')) !== 'true') await head.click();
}
