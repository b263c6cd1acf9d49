import { expect, test } from '@playwright/test';

test('Sketch on the canvas', async ({ page }) => {
  await page.goto('http://127.0.0.1:4173/canvas');
  await expect(page.getByText('Strokes: 0')).toBeVisible();
  const pad = (await page.locator('#pad').boundingBox())!;
  const path = [{ x: 60, y: 160 }, { x: 160, y: 220 }, { x: 260, y: 160 }, { x: 360, y: 220 }];
  await page.mouse.move(path[0]!.x, path[0]!.y);
  await page.mouse.down();
  for (const p of path.slice(1)) await page.mouse.move(p.x, p.y, { steps: 2 });
  await page.mouse.up();
  await expect(page.getByText('Strokes: 1')).toBeVisible();
  await page.mouse.move(100, 300);
  await page.mouse.down();
  await page.mouse.move(500, 300, { steps: 18 });
  await page.mouse.up();
  await expect(page.getByText('Strokes: 2')).toBeVisible();
  await page.mouse.move(pad.x + pad.width / 2, pad.y + pad.height / 2);
  await page.mouse.down();
  await page.waitForTimeout(1000);
  await page.mouse.up();
  await expect(page.getByText('Long press: yes')).toBeVisible();
  await page.getByLabel('note').click();
  await page.keyboard.type('drawn by boxflow');
  expect(await page.locator('#note').inputValue()).toBe('drawn by boxflow');
  await expect(page.getByText('Strokes: 0')).toBeHidden();
});
