// boxflow serve's action screenshots on a real Chromium: `settle: 'frames'` takes the after-shot
// once the screen is still instead of waiting the whole delay, and a stored trace (drawn after the
// answer) can be fetched at once and is the before image with the operation drawn on it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Box } from '../../src/api/schemas.js';
import { drawTrace } from '../../src/server/http/trace.js';
import { decodePng } from '../../src/visual/index.js';
import { useLocalServer } from '../support/localServer.js';
import { waitFor } from '../support/waitFor.js';

const local = useLocalServer('settle');
let shared: Promise<Box> | undefined;
/** One box for the file's tests, made by the first (the server starts in a before hook, and ends its boxes when it stops). */
const boxOnce = () => (shared ??= local.client.createLinuxBox({ wait: true }));

const page = 'data:text/html,<input id="i" autofocus style="font-size:30px"><script>document.getElementById("i").focus()</script>';
const pixels = (png: Buffer) => Buffer.from(decodePng(png).data);
const inline = (uri: string) => Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64');
type Options = { screenshot: { phases?: ('before' | 'after' | 'trace')[]; delay: string; outputFormat?: 'storageKey' } };

/** `work`, or a failure once `ms` went by: the bound that tells "waited the whole delay" from "did not". */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  const timer = new AbortController();
  try {
    return await Promise.race([work, sleep(ms, undefined, { signal: timer.signal }).then(() => assert.fail(`no answer within ${ms / 1000} s`))]);
  } finally {
    timer.abort();
  }
}

/**
 * Until the page's markup (the box's screen layout: the DOM, read without a screenshot, so it
 * leaves what the server knows of the screen alone) matches `pattern`: how a test waits for the
 * page to have done something by itself.
 */
async function pageShows(boxId: string, pattern: RegExp): Promise<void> {
  await waitFor(async () => pattern.test((await local.client.screenLayout(boxId)).content), { what: `the page to show ${pattern}`, intervalMs: 25 });
}

test("settle: 'frames' answers once the screen is still, long before a 30 s delay", async () => {
  const { client } = local;
  const box = await boxOnce();
  await client.openTab(box.id, { url: page });
  const options = { screenshot: { phases: ['before', 'after'], delay: '30s', settle: 'frames' } } as Options;
  const result = await within(20_000, client.type(box.id, { text: 'settled', options }));
  const beforeImage = pixels(inline(result.screenshot!.before!.uri));
  const afterImage = pixels(inline(result.screenshot!.after!.uri));
  assert.ok(!beforeImage.equals(afterImage), 'the after-shot shows the typed text');
});

test("settle: 'frames' on a screen that never stops moving still answers, after its delay", async () => {
  const { client } = local;
  const box = await boxOnce();
  const spinner = 'data:text/html,<p id="n" style="font-size:40px">0</p><script>let n=0;(function f(){document.getElementById("n").textContent=++n;requestAnimationFrame(f)})()</script>';
  await client.openTab(box.id, { url: spinner });
  const options = { screenshot: { phases: ['after'], delay: '300ms', settle: 'frames' } } as Options;
  const result = await within(20_000, client.pressKey(box.id, { keys: ['tab'], options }));
  assert.equal(decodePng(inline(result.screenshot!.after!.uri)).width, 1280);
});

test('a stored trace can be fetched as soon as the action answered: the before image (where the action happened) with the keys drawn on it', async () => {
  const { client } = local;
  const box = await boxOnce();
  await client.openTab(box.id, { url: page });
  for (const settle of [undefined, 'frames']) {
    const options = { screenshot: { outputFormat: 'storageKey', delay: '0ms', ...(settle ? { settle } : {}) } } as Options;
    const result = await client.pressKey(box.id, { keys: ['a'], options });
    const shots = result.screenshot as Record<'before' | 'after' | 'trace', { uri: string; presignedUrl?: string }>;
    assert.match(shots.trace.uri, /\/trace\.png$/);
    const [beforeImage, trace] = await Promise.all([client.fetchObject(shots.before.presignedUrl!), client.fetchObject(shots.trace.presignedUrl!)]);
    const expected = await drawTrace(beforeImage, { kind: 'label', text: 'keys: a' });
    assert.ok(pixels(trace).equals(pixels(expected)), `settle ${settle ?? 'delay'}: the trace is the before image with "keys: a"`);
  }
});

test("settle: 'frames': every typed letter is in its step's after-image, also when the screen was still before", async () => {
  const { client } = local;
  const box = await boxOnce();
  // No caret: between the steps the screen is still, so each before-image is the last after-image.
  await client.openTab(box.id, { url: 'data:text/html,<input id="i" style="font-size:30px;caret-color:transparent"><script>i.focus()</script>' });
  const options = { screenshot: { phases: ['before', 'after'], delay: '2s', settle: 'frames' } } as Options;
  const stale: string[] = [];
  // Chromium tells the frame a key drew 20-40 ms later: "no frame yet" does not mean "nothing changed".
  for (const letter of 'abcdefghijklmnopqrst') {
    const r = await client.type(box.id, { text: letter, options });
    if (r.screenshot!.after!.uri === r.screenshot!.before!.uri) stale.push(letter);
  }
  assert.deepEqual(stale, [], 'no after-image is the screen from before its letter');
});

test("settle: 'frames': the before-image is the screen as it is, also when it changed since the last action", async () => {
  const { client } = local;
  const box = await boxOnce();
  // No caret anywhere: the screen changes only when the test changes it.
  await client.openTab(box.id, { url: 'data:text/html,<h1 style="font-size:80px">here</h1>' });
  const options = { screenshot: { phases: ['before', 'after'], delay: '2s', settle: 'frames' } } as Options;
  const shot = async () => {
    const r = await client.pressKey(box.id, { keys: ['shift'], options });
    return { before: pixels(inline(r.screenshot!.before!.uri)), after: pixels(inline(r.screenshot!.after!.uri)) };
  };
  const first = await shot();
  const second = await shot();
  assert.ok(second.before.equals(first.after), 'nothing changed in between');
  await client.openTab(box.id, { url: 'data:text/html,<h1 style="font-size:80px">elsewhere</h1>' });
  const third = await shot();
  assert.ok(!third.before.equals(second.after), 'the new page is in the before-image, not the last after-image');
  assert.ok(third.before.equals(third.after));
});

test("settle: 'frames': a change the page makes by itself after an action is in a later before-image, once Chromium told its frame", async () => {
  const { client } = local;
  const box = await boxOnce();
  // The first key press schedules a change 1.5 s later: long after the after-shot settled. Once a frame
  // showing it was drawn (two animation frames later), the page marks its body.
  const changes = 'addEventListener("keydown",()=>setTimeout(()=>{h.textContent="two";requestAnimationFrame(()=>requestAnimationFrame(()=>{document.body.dataset.drawn="two"}))},1500),{once:true})';
  await client.openTab(box.id, { url: `data:text/html,<h1 id="h" style="font-size:80px">one</h1><script>${changes}</script>` });
  const options = { screenshot: { phases: ['before', 'after'], delay: '2s', settle: 'frames' } } as Options;
  const first = await client.pressKey(box.id, { keys: ['shift'], options });
  const firstAfter = pixels(inline(first.screenshot!.after!.uri));
  await pageShows(box.id, /data-drawn="two"/);
  // Chromium tells a drawn frame 20-40 ms after the change (more under load), sometimes after the
  // page's second animation frame: a step that begins before that may still show "one". A later
  // one must not: the server was told the screen changed, so its last capture is no longer the screen.
  const before = await waitFor(async () => pixels(inline((await client.pressKey(box.id, { keys: ['shift'], options })).screenshot!.before!.uri)), {
    what: 'a before-image that is not the first step\'s after-image',
    accept: (image) => !image.equals(firstAfter),
    timeoutMs: 5_000,
  });
  const now = pixels(inline((await client.screenshot(box.id)).uri));
  assert.ok(before.equals(now), 'the before-image shows "two"');
});

test("settle: 'frames': the after-image is the end of the app's answer, a transition that runs after the input", async () => {
  const { client } = local;
  const box = await boxOnce();
  const options = { screenshot: { phases: ['after'], delay: '5s', settle: 'frames' } } as Options;
  // The page marks its body when the transition has ended.
  const app = 'data:text/html,<div id="d" style="width:80px;height:80px;background:teal;transition:margin-left 300ms linear"></div><script>addEventListener("keydown",()=>{d.style.marginLeft="400px"});d.addEventListener("transitionend",()=>{document.body.dataset.moved="done"})</script>';
  await client.openTab(box.id, { url: app });
  const result = await client.pressKey(box.id, { keys: ['shift'], options });
  await pageShows(box.id, /data-moved="done"/);
  const final = pixels(inline((await client.screenshot(box.id)).uri));
  assert.ok(pixels(inline(result.screenshot!.after!.uri)).equals(final), 'the after-image shows the box at its end');
});

test("a tap that navigates answers with its after-shot, not 'Not attached to an active page' while the page swaps", async () => {
  const { client } = local;
  const box = await boxOnce();
  const site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(req.url === '/next' ? '<h1 style="font-size:60px">Next</h1>' : '<a href="/next" style="display:block;font-size:60px;padding:40px">Go</a>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  try {
    const options = { screenshot: { phases: ['before', 'after'], delay: '1s', settle: 'frames' } } as Options;
    // The swap window is short: a handful of navigations hit it often enough to fail the old code.
    for (let i = 0; i < 8; i++) {
      await client.openTab(box.id, { url: `${origin}/` });
      const result = await client.drag(box.id, { start: { x: 100, y: 80 }, end: { x: 100, y: 80 }, duration: '50ms', options });
      assert.ok(result.screenshot?.after, `tap ${i + 1} has its after-shot`);
    }
  } finally {
    site.closeAllConnections();
    await new Promise((r) => site.close(r));
  }
});
