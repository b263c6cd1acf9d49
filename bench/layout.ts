// Parse + one selector query on the largest real dump (askamo, 216 nodes, 73 KB), the work the
// runner repeats on every layout poll. Baseline: @xmldom/xmldom DOMParser + the `xpath` package
// doing the same query. Both run in the same process, alternating rounds; median ms/op reported.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DOMParser } from '@xmldom/xmldom';
import xpath from 'xpath';
import { parseLayout, query, cleanAndroidXml } from '../src/layout/index.js';
import { benchSize, percentile, printResult } from './_report.js';

const file = fileURLToPath(new URL('../test/fixtures/android/askamo_webview-chat_216nodes_bom_devtty-trailer.xml', import.meta.url));
const content = readFileSync(file, 'utf8');
const kRounds = benchSize(undefined, 11, 2);
const kPerRound = benchSize(undefined, 40, 3);

// All matches, visible or not, so both sides return the same nodes.
const ours = () => query(parseLayout(content), { textContains: 'message', clickable: true }, { visibleOnly: false }).length;
const baseline = () => {
  const doc = new DOMParser().parseFromString(cleanAndroidXml(content), 'text/xml');
  return (xpath.select("//node[contains(@text, 'message') and @clickable='true']", doc as unknown as Node) as Node[]).length;
};
const oursQuery = (() => {
  const tree = parseLayout(content);
  return () => query(tree, { textContains: 'message', clickable: true }, { visibleOnly: false }).length;
})();
const baselineQuery = (() => {
  const doc = new DOMParser().parseFromString(cleanAndroidXml(content), 'text/xml');
  return () => (xpath.select("//node[contains(@text, 'message') and @clickable='true']", doc as unknown as Node) as Node[]).length;
})();

const a = ours();
const b = baseline();
if (a !== b || a === 0) throw new Error(`the two sides disagree: ${a} vs ${b}`);

function time(fn: () => number, n: number): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - t0) / 1e6 / n;
}

function compare(x: () => number, y: () => number, n: number): [number, number] {
  time(x, n);
  time(y, n);
  const xs: number[] = [];
  const ys: number[] = [];
  for (let r = 0; r < kRounds; r++) {
    xs.push(time(x, n));
    ys.push(time(y, n));
  }
  return [percentile(xs, 50), percentile(ys, 50)];
}

process.stderr.write(`askamo: ${content.length} chars, ${a} matches; ${kRounds} rounds × ${kPerRound} ops\n`);
const [p1, p2] = compare(ours, baseline, kPerRound);
printResult('layout', 'parse+query', 'ms/op', p1, p2);
const [q1, q2] = compare(oursQuery, baselineQuery, kPerRound);
printResult('layout', 'query (parsed once)', 'ms/op', q1, q2);
