// The example flows (flows/) written as @playwright/test specs, for `npm run bench -- suite`:
// Debian's Chromium with the flags boxflow's boxes use, screenshots and traces off.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: process.env.BENCH_PW_OUT ?? join(tmpdir(), 'boxflow-bench-pw-results'),
  // Its own baseline, written by the bench's warm-up run (boxflow's has its mask painted in).
  snapshotPathTemplate: join(process.env.BENCH_PW_SNAPSHOTS ?? join(tmpdir(), 'boxflow-bench-pw-snapshots'), '{arg}{ext}'),
  timeout: 60_000,
  retries: 0,
  fullyParallel: true,
  updateSnapshots: 'missing',
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    screenshot: 'off',
    trace: 'off',
    video: 'off',
    launchOptions: {
      executablePath: process.env.BOXFLOW_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-smooth-scrolling'],
    },
  },
});
