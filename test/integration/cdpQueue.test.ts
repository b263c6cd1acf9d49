// The CDP URL's queued mode on a real `boxflow serve` (real Chromium): with `queue=1` every command
// waits its turn in the box's queue, as an action does, and holds it until it is answered; closing
// the connection lets the queue go on. The runner's CDP-only steps (selectOption, a date fill,
// uploadFile) use it (openQueued in src/runner/steps/web.ts), so they never interleave with an action.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import type { CdpConnection } from '../../src/cdp/connection.js';
import { openQueued } from '../../src/runner/steps/web.js';
import { useLocalServer } from '../support/localServer.js';
import type { Box } from '../../src/api/schemas.js';
import { waitFor } from '../support/waitFor.js';

const local = useLocalServer('cdp-queue');
let box: Box;

// The page logs when the finger goes down and up, and when a script asks it for the time.
const kPage = `data:text/html,${encodeURIComponent(`<!doctype html><body style="margin:0;height:100vh" onpointerdown="log.push('down')" onpointerup="log.push('up')"><script>window.log = [];</script>`)}`;

async function ready(): Promise<void> {
  if (box) return;
  box = await local.client.createLinuxBox({});
  await local.client.openTab(box.id, { url: kPage });
}

/** A plain (unqueued) DevTools client of the CDP URL, attached to the page. */
async function plain(url: string): Promise<{ evaluate: (expr: string) => Promise<unknown>; close: () => void }> {
  const ws = new WebSocket(url);
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  let id = 0;
  const waiting = new Map<number, (v: { result?: Record<string, unknown> }) => void>();
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString()) as { id?: number; result?: Record<string, unknown> };
    if (m.id !== undefined) waiting.get(m.id)?.(m);
  });
  const send = (method: string, params: Record<string, unknown>, sessionId?: string) =>
    new Promise<{ result?: Record<string, unknown> }>((r) => {
      waiting.set(++id, r);
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  const targetId = await pageTarget((m, p) => send(m, p).then((r) => r.result!));
  const { result } = await send('Target.attachToTarget', { targetId, flatten: true });
  const sessionId = result!.sessionId as string;
  return {
    evaluate: async (expression) => ((await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId)).result!.result as { value: unknown }).value,
    close: () => ws.terminate(),
  };
}

async function pageTarget(send: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>): Promise<string> {
  const { targetInfos } = (await send('Target.getTargets', {})) as { targetInfos: Array<{ targetId: string; type: string; url: string }> };
  return targetInfos.find((t) => t.type === 'page' && t.url.startsWith('data:'))!.targetId;
}

async function queued(url: string): Promise<{ conn: CdpConnection; evaluate: (expr: string) => Promise<unknown> }> {
  const conn = await openQueued(url, new AbortController().signal);
  const targetId = await pageTarget((m, p) => conn.send(m, p));
  const { sessionId } = await conn.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  return { conn, evaluate: async (expression) => (await conn.send<{ result: { value: unknown } }>('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, { sessionId })).result.value };
}

test('a queued command waits for the action before it; an unqueued one does not', async () => {
  await ready();
  const url = await local.client.cdpUrl(box.id, {});
  const watch = await plain(url);
  const q = await queued(url);
  await watch.evaluate('window.log.length = 0');
  const order: string[] = [];
  const drag = local.client.drag(box.id, { start: { x: 100, y: 100 }, end: { x: 300, y: 300 }, duration: '2s', options: { screenshot: false } }).then(() => order.push('drag answered'));
  // The drag runs: the finger is down.
  await waitFor(async () => ((await watch.evaluate('window.log.join()')) as string).includes('down'), { what: 'the drag to put the finger down' });
  const inQueue = q.evaluate("window.log.push('queued'), window.log.join()").then((log) => order.push(`queued answered: ${String(log)}`));
  const now = await watch.evaluate("window.log.push('plain'), window.log.join()");
  order.push(`plain answered: ${String(now)}`);
  await Promise.all([drag, inQueue]);
  q.conn.close();
  watch.close();
  assert.deepEqual(order, ['plain answered: down,plain', 'drag answered', 'queued answered: down,plain,up,queued']);
});

test('a queued command that never answers holds the queue only until its connection closes', async () => {
  await ready();
  const url = await local.client.cdpUrl(box.id, {});
  const q = await queued(url);
  const order: string[] = [];
  // The server is in this process: its box queue is watched on its diagnostics channel.
  const queuedWork = (what: string) =>
    new Promise<void>((resolve) => {
      const seen = (m: unknown) => {
        const q = m as { boxId: string; what: string };
        if (q.boxId === box.id && q.what === what) resolve(void unsubscribe('boxflow:box:queued', seen));
      };
      subscribe('boxflow:box:queued', seen);
    });
  const neverQueued = queuedWork('cdp');
  const never = q.evaluate('new Promise(() => {})').catch(() => order.push('never: connection closed'));
  await neverQueued;
  // A plain (unqueued) command still answers while the queue is held.
  const watch = await plain(url);
  await watch.evaluate('1');
  const shotQueued = queuedWork('screenshot');
  const shot = local.client.screenshot(box.id, {}).then(() => order.push('screenshot answered'));
  await shotQueued;
  order.push('closing');
  q.conn.close();
  await Promise.all([never, shot]);
  watch.close();
  assert.deepEqual(order, ['closing', 'never: connection closed', 'screenshot answered']);
});

test('a queued connection that sends faster than its box answers is closed (1008), and the box goes on', async () => {
  await ready();
  const url = new URL(await local.client.cdpUrl(box.id, {}));
  url.searchParams.set('queue', '1');
  const ws = new WebSocket(url);
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
  // 400 commands in one burst: each waits for the one before it to be answered, so most are still
  // waiting for their turn when the 257th arrives.
  for (let id = 1; id <= 400; id++) ws.send(JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression: 'new Promise(() => {})', awaitPromise: true }, sessionId: 'none' }));
  const { code, reason } = await closed;
  assert.equal(code, 1008);
  assert.match(reason, /^more than 256 commands or 16 MiB wait for the box's queue$/);
  const shot = await local.client.screenshot(box.id, {});
  assert.match(shot.uri, /^data:image\/png;base64,|^http/);
});
