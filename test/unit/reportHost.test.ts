import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../src/runner/events.js';
import { readEvents } from '../../src/runner/eventsRead.js';
import { ReporterHost, loadReporters, parseReporterFlag } from '../../src/runner/reporterHost.js';
import type { ErrorInfo, Reporter } from '../../src/runner/types.js';
import { builtinReporters } from '../../reporters/index.js';
import { exitCode } from '../../src/cli/commands.js';
import { kFixtureRoot, runFixture } from '../fixtures/results/fixture.js';

test('a reporter that throws does not stop the run; the others hear REPORTER_ERROR and the host remembers it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-host-'));
  try {
    const thrower: Reporter = {
      onStepEnd() {
        throw new Error('disk full');
      },
    };
    const errors: ErrorInfo[] = [];
    let flowsEnded = 0;
    let ended = false;
    const watcher: Reporter = {
      onError: (e) => void errors.push(e),
      onFlowEnd: () => void flowsEnded++,
      onEnd: () => void (ended = true),
    };
    const log = new EventLog(dir);
    const host = new ReporterHost([{ name: 'broken', reporter: thrower }, { name: 'watcher', reporter: watcher }], log);
    const lines: string[] = [];
    const [junit] = await loadReporters(['junit'], { outputDir: dir, rootDir: kFixtureRoot, write: (t) => void lines.push(t) }, builtinReporters);
    host.reporters.push(junit!);
    const result = await runFixture(host, { outputDir: dir });
    log.close();

    assert.equal(flowsEnded, 5);
    assert.ok(ended);
    assert.ok(existsSync(join(dir, 'junit.xml')), 'a later reporter still ran to the end');
    assert.equal(host.hadReporterError, true);
    assert.equal(errors.length, 1, 'reported once, not once per step');
    assert.equal(errors[0]!.code, 'REPORTER_ERROR');
    assert.match(errors[0]!.message, /broken.*onStepEnd.*disk full/);
    const events = readEvents(log.file);
    assert.ok(events.some((e) => e.type === 'error' && e.error.code === 'REPORTER_ERROR'));
    const end = events.find((e) => e.type === 'end');
    assert.ok(end && end.type === 'end' && end.result.errors.some((e) => e.code === 'REPORTER_ERROR'));
    assert.equal(result.stats.total, 5);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the exit code of a run whose flows pass: 0, and 3 (infrastructure) once a reporter threw', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-host-'));
  try {
    const quiet = new ReporterHost([{ name: 'noop', reporter: {} }]);
    const clean = await runFixture(quiet, { outputDir: dir, flows: ['login'] });
    assert.equal(clean.stats.passed, 1);
    assert.equal(exitCode(clean, quiet.hadReporterError), 0);

    const broken = new ReporterHost([{ name: 'broken', reporter: { onFlowEnd() { throw new Error('disk full'); } } }]);
    const passed = await runFixture(broken, { outputDir: dir, flows: ['login'] });
    assert.equal(passed.stats.passed, 1);
    assert.equal(exitCode(passed, broken.hadReporterError), 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('loadReporters: built-in names, [name, options], and module paths exporting a factory or a class', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-host-'));
  try {
    writeFileSync(join(dir, 'factory.mjs'), `export default (options, ctx) => ({ onEnd(r) { ctx.write('factory ' + options.greeting + ' ' + r.stats.total + '\\n'); } });\n`);
    writeFileSync(join(dir, 'klass.mjs'), `export default class { constructor(o, ctx) { this.ctx = ctx; } printsToStdio() { return true; } onBegin(run) { this.ctx.write('class saw ' + run.flows.length + '\\n'); } }\n`);
    writeFileSync(join(dir, 'nodefault.mjs'), `export const x = 1;\n`);
    const lines: string[] = [];
    const ctx = { outputDir: dir, rootDir: dir, write: (t: string) => void lines.push(t) };
    const reps = await loadReporters([['./factory.mjs', { greeting: 'hi' }], './klass.mjs', ['json', { outputFile: 'out/r.json' }]], ctx, builtinReporters);
    assert.deepEqual(reps.map((r) => r.name), ['./factory.mjs', './klass.mjs', 'json']);
    const host = new ReporterHost(reps);
    assert.equal(host.printsToStdio(), true);
    await runFixture(host, { outputDir: dir, flows: ['login', 'home'] });
    assert.deepEqual(lines, ['class saw 2\n', 'factory hi 2\n']);
    assert.ok(existsSync(join(dir, 'out', 'r.json')));

    await assert.rejects(loadReporters(['nope'], ctx, builtinReporters), (e: Error & { code?: string }) => e.code === 'CONFIG_INVALID' && /unknown reporter "nope".*list/.test(e.message));
    await assert.rejects(loadReporters(['./nodefault.mjs'], ctx, builtinReporters), { code: 'CONFIG_INVALID' });
    await assert.rejects(loadReporters(['./missing.mjs'], ctx, builtinReporters), { code: 'CONFIG_INVALID' });
    assert.deepEqual(parseReporterFlag('list, html,junit'), ['list', 'html', 'junit']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
