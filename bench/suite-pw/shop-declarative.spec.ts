import { expect, test } from '@playwright/test';

test('Navigate the shop with keys', async ({ page }) => {
  await page.goto('http://127.0.0.1:4173/');
  await page.getByText('List', { exact: true }).click();
  await expect(page.getByText('Item 1', { exact: true })).toBeInViewport();
  await page.locator('body').press('End');
  await expect(page.getByText('Item 120', { exact: true })).toBeInViewport();
  await page.locator('body').press('Control+Home');
  await expect(page.getByText('Item 1', { exact: true })).toBeInViewport({ timeout: 3000 });
  await expect(page.getByText('Item 120', { exact: true })).not.toBeInViewport();
});
