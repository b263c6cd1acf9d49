// A tap on a link to another site swaps the page's renderer while the after-shot is taken. A
// capture asked of the old renderer may never answer; boxflow serve asks again once the commit is
// told. The boxes here have a browser bound (4.5 s) shorter than the 5 s after which a stalled
// capture is given up, so a capture left to stall fails its tap instead of only delaying it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useLocalServer } from '../support/localServer.js';

const local = useLocalServer('navcap', { cdpTimeoutMs: 4_500 });

test('taps on a link to another site answer with their after-shot, each showing the new page', async () => {
  const { client } = local;
  const site = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<h1 style="font-size:60px">Next</h1>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const next = `http://127.0.0.1:${(site.address() as AddressInfo).port}/next`;
  const box = await client.createLinuxBox({ wait: true });
  try {
    const options = { screenshot: { phases: ['before', 'after'], delay: '2s', settle: 'frames' } } as never;
    // From a data: URL to an http origin: a new renderer each time. 12 of 40 such taps stalled before.
    for (let i = 0; i < 25; i++) {
      await client.openTab(box.id, { url: `data:text/html,<a href="${next}" style="display:block;font-size:60px;padding:40px">Go ${i}</a>` });
      const result = await client.drag(box.id, { start: { x: 100, y: 80 }, end: { x: 100, y: 80 }, duration: '10ms', options });
      assert.ok(result.screenshot?.after, `tap ${i + 1} has its after-shot`);
      assert.match((await client.screenLayout(box.id)).content, /Next/, `tap ${i + 1} went to the other site`);
    }
  } finally {
    await client.terminateBox(box.id);
    site.closeAllConnections();
    await new Promise((r) => site.close(r));
  }
});
