// Web interactions and failure evidence, run by the built CLI on the embedded local box against
// the demo app (flows/app): a select, a date input, a hover menu, iframes, a file input and a
// scroll container (flows/app/public/widgets.html).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StepRecord } from '../../src/runner/types.js';
import { readResults, runCli, startDemoApp, tempProject } from './helpers.js';

let app: Awaited<ReturnType<typeof startDemoApp>>;
before(async () => (app = await startDemoApp()));
after(() => app?.close());

const walk = (steps: StepRecord[]): StepRecord[] => steps.flatMap((s) => [s, ...walk(s.children ?? [])]);

test('web steps work on a real page; failures carry a screenshot, the searched tree and readable labels', async () => {
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ appBaseUrl: app.url, reporters: ['json'], screenshots: false }),
    'upload.txt': 'picked file\n',
    'widgets.flow.yaml': `name: widgets
steps:
  - openTab: /widgets
  - assertTitle: /Widgets/
  - hover: { id: menu-title }
  - assertVisible: Laptops
  - doubleTap: Buy milk
  - assertVisible: { id: todo-edit }
  - selectOption: { id: country, label: Japan }
  - assertVisible: "Country: jp"
  - fill: { id: when, value: 2030-12-31 }
  - assertVisible: "Date: 2030-12-31"
  - check: { id: terms }
  - assertVisible: Agreed
  - uploadFile: { id: avatar, file: upload.txt }
  - assertVisible: "Uploaded upload.txt (picked file)"
  - tap: Press cross-origin
  - assertVisible: Pressed in cross-origin frame
  - swipe: { direction: up, on: { id: scroller } }
  - swipe: { direction: down, on: { id: scroller } }
  - swipe: { direction: down, on: { id: scroller } }
  - selectOption: { id: country, label: Atlantis }
    optional: true
  - fill: { id: when, value: "31/12/2030" }
    optional: true
  - assertVisible: { text: Row 3, below: { id: summary } }
    optional: true
  - assertVisible: Nothing like this
`,
  });
  const out = join(dir, 'out');
  const run = await runCli(['test', '-o', out], { cwd: dir });
  assert.equal(run.code, 1, run.stderr);
  const flow = readResults(out).flows[0]!;
  const steps = walk(flow.attempts.at(-1)!.steps);
  const byLabel = (l: string) => steps.find((s) => s.label === l) ?? assert.fail(`no step labelled ${l}: ${steps.map((s) => s.label).join(' | ')}`);

  const passedUntil = steps.findIndex((s) => s.label === 'swipe up on #scroller');
  assert.deepEqual(steps.slice(0, passedUntil + 1).filter((s) => s.status !== 'passed').map((s) => `${s.label}: ${s.error?.message}`), []);
  assert.match(byLabel('swipe up on #scroller').message ?? '', /^scrolled/);
  assert.match(steps[passedUntil + 1]!.message ?? '', /^scrolled/, 'back down');
  assert.match(steps[passedUntil + 2]!.message ?? '', /nothing moved/, 'a swipe that changes nothing says so');

  const atlantis = byLabel('selectOption #country "Atlantis"');
  assert.equal(atlantis.status, 'warned');
  assert.equal(atlantis.error?.code, 'ELEMENT_NOT_FOUND');
  assert.match(atlantis.error!.message, /no option with label "Atlantis"; options: "Choose…", "France", "Japan"/);
  const badDate = byLabel('fill #when "31/12/2030"');
  assert.equal(badDate.error?.code, 'UNPROCESSABLE');
  assert.match(badDate.error!.message, /type date does not take "31\/12\/2030" \(write YYYY-MM-DD\)/);

  const failed = byLabel('assertVisible "Nothing like this"');
  assert.equal(failed.status, 'failed');
  assert.equal(failed.error?.code, 'ASSERT_LAYOUT');
  for (const s of [failed, atlantis, badDate]) {
    const shot = s.screenshots?.failure;
    assert.ok(shot, `${s.label} has a screenshot at failure`);
    assert.deepEqual([...readFileSync(join(out, shot)).subarray(1, 4)].map((c) => String.fromCharCode(c)).join(''), 'PNG');
  }

  // The evidence is the tree the runner searched: node for node, with the candidates it found.
  const relative = byLabel('assertVisible "Row 3" below #summary');
  assert.equal(relative.status, 'warned');
  const tree = JSON.parse(readFileSync(join(out, relative.layout!.snapshot), 'utf8')) as { kind: string; nodes: { order: number; text?: string; id?: string; bounds?: unknown; visible: boolean }[] };
  assert.equal(tree.kind, 'boxflow-layout');
  assert.ok(tree.nodes.find((n) => n.id === 'scroller')?.bounds, 'geometry of the searched tree');
  const cands = relative.layout!.candidates;
  assert.ok(cands.length > 0);
  for (const c of cands) {
    const node = tree.nodes.find((n) => n.order === c.order);
    assert.ok(node, `candidate ${c.order} is a node of the searched tree`);
    assert.equal(node.id ?? '', c.id);
  }
  assert.ok(cands.some((c) => c.text === 'Row 3'));
  assert.ok(existsSync(join(out, failed.layout!.snapshot)));
});

test('a frame nested in a cross-origin frame is not searched, as docs/flows.md says', () => {
  const doc = readFileSync(new URL('../../docs/flows.md', import.meta.url), 'utf8');
  assert.match(doc, /Not supported: a frame nested inside a cross-origin frame/);
});

test('every web step that acts is a Box API action with its actionId and images; CDP-only ones keep before/after', async () => {
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ appBaseUrl: app.url, reporters: ['json'], screenshots: ['before', 'after'] }),
    'upload.txt': 'picked file\n',
    'widgets.flow.yaml': `name: widgets
steps:
  - openTab: /widgets
  - hover: { id: menu-title }
  - doubleTap: Buy milk
  - selectOption: { id: country, label: Japan }
  - fill: { id: when, value: 2030-12-31 }
  - check: { id: terms }
  - uploadFile: { id: avatar, file: upload.txt }
  - swipe: { direction: up, on: { id: scroller } }
  - assertTitle: /Widgets/
`,
  });
  const out = join(dir, 'out');
  const run = await runCli(['test', '-o', out], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const steps = readResults(out).flows[0]!.attempts.at(-1)!.steps;
  const img = (s: StepRecord, phase: 'before' | 'after') => s.screenshots?.[phase] && existsSync(join(out, s.screenshots[phase]!));
  for (const s of steps.filter((x) => /^(hover|doubleTap|check|swipe)/.test(x.command))) {
    assert.match(s.actionId ?? '', /^act_/, `${s.label} is a Box API action`);
    assert.ok(img(s, 'before') && img(s, 'after'), `${s.label} has its before/after images`);
  }
  for (const s of steps.filter((x) => /^(selectOption|uploadFile|fill)$/.test(x.command))) assert.ok(img(s, 'before') && img(s, 'after'), `${s.label} (CDP) has before/after images`);
});

test("a pointer action checks its target where it lands: a hover menu in the page's flow closes on the move, and the tap or double tap hits the paragraph; a covered target is TARGET_OBSCURED", async () => {
  // The menu opens under the pointer and pushes the paragraph down; moving away closes it again.
  // The paragraph counts its clicks: the double tap's two, then the tap's third.
  const page = `<!doctype html><style>body{margin:0;font:20px sans-serif} #menu:hover #items{display:block} #items{display:none} p{margin:8px}</style>
<div id="menu"><b id="title">Menu</b><div id="items"><p>One</p><p>Two</p><p>Three</p><p>Four</p></div></div>
<p id="para" ondblclick="this.textContent='edited'" onclick="this.dataset.n=(+this.dataset.n||0)+1;this.textContent='clicked '+this.dataset.n">Double me</p>
<p id="next" ondblclick="this.textContent='wrong one'" onclick="this.textContent='wrong one'">Not me</p>`;
  const dataUrl = (html: string) => `"data:text/html,${encodeURIComponent(html).replace(/'/g, '%27')}"`;
  // A banner over the button for good: the tap must not press whatever is on top.
  const covered = `<!doctype html><button id="buy" onclick="document.title='bought'">Buy</button>
<div id="banner" style="position:fixed;inset:0;background:rgba(0,0,0,.1)" onclick="document.title='banner pressed'">Cookies?</div>`;
  const dir = tempProject({
    'boxflow.config.json': JSON.stringify({ appBaseUrl: app.url, reporters: ['json'], screenshots: false }),
    'menu.flow.yaml': `name: menu\nsteps:\n  - openTab: ${dataUrl(page)}\n  - hover: { id: title }\n  - assertVisible: Four\n  - doubleTap: { id: para }\n  - assertVisible: edited\n    timeout: 2s\n  - assertVisible: Not me\n  - hover: { id: title }\n  - assertVisible: Four\n  - tap: { id: para }\n  - assertVisible: clicked 3\n    timeout: 2s\n  - assertVisible: Not me\n`,
    'covered.flow.yaml': `name: covered\nsteps:\n  - openTab: ${dataUrl(covered)}\n  - tap: Buy\n    timeout: 1500ms\n`,
  });
  const out = join(dir, 'out');
  const run = await runCli(['test', '-o', out], { cwd: dir });
  assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
  const flows = readResults(out).flows;
  assert.equal(flows.find((f) => f.name === 'menu')!.status, 'passed');
  const tapStep = flows.find((f) => f.name === 'covered')!.attempts.at(-1)!.steps.find((s) => s.command === 'tap')!;
  assert.equal(tapStep.error?.code, 'TARGET_OBSCURED');
  assert.match(tapStep.error?.message ?? '', /div#banner is/);
  assert.equal(tapStep.actionId, undefined, 'nothing was pressed');
});
