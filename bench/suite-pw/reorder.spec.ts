import { expect, test } from '@playwright/test';

test('Drag to reorder a list', async ({ page }) => {
  await page.goto('http://127.0.0.1:4173/reorder');
  await page.getByText('Apples', { exact: true }).dragTo(page.getByText('Cherries', { exact: true }));
  await expect(page.getByText('Order: Bananas, Cherries, Apples, Dates')).toBeVisible();
  await page.getByText('Dates', { exact: true }).dragTo(page.getByText('Bananas', { exact: true }));
  await expect(page.locator('#reorder li').first()).toHaveText('Dates');
  await expect(page.locator('#reorder li')).toHaveCount(4);
});
