import { expect, test } from '@playwright/test';

test('Scroll a long list and pick an item', async ({ page }) => {
  await page.goto('http://127.0.0.1:4173/list');
  await expect(page.getByText('Item 80', { exact: true })).not.toBeInViewport();
  for (let i = 0; i < 15 && !(await page.getByText('Item 80', { exact: true }).isVisible() && (await inView(page))); i++) await page.mouse.wheel(0, 400);
  await page.getByText('Item 80', { exact: true }).click();
  await expect(page.getByText('Selected: Item 80')).toBeVisible();
  await expect(page.locator('li.selected')).toHaveCount(1);
  await page.mouse.wheel(0, 400);
  await page.locator('#items').hover();
  await page.mouse.wheel(0, -400);
  await expect(page.getByText('Selected: Item 80')).toBeVisible();
  for (let i = 0; i < 2; i++) await page.mouse.wheel(0, 400);
});

async function inView(page: import('@playwright/test').Page): Promise<boolean> {
  return page.getByText('Item 80', { exact: true }).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight;
  });
}
