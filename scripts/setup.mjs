#!/usr/bin/env node
// Makes a fresh checkout runnable: npm deps, a build in dist/, and Debian's chromium when
// running as root and no Chromium is found. Safe to run repeatedly; each part is skipped
// when already done.
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const log = (m) => process.stderr.write(`[setup] ${m}\n`);
const sh = (cmd) => execSync(cmd, { stdio: ['ignore', 'inherit', 'inherit'] });

if (!existsSync('node_modules/.package-lock.json')) {
  log('installing npm dependencies');
  sh('npm install --no-audit --no-fund');
}

const chromiumCandidates = [process.env.BOXFLOW_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
if (!chromiumCandidates.some((p) => p && existsSync(p))) {
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    log('installing Debian chromium');
    sh('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium');
  } else {
    log('no Chromium found: install Debian\'s chromium or set BOXFLOW_CHROMIUM');
  }
}

// The Android tests also run through a real adb server (test/integration/androidRealAdb.test.ts):
// Debian's adb, installed like chromium; without it that file is skipped, saying why.
if (!(process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, 'adb')))) {
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    log('installing Debian adb (for the Android tests through a real adb server)');
    try {
      sh('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq adb');
    } catch {
      log('installing adb failed: the real-adb Android tests will be skipped');
    }
  } else {
    log('no adb found: the real-adb Android tests will be skipped (install Debian\'s adb)');
  }
}

function newest(dir) {
  let t = 0;
  if (!existsSync(dir)) return t;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.ts')) t = Math.max(t, statSync(join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  return t;
}
const out = 'dist/src/cli/main.js';
const built = existsSync(out) ? statSync(out).mtimeMs : 0;
if (built < Math.max(newest('src'), newest('reporters'), statSync('tsconfig.json').mtimeMs)) {
  log('building');
  const r = spawnSync('npx', ['tsc', '-p', '.'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
