// `boxflow test --live` as a user runs it: the built CLI on the embedded box prints the box's live
// view URL, and that page, opened in Chromium, shows the flow as it runs: the running step's label
// over the screen, the actionId of the step before it, the steps so far; and the "no page open"
// label the box had before its first tab is gone once the tab's frames arrive. The flow waits on
// the test twice (a request the test answers when it is ready), so nothing here sleeps.
import { test, expect } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { cliPath, readResults, repoRoot, tempProject } from './helpers.js';

/** Requests held until the test lets them through. */
class Gate {
  #waiting: { res: ServerResponse; body: string }[] = [];
  #open = false;
  hold(res: ServerResponse, body: string): void {
    if (this.#open) return void res.end(body);
    this.#waiting.push({ res, body });
  }
  open(): void {
    this.#open = true;
    for (const { res, body } of this.#waiting.splice(0)) res.end(body);
  }
}

let app: Server;
let base: string;
let cli: ChildProcess | undefined;
const start = new Gate();
const ready = new Gate();

test.beforeAll(async () => {
  app = createServer((req, res) => {
    if (req.url === '/start') return start.hold(res.writeHead(200, { 'content-type': 'text/plain' }), 'go');
    if (req.url === '/ready') return ready.hold(res.writeHead(200, { 'content-type': 'text/plain' }), 'Ready');
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><body style="font:32px sans-serif"><h1>Live demo</h1>
<button id="start" style="font-size:32px" onclick="this.textContent='Waiting';fetch('/ready').then((r)=>r.text()).then((t)=>{document.getElementById('out').textContent=t})">Start</button>
<p id="out"></p></body>`);
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  start.open();
  ready.open();
  cli?.kill();
  app.closeAllConnections();
  await new Promise<void>((r) => app.close(() => r()));
});

test('the live view of `boxflow test --live` shows the running step over the screen, the step before with its actionId, and drops "no page open" once frames arrive', async ({ page }) => {
  test.setTimeout(300_000);
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ flows: ['flows'], timeouts: { flow: '5m' } }),
    'flows/live.flow.ts': [
      "import { flow } from 'boxflow';",
      '',
      "export default flow('live watch', async ({ box, expect }) => {",
      '  await box.closeBrowser();',
      `  await fetch('${base}/start');`,
      `  await box.openTab('${base}/');`,
      "  await box.tap({ css: '#start' });",
      "  await expect(box).toShow({ text: 'Ready' }, { timeout: 240_000 });",
      '});',
      '',
    ].join('\n'),
  });
  const env = { ...process.env, BOXFLOW_BASE_URL: undefined, BOXFLOW_API_KEY: undefined, GBOX_BASE_URL: undefined, GBOX_API_KEY: undefined };
  const child = spawn(process.execPath, [cliPath, 'test', '--live', '--reporter', 'json'], { cwd: dir, env: env as NodeJS.ProcessEnv });
  cli = child;
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d));
  child.stderr!.on('data', (d: Buffer) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('close', r));

  // The URL is printed as the box's flow begins.
  await expect.poll(() => /live view of box \S+: (http\S+)/.exec(stdout)?.[1], { timeout: 120_000, message: `the live view URL (stderr: ${stderr})` }).toBeTruthy();
  const url = /live view of box \S+: (http\S+)/.exec(stdout)![1]!;
  await page.goto(url);

  // The flow has begun and closed the browser; it waits for the test before it opens a tab.
  await expect(page.locator('#run-flow')).toContainText('live watch', { timeout: 60_000 });
  await expect(page.locator('#status')).toHaveText("the box's browser has no page open", { timeout: 60_000 });
  start.open();

  // Now the tab is open, Start was tapped, and the last step waits for "Ready".
  const running = page.locator('#run-step');
  await expect(running).toContainText('Ready', { timeout: 120_000 });
  await expect(page.locator('#steps li[data-status="running"]')).toHaveCount(1);
  await expect.poll(() => page.evaluate(() => (window as unknown as { liveView: { frames: number } }).liveView.frames), { timeout: 60_000 }).toBeGreaterThan(0);
  await expect(page.locator('#status')).toHaveText('');
  const shownLabel = (await running.textContent())!;
  const tapRow = page.locator('#steps li[data-step-id="3"]');
  await expect(tapRow).toHaveAttribute('data-status', 'passed');
  const shownActionId = (await tapRow.locator('.action').textContent())!;
  expect(shownActionId).toMatch(/\S/);
  await expect(page.locator('#run-action')).toHaveText(`actionId ${shownActionId} (step 3)`);
  await expect(page.locator('#steps li')).toHaveCount(4);
  // BOXFLOW_WRITE_DOCS=1 also writes the README's picture of a live run, docs/live.png.
  if (process.env.BOXFLOW_WRITE_DOCS) await page.screenshot({ path: join(repoRoot, 'docs/live.png') });

  ready.open();
  expect(await exited, `${stdout}\n${stderr}`).toBe(0);
  // What the page showed is what the run recorded.
  const steps = readResults(join(dir, 'boxflow-results')).flows[0]!.attempts[0]!.steps;
  expect(steps.map((s) => s.id)).toEqual(['1', '2', '3', '4']);
  expect(steps[2]!.actionId).toBe(shownActionId);
  expect(shownLabel).toBe(`▶ 4  ${steps[3]!.label}`);
});
