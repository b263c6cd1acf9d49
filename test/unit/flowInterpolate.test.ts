import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoxflowError } from '../../src/errors.js';
import { interpolate } from '../../src/flow/index.js';

test('interpolate replaces ${NAME} from the flow vars and ${env.NAME} from the environment, deeply', () => {
  const vars = { USER: 'demo@example.com', PORT: '4173' };
  const env = { PASSWORD: 'hunter22' };
  assert.equal(interpolate('http://127.0.0.1:${PORT}/login', vars, env), 'http://127.0.0.1:4173/login');
  assert.deepEqual(interpolate({ text: '${env.PASSWORD}', list: ['${ USER }', 3], n: 1, b: true }, vars, env), {
    text: 'hunter22',
    list: ['demo@example.com', 3],
    n: 1,
    b: true,
  });
  assert.equal(interpolate('costs $5 and $${USER} stays', vars, env), 'costs $5 and ${USER} stays');
});

test('interpolate names an unknown variable, an unset environment variable and a bad reference', () => {
  const fails = (text: string, has: string) =>
    assert.throws(() => interpolate(text, { A: '1' }, {}), (e: BoxflowError) => e.code === 'STEP_INVALID' && e.message.includes(has), text);
  fails('${USR}', '${USR}: unknown variable; define it under env:');
  fails('${env.HOME_DIR}', 'the environment variable HOME_DIR is not set');
  fails('${a-b}', '"${a-b}" is not a variable reference');
  fails('x ${A', 'has no closing "}"');
});
