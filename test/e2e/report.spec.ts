// The HTML report in a real Chromium, opened from file:// as a user opens it after a run.
import { test, expect } from '@playwright/test';
import type { Page } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { produceReport } from './reportFixture.js';
import type { ProducedReport } from './reportFixture.js';

let dir: string;
let produced: ProducedReport;
const pageErrors: string[] = [];

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bf-report-e2e-'));
  produced = await produceReport(dir);
});

test.afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function open(page: Page): Promise<void> {
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('requestfailed', (r) => pageErrors.push(`request failed: ${r.url()}`));
  await page.goto(pathToFileURL(join(dir, 'index.html')).href);
  await expect(page.getByTestId('summary')).toBeVisible();
}

const flow = (page: Page, name: string) => page.getByTestId('flow').filter({ has: page.getByTestId('flow-name').getByText(name, { exact: true }) });

test('the summary shows the counts, the boxes and the shard', async ({ page }) => {
  await open(page);
  const c = produced.expect.counts;
  for (const k of ['total', 'passed', 'failed', 'flaky', 'skipped'] as const) {
    await expect(page.getByTestId(`count-${k}`).locator('.count-n')).toHaveText(String(c[k]));
  }
  await expect(page.getByTestId('flow')).toHaveCount(c.total);
  await expect(page.getByTestId('shard')).toHaveText('1/2');
  await expect(page.getByTestId('box')).toHaveText(['linux box-lin-01', 'android box-and-07']);
  await expect(page.getByTestId('duration')).not.toBeEmpty();
  expect(pageErrors).toEqual([]);
});

test('expanding the failed flow shows its actionId, error, code frame and marked layout; a trace image opens full size', async ({ page }) => {
  await open(page);
  const failed = flow(page, produced.expect.failedFlow);
  await expect(failed.getByTestId('flow-head')).toHaveAttribute('aria-expanded', 'true'); // failed flows open by themselves
  await expand(failed);
  const step = failed.locator('[data-testid=step][data-status=failed]');
  await expect(step.getByTestId('action-id')).toHaveText(produced.expect.failedActionId);
  await step.getByTestId('copy-action-id').click();
  await expect(step.getByTestId('copy-action-id')).toHaveText('Copied');
  await expect(step.getByTestId('error-code')).toHaveText('ELEMENT_NOT_FOUND');
  await expect(step.getByTestId('code-frame')).toContainText('> 7 |   - tap: Buy now');
  await expect(step.getByTestId('layout-mark')).toHaveCount(1);
  await expect(step.getByTestId('layout-mark')).toContainText('text="Buy"');
  await expect(step.getByTestId('step-message')).toHaveText('Screenshot taken');

  await step.locator('[data-testid=thumb][data-label=trace]').click();
  const img = page.getByTestId('lightbox-img');
  await expect(img).toBeVisible();
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(320);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('lightbox')).toBeHidden();
  expect(pageErrors).toEqual([]);
});

test('a visual failure switches between side-by-side, slider and diff views', async ({ page }) => {
  await open(page);
  const visual = flow(page, produced.expect.visualFlow);
  await expand(visual);
  const view = visual.getByTestId('visual-view');
  await expect(view).toHaveAttribute('data-mode', 'sbs');
  await expect(view.locator('img')).toHaveCount(3);
  for (const kind of ['expected', 'actual', 'diff']) {
    await expect.poll(() => view.locator(`img[data-kind=${kind}]`).evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(320);
  }

  await visual.getByTestId('visual-mode-slider').click();
  await expect(view).toHaveAttribute('data-mode', 'slider');
  const top = view.locator('img[data-kind=actual]');
  await expect(top).toHaveCSS('clip-path', 'inset(0px 50% 0px 0px)');
  await view.getByTestId('visual-slider').fill('80');
  await expect(top).toHaveCSS('clip-path', 'inset(0px 20% 0px 0px)');

  await visual.getByTestId('visual-mode-diff').click();
  await expect(view).toHaveAttribute('data-mode', 'diff');
  await expect(view.locator('img')).toHaveCount(1);
  await expect(view.locator('img[data-kind=diff]')).toBeVisible();
  expect(pageErrors).toEqual([]);
});

test('retries show each attempt', async ({ page }) => {
  await open(page);
  const flaky = flow(page, 'Search finds a product');
  await expand(flaky);
  const tabs = flaky.getByTestId('attempt-tab');
  await expect(tabs).toHaveCount(2);
  await expect(flaky.locator('[data-testid=step][data-status=failed] [data-testid=error-code]')).toHaveText(['ELEMENT_NOT_FOUND']);
  await tabs.nth(0).click();
  await expect(flaky.locator('[data-testid=step][data-status=failed] [data-testid=error-code]')).toHaveText(['STEP_TIMEOUT']);
  await expect(flaky.getByTestId('action-id')).toHaveText(['act_search_a1_01', 'act_search_a1_02']);
});

test('flows filter by status, tag and text; the report is kept as a screenshot', async ({ page }, testInfo) => {
  await open(page);
  const names = page.getByTestId('flow-name');
  await page.getByTestId('filter-status-failed').click();
  await expect(names).toHaveText(['Checkout from the cart', 'Home page looks right']);
  await page.getByTestId('filter-status-all').click();
  await page.getByTestId('filter-tag').selectOption(produced.expect.tag);
  await expect(page.getByTestId('flow')).toHaveCount(produced.expect.flowsWithTag);
  await page.getByTestId('filter-status-failed').click();
  await expect(names).toHaveText(['Home page looks right']);
  await page.getByTestId('filter-status-all').click();
  await page.getByTestId('filter-tag').selectOption('');
  await page.getByTestId('filter-text').fill(produced.expect.failedActionId);
  await expect(names).toHaveText([produced.expect.failedFlow]);
  await page.getByTestId('filter-text').fill('no such flow anywhere');
  await expect(page.getByTestId('no-flows')).toBeVisible();
  await page.getByTestId('filter-text').fill('');
  await expect(page.getByTestId('flow')).toHaveCount(produced.expect.counts.total);

  await expand(flow(page, produced.expect.failedFlow));
  await expand(flow(page, produced.expect.visualFlow));
  const shot = await page.screenshot({ fullPage: true });
  writeFileSync(testInfo.outputPath('report.png'), shot);
  await testInfo.attach('report', { body: shot, contentType: 'image/png' });
  expect(pageErrors).toEqual([]);
});

/** Opens a flow's row unless it is open already (failed flows open by themselves). */
async function expand(flowRow: import('@playwright/test').Locator): Promise<void> {
  const head = flowRow.getByTestId('flow-head');
  if ((await head.getAttribute('aria-expanded')) !== 'true') await head.click();
}
