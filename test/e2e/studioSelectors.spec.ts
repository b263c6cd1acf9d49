// boxflow studio picks the selector a Playwright user would keep, and the element's menu adds the
// assertions they expect, in a real browser against a real box (the embedded local server, its
// Chromium): a button with no id is found by its role and name (its text matches a heading too), a
// field by its role and label; a screenshot assertion named in the page's own form, cropped to the
// element (its baseline has the element's size) with a mask; visible, text and value assertions
// added and run green with the whole file.
import { test, expect, type Page } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStudio, waitIdle, studioSite } from './studioFixture.js';

let base: string;
let dir: string;

const kApp = `<!doctype html><html><head><title>Sign-in demo</title><style>
body { font: 18px sans-serif; margin: 24px; } button { font-size: 18px; padding: 6px 14px; }
#card { width: 240px; height: 90px; background: #fde9c8; padding: 0; margin-top: 12px; }
</style></head><body>
<h1>Sign in</h1>
<form onsubmit="document.getElementById('status').textContent = 'Signed in'; return false">
<label>Email <input name="email" placeholder="you@example.com"></label>
<button>Sign in</button>
</form>
<p class="status" id="status">Signed out</p>
<div id="card"><b>Plan</b> Pro <span id="stamp">#4711</span></div>
</body></html>`;

const site = studioSite(kApp, 'boxflow-studio-selectors-');
test.beforeAll(async () => void ({ base, dir } = await site.start()));
test.afterAll(() => site.stop());

type Node = { id: string; text: string; tag: string; b: number[] | null; v: boolean };
type Find = { tag: string; text?: string; id?: string };

/** An element of the box's layout as the page has it, once it is there. */
async function nodeOf(page: Page, find: Find): Promise<Node> {
  const look = () =>
    page.evaluate((f) => {
      const s = (window as unknown as { studio: { tree: { nodes: Node[] } } }).studio;
      return s.tree.nodes.find((n) => n.v && n.b && n.tag === f.tag && (f.id === undefined || n.id === f.id) && (f.text === undefined || n.text === f.text)) ?? null;
    }, find);
  await expect.poll(look, { timeout: 15_000 }).not.toBeNull();
  return (await look())!;
}

/** Where an element is on the page (the canvas scales the box's screen). */
async function pointOf(page: Page, find: Find): Promise<{ x: number; y: number }> {
  const n = await nodeOf(page, find);
  return page.evaluate((b) => {
    const s = (window as unknown as { studio: { screen: { width: number } } }).studio;
    const r = document.getElementById('screen')!.getBoundingClientRect();
    const k = r.width / s.screen.width;
    return { x: r.left + ((b[0]! + b[2]!) / 2) * k, y: r.top + ((b[1]! + b[3]!) / 2) * k };
  }, n.b!);
}

const stepsOf = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('  - '));

async function menuOn(page: Page, find: Find): Promise<void> {
  const at = await pointOf(page, find);
  await page.mouse.click(at.x, at.y, { button: 'right' });
  await expect(page.getByTestId('menu')).toBeVisible();
}

test('a button without an id gets its role and name; a field its role and label; value, text and visible assertions from the menu run green', async ({ page }) => {
  test.setTimeout(180_000);
  const file = join(dir, 'signin.flow.yaml');
  writeFileSync(file, `name: Sign in\nsteps:\n  - setResolution: { width: 720, height: 450 }\n  - openTab: ${base}\n`);
  const studio = await openStudio(page, file, dir);
  try {
    await page.getByTestId('run-all').click();
    await waitIdle(page);
    await expect(page.getByTestId('result-title')).toHaveText('run: passed');

    // The button: its text also matches the heading, so its role and name single it out.
    const button = await pointOf(page, { tag: 'button', text: 'Sign in' });
    await page.mouse.move(button.x, button.y);
    await expect(page.getByTestId('selector')).toHaveText('{ role: button, name: Sign in }');
    await expect(page.getByTestId('match-count')).toHaveText('1 match');
    await expect(page.getByTestId('candidate').filter({ hasText: /^text/ })).toContainText('2');

    // The field: its role and the label's text; the label and the placeholder are candidates too, each matching it alone.
    const field = await pointOf(page, { tag: 'input' });
    await page.mouse.move(field.x, field.y);
    await expect(page.getByTestId('selector')).toHaveText('{ role: textbox, name: Email }');
    await expect(page.getByTestId('candidate').filter({ hasText: /^label/ })).toHaveText(/\{ labelText: Email \}\s*1$/);
    await expect(page.getByTestId('candidate').filter({ hasText: /^placeholder/ })).toHaveText(/\{ placeholder: "you@example.com" \}\s*1$/);

    // Click the field, type into it, and assert its value from the menu.
    await page.mouse.click(field.x, field.y);
    await expect.poll(() => stepsOf(file).at(-1), { timeout: 30_000 }).toBe('  - tap: { role: textbox, name: Email }');
    await waitIdle(page);
    await page.getByTestId('type-text').fill('ann@example.com');
    await page.getByTestId('type-text').press('Enter');
    await expect.poll(() => stepsOf(file).at(-1), { timeout: 30_000 }).toBe('  - type: ann@example.com');
    await waitIdle(page);
    await expect.poll(async () => (await nodeOf(page, { tag: 'input' })).text, { timeout: 10_000 }).toBe('ann@example.com');
    await menuOn(page, { tag: 'input' });
    await page.getByTestId('menu-assert-value').click();
    await expect.poll(() => stepsOf(file).at(-1), { timeout: 30_000 }).toBe('  - assertLayout: { selector: { role: textbox, name: Email }, text: ann@example.com }');
    await waitIdle(page);

    // Sign in, then assert the status line's text and that it is visible.
    const signIn = await pointOf(page, { tag: 'button', text: 'Sign in' });
    await page.mouse.click(signIn.x, signIn.y);
    await expect.poll(() => stepsOf(file).at(-1), { timeout: 30_000 }).toBe('  - tap: { role: button, name: Sign in }');
    await waitIdle(page);
    await expect.poll(async () => (await nodeOf(page, { tag: 'p', id: 'status' })).text, { timeout: 10_000 }).toBe('Signed in');
    await menuOn(page, { tag: 'p', id: 'status' });
    await page.getByTestId('menu-assert-text').click();
    await expect.poll(() => stepsOf(file).at(-1), { timeout: 30_000 }).toBe('  - assertLayout: { id: status, text: Signed in }');
    await waitIdle(page);
    await menuOn(page, { tag: 'p', id: 'status' });
    await page.getByTestId('menu-assert-visible').click();
    await expect.poll(() => stepsOf(file).at(-1), { timeout: 30_000 }).toBe('  - assertVisible: { id: status }');
    await waitIdle(page);

    // The whole file, green, as it will run in CI (a fresh page: the value is typed again).
    await page.getByTestId('run-all').click();
    await waitIdle(page);
    await expect(page.getByTestId('result-title')).toHaveText('run: passed');
    await expect(page.getByTestId('step')).toHaveCount(8);
    for (const step of await page.getByTestId('step').all()) await expect(step).toHaveAttribute('data-status', 'passed');
  } finally {
    await studio.stop();
  }
});

test('a screenshot assertion from the menu: named in the page, cropped to the element with a mask; its baseline has the element\'s size; cancelling says nothing was added', async ({ page }) => {
  test.setTimeout(120_000);
  const file = join(dir, 'card.flow.yaml');
  writeFileSync(file, `name: Card\nsteps:\n  - setResolution: { width: 720, height: 450 }\n  - openTab: ${base}\n`);
  const studio = await openStudio(page, file, dir);
  try {
    await page.getByTestId('run-all').click();
    await waitIdle(page);
    await expect(page.getByTestId('result-title')).toHaveText('run: passed');
    const before = readFileSync(file, 'utf8');

    // Cancelled: no browser prompt, a form in the page; dismissing it says so, and the file stays as it was.
    await menuOn(page, { tag: 'div', id: 'card' });
    await page.getByTestId('menu-assert-screenshot').click();
    await expect(page.getByTestId('shot-form')).toBeVisible();
    await page.getByTestId('shot-cancel').click();
    await expect(page.getByTestId('shot-form')).toBeHidden();
    await expect(page.getByTestId('toast')).toHaveText('No screenshot assertion was added');
    expect(readFileSync(file, 'utf8')).toBe(before);

    // The stamp masked, then the card's screenshot under a typed name, cropped to the card (the form's default for an element).
    await menuOn(page, { tag: 'span', id: 'stamp' });
    await page.getByTestId('menu-mask').click();
    await expect(page.locator('#masks .mask')).toHaveCount(1);
    await menuOn(page, { tag: 'div', id: 'card' });
    await page.getByTestId('menu-assert-screenshot').click();
    await expect(page.getByTestId('shot-crop-element')).toBeChecked();
    await expect(page.getByTestId('shot-masks')).toContainText('{ id: stamp }');
    await page.getByTestId('shot-name').fill('plan-card');
    await page.getByTestId('shot-add').click();
    await expect.poll(() => stepsOf(file).at(-1), { timeout: 30_000 }).toBe('  - assertScreenshot: { name: plan-card, crop: { id: card }, mask: [ { id: stamp } ] }');
    await waitIdle(page);
    await expect(page.getByTestId('shot-form')).toBeHidden();
    await expect(page.locator('#masks .mask')).toHaveCount(0);

    // The baseline holds the card alone: the PNG's size is the element's.
    const card = await nodeOf(page, { tag: 'div', id: 'card' });
    const png = readFileSync(join(dir, '__screenshots__', 'Card', 'plan-card-linux.png'));
    const size = { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
    expect(size).toEqual({ width: Math.round(card.b![2]! - card.b![0]!), height: Math.round(card.b![3]! - card.b![1]!) });
    expect(size).toEqual({ width: 240, height: 90 });

    await page.getByTestId('run-all').click();
    await waitIdle(page);
    await expect(page.getByTestId('result-title')).toHaveText('run: passed');
  } finally {
    await studio.stop();
  }
});
