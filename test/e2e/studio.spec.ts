// boxflow studio in a real browser against a real box (the embedded local server, its Chromium):
// point at an element and see its selector and match count, click it and the flow file gains the step
// (its comments kept), add an assertion from the element's menu, run the file green with its images;
// the same on a Maestro file; and the box's live view shows what the box changes by itself.
// BOXFLOW_WRITE_DOCS=1 also writes the README's screenshot, docs/studio.png.
import { test, expect, type Page } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startStudio, type Studio } from '../../src/cli/studio.js';
import { repoRoot } from './helpers.js';

let app: Server;
let base: string;
let dir: string;

// The app under test: a page with a unique button, two alike, a result line and a clock that ticks by itself.
const kApp = `<!doctype html><html><head><title>Studio demo</title><style>
body { font: 18px sans-serif; margin: 24px; } button { font-size: 18px; margin: 4px; padding: 6px 14px; }
#clock { font: 16px monospace; color: #555; }</style></head><body>
<h1>Orders</h1>
<form onsubmit="return false"><input id="who" placeholder="Customer"></form>
<p><button id="save" onclick="document.getElementById('out').textContent='Saved'">Save</button>
<button class="secondary">Cancel</button><button class="secondary">Cancel</button></p>
<p id="out">Not saved</p>
<p>Time: <span id="clock">0</span></p>
<script>let n = 0; setInterval(() => { document.getElementById('clock').textContent = String(++n); }, 300);</script>
</body></html>`;

test.beforeAll(async () => {
  app = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(kApp);
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
  dir = mkdtempSync(join(tmpdir(), 'boxflow-studio-e2e-'));
});

test.afterAll(async () => {
  await new Promise<void>((r) => app.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

/** The studio page, its box showing the app once the file's first step ran. */
async function openStudio(page: Page, file: string): Promise<Studio> {
  const studio = await startStudio(file, { open: false }, dir);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  if (process.env.STUDIO_DEBUG) {
    page.on('console', (m) => console.log('console', m.text()));
    page.on('response', (r) => console.log('response', r.status(), r.url().slice(0, 80), Date.now()));
    page.on('requestfailed', (r) => console.log('failed', r.url().slice(0, 80), r.failure()?.errorText));
  }
  await page.goto(studio.url);
  await expect(page.getByTestId('file')).toContainText(file.split('/').pop()!, { timeout: 20_000 });
  expect(errors).toEqual([]);
  return studio;
}

/** Where an element of the box's layout is on the page (the canvas scales the box's screen). */
async function pointOf(page: Page, find: { id?: string; text?: string; nth?: number }): Promise<{ x: number; y: number }> {
  await expect.poll(() => page.evaluate((f) => {
    const s = (window as unknown as { studio: { tree: { nodes: { id: string; text: string; b: number[] | null; v: boolean; tag: string }[] } } }).studio;
    return s.tree.nodes.filter((n) => n.v && n.b && (f.id ? n.id === f.id : n.text === f.text && n.tag === 'button')).length;
  }, find), { timeout: 15_000 }).toBeGreaterThan(find.nth ?? 0);
  return page.evaluate((f) => {
    const s = (window as unknown as { studio: { screen: { width: number; height: number }; tree: { nodes: { id: string; text: string; b: number[]; v: boolean; tag: string }[] } } }).studio;
    const n = s.tree.nodes.filter((x) => x.v && x.b && (f.id ? x.id === f.id : x.text === f.text && x.tag === 'button'))[f.nth ?? 0]!;
    const r = document.getElementById('screen')!.getBoundingClientRect();
    const k = r.width / s.screen.width;
    return { x: r.left + ((n.b[0]! + n.b[2]!) / 2) * k, y: r.top + ((n.b[1]! + n.b[3]!) / 2) * k };
  }, find);
}

async function waitIdle(page: Page): Promise<void> {
  await expect(page.getByTestId('busy')).toBeHidden({ timeout: 60_000 });
}

test('point, see the selector and its match count; click: the step runs on the box and is added with the comments kept; assert from the menu; run the file green', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const file = join(dir, 'orders.flow.yaml');
  writeFileSync(file, `# Orders: written with boxflow studio.\nname: Save an order\nsteps:\n  - setResolution: { width: 720, height: 450 }\n  - openTab: ${base}   # the app\n`);
  const studio = await openStudio(page, file);
  try {
    await expect(page.getByTestId('step')).toHaveCount(2);
    // Run the file: the box opens the app, the step turns green, its images show.
    await page.getByTestId('run-all').click();
    await waitIdle(page);
    await expect(page.getByTestId('step').first()).toHaveAttribute('data-status', 'passed');
    await expect(page.getByTestId('result-step').first()).toHaveAttribute('data-status', 'passed');
    // The screen is live.
    await expect.poll(() => page.evaluate(() => (window as unknown as { studio: { frames: number } }).studio.frames), { timeout: 15_000 }).toBeGreaterThan(0);

    // Point at Save: an id, one match.
    const save = await pointOf(page, { id: 'save' });
    await page.mouse.move(save.x, save.y);
    await expect(page.getByTestId('selector')).toHaveText('{ id: save }');
    await expect(page.getByTestId('match-count')).toHaveText('1 match');
    await expect(page.getByTestId('highlight')).toBeVisible();
    // Point at the second Cancel: its text matches two, so another selector singles it out.
    const cancel = await pointOf(page, { text: 'Cancel', nth: 1 });
    await page.mouse.move(cancel.x, cancel.y);
    await expect(page.getByTestId('match-count')).toHaveText('1 match');
    await expect(page.getByTestId('selector')).not.toHaveText('Cancel');
    await expect(page.getByTestId('candidate').filter({ hasText: 'Cancel' }).first()).toContainText('2');

    // Click Save: the tap runs on the box and the file gains it, in the file's style, comments kept.
    const saveNow = await pointOf(page, { id: 'save' });
    await page.mouse.click(saveNow.x, saveNow.y);
    await expect(page.getByTestId('result-title')).toContainText('added to the file', { timeout: 30_000 });
    await expect(page.getByTestId('action-id').first()).toHaveText(/\S/);
    await expect(page.getByTestId('image-after').first()).toBeVisible();
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(`# Orders: written with boxflow studio.\nname: Save an order\nsteps:\n  - setResolution: { width: 720, height: 450 }\n  - openTab: ${base}   # the app\n  - tap: { id: save }\n`);
    await expect(page.getByTestId('step')).toHaveCount(3);

    // The box shows the change: an assertion from the element's menu.
    const out = await pointOf(page, { id: 'out' });
    await expect.poll(() => page.evaluate(() => (window as unknown as { studio: { tree: { nodes: { id: string; text: string }[] } } }).studio.tree.nodes.find((n) => n.id === 'out')?.text), { timeout: 10_000 }).toBe('Saved');
    await page.mouse.click(out.x, out.y, { button: 'right' });
    await expect(page.getByTestId('menu')).toBeVisible();
    await page.getByTestId('menu-assert-text').click();
    await expect.poll(() => readFileSync(file, 'utf8'), { timeout: 30_000 }).toContain('  - assertLayout: { id: out, text: Saved }\n');
    await waitIdle(page);
    await page.mouse.click(out.x, out.y, { button: 'right' });
    await page.getByTestId('menu-assert-visible').click();
    await expect.poll(() => readFileSync(file, 'utf8'), { timeout: 30_000 }).toContain('  - assertVisible: { id: out }\n');
    await waitIdle(page);

    // Type into the field: click it, then the bar's text.
    const who = await pointOf(page, { id: 'who' });
    await page.mouse.click(who.x, who.y);
    await expect.poll(() => readFileSync(file, 'utf8'), { timeout: 30_000 }).toContain('  - tap: { id: who }\n');
    await waitIdle(page);
    await page.getByTestId('type-text').fill('ACME');
    await page.getByTestId('type-text').press('Enter');
    await expect.poll(() => readFileSync(file, 'utf8').trimEnd().split('\n').slice(-2), { timeout: 30_000 }).toEqual(['  - tap: { id: who }', '  - type: ACME']);
    await waitIdle(page);

    // One step again, then the whole file: every step green.
    await page.getByTestId('run-step').nth(2).click();
    await waitIdle(page);
    await expect(page.getByTestId('result-step')).toHaveCount(1);
    await expect(page.getByTestId('result-step').first()).toHaveAttribute('data-status', 'passed');
    await page.getByTestId('run-all').click();
    await waitIdle(page);
    await expect(page.getByTestId('result-title')).toHaveText('run: passed');
    await expect(page.getByTestId('step')).toHaveCount(7);
    for (const step of await page.getByTestId('step').all()) await expect(step).toHaveAttribute('data-status', 'passed');
    await expect(page.getByTestId('image-before').first()).toBeVisible();

    if (process.env.BOXFLOW_WRITE_DOCS) {
      // The README's picture: the file run green, the pointer on Save with its selector.
      await page.setViewportSize({ width: 1440, height: 860 });
      await page.waitForTimeout(500);
      const at = await pointOf(page, { id: 'save' });
      await page.mouse.move(at.x, at.y);
      await expect(page.getByTestId('selector')).toHaveText('{ id: save }');
      const shot = testInfo.outputPath('studio.png');
      await page.screenshot({ path: shot });
      copyFileSync(shot, join(repoRoot, 'docs/studio.png'));
    }
  } finally {
    await studio.close();
  }
});

test('a Maestro file: the studio writes Maestro commands (tapOn, assertVisible) and runs them green', async ({ page }) => {
  test.setTimeout(120_000);
  const file = join(dir, 'orders.yaml');
  writeFileSync(file, `url: ${base}\nname: Maestro orders\n---\n# open the app\n- launchApp\n`);
  const studio = await openStudio(page, file);
  try {
    await expect(page.getByTestId('dialect')).toContainText('Maestro');
    await page.getByTestId('run-all').click();
    await waitIdle(page);
    await expect(page.getByTestId('step').first()).toHaveAttribute('data-status', 'passed');
    const save = await pointOf(page, { id: 'save' });
    await page.mouse.move(save.x, save.y);
    await expect(page.getByTestId('selector')).toHaveText('{ id: save }');
    const saveNow = await pointOf(page, { id: 'save' });
    expect(saveNow).toEqual(save); // the screen stays where it is while the inspector fills
    await page.mouse.click(saveNow.x, saveNow.y);
    await expect.poll(() => readFileSync(file, 'utf8'), { timeout: 30_000 }).toContain('- tapOn: {id: save}\n');
    await waitIdle(page);
    const out = await pointOf(page, { id: 'out' });
    await expect.poll(() => page.evaluate(() => (window as unknown as { studio: { tree: { nodes: { id: string; text: string }[] } } }).studio.tree.nodes.find((n) => n.id === 'out')?.text), { timeout: 10_000 }).toBe('Saved');
    await page.mouse.click(out.x, out.y, { button: 'right' });
    await page.getByTestId('menu-assert-text').click();
    await expect.poll(() => readFileSync(file, 'utf8'), { timeout: 30_000 }).toContain('assertVisible');
    await waitIdle(page);
    expect(readFileSync(file, 'utf8')).toBe(`url: ${base}\nname: Maestro orders\n---\n# open the app\n- launchApp\n- tapOn: {id: save}\n- assertVisible: {id: out, text: Saved}\n`);
    await page.getByTestId('run-all').click();
    await waitIdle(page);
    await expect(page.getByTestId('result-title')).toHaveText('run: passed');
  } finally {
    await studio.close();
  }
});

test('the live view page shows a change the box makes by itself, and a click on it is an action with an actionId', async ({ page }) => {
  test.setTimeout(90_000);
  const studio = await startStudio(join(dir, 'live.flow.yaml'), { open: false }, dir);
  try {
    await studio.client.openTab(studio.box.id, { url: base });
    const { url } = await studio.client.liveViewUrl(studio.box.id);
    await page.goto(url);
    await expect(page.locator('#state')).toHaveText('live');
    const frames = () => page.evaluate(() => (window as unknown as { liveView: { frames: number; seq: number } }).liveView.seq);
    await expect.poll(frames, { timeout: 10_000 }).toBeGreaterThan(0);
    // No input: the clock ticks, new frames come (their pixels differ: the server sends only what Chromium drew anew).
    const first = await page.evaluate(() => document.querySelector('canvas')!.toDataURL());
    const seq = await frames();
    await expect.poll(frames, { timeout: 10_000 }).toBeGreaterThan(seq + 2);
    expect(await page.evaluate(() => document.querySelector('canvas')!.toDataURL())).not.toBe(first);
    // A click on the canvas is a click action on the box, logged with its actionId.
    const box = (await page.locator('#screen').boundingBox())!;
    const layout = (await studio.client.screenLayout(studio.box.id)).content;
    expect(layout).toContain('Not saved');
    const button = await (await import('playwright-core')).chromium.connectOverCDP(await studio.client.cdpUrl(studio.box.id, {}));
    const b = (await button.contexts()[0]!.pages().at(-1)!.locator('#save').boundingBox())!;
    await button.close();
    const screen = await page.evaluate(() => (window as unknown as { liveView: { screen: { width: number; height: number } } }).liveView.screen);
    await page.mouse.click(box.x + ((b.x + b.width / 2) * box.width) / screen.width, box.y + ((b.y + b.height / 2) * box.height) / screen.height);
    await expect(page.locator('#log')).toContainText(/act_\S+/);
    await expect.poll(async () => (await studio.client.screenLayout(studio.box.id)).content, { timeout: 10_000 }).toContain('Saved');
  } finally {
    await studio.close();
  }
});
