// One version string: package.json's, read once, is what `boxflow --version` and the client's
// user-agent say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { boxflowVersion } from '../../src/api/version.js';
import { buildProgram } from '../../src/cli/main.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

test('boxflow --version prints the version of package.json', () => {
  assert.equal(boxflowVersion(), pkg.version);
  let printed = '';
  const program = buildProgram(() => {}).configureOutput({ writeOut: (s) => (printed += s) });
  assert.throws(() => program.parse(['node', 'boxflow', '--version']), { code: 'commander.version' });
  assert.equal(printed.trim(), pkg.version);
});
