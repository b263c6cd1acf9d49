// How a terminal line names a step: its label as it reads, never wrapped in quotes of its own (a
// label holds quotes: `assertVisible "Welcome"`), and a /regex/ as written, not quoted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeFailure, stepTitle } from '../../reporters/common.js';
import { normalizeStep } from '../../src/flow/index.js';
import { stepLabel } from '../../src/runner/label.js';
import type { StepRecord } from '../../src/runner/types.js';

const label = (raw: Record<string, unknown>) => stepLabel(normalizeStep(raw, { file: '/p/a.flow.yaml', line: 1, column: 1 }));

test('a regex selector is labelled as written; plain text is quoted', () => {
  assert.equal(label({ assertVisible: '/Welcome, .+/' }), 'assertVisible /Welcome, .+/');
  assert.equal(label({ tap: { text: '/^Sign in$/i' } }), 'tap /^Sign in$/i');
  assert.equal(label({ assertVisible: 'Welcome' }), 'assertVisible "Welcome"');
});

test('a failed step reads `step 4 › assertVisible /Welcome, .+/: CODE: …`, without nested quotes', () => {
  const step: StepRecord = {
    id: '4', index: 3, label: label({ assertVisible: '/Welcome, .+/' }), command: 'assertVisible', args: {}, status: 'failed', attempts: 1,
    startedAt: new Date(0).toISOString(), durationMs: 5, error: { code: 'ASSERT_LAYOUT', message: 'not visible' },
  };
  assert.equal(describeFailure(step), 'step 4 › assertVisible /Welcome, .+/: ASSERT_LAYOUT: not visible');
  // A label of the flow's own names its command.
  assert.equal(stepTitle({ id: '2', label: 'Log in', command: 'tap' }), 'step 2 › Log in (tap)');
});
