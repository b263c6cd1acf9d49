import { expect, test } from '@playwright/test';

test('A wrong password is refused', async ({ page }) => {
  await page.goto('http://127.0.0.1:4173/login');
  await expect(page).toHaveTitle(/Sign in/);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await page.locator('#email').click();
  await page.locator('#email').fill('someone@example.com');
  await page.keyboard.press('Tab');
  await page.keyboard.type('nope');
  await page.keyboard.press('Enter');
  await expect(page.getByText('Sign in failed')).toBeVisible();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Control+a');
  await page.locator('#email').fill('demo@example.com');
  await expect(page.locator('#email')).toHaveAttribute('type', 'email');
});
