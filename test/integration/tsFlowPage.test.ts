// One API for the box's tab as a Playwright Page (issue 22 item 8): a TS flow's box has
// `box.page()`, as boxflow/test's box does; `box.browser.page()` keeps working. A real
// `boxflow serve` on loopback with real Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadFlowFile } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('tspage');

test('a TS flow reads its tab through box.page(), and through the older box.browser.page()', async () => {
  const out = join(local.dir, 'page.json');
  const flow = await loadFlowFile(join(import.meta.dirname, '../fixtures/tsflows/page.flow.ts'));
  const r = await runFlows([flow], testRunOptions(local.dir, { env: { OUT: out } }), { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  const result = r.flows[0]!;
  assert.equal(result.status, 'passed', JSON.stringify(result.error ?? result.attempts.at(-1)?.steps.find((s) => s.status !== 'passed')?.error));
  assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')), { title: 'page api', heading: 'Hello', oldTitle: 'page api' });
});
