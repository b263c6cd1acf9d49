// The clipboard steps over the Box API's clipboard action on a real `boxflow serve`: setDevice's
// clipboard puts the text on a Linux box's clipboard (the browser's, so the page can paste it), and
// assertClipboard reads it back (exact, /regex/, secrets masked, a mismatch ASSERT_CLIPBOARD). An
// Android box of the fake adb server (a TEST DOUBLE) has no clipboard to read: the step says so.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadFlowFile, parseFlowYaml } from '../../src/flow/index.js';
import type { Flow } from '../../src/flow/types.js';
import type { RunOptions } from '../../src/runner/options.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import { useAndroidServer, useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const linux = useLocalServer('clipboard');
const android = useAndroidServer('clipboard-android', ['emulator-5554']);
const flowModule = new URL('../../src/flow/index.js', import.meta.url).pathname.replace(/\.js$/, '.ts');

// A page that shows what is pasted into its field.
const kPage = `<!doctype html><body style="font:16px sans-serif"><input id="field" autofocus>
<p id="pasted">nothing pasted</p>
<script>document.getElementById('field').addEventListener('paste', (e) => {
  document.getElementById('pasted').textContent = 'pasted ' + e.clipboardData.getData('text/plain');
});</script></body>`;
let site: Server;
let siteUrl: string;
before(async () => {
  site = createServer((_req, res) => res.setHeader('content-type', 'text/html').end(kPage));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
after(async () => {
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

async function run(local: { dir: string; client: typeof linux.client }, flow: Flow, name: string, options: Partial<RunOptions> = {}) {
  const result = await runFlows([flow], testRunOptions(local.dir, { outputDir: join(local.dir, `out-${name}`), ...options }), {
    client: local.client,
    reporter: new ReporterHost([]),
    secrets: ['s3cret-77'],
  });
  const f = result.flows[0]!;
  return { flow: f, steps: f.attempts.at(-1)!.steps };
}

test('setDevice puts the text on the box clipboard, the page pastes it, and assertClipboard reads it back', async () => {
  const yaml = `name: clip
steps:
  - openTab: ${siteUrl}/
  - setDevice: { clipboard: ORDER-1234 }
  - assertClipboard: ORDER-1234
  - assertClipboard: /^ORDER-\\d+$/
  - tap: { id: field }
  - pressKey: control+v
  - assertVisible: pasted ORDER-1234
  - setDevice: { clipboard: "token s3cret-77" }
  - assertClipboard: "token s3cret-77"
  - assertClipboard: ORDER-1234
    timeout: 1s
`;
  const { flow, steps } = await run(linux, parseFlowYaml(yaml, join(linux.dir, 'clip.flow.yaml')), 'clip');
  assert.equal(flow.status, 'failed');
  const failed = steps.filter((s) => s.status === 'failed');
  assert.deepEqual(failed.map((s) => s.label), ['assertClipboard "ORDER-1234"']);
  assert.equal(steps.indexOf(failed[0]!), steps.length - 1, `only the last step fails: ${JSON.stringify(steps.map((s) => [s.label, s.status, s.error?.message]))}`);
  assert.equal(failed[0]!.error?.code, 'ASSERT_CLIPBOARD');
  assert.equal(failed[0]!.error?.message, 'the clipboard holds "token ***", expected "ORDER-1234" (after 1000 ms)');
  assert.equal(steps[1]!.message, 'clipboard "ORDER-1234"');
  assert.equal(steps[7]!.message, 'clipboard "token ***"', 'the secret is masked');
});

test('a TS flow asserts the clipboard with box.assertClipboard', async () => {
  const file = join(linux.dir, 'clip.flow.ts');
  writeFileSync(file, `import { flow } from ${JSON.stringify(flowModule)};
export default flow('clip-ts', { box: 'linux' }, async ({ box }) => {
  await box.openTab(${JSON.stringify(`${siteUrl}/`)});
  await box.step({ setDevice: { clipboard: 'from ts' } });
  await box.assertClipboard('from ts');
  await box.assertClipboard('/^from/');
});
`);
  const { flow, steps } = await run(linux, await loadFlowFile(file), 'ts');
  assert.equal(flow.status, 'passed', JSON.stringify(flow.error ?? steps.find((s) => s.status === 'failed')?.error));
  assert.deepEqual(steps.slice(2).map((s) => s.label), ['assertClipboard "from ts"', 'assertClipboard "/^from/"']);
});

test('an Android box has no clipboard to read: setDevice says pasteText keeps the text, assertClipboard fails with the reason', async () => {
  const yaml = `name: clip-android
box: android
steps:
  - setDevice: { clipboard: hello }
  - assertClipboard: hello
`;
  const { flow, steps } = await run(android, parseFlowYaml(yaml, join(android.dir, 'clip.flow.yaml')), 'android', { boxes: { ids: [], createLinux: 0, createAndroid: 1 } });
  assert.equal(flow.status, 'failed');
  assert.match(steps[0]!.message ?? '', /^clipboard "hello" for pasteText only: the box's own clipboard is not set \(422: /);
  assert.equal(steps[1]!.error?.code, 'UNPROCESSABLE');
  assert.match(steps[1]!.error?.message ?? '', /^assertClipboard: box \S+ \(android\) gives no clipboard to read \(422: /);
});
