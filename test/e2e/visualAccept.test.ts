// A screenshot that differs from its baseline says how to accept the new image, and doing what
// it says accepts it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodePng } from '../../src/png/png.js';
import { readResults, runCli, startDemoApp, tempProject } from './helpers.js';

let app: Awaited<ReturnType<typeof startDemoApp>>;
before(async () => (app = await startDemoApp()));
after(() => app?.close());

test('ASSERT_SCREENSHOT tells how to accept the new image, and --update-baselines alone accepts it', async () => {
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ appBaseUrl: app.url, screenshots: false, reporters: ['json'] }),
    'home.flow.yaml': 'name: home\nsteps:\n  - openTab: /\n  - assertVisible: Boxflow demo shop\n  - assertScreenshot: { name: home, mask: [{ css: "#clock" }] }\n',
  });
  const shots = join(dir, '__screenshots__', 'home');
  mkdirSync(shots, { recursive: true });
  // A baseline of the right size that is all black: the page differs from it.
  const size = await (async () => {
    const first = await runCli(['test', '-o', join(dir, 'o0'), '--update-baselines=all'], { cwd: dir });
    assert.equal(first.code, 0, first.stderr);
    const { pngSize } = await import('../../src/png/png.js');
    const { readFileSync } = await import('node:fs');
    return pngSize(readFileSync(join(shots, 'home-linux.png')));
  })();
  const black = Buffer.alloc(size.width * size.height * 4);
  for (let i = 3; i < black.length; i += 4) black[i] = 255;
  writeFileSync(join(shots, 'home-linux.png'), encodePng({ width: size.width, height: size.height, data: black }));
  const run = await runCli(['test', '-o', join(dir, 'o1')], { cwd: dir });
  assert.equal(run.code, 1, run.stderr);
  const message = readResults(join(dir, 'o1')).flows[0]!.error!.message;
  assert.match(message, /differs from .*accept it with boxflow test --update-snapshots/);
  // One sentence, its clauses joined once: `the limit is 0; if the new image is right`, never `0.;`.
  assert.match(message, /the limit is \d+; if the new image is right/);
  const accept = await runCli(['test', '-o', join(dir, 'o2'), '--update-baselines'], { cwd: dir });
  assert.equal(accept.code, 0, accept.stderr);
  const again = await runCli(['test', '-o', join(dir, 'o3')], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
});
