// Box steps in a Playwright test: each box call is a test.step with its actionId and its
// before/after/trace screenshots; expect(box) waits on the box's screen layout.
import { test, expect } from 'boxflow/test';

test('a demo user signs in', async ({ box }) => {
  await box.openTab('/login');
  await box.tap({ css: '#email' });
  await box.type('demo@example.com');
  await box.tap({ id: 'password' });
  await box.type({ text: 'hunter2', pressEnter: true });
  await expect(box).toShow('/Welcome, .+/');
  await expect(box).not.toShow({ textContains: 'Sign in failed' });
});

test('the sign-in page looks right', async ({ box }) => {
  await box.setResolution({ width: 1024, height: 700 });
  await box.openTab('/login');
  await expect(box).toShow({ class: 'button', text: 'Sign in' });
  await expect(box).toMatchScreenshot('login', { maxDiffPixelRatio: 0.001 });
});

test('box.page() is the box tab as a Playwright Page', async ({ box }) => {
  await box.openTab('/login');
  const page = await box.page();
  await page.locator('#email').fill('typed@example.com');
  expect(await page.locator('#email').inputValue()).toBe('typed@example.com');
  await expect(box).toShow({ css: 'h1', text: 'Sign in' });
});
