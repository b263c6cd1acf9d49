// `npm start` / `npm run setup` on a fresh clone leaves the checkout as it was (issue 22 item 8):
// scripts/setup.mjs installs the npm dependencies without writing package-lock.json.
//
// npm here is a stand-in on PATH that records its commands: a real `npm install` rewrites the lock
// whenever its npm is not the one that wrote it (Node 20's npm 10 drops the `libc` fields npm 11
// writes), so the stand-in's `npm install` rewrites it too unless given --no-save, and `npm ci`
// does not. apt-get, adb, java and chromedriver are stand-ins as well, so nothing is installed on
// the machine; the build is already done (dist/ newer than the sources).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { repoRoot } from './helpers.js';
import { tempDir } from '../support/tmp.js';

const kFakeNpm = `#!/bin/sh
echo "npm $*" >> "$FAKE_LOG"
case "$1" in
  ci)
    [ -n "$FAKE_CI_FAILS" ] && exit 1
    mkdir -p node_modules && echo '{}' > node_modules/.package-lock.json ;;
  install)
    mkdir -p node_modules && echo '{}' > node_modules/.package-lock.json
    case " $* " in
      *" --no-save "*) ;;
      *) "$FAKE_NODE" -e "const fs = require('fs'); const l = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')); l.rewrittenBy = 'another npm'; fs.writeFileSync('package-lock.json', JSON.stringify(l, null, 2) + '\\n')" ;;
    esac ;;
  *) exit 1 ;;
esac
`;

/** A git checkout with the repo's setup script, package.json and lock, and stand-ins for npm and the system. */
function scratchClone(): { dir: string; env: NodeJS.ProcessEnv; log: string } {
  const dir = tempDir('boxflow-setup-');
  const bin = join(dir, '.bin');
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  mkdirSync(bin);
  for (const f of ['scripts/setup.mjs', 'package.json', 'package-lock.json', 'tsconfig.json']) copyFileSync(join(repoRoot, f), join(dir, f));
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\ndist/\n.bin/\n');
  writeFileSync(join(bin, 'npm'), kFakeNpm);
  for (const tool of ['npx', 'apt-get', 'adb', 'java', 'chromedriver']) writeFileSync(join(bin, tool), `#!/bin/sh\necho "${tool} $*" >> "$FAKE_LOG"\n`);
  for (const tool of ['npm', 'npx', 'apt-get', 'adb', 'java', 'chromedriver']) chmodSync(join(bin, tool), 0o755);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'fresh clone');
  // Built already: the build step is not what is tested here.
  mkdirSync(join(dir, 'dist/src/cli'), { recursive: true });
  mkdirSync(join(dir, 'dist/src/flow'), { recursive: true });
  const later = new Date(Date.now() + 60_000);
  for (const f of ['dist/src/cli/main.js', 'dist/src/flow/flowValidators.cjs']) {
    writeFileSync(join(dir, f), '');
    utimesSync(join(dir, f), later, later);
  }
  const log = join(dir, '.bin', 'log');
  writeFileSync(log, '');
  const env = { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH}`, FAKE_LOG: log, FAKE_NODE: process.execPath, BOXFLOW_CHROMIUM: process.execPath };
  return { dir, env, log };
}

function setUp(dir: string, env: NodeJS.ProcessEnv): void {
  const r = spawnSync(process.execPath, ['scripts/setup.mjs'], { cwd: dir, env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

const status = (dir: string) => execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' });
const npmInstalls = (log: string) => readFileSync(log, 'utf8').split('\n').filter((l) => /^npm (ci|install)\b/.test(l));

test('setup twice on a fresh clone: npm ci installs once, and git status stays clean', () => {
  const { dir, env, log } = scratchClone();
  setUp(dir, env);
  setUp(dir, env);
  assert.equal(status(dir), '');
  assert.deepEqual(npmInstalls(log), ['npm ci --no-audit --no-fund']);
});

test('when npm ci refuses (package.json edited, lock not updated), setup installs without writing the lock', () => {
  const { dir, env, log } = scratchClone();
  setUp(dir, { ...env, FAKE_CI_FAILS: '1' });
  assert.equal(status(dir), '');
  assert.deepEqual(npmInstalls(log), ['npm ci --no-audit --no-fund', 'npm install --no-save --no-audit --no-fund']);
});
