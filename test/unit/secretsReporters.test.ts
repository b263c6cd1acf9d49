// Reporters write what the runner hands them (masked) and, for a step without a code frame, read
// the flow file themselves: that frame goes through the run's masker too (a flow file may hold a
// secret's value in its `env:`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Masker } from '../../src/mask.js';
import type { RunResult } from '../../src/runner/types.js';
import { builtinReporters, junitXml, writeHtmlReport } from '../../reporters/index.js';

// The secret's line is next to the failed step's, inside the three lines of the frame.
const flowText = 'name: login\nsecrets: [PASSWORD]\nsteps:\n  - tap: Sign in\nenv: { PASSWORD: hunter2 }\n';

function result(): RunResult {
  const error = { code: 'ELEMENT_NOT_FOUND' as const, message: 'no visible element matches {text: "Sign in"}' };
  const step = { id: '1', index: 0, label: 'tap Sign in', command: 'tap', args: {}, source: { file: 'login.flow.yaml', line: 4, column: 5 }, status: 'failed' as const, attempts: 1, startedAt: new Date(0).toISOString(), durationMs: 1, error };
  const attempt = { attempt: 1, status: 'failed' as const, startedAt: step.startedAt, durationMs: 1, steps: [step], error };
  return {
    version: 1, startedAt: step.startedAt, durationMs: 1, status: 'failed', boxes: [], baselines: [], errors: [],
    flows: [{ id: 'f1', name: 'login', file: 'login.flow.yaml', tags: [], status: 'failed', durationMs: 1, attempts: [attempt], error }],
    stats: { total: 1, passed: 0, failed: 1, flaky: 0, skipped: 0 },
  };
}

test('a code frame a reporter reads from the flow file is masked (JUnit, HTML, list)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-secret-rep-'));
  try {
    writeFileSync(join(dir, 'login.flow.yaml'), flowText);
    const masker = new Masker(['hunter2']);
    const ctx = { outputDir: dir, rootDir: dir, mask: (t: string) => masker.text(t) };

    const xml = junitXml(result(), ctx);
    assert.match(xml, /env: \{ PASSWORD: \*\*\* \}/, 'the frame is there, masked');
    assert.doesNotMatch(xml, /hunter2/);
    assert.match(junitXml(result(), { outputDir: dir, rootDir: dir }), /hunter2/, 'without the masker the frame shows the file as it is');

    writeHtmlReport(result(), dir, { rootDir: dir, mask: ctx.mask });
    const report = readFileSync(join(dir, 'data', 'report.js'), 'utf8');
    assert.match(report, /PASSWORD: \*\*\*/);
    assert.doesNotMatch(report, /hunter2/);

    let printed = '';
    const list = builtinReporters.list!({}, { ...ctx, write: (t) => (printed += t) });
    await list.onEnd?.(result());
    assert.match(printed, /PASSWORD: \*\*\*/);
    assert.doesNotMatch(printed, /hunter2/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
