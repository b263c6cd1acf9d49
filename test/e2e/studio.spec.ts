// boxflow studio in a real browser against a real box (the embedded local server, its Chromium):
// point at an element and see its selector and match count, click it and the flow file gains the step
// (its comments kept), add an assertion from the element's menu, run the file green with its images;
// the same on a Maestro file; and the box's live view shows what the box changes by itself.
// BOXFLOW_WRITE_DOCS=1 also writes the README's screenshot, docs/studio.png.
import { test, expect, type Page } from '@playwright/test';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers.js';
import { launchStudio, openStudio, waitIdle, studioSite } from './studioFixture.js';

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

const site = studioSite(kApp, 'boxflow-studio-e2e-');
test.beforeAll(async () => void ({ base, dir } = await site.start()));
test.afterAll(() => site.stop());

/** Where an element of the box's layout is on the page (the canvas scales the box's screen). */
async function pointOf(page: Page, find: { id?: string; text?: string; tag?: string; nth?: number }): Promise<{ x: number; y: number }> {
  await expect.poll(() => page.evaluate((f) => {
    const s = (window as unknown as { studio: { tree: { nodes: { id: string; text: string; b: number[] | null; v: boolean; tag: string }[] } } }).studio;
    return s.tree.nodes.filter((n) => n.v && n.b && (f.id ? n.id === f.id : n.text === f.text && n.tag === (f.tag ?? 'button'))).length;
  }, find), { timeout: 15_000 }).toBeGreaterThan(find.nth ?? 0);
  return page.evaluate((f) => {
    const s = (window as unknown as { studio: { screen: { width: number; height: number }; tree: { nodes: { id: string; text: string; b: number[]; v: boolean; tag: string }[] } } }).studio;
    const n = s.tree.nodes.filter((x) => x.v && x.b && (f.id ? x.id === f.id : x.text === f.text && x.tag === (f.tag ?? 'button')))[f.nth ?? 0]!;
    const r = document.getElementById('screen')!.getBoundingClientRect();
    const k = r.width / s.screen.width;
    return { x: r.left + ((n.b[0]! + n.b[2]!) / 2) * k, y: r.top + ((n.b[1]! + n.b[3]!) / 2) * k };
  }, find);
}

test('point, see the selector and its match count; click: the step runs on the box and is added with the comments kept; assert from the menu; run the file green', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const file = join(dir, 'orders.flow.yaml');
  writeFileSync(file, `# Orders: written with boxflow studio.\nname: Save an order\nsteps:\n  - setResolution: { width: 720, height: 450 }\n  - openTab: ${base}   # the app\n`);
  const studio = await openStudio(page, file, dir);
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

    // A screenshot assertion with the ticking clock masked: its baseline is written next to the flow.
    const clock = await pointOf(page, { id: 'clock' });
    await page.mouse.click(clock.x, clock.y, { button: 'right' });
    await page.getByTestId('menu-mask').click();
    await expect(page.locator('#masks .mask')).toHaveCount(1);
    const title = await pointOf(page, { text: 'Orders', tag: 'h1' });
    await page.mouse.click(title.x, title.y, { button: 'right' });
    await page.getByTestId('menu-assert-screenshot').click();
    await page.getByTestId('shot-name').fill('orders');
    await page.getByTestId('shot-crop-screen').check();
    await page.getByTestId('shot-add').click();
    await expect.poll(() => readFileSync(file, 'utf8'), { timeout: 30_000 }).toContain('  - assertScreenshot: { name: orders, mask: [ { id: clock } ] }\n');
    await waitIdle(page);
    expect(existsSync(join(dir, '__screenshots__', 'Save-an-order', 'orders-linux.png'))).toBe(true);
    await expect(page.locator('#masks .mask')).toHaveCount(0);

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
    await expect(page.getByTestId('step')).toHaveCount(8);
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
    await studio.stop();
  }
});

test('a Maestro file: the studio writes Maestro commands (tapOn, assertVisible) and runs them green', async ({ page }) => {
  test.setTimeout(120_000);
  const file = join(dir, 'orders.yaml');
  writeFileSync(file, `url: ${base}\nname: Maestro orders\n---\n# open the app\n- launchApp\n`);
  const studio = await openStudio(page, file, dir);
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
    await studio.stop();
  }
});

test('the live view page shows a change the box makes by itself, and a click on it is an action with an actionId', async ({ page }) => {
  test.setTimeout(90_000);
  const studio = await launchStudio(join(dir, 'live.flow.yaml'), dir);
  try {
    // The studio's bar opens the app (an openTab step); its state has the box's live view.
    expect((await studio.api<{ ok: boolean }>('/api/open', { url: base })).ok).toBe(true);
    const state = await studio.api<{ live: { url: string } }>('/api/state');
    await page.goto(state.live.url);
    await expect(page.locator('#state')).toHaveText('live');
    const seq = () => page.evaluate(() => (window as unknown as { liveView: { seq: number } }).liveView.seq);
    await expect.poll(seq, { timeout: 10_000 }).toBeGreaterThan(0);
    // No input: the clock ticks, new frames come, and what the canvas shows changes.
    const first = await page.evaluate(() => document.querySelector('canvas')!.toDataURL());
    const at = await seq();
    await expect.poll(seq, { timeout: 10_000 }).toBeGreaterThan(at + 2);
    expect(await page.evaluate(() => document.querySelector('canvas')!.toDataURL())).not.toBe(first);
    // A click on the canvas is a click action on the box, logged with its actionId.
    const tree = await studio.api<{ nodes: { id: string; b: number[] }[] }>('/api/tree');
    const save = tree.nodes.find((n) => n.id === 'save')!.b;
    const box = (await page.locator('#screen').boundingBox())!;
    const screen = await page.evaluate(() => (window as unknown as { liveView: { screen: { width: number; height: number } } }).liveView.screen);
    await page.mouse.click(box.x + (((save[0]! + save[2]!) / 2) * box.width) / screen.width, box.y + (((save[1]! + save[3]!) / 2) * box.height) / screen.height);
    await expect(page.locator('#log')).toContainText(/act_\S+/);
    await expect.poll(async () => (await studio.api<{ nodes: { id: string; text: string }[] }>('/api/tree')).nodes.find((n) => n.id === 'out')?.text, { timeout: 10_000 }).toBe('Saved');
  } finally {
    await studio.stop();
  }
});
