import { expect, test } from '@playwright/test';

test('Home page looks right', async ({ page, browser }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.goto('http://127.0.0.1:4173/old-home');
  await expect(page.getByText('Boxflow demo shop')).toBeVisible();
  await expect(page).toHaveScreenshot('home-linux.png', { mask: [page.locator('#clock')], maxDiffPixelRatio: 0.001, animations: 'allow', caret: 'initial' });
  const download = page.waitForEvent('download');
  await page.getByText('Download report').click();
  await (await download).saveAs(test.info().outputPath('renamed-report.csv'));
  expect(browser.version()).toBeTruthy();
});
