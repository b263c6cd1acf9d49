import { execSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';

test('Device state on the web - dark mode, offline, location, permissions, clipboard, a recording', async ({ browser }) => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pw-device-'));
  expect(execSync('echo seeded > seed.txt && cat seed.txt', { cwd: dir, encoding: 'utf8' })).toBe('seeded\n');
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['geolocation', 'clipboard-read', 'clipboard-write'], { origin: 'http://127.0.0.1:4173' });
  const page = await context.newPage();
  await page.goto('http://127.0.0.1:4173/login');
  // The flow's recording: the page's screencast encoded by ffmpeg (Playwright's recordVideo needs
  // its own ffmpeg build, which cannot be downloaded here).
  const ffmpeg = spawn('ffmpeg', ['-loglevel', 'error', '-f', 'image2pipe', '-c:v', 'mjpeg', '-i', '-', '-c:v', 'libvpx', '-deadline', 'realtime', '-y', join(dir, 'video.webm')], { stdio: ['pipe', 'ignore', 'inherit'] });
  const encoded = new Promise((resolve) => ffmpeg.on('exit', resolve));
  const cdp = await context.newCDPSession(page);
  cdp.on('Page.screencastFrame', (f) => {
    ffmpeg.stdin.write(Buffer.from(f.data, 'base64'));
    void cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }).catch(() => {});
  });
  await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 80 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await context.setGeolocation({ latitude: 52.52, longitude: 13.405 });
  await page.evaluate(() => navigator.clipboard.writeText('demo@example.com'));
  expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(true);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('demo@example.com');
  await page.locator('#email').click();
  await page.keyboard.press('Control+V');
  await expect(page.locator('#email')).toHaveValue('demo@example.com');
  await context.setOffline(true);
  expect(await page.evaluate(() => navigator.onLine)).toBe(false);
  await context.setOffline(false);
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await page.evaluate(() => navigator.onLine && !matchMedia('(prefers-color-scheme: dark)').matches)).toBe(true);
  await cdp.send('Page.stopScreencast');
  ffmpeg.stdin.end();
  expect(await encoded).toBe(0);
  await context.close();
});
