// The Node versions boxflow says it runs on (package.json `engines`, the README) are ones every
// package it installs for a user runs on: installing on any of them prints no EBADENGINE warning
// (issue 22 item 8: cookie@2, pulled in by fastify's light-my-request, wants Node 22).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// semver is fastify's dependency (always installed); only its range check is needed here.
const semver = createRequire(import.meta.url)('semver') as { subset(sub: string, range: string): boolean; minVersion(range: string): { major: number; minor: number } | null };

interface LockPackage {
  version?: string;
  dev?: boolean;
  engines?: { node?: string } | string[];
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };

test('every package a user installs runs on every Node version package.json engines admits', () => {
  const ours = pkg.engines.node;
  const refused: string[] = [];
  for (const [path, p] of Object.entries(lock.packages)) {
    // Old packages may give engines as a list of strings, which npm does not check.
    const wants = path.startsWith('node_modules/') && !p.dev && !Array.isArray(p.engines) ? p.engines?.node : undefined;
    if (wants && !semver.subset(ours, wants)) refused.push(`${path.slice(path.lastIndexOf('node_modules/') + 13)}@${p.version} wants node ${wants}`);
  }
  assert.deepEqual(refused, [], `engines.node is ${ours}`);
});

test('the README names the same lowest Node version as engines', () => {
  const min = semver.minVersion(pkg.engines.node)!;
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  assert.match(readme, new RegExp(`\\(Node ${min.major}\\.${min.minor}\\+[;)]`));
});
