// `-e NAME=value` on the command line: over the config's env, a bad form is bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/cli/config.js';

test('-e flags set variables over the config env; the value may hold "="', () => {
  const r = resolveConfig({ env: ['A=1', 'B=x=y', 'E='] }, { env: { A: 'config', C: 3 } }, undefined, process.cwd(), {});
  assert.deepEqual(r.options.env, { A: '1', C: '3', B: 'x=y', E: '' });
  assert.equal(resolveConfig({}, {}, undefined, process.cwd(), {}).options.env, undefined);
});

test('-e without = or with a bad name is CONFIG_INVALID (exit 2)', () => {
  assert.throws(() => resolveConfig({ env: ['NOVALUE'] }, {}, undefined, process.cwd(), {}), { code: 'CONFIG_INVALID', message: /-e "NOVALUE": write -e NAME=value/ });
  assert.throws(() => resolveConfig({ env: ['1A=2'] }, {}, undefined, process.cwd(), {}), { code: 'CONFIG_INVALID' });
});
