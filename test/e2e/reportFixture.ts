// Produces the report the browser test opens. For now it plays the fixture run (a pass, a
// failure with layout evidence, a visual failure, a flaky flow, a skipped flow) through the
// real reporters; the lead will switch it to a real `boxflow test` run with the same contract:
// after produceReport(dir), dir holds index.html, data/, junit.xml and results.json(l).
import { EventLog } from '../../src/runner/events.js';
import { loadReporters, ReporterHost } from '../../src/runner/reporterHost.js';
import { builtinReporters } from '../../reporters/index.js';
import { kFailActionId, kFixtureRoot, runFixture } from '../fixtures/results/fixture.js';

export interface ProducedReport {
  /** What the spec checks the page against. */
  expect: {
    counts: { total: number; passed: number; failed: number; flaky: number; skipped: number };
    failedFlow: string;
    failedActionId: string;
    visualFlow: string;
    tag: string;
    flowsWithTag: number;
  };
}

export async function produceReport(dir: string): Promise<ProducedReport> {
  const ctx = { outputDir: dir, rootDir: kFixtureRoot, write: () => {} };
  const log = new EventLog(dir);
  const host = new ReporterHost(await loadReporters(['html', 'junit', 'json'], ctx, builtinReporters), log);
  const result = await runFixture(host, { outputDir: dir, shard: { index: 1, total: 2 } });
  log.close();
  return {
    expect: {
      counts: result.stats,
      failedFlow: 'Checkout from the cart',
      failedActionId: kFailActionId,
      visualFlow: 'Home page looks right',
      tag: 'smoke',
      flowsWithTag: result.flows.filter((f) => f.tags.includes('smoke')).length,
    },
  };
}
