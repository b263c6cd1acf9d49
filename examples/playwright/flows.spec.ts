// boxflow flow files run from a Playwright test, their steps nested as test.steps.
import { test, expect } from 'boxflow/test';

test('the sign-in flow runs as nested steps', async ({ box, baseURL }) => {
  await box.run('flows/sign-in.flow.yaml', { env: { APP_URL: baseURL! } });
  await expect(box).toShow({ css: '#result', text: 'Welcome, demo@example.com' });
});

test('a wrong password is refused', async ({ box, baseURL }) => {
  await box.run('flows/open-login.flow.yaml', { env: { APP_URL: baseURL! } });
  await box.tap({ css: '#email' });
  await box.type('someone@example.com');
  await box.pressKey('tab');
  await box.type('nope');
  await box.pressKey('enter');
  await expect(box).toShow({ textContains: 'Sign in failed' });
});
