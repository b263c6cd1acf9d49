// A report opens on what went wrong: failed flows first (then flaky ones), already expanded.
import { test, expect } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { produceReport } from './reportFixture.js';

let dir: string;

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bf-report-order-'));
  await produceReport(dir);
});

test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('failed flows come first and are open; flaky next; the rest closed, in run order', async ({ page }) => {
  await page.goto(pathToFileURL(join(dir, 'index.html')).href);
  const rows = page.getByTestId('flow');
  await expect(rows.first()).toBeVisible();
  const seen = await rows.evaluateAll((els) => els.map((e) => [e.getAttribute('data-status'), e.querySelector('[data-testid=flow-head]')!.getAttribute('aria-expanded')]));
  const statuses = seen.map(([s]) => s);
  const rank = (s: string | null | undefined) => (s === 'failed' ? 0 : s === 'flaky' ? 1 : 2);
  expect(statuses).toContain('failed');
  expect(statuses.map(rank)).toEqual([...statuses.map(rank)].sort((a, b) => a - b));
  for (const [status, expanded] of seen) expect(expanded).toBe(status === 'failed' ? 'true' : 'false');
  const failed = rows.filter({ has: page.locator('[data-status=failed]') }).first();
  await expect(failed.getByTestId('step').first()).toBeVisible();
});

test('step thumbnails are large enough to read', async ({ page }) => {
  await page.goto(pathToFileURL(join(dir, 'index.html')).href);
  const thumb = page.getByTestId('thumb').first();
  await expect(thumb).toBeVisible();
  const box = await thumb.boundingBox();
  expect(box!.width).toBeGreaterThanOrEqual(240);
  expect(box!.height).toBeGreaterThanOrEqual(160);
});
