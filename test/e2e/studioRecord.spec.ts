// boxflow studio records what the hand did, in a real browser against a real box (the embedded local
// server, its Chromium): a stroke on a canvas is a drag that draws, a click inside a large element a
// tap at that point, a click on a small control a tap on it, a click where there is no element a tap
// at a point of the screen (said so), keys typed into the screen type and pressKey steps. New steps
// go after the selected step, or after the step that ran last; steps move and are deleted in the
// file's own style.
import { test, expect, type Page } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStudio, waitIdle, type Running, studioSite } from './studioFixture.js';

let base: string;
let dir: string;

// The app under test: a canvas to draw on (it says how much ink it holds), a map that says where it
// was clicked (percent of its size), a field whose form greets on Enter, and a Save button.
const kApp = `<!doctype html><html><head><title>Sketch</title><style>
body { font: 18px sans-serif; margin: 16px; } .row { display: flex; gap: 16px; }
#pad { border: 1px solid #888; touch-action: none; } #map { width: 360px; height: 240px; background: #dde7f5; }
button { font-size: 18px; padding: 4px 12px; }</style></head><body>
<h1 id="title">Sketch</h1>
<div class="row"><canvas id="pad" width="360" height="240"></canvas><div id="map"></div></div>
<p><span id="ink">blank</span> · <span id="where">nowhere</span></p>
<form id="form" onsubmit="document.getElementById('out').textContent = 'Hello ' + document.getElementById('who').value; return false"><input id="who"> <button id="save" type="button" onclick="document.getElementById('out').textContent = 'Saved'">Save</button></form>
<p id="out">Not saved</p>
<script>
const pad = document.getElementById('pad');
const g = pad.getContext('2d');
g.lineWidth = 4;
let down = false;
pad.addEventListener('pointerdown', (e) => { down = true; g.beginPath(); g.moveTo(e.offsetX, e.offsetY); });
pad.addEventListener('pointermove', (e) => { if (down) { g.lineTo(e.offsetX, e.offsetY); g.stroke(); } });
addEventListener('pointerup', () => {
  if (!down) return;
  down = false;
  const d = g.getImageData(0, 0, pad.width, pad.height).data;
  let n = 0;
  for (let i = 3; i < d.length; i += 4) if (d[i]) n++;
  document.getElementById('ink').textContent = n ? 'ink ' + n : 'blank';
});
document.getElementById('map').addEventListener('click', (e) => {
  document.getElementById('where').textContent = Math.round(e.offsetX / 3.6) + ',' + Math.round(e.offsetY / 2.4);
});
</script></body></html>`;

const site = studioSite(kApp, 'boxflow-studio-record-');
test.beforeAll(async () => void ({ base, dir } = await site.start()));
test.afterAll(() => site.stop());

type Studio = { studio: { screen: { width: number; height: number }; tree: { nodes: { id: string; text: string; b: number[] | null; v: boolean }[] } } };

/** Where on the page a point of an element of the box's layout is (fx, fy: its share of the element's width and height). */
async function pointIn(page: Page, id: string, fx = 0.5, fy = 0.5): Promise<{ x: number; y: number }> {
  await expect.poll(() => page.evaluate((i) => (window as unknown as Studio).studio.tree.nodes.some((n) => n.v && n.b && n.id === i), id), { timeout: 15_000 }).toBe(true);
  return page.evaluate(({ i, fx, fy }) => {
    const s = (window as unknown as Studio).studio;
    const b = s.tree.nodes.find((n) => n.v && n.b && n.id === i)!.b!;
    const r = document.getElementById('screen')!.getBoundingClientRect();
    const k = r.width / s.screen.width;
    return { x: r.left + (b[0]! + (b[2]! - b[0]!) * fx) * k, y: r.top + (b[1]! + (b[3]! - b[1]!) * fy) * k };
  }, { i: id, fx, fy });
}

/** The text of an element of the box's page, as the studio's API reads its layout. */
const textOf = async (studio: Running, id: string) => (await studio.api<{ nodes: { id: string; text: string }[] }>('/api/tree')).nodes.find((n) => n.id === id)?.text;

const stepsOf = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('  - '));

async function runFile(page: Page, status = 'passed'): Promise<void> {
  await page.getByTestId('run-all').click();
  await waitIdle(page);
  await expect(page.getByTestId('result-title')).toHaveText(`run: ${status}`);
}

function flowFile(name: string, extra = ''): string {
  const file = join(dir, `${name}.flow.yaml`);
  writeFileSync(file, `name: ${name}\nsteps:\n  - setResolution: { width: 800, height: 600 }\n  - openTab: ${base}   # the app\n${extra}`);
  return file;
}

test('a stroke on a canvas is recorded as a drag along its path, and the written file draws it again', async ({ page }) => {
  test.setTimeout(150_000);
  const file = flowFile('draw');
  const studio = await openStudio(page, file, dir);
  try {
    await runFile(page);
    expect(await textOf(studio, 'ink')).toBe('blank');
    // A curve across the canvas: down, through three turns, up.
    const points = [[0.15, 0.2], [0.45, 0.75], [0.7, 0.3], [0.85, 0.8]] as const;
    const at = await Promise.all(points.map(([fx, fy]) => pointIn(page, 'pad', fx, fy)));
    await page.mouse.move(at[0]!.x, at[0]!.y);
    await page.mouse.down();
    for (const p of at.slice(1)) await page.mouse.move(p.x, p.y, { steps: 8 });
    await page.mouse.up();
    await expect(page.getByTestId('result-title')).toHaveText('drag: added to the file', { timeout: 60_000 });
    const steps = stepsOf(file);
    expect(steps).toHaveLength(3);
    expect(steps[2]).toMatch(/^ {2}- drag: \{ path: \[ (\[ \d+, \d+ \], ){2,}\[ \d+, \d+ \] \], interval: \d+ms \}$/);
    // The box drew it.
    await expect.poll(() => textOf(studio, 'ink'), { timeout: 15_000 }).toMatch(/^ink \d+$/);
    // The file, run from the start (the page loads blank again), draws it too.
    await runFile(page);
    await expect.poll(() => textOf(studio, 'ink'), { timeout: 15_000 }).toMatch(/^ink \d+$/);
  } finally {
    await studio.stop();
  }
});

test('a click inside a large element is a tap at that point, on a small control a tap on it, where there is none a tap on the screen; typing is type and pressKey', async ({ page }) => {
  test.setTimeout(180_000);
  const file = flowFile('clicks');
  const studio = await openStudio(page, file, dir);
  try {
    await runFile(page);
    // A quarter across, three quarters down the map: the step aims there, and the box's click lands there.
    const map = await pointIn(page, 'map', 0.25, 0.75);
    await page.mouse.click(map.x, map.y);
    await expect.poll(() => stepsOf(file).length, { timeout: 60_000 }).toBe(3);
    await waitIdle(page);
    const tap = /^ {2}- tap: \{ id: map, point: "([\d.]+)%,([\d.]+)%" \}$/.exec(stepsOf(file)[2]!);
    expect(tap, stepsOf(file)[2]).not.toBeNull();
    expect(Math.abs(Number(tap![1]) - 25)).toBeLessThanOrEqual(2);
    expect(Math.abs(Number(tap![2]) - 75)).toBeLessThanOrEqual(2);
    const where = async () => (await textOf(studio, 'where'))!.split(',').map(Number);
    await expect.poll(where, { timeout: 15_000 }).toHaveLength(2);
    const [wx, wy] = await where();
    expect(Math.abs(wx! - 25)).toBeLessThanOrEqual(2);
    expect(Math.abs(wy! - 75)).toBeLessThanOrEqual(2);

    // Save is a small control: a plain tap on it.
    const save = await pointIn(page, 'save', 0.2, 0.3);
    await page.mouse.click(save.x, save.y);
    await expect.poll(() => stepsOf(file)[3], { timeout: 60_000 }).toBe('  - tap: { id: save }');
    await waitIdle(page);

    // Below everything on the page: no element, a tap at that point of the screen, and the page says so.
    const r = (await page.getByTestId('screen').boundingBox())!;
    await page.mouse.click(r.x + r.width * 0.95, r.y + r.height * 0.95);
    await expect(page.getByTestId('toast')).toContainText('No element there');
    await expect.poll(() => stepsOf(file)[4], { timeout: 60_000 }).toMatch(/^ {2}- tap: \{ point: "[\d.]+%,[\d.]+%" \}$/);
    await waitIdle(page);
    await expect(page.getByTestId('result-title')).toHaveText('tap at a point of the screen (no element there): added to the file');

    // Click the field, type into the screen, press Enter: the keys went to the box, and the file has them.
    const who = await pointIn(page, 'who');
    await page.mouse.click(who.x, who.y);
    await page.keyboard.type('ACME');
    await page.keyboard.press('Enter');
    await expect.poll(() => stepsOf(file).slice(5), { timeout: 90_000 }).toEqual(['  - tap: { id: who }', '  - type: ACME', '  - pressKey: enter']);
    await waitIdle(page);
    await expect.poll(() => textOf(studio, 'out'), { timeout: 15_000 }).toBe('Hello ACME');

    await runFile(page);
    await expect.poll(() => textOf(studio, 'out'), { timeout: 15_000 }).toBe('Hello ACME');
  } finally {
    await studio.stop();
  }
});

test('new steps go after the selected step, or after the step run last; steps move and are deleted, comments kept', async ({ page }) => {
  test.setTimeout(150_000);
  const file = flowFile('edit', '  # save it\n  - tap: { id: save }\n  - assertVisible: Saved\n');
  const studio = await openStudio(page, file, dir);
  try {
    await runFile(page);
    const steps = page.getByTestId('step');
    await expect(steps).toHaveCount(4);
    // The whole file ran: new steps would go at its end.
    await expect(page.locator('#steps > li').nth(4)).toHaveAttribute('data-testid', 'insert-point');

    // Select the openTab step: the title's assertion goes right after it.
    await steps.nth(1).click();
    await expect(steps.nth(1)).toHaveAttribute('data-selected', 'true');
    await expect(page.locator('#steps > li').nth(2)).toHaveAttribute('data-testid', 'insert-point');
    const title = await pointIn(page, 'title');
    await page.mouse.click(title.x, title.y, { button: 'right' });
    await page.getByTestId('menu-assert-visible').click();
    await expect.poll(() => stepsOf(file), { timeout: 60_000 }).toEqual([
      '  - setResolution: { width: 800, height: 600 }', `  - openTab: ${base}   # the app`, '  - assertVisible: { id: title }', '  - tap: { id: save }', '  - assertVisible: Saved']);
    await waitIdle(page);
    // The selection follows the step added, so the next one goes after it.
    await expect(steps.nth(2)).toHaveAttribute('data-selected', 'true');
    await steps.nth(2).click();
    await expect(page.locator('[data-selected]')).toHaveCount(0);

    // ▶ on the openTab step: the box is back on a fresh page, and what comes next goes after that step.
    await page.getByTestId('run-step').nth(1).click();
    await waitIdle(page);
    await expect(page.locator('#steps > li').nth(2)).toHaveAttribute('data-testid', 'insert-point');
    // The studio's tree shows the fresh page (as a person sees it) before the menu reads the text.
    await expect.poll(() => page.evaluate(() => (window as unknown as Studio).studio.tree.nodes.find((n) => n.id === 'out')?.text), { timeout: 30_000 }).toBe('Not saved');
    const out = await pointIn(page, 'out');
    await page.mouse.click(out.x, out.y, { button: 'right' });
    await page.getByTestId('menu-assert-text').click();
    await expect.poll(() => stepsOf(file)[2], { timeout: 60_000 }).toBe('  - assertLayout: { id: out, text: Not saved }');
    await waitIdle(page);

    // Move the tap on Save up above the new assertions, delete the title's: the comment goes with its step.
    const code = (k: number) => steps.nth(k).locator('code');
    await expect(code(4)).toHaveText('tap: { id: save }');
    await steps.nth(4).getByTestId('step-up').click();
    await expect(code(3)).toHaveText('tap: { id: save }');
    await steps.nth(3).getByTestId('step-up').click();
    await expect(code(2)).toHaveText('tap: { id: save }');
    await expect(code(4)).toHaveText('assertVisible: { id: title }');
    await steps.nth(4).getByTestId('step-delete').click();
    await expect(steps).toHaveCount(5);
    expect(readFileSync(file, 'utf8')).toBe(
      `name: edit\nsteps:\n  - setResolution: { width: 800, height: 600 }\n  - openTab: ${base}   # the app\n  # save it\n  - tap: { id: save }\n  - assertLayout: { id: out, text: Not saved }\n  - assertVisible: Saved\n`);
    // Moved and deleted as the file now reads: the assertion on "Not saved" comes after the tap on Save, so the file fails there.
    await runFile(page, 'failed');
    await expect(steps.nth(3)).toHaveAttribute('data-status', 'failed');
    await steps.nth(3).getByTestId('step-delete').click();
    await expect(steps).toHaveCount(4);
    await runFile(page);
  } finally {
    await studio.stop();
  }
});
