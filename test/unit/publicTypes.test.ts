// What `import type { ... } from 'boxflow'` gives a custom reporter: every hook's argument type.
// The type half of this file is checked by `tsc` over test/ (it does not compile when a type is
// missing from src/index.ts); the run-time half checks that the package's `types` entry is the
// declaration file of src/index.ts, so a packed install sees these same exports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type {
  BoxInfo,
  ErrorCode,
  ErrorInfo,
  FlowAttempt,
  FlowInfo,
  FlowResult,
  FlowStatus,
  Reporter,
  ReporterContext,
  ReporterFactory,
  RunEvent,
  RunInfo,
  RunResult,
  StepRecord,
  StepStatus,
} from '../../src/index.js';

const seen: string[] = [];

/** A reporter typed only with the package's exports, one annotated parameter per hook. */
const factory: ReporterFactory = (_options: Record<string, unknown>, ctx: ReporterContext): Reporter => ({
  onBegin: (run: RunInfo) => void seen.push(`begin ${run.flows.length} ${ctx.outputDir}`),
  onFlowBegin: (flow: FlowInfo, attempt: number, box?: BoxInfo) => void seen.push(`flow ${flow.name} ${attempt} ${box?.type ?? '-'}`),
  onStepEnd: (_flow: FlowInfo, step: StepRecord) => {
    const status: StepStatus = step.status;
    seen.push(`step ${step.label} ${status}`);
  },
  onFlowEnd: (flow: FlowResult) => {
    const status: FlowStatus = flow.status;
    const last: FlowAttempt | undefined = flow.attempts.at(-1);
    seen.push(`end ${flow.name} ${status} ${last?.attempt ?? 0}`);
  },
  onError: (error: ErrorInfo) => {
    const code: ErrorCode = error.code;
    seen.push(`error ${code}`);
  },
  onEnd: (result: RunResult) => void seen.push(`done ${result.stats.total}`),
});

test('a reporter typed with the package\'s exports gets each hook\'s argument', async () => {
  const reporter = factory({}, { outputDir: 'out', rootDir: '.' });
  const flow: FlowInfo = { id: 'f1', name: 'login', file: 'login.flow.yaml', tags: [] };
  const events: RunEvent[] = [{ type: 'error', time: new Date(0).toISOString(), error: { code: 'REPORTER_ERROR', message: 'x' } }];
  await reporter.onFlowBegin?.(flow, 1, { id: 'b1', type: 'linux' });
  for (const e of events) if (e.type === 'error') await reporter.onError?.(e.error);
  assert.deepEqual(seen, ['flow login 1 linux', 'error REPORTER_ERROR']);
});

test('the package\'s types entry is the declaration file of src/index.ts', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    types: string;
    exports: { '.': { types: string } };
    files: string[];
  };
  assert.equal(pkg.exports['.'].types, './dist/src/index.d.ts');
  assert.equal(pkg.types, 'dist/src/index.d.ts');
  assert.ok(pkg.files.includes('dist'), 'dist/ is packed');
});
