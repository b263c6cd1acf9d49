import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BoxflowError } from '../../src/errors.js';
import { decideBaseline, kDefaultBaselineTemplate, resolveBaselinePath, writeBaseline, writeFailureImages, type UpdateMode } from '../../src/visual/index.js';

const tokens = { flowDir: '/proj/flows/auth', flowName: 'login', name: 'home', boxType: 'android' };

test('the default template puts baselines next to the flow', () => {
  assert.equal(kDefaultBaselineTemplate, '{flowDir}/__screenshots__/{flowName}/{name}-{boxType}.png');
  assert.equal(resolveBaselinePath(undefined, tokens), '/proj/flows/auth/__screenshots__/login/home-android.png');
});

test('a template with tokens moves baselines; relative templates resolve against the config dir', () => {
  assert.equal(
    resolveBaselinePath('baselines/{boxType}/{platform}/{flowName}__{name}.png', { ...tokens, configDir: '/proj', platform: 'ci' }),
    '/proj/baselines/android/ci/login__home.png');
  assert.equal(resolveBaselinePath('/b/{name}-{resolution}.png', { ...tokens, resolution: '1080x2400' }), '/b/home-1080x2400.png');
  assert.equal(resolveBaselinePath('out/{name}.png', tokens), resolve('out/home.png'));
  assert.match(resolveBaselinePath('/b/{platform}/{name}.png', tokens), new RegExp(`^/b/${process.platform}/home\\.png$`));
});

test('names are sanitised into one safe file name segment', () => {
  const p = (name: string) => resolveBaselinePath(undefined, { ...tokens, name });
  assert.equal(p('../../etc/passwd'), '/proj/flows/auth/__screenshots__/login/etc-passwd-android.png');
  assert.equal(p('Home: after *login*?'), '/proj/flows/auth/__screenshots__/login/Home-after-login-android.png');
  assert.equal(p('écran d’accueil'), '/proj/flows/auth/__screenshots__/login/écran-d-accueil-android.png');
  assert.equal(p('...'), '/proj/flows/auth/__screenshots__/login/_-android.png');
});

test('an unknown token is a CONFIG_INVALID error that lists the known tokens', () => {
  assert.throws(() => resolveBaselinePath('{flowDir}/{nmae}.png', tokens), (err: unknown) =>
    BoxflowError.is(err) && err.code === 'CONFIG_INVALID' && err.message.includes('{nmae}') && err.message.includes('{name}'));
});

test('update modes decide what happens to a baseline', () => {
  const table: [UpdateMode, boolean, boolean | null, string][] = [
    ['missing', false, null, 'write-missing'],
    ['changed', false, null, 'write-missing'],
    ['all', false, null, 'write-missing'],
    ['none', false, null, 'fail-missing'],
    ['missing', true, null, 'compare'],
    ['missing', true, false, 'compare'],
    ['none', true, false, 'compare'],
    ['changed', true, null, 'compare'],
    ['changed', true, true, 'compare'],
    ['changed', true, false, 'write-changed'],
    ['all', true, null, 'write-all'],
    ['all', true, true, 'write-all'],
  ];
  for (const [mode, exists, pass, want] of table) assert.equal(decideBaseline(mode, exists, pass), want, `${mode} exists=${exists} pass=${pass}`);
});

test('failure images are written side by side and their paths returned', async () => {
  const out = mkdtempSync(join(tmpdir(), 'bf-visual-'));
  try {
    const dirOut = join(out, 'nested', 'dir');
    const paths = await writeFailureImages(dirOut, 'home/after login', { expected: Buffer.from('E'), actual: Buffer.from('A'), diff: Buffer.from('D') });
    assert.deepEqual(Object.keys(paths).sort(), ['actual', 'diff', 'expected']);
    assert.equal(paths.expected, join(dirOut, 'home-after-login-expected.png'));
    assert.equal(readFileSync(paths.diff!, 'utf8'), 'D');
    const unstable = await writeFailureImages(dirOut, 'spinner', { actual: Buffer.from('A'), previous: Buffer.from('P') });
    assert.deepEqual(Object.keys(unstable).sort(), ['actual', 'previous']);
    assert.equal(readFileSync(unstable.previous!, 'utf8'), 'P');
    assert.deepEqual(readdirSync(dirOut).sort(), ['home-after-login-actual.png', 'home-after-login-diff.png', 'home-after-login-expected.png', 'spinner-actual.png', 'spinner-previous.png']);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('writeBaseline creates folders and replaces an existing file', async () => {
  const out = mkdtempSync(join(tmpdir(), 'bf-visual-'));
  try {
    const path = resolveBaselinePath(undefined, { ...tokens, flowDir: out });
    await writeBaseline(path, Buffer.from('one'));
    await writeBaseline(path, Buffer.from('two'));
    assert.equal(readFileSync(path, 'utf8'), 'two');
    assert.deepEqual(readdirSync(join(out, '__screenshots__', 'login')), ['home-android.png']);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
