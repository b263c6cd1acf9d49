// The README points only at files that ship in the repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');

test('every file the README names or links exists in the repository, none outside it', () => {
  const links = [...readme.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/i.test(l));
  const named = [...readme.matchAll(/`((?:\.\.\/|docs\/|examples\/|flows\/|test\/|schema\/|src\/)[^`\s]*)`/g)].map((m) => m[1]!);
  const paths = [...new Set([...links, ...named])];
  assert.ok(paths.includes('docs/config.md') && paths.includes('docs/flows.md'));
  assert.deepEqual(paths.filter((p) => p.startsWith('../') || p.includes('/../')), [], 'nothing outside the repository');
  assert.deepEqual(paths.filter((p) => !existsSync(join(root, p.replace(/[.,:;]$/, '')))), []);
});
