import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventLog, writeResultsJson } from '../../src/runner/events.js';
import { mergeResults, mergeRunDirs } from '../../src/runner/eventsMerge.js';
import { readEvents, readRunDir, resultFromEvents } from '../../src/runner/eventsRead.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import type { RunEvent, RunResult, StepRecord } from '../../src/runner/types.js';
import { kFlows, runFixture } from '../fixtures/results/fixture.js';

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'bf-events-'));
}

function allStepIds(steps: StepRecord[], out: string[] = []): string[] {
  for (const s of steps) {
    out.push(s.id);
    if (s.children) allStepIds(s.children, out);
  }
  return out;
}

async function recordRun(dir: string, opts: Partial<Parameters<typeof runFixture>[1]> = {}): Promise<{ result: RunResult; events: RunEvent[] }> {
  const log = new EventLog(dir);
  const result = await runFixture(new ReporterHost([], log), { outputDir: dir, ...opts });
  log.close();
  return { result, events: readEvents(log.file) };
}

test('results.jsonl holds one line per event, and a finished run reads back as its result', async () => {
  const dir = tmp();
  try {
    const { result, events } = await recordRun(dir);
    assert.equal(events[0]!.type, 'begin');
    assert.equal(events.at(-1)!.type, 'end');
    assert.equal(events.filter((e) => e.type === 'flowEnd').length, 5);
    assert.deepEqual(resultFromEvents(events), result);
    assert.deepEqual(readRunDir(dir), result);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a torn last line is skipped, a torn line in the middle is an error', () => {
  const dir = tmp();
  try {
    const file = join(dir, 'results.jsonl');
    const ok = JSON.stringify({ type: 'error', time: '2026-01-01T00:00:00.000Z', error: { code: 'INTERNAL', message: 'x' } });
    writeFileSync(file, `${ok}\n${ok}\n{"type":"stepEnd","ti`);
    assert.equal(readEvents(file).length, 2);
    writeFileSync(file, `${ok}\n{"type":"ste\n${ok}\n`);
    assert.throws(() => readEvents(file), (e: Error & { code?: string }) => e.code === 'RESULTS_INVALID');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('merge-reports refuses a folder with no results, a results.json that is not JSON and one that is not a run, naming the file', async () => {
  const dir = tmp();
  const out = tmp();
  try {
    const refused = (has: string) => (e: Error & { code?: string }) => e.code === 'RESULTS_INVALID' && e.message.includes(has);
    assert.throws(() => mergeRunDirs([dir], out), refused('holds no results.json or results.jsonl'));
    writeFileSync(join(dir, 'results.json'), '{"version": 1, "flows": [');
    assert.throws(() => mergeRunDirs([dir], out), refused(`${join(dir, 'results.json')}: not JSON`));
    writeFileSync(join(dir, 'results.json'), '{"hello": "world"}');
    assert.throws(() => readRunDir(dir), refused('not the results of a boxflow run'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
});

test('a run cut after any event keeps every step that had finished', async () => {
  const dir = tmp();
  try {
    const { events } = await recordRun(dir);
    const body = events.filter((e) => e.type !== 'end');
    for (let cut = 1; cut <= body.length; cut++) {
      const prefix = body.slice(0, cut);
      const r = resultFromEvents(prefix);
      assert.equal(r.status, 'interrupted');
      const byFlow = new Map<string, Set<string>>();
      for (const f of r.flows) {
        const ids = new Set<string>();
        for (const a of f.attempts) for (const id of allStepIds(a.steps)) ids.add(`${a.attempt}/${id}`);
        byFlow.set(f.id, ids);
      }
      for (const e of prefix) {
        if (e.type !== 'stepEnd') continue;
        assert.ok(byFlow.get(e.flowId)?.has(`${e.attempt}/${e.step.id}`), `cut ${cut}: step ${e.step.id} of ${e.flowId} lost`);
      }
      const ended = new Set(prefix.filter((e) => e.type === 'flowEnd').map((e) => (e as { flow: { id: string } }).flow.id));
      for (const f of r.flows) {
        if (ended.has(f.id)) continue;
        if (f.attempts.length) {
          assert.equal(f.status, 'failed');
          assert.equal(f.error?.code, 'RUN_INTERRUPTED');
        } else assert.equal(f.status, 'skipped');
      }
      assert.equal(r.stats.total, 5);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('after SIGKILL, results.jsonl still holds every finished step (nested ones too)', async () => {
  const dir = tmp();
  const child = fileURLToPath(new URL('../fixtures/results/killChild.ts', import.meta.url));
  try {
    // Stop after 4 finished steps: login's 1, 2, 3 and the nested 4.1 (its parent runFlow still running).
    const proc = spawn(process.execPath, ['--import', 'tsx', child, dir, '4'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    await new Promise<void>((ok, fail) => {
      proc.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('ready')) ok();
      });
      proc.on('exit', (code) => fail(new Error(`child exited early (${code}): ${out}`)));
    });
    proc.kill('SIGKILL');
    const signal = await new Promise((ok) => proc.on('exit', (_c, s) => ok(s)));
    assert.equal(signal, 'SIGKILL');
    assert.ok(!existsSync(join(dir, 'results.json')));

    const result = readRunDir(dir);
    assert.equal(result.status, 'interrupted');
    const login = result.flows.find((f) => f.id === kFlows.login!.id)!;
    assert.equal(login.status, 'failed');
    assert.equal(login.error?.code, 'RUN_INTERRUPTED');
    const steps = login.attempts[0]!.steps;
    assert.deepEqual(steps.map((s) => [s.id, s.status]), [['1', 'passed'], ['2', 'passed'], ['3', 'passed'], ['4', 'failed']]);
    assert.equal(steps[0]!.actionId, 'act_login_01');
    assert.ok(steps[0]!.screenshots?.trace && existsSync(join(dir, steps[0]!.screenshots.trace)), 'the finished step\'s trace image is on disk');
    assert.equal(steps[3]!.error?.code, 'RUN_INTERRUPTED');
    assert.deepEqual(steps[3]!.children?.map((c) => [c.id, c.status, c.actionId]), [['4.1', 'passed', 'act_login_04']]);
    assert.deepEqual(result.flows.slice(1).map((f) => f.status), ['skipped', 'skipped', 'skipped', 'skipped']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('merge-reports: two shards become one report with both shards\' flows and images', async () => {
  const a = tmp();
  const b = tmp();
  const out = tmp();
  try {
    const t0 = Date.parse('2026-03-01T10:00:00.000Z');
    const { result: ra } = await recordRun(a, { flows: ['login', 'checkout'], shard: { index: 1, total: 2 }, startMs: t0 });
    const { result: rb } = await recordRun(b, { flows: ['home', 'search', 'settings'], shard: { index: 2, total: 2 }, startMs: t0 + 1000 });
    // shard 2 is read from its event log only (as after a crash after its end event)
    rmSync(join(b, 'results.json'), { force: true });
    writeResultsJson(a, ra);

    const merged = mergeRunDirs([a, b], out);
    assert.deepEqual(merged.stats, { total: 5, passed: 1, failed: 2, flaky: 1, skipped: 1 });
    assert.equal(merged.status, 'failed');
    assert.equal(merged.shard, undefined);
    assert.deepEqual(merged.flows.map((f) => f.id), [...ra.flows, ...rb.flows].map((f) => f.id));
    assert.deepEqual(merged.boxes.map((x) => x.id).sort(), ['box-and-07', 'box-lin-01']);
    assert.equal(merged.startedAt, ra.startedAt);
    assert.ok(merged.durationMs >= rb.durationMs + 1000);
    for (const f of merged.flows) for (const at of f.attempts) for (const s of at.steps) for (const p of Object.values(s.screenshots ?? {})) assert.ok(existsSync(join(out, p)), `${p} copied`);
    assert.deepEqual(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')), merged);
  } finally {
    for (const d of [a, b, out]) rmSync(d, { recursive: true, force: true });
  }
});

test('merge: a flow in several inputs keeps its latest attempt set; an unfinished flow makes the run interrupted', async () => {
  const a = tmp();
  const b = tmp();
  try {
    const t0 = Date.parse('2026-03-01T10:00:00.000Z');
    const { result: first } = await recordRun(a, { flows: ['checkout'], startMs: t0 });
    const { result: rerun } = await recordRun(b, { flows: ['checkout'], startMs: t0 + 60_000 });
    rerun.flows[0]!.attempts[0]!.steps[2]!.actionId = 'act_rerun';
    assert.equal(mergeResults([rerun, first]).flows[0]!.attempts[0]!.steps[2]!.actionId, 'act_rerun');
    assert.equal(mergeResults([first, rerun]).flows[0]!.attempts[0]!.steps[2]!.actionId, 'act_rerun');

    // a partial run: killed during the second flow
    const log = join(b, 'results.jsonl');
    const events = readEvents(log);
    const cut = events.findIndex((e) => e.type === 'stepEnd');
    writeFileSync(log, events.slice(0, cut + 1).map((e) => JSON.stringify(e)).join('\n') + '\n');
    appendFileSync(log, '{"type":"stepB');
    const partial = readRunDir(b);
    assert.equal(partial.status, 'interrupted');
    assert.equal(mergeResults([first, partial]).status, 'interrupted');
  } finally {
    for (const d of [a, b]) rmSync(d, { recursive: true, force: true });
  }
});
