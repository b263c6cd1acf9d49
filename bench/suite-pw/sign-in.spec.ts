import { expect, test } from '@playwright/test';

test('Sign in with a valid account', async ({ page }) => {
  await page.goto('http://127.0.0.1:4173/login');
  await expect(page).toHaveTitle(/Sign in/);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await page.locator('#email').click();
  await page.keyboard.type('demo@example.com');
  await page.locator('#password').click();
  await page.keyboard.type('hunter2');
  await page.keyboard.press('Enter');
  await expect(page.getByText(/Welcome, .+/)).toBeVisible();
  await expect(page.getByText('Sign in failed')).toBeHidden();
  await expect(page.locator('#result')).toHaveText('Welcome, demo@example.com');
  await expect(page.locator('#result')).toHaveAttribute('role', 'status');
});
