// Playwright Test on boxes: `npx playwright test` in this folder. The specs get a `box` fixture
// from boxflow/test: with no BOXFLOW_BASE_URL (or boxflow.config baseUrl) set, each worker
// starts boxflow's embedded local server and its boxes are real Chromium browsers.
import { defineConfig } from '@playwright/test';

// The demo app the specs exercise (../../flows/app); DEMO_PORT picks another port.
const port = Number(process.env.DEMO_PORT ?? 4173);

export default defineConfig({
  testDir: '.',
  outputDir: 'test-results',
  timeout: 60_000,
  workers: 1,
  reporter: [['list'], ['html', { open: 'never' }]],
  use: {
    // Relative URLs in box.openTab() open against it, as page.goto() does.
    baseURL: `http://127.0.0.1:${port}`,
  },
  webServer: {
    command: 'node ../../flows/app/server.mjs',
    env: { PORT: String(port) },
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: !process.env.CI,
  },
});
