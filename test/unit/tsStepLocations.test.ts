import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadFlowFile } from '../../src/flow/index.js';
import { tempDir } from '../support/tmp.js';

const flowModule = pathToFileURL(join(import.meta.dirname, '../../src/flow/index.ts')).href;

test('each step of a declarative TS flow is located at its own line, not at the flow( call', async () => {
  const dir = tempDir('boxflow-tsloc-');
  const file = join(dir, 'decl.flow.ts');
  writeFileSync(file, `import { flow } from '${flowModule}';

export default flow({
  name: 'decl',
  onStart: [{ openTab: 'http://x/[not]' }],
  steps: [
    { tap: { text: 'A, B' } }, // a comma, a bracket ] in a comment
    { type: \`multi
line\` },
    /* skipped { tap: 'C' }, */
    { repeat: { times: 2, steps: [{ tap: 'D' }] } },
    'closeBrowser',
  ],
});
`);
  const f = await loadFlowFile(file);
  assert.deepEqual(f.onStart.map((s) => [s.source.line, s.source.column]), [[5, 13]]);
  assert.deepEqual(f.steps.map((s) => [s.kind, s.source.line, s.source.column]), [
    ['tap', 7, 5],
    ['type', 8, 5],
    ['repeat', 11, 5],
    ['closeBrowser', 12, 5],
  ]);
});
