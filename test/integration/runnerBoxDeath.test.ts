// Parallel flows on a real `boxflow serve`: a box that dies mid-flow fails only its own flow,
// with an infrastructure error, and the other flows go on (on a replacement box if needed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exitClassOf } from '../../src/errors.js';
import { parseFlowYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('death');
const { dir } = local;

test('a box that dies fails its flow with BOX_UNAVAILABLE; the other flows pass', async (t) => {
  const page = 'data:text/html,<h1>Hello box</h1><input autofocus>';
  // The doomed flow's box is terminated while its second step waits for this server's answer: mid-flow by
  // construction, whatever the machine's speed.
  let doomedBox: string | undefined;
  const hold = createServer((req, res) => {
    if (req.url !== '/hold' || !doomedBox) return void res.writeHead(404).end();
    void local.client.terminateBox(doomedBox).catch(() => {}).finally(() => res.destroy());
  });
  await new Promise<void>((done) => hold.listen(0, '127.0.0.1', done));
  t.after(() => new Promise<void>((done) => hold.close(() => done())));
  const holdUrl = `http://127.0.0.1:${(hold.address() as AddressInfo).port}/hold`;
  const doomed = parseFlowYaml(`name: doomed\nsteps:\n  - openTab: "${page}"\n  - openTab: "${holdUrl}"\n  - type: too late\n`, join(dir, 'doomed.flow.yaml'));
  const others = [1, 2, 3].map((n) => parseFlowYaml(`name: fine ${n}\nsteps:\n  - openTab: "${page}"\n  - assertVisible: Hello box\n  - type: hi\n`, join(dir, `fine${n}.flow.yaml`)));
  const killer = {
    name: 'killer',
    reporter: {
      onFlowBegin(flow: { name: string }, _attempt: number, box?: { id: string }) {
        if (flow.name === 'doomed' && box) doomedBox = box.id;
      },
    },
  };
  const options = testRunOptions(dir, { workers: 2, boxes: { ids: [], createLinux: 2, createAndroid: 0 } });
  const result = await runFlows([doomed, ...others], options, { client: local.client, reporter: new ReporterHost([killer]), secrets: [] });
  const byName = Object.fromEntries(result.flows.map((f) => [f.name, f]));
  assert.equal(byName.doomed!.status, 'failed');
  assert.equal(byName.doomed!.error?.code, 'BOX_UNAVAILABLE');
  assert.match(byName.doomed!.error!.message, /died during the flow/);
  assert.equal(exitClassOf(byName.doomed!.error!.code), 3, 'an infrastructure error');
  for (const n of [1, 2, 3]) assert.equal(byName[`fine ${n}`]!.status, 'passed', JSON.stringify(byName[`fine ${n}`]!.error));
  const { data } = await local.client.listBoxes({ status: ['running'] });
  assert.equal(data.length, 0, 'the run terminated the boxes it created');
});
