// Android boxes of boxflow serve over the fake adb server (a test double replaying real device
// captures): what the server adds per action (HTTP, auth, validation, the box queue, parsing) over
// the device round trips themselves. Baseline: the same adb requests the action made, replayed
// straight through adbkit one after another. Ratio > 1 is the server's own overhead.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxClient } from '../src/api/client.js';
import { Adb } from '../src/server/devices/android/adbkit.js';
import { createApiKey, startServer } from '../src/server/index.js';
import { FakeAdbServer, packagesFromFixture } from '../test/support/fakeAdbServer.js';
import { benchSize, percentile, printResult } from './_report.js';

const kIterations = benchSize('BENCH_ITERATIONS', 200, 5);
const kWarmup = 20;

const fake = await FakeAdbServer.start();
const dev = fake.addDevice('emulator-5554', (d) => {
  d.packages = packagesFromFixture(); // real `pm list packages -f` capture, 152 packages
});
const dataDir = await mkdtemp(join(tmpdir(), 'boxflow-bench-android-'));
const secret = 'bench-secret-bench-secret-bench-secret';
const server = await startServer({ port: 0, dataDir, secret, log: () => {}, adb: fake.socketSpec });
const client = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(secret, 'bench') });
const adb = Adb.createClient({ host: '127.0.0.1', port: fake.port, bin: '/nonexistent/adb' }).getDevice('emulator-5554');

/** The same requests straight through adbkit, in order. */
async function replay(services: string[]): Promise<void> {
  for (const s of services) {
    const stream = s.startsWith('exec:') ? await adb.openLocal(s) : await adb.shell(s.slice('shell:'.length));
    await Adb.util.readAll(stream);
  }
}

const time = async (fn: () => Promise<unknown>) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};

try {
  const box = await client.createAndroidBox();
  const compare = async (metric: string, ours: () => Promise<unknown>, n = kIterations) => {
    const mark = dev.services.length;
    await ours();
    const services = dev.services.slice(mark);
    for (let i = 0; i < kWarmup; i++) {
      await ours();
      await replay(services);
    }
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i % 2) {
        a.push(await time(ours));
        b.push(await time(() => replay(services)));
      } else {
        b.push(await time(() => replay(services)));
        a.push(await time(ours));
      }
    }
    process.stderr.write(`${metric}: ${services.length} adb requests; ours p50 ${percentile(a, 50).toFixed(2)} ms, adb replay p50 ${percentile(b, 50).toFixed(2)} ms\n`);
    printResult('android', metric, 'ms p50', percentile(a, 50), percentile(b, 50));
  };

  await compare('press-key', () => client.pressKey(box.id, { keys: ['a'] }));
  await compare('type', () => client.type(box.id, { text: 'hello world' }));
  await compare('drag-path', () => client.drag(box.id, { path: [{ x: 1, y: 1 }, { x: 50, y: 50 }, { x: 100, y: 100 }], duration: '1ms' }));
  await compare('screen-layout', () => client.screenLayout(box.id));
  await compare('screenshot', () => client.screenshot(box.id, { outputFormat: 'base64' }), Math.min(kIterations, 60));
  await compare('list-packages', () => client.listPackages(box.id), Math.min(kIterations, 40));
  await client.terminateBox(box.id);
} finally {
  await client.close();
  await server.close();
  await fake.close();
  await rm(dataDir, { recursive: true, force: true });
}
