// The HTML report printed and captured full-page, and its image viewer's previous/next (issue 22
// item 8), in a real Chromium from file://, on the fixture run (reportFixture.ts).
import { test, expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { produceReport } from './reportFixture.js';

let dir: string;

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bf-report-print-'));
  await produceReport(dir);
});

test.afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function open(page: Page): Promise<void> {
  await page.goto(pathToFileURL(join(dir, 'index.html')).href);
  await expect(page.getByTestId('summary')).toBeVisible();
}

/** How many pixels of `box` (page coordinates, inset by 2 px) differ from its first pixel. */
function inkIn(shot: PNG, box: { x: number; y: number; width: number; height: number }): number {
  const at = (x: number, y: number) => (y * shot.width + x) * 4;
  const x0 = Math.ceil(box.x) + 2;
  const y0 = Math.ceil(box.y) + 2;
  const x1 = Math.min(shot.width, Math.floor(box.x + box.width) - 2);
  const y1 = Math.min(shot.height, Math.floor(box.y + box.height) - 2);
  const bg = shot.data.subarray(at(x0, y0), at(x0, y0) + 3);
  let ink = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = at(x, y);
      if (Math.abs(shot.data[i]! - bg[0]!) + Math.abs(shot.data[i + 1]! - bg[1]!) + Math.abs(shot.data[i + 2]! - bg[2]!) > 60) ink++;
    }
  }
  return ink;
}

/** Every flow's name, drawn in a full-page capture of the page as it is (the rows far below the fold too). */
async function expectEveryFlowNameDrawn(page: Page): Promise<void> {
  const shot = PNG.sync.read(await page.screenshot({ fullPage: true }));
  const names = page.getByTestId('flow-name');
  const count = await names.count();
  expect(count).toBe(5);
  const scrollY = await page.evaluate(() => window.scrollY);
  for (let i = 0; i < count; i++) {
    const box = (await names.nth(i).boundingBox())!;
    const text = await names.nth(i).textContent();
    expect(inkIn(shot, { ...box, y: box.y + scrollY }), `the name "${text}" at y=${Math.round(box.y + scrollY)} of ${shot.height} is drawn`).toBeGreaterThan(20);
  }
}

const luminance = (rgb: string) => {
  const [r, g, b] = rgb.match(/\d+/g)!.map(Number);
  return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
};

test('a full-page capture shows every flow, also the rows far below the fold', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 400 });
  await open(page);
  await expectEveryFlowNameDrawn(page);
});

test('printed, the report is dark text on white paper (also from a dark screen), every flow drawn, no controls', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 400 });
  await page.emulateMedia({ media: 'print', colorScheme: 'dark' });
  await open(page);
  // Browsers print without backgrounds: the text must be dark on its own.
  for (const el of [page.getByTestId('flow-name').last(), page.getByTestId('step-label').first(), page.locator('.count-label').first()]) {
    expect(luminance(await el.evaluate((e) => getComputedStyle(e).color))).toBeLessThan(0.45);
  }
  expect(luminance(await page.evaluate(() => getComputedStyle(document.body).backgroundColor))).toBeGreaterThan(0.95);
  await expect(page.locator('nav.filters')).toBeHidden();
  await expect(page.getByTestId('copy-action-id').first()).toBeHidden();
  await expectEveryFlowNameDrawn(page);
  // A PDF, as the browser's print prints it, has the content.
  expect((await page.pdf()).length).toBeGreaterThan(10_000);
});

test('printing renders the whole flow list, not only the chunk the screen has rendered', async ({ page }) => {
  // The run as 150 flows (the list renders 100 at a time as it scrolls): the report data, multiplied as it is set.
  await page.addInitScript(() => {
    type Data = { result: { flows: Array<{ id: string; name: string; status: string }> } };
    let data: Data | undefined;
    Object.defineProperty(window, '__BOXFLOW_REPORT__', {
      configurable: true,
      get: () => data,
      set: (d: Data) => {
        const base = d.result.flows.filter((f) => f.status === 'passed');
        d.result.flows = Array.from({ length: 150 }, (_, i) => ({ ...base[i % base.length]!, id: `f${i}`, name: `flow ${i}` }));
        data = d;
      },
    });
  });
  await open(page);
  await expect(page.getByTestId('flow')).toHaveCount(100);
  await page.pdf(); // the browser's print
  await expect(page.getByTestId('flow')).toHaveCount(150);
  await expect(page.locator('.sentinel')).toHaveCount(0);
});

/** The lightbox's image, caption and position. */
async function lightboxState(page: Page): Promise<{ src: string; caption: string; pos: string }> {
  return {
    src: (await page.getByTestId('lightbox-img').getAttribute('src'))!,
    caption: (await page.getByTestId('lightbox-caption').textContent())!,
    pos: (await page.getByTestId('lightbox-pos').textContent())!,
  };
}

test('the image viewer steps through the images of the flow with ‹ › and ←/→', async ({ page }) => {
  await open(page);
  const failed: Locator = page.getByTestId('flow').filter({ has: page.getByTestId('flow-name').getByText('Checkout from the cart', { exact: true }) });
  await expect(failed.getByTestId('flow-head')).toHaveAttribute('aria-expanded', 'true');
  const thumbs = failed.locator('[data-testid=thumb]');
  const n = await thumbs.count();
  expect(n).toBeGreaterThan(3);
  const srcs = await thumbs.locator('img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('src')));

  await thumbs.nth(0).click();
  const lightbox = page.getByTestId('lightbox');
  await expect(lightbox).toBeVisible();
  let state = await lightboxState(page);
  expect(state).toMatchObject({ src: srcs[0], pos: `1 / ${n}` });
  expect(state.caption).toContain('tap Cart');
  await expect(page.getByTestId('lightbox-prev')).toBeDisabled();

  await page.getByTestId('lightbox-next').click();
  expect(await lightboxState(page)).toMatchObject({ src: srcs[1], pos: `2 / ${n}` });
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  state = await lightboxState(page);
  expect(state).toMatchObject({ src: srcs[3], pos: `4 / ${n}` });
  expect(state.caption, 'the gallery goes on into the next step with images').toContain('tap Buy now');
  await expect(page.getByTestId('lightbox-img')).toHaveJSProperty('complete', true);
  expect(await page.getByTestId('lightbox-img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);

  await page.keyboard.press('ArrowLeft');
  expect(await lightboxState(page)).toMatchObject({ src: srcs[2], pos: `3 / ${n}` });
  await page.getByTestId('lightbox-prev').click();
  expect(await lightboxState(page)).toMatchObject({ src: srcs[1], pos: `2 / ${n}` });

  for (let i = 2; i <= n; i++) await page.keyboard.press('ArrowRight');
  expect(await lightboxState(page)).toMatchObject({ src: srcs[n - 1], pos: `${n} / ${n}` });
  await expect(page.getByTestId('lightbox-next')).toBeDisabled();
  await page.keyboard.press('ArrowRight'); // stays on the last
  expect(await lightboxState(page)).toMatchObject({ pos: `${n} / ${n}` });
  await page.keyboard.press('Escape');
  await expect(lightbox).toBeHidden();
});
