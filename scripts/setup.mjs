#!/usr/bin/env node
// Makes a fresh checkout runnable: npm deps, a build in dist/, and Debian's chromium when
// running as root and no Chromium is found; for the grid tests, Java, Debian's chromedriver and the
// Selenium Server jar. Safe to run repeatedly; each part is skipped when already done.
// `node scripts/setup.mjs --grid` does the grid part alone (the grid tests call it).
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const log = (m) => process.stderr.write(`[setup] ${m}\n`);
const sh = (cmd) => execSync(cmd, { stdio: ['ignore', 'inherit', 'inherit'] });
const onPath = (bin) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, bin)));
const isRoot = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');

/**
 * The grid tests (test/integration/grid*.test.ts) run a real Selenium Grid 4 on loopback: Java
 * (Debian's openjdk-17-jre-headless), the driver (Debian's chromium-driver, matching its chromium) and
 * the Selenium Server jar. The jar is the one inside the npm package @nightwatch/selenium-server,
 * fetched with `npm pack` (no install script runs): installed as a dependency, the package's install
 * script downloads the same jar again from GitHub and fails the whole `npm install` where GitHub is
 * out of reach. Nothing here fails the set-up: without them the grid tests are skipped, saying why.
 */
export const kSeleniumVersion = '4.20.0';
export const kSeleniumJar = join('node_modules', '.cache', 'boxflow', `selenium-server-${kSeleniumVersion}.jar`);
function setUpGrid() {
  const missing = [['java', 'openjdk-17-jre-headless'], ['chromedriver', 'chromium-driver']].filter(([bin]) => !onPath(bin)).map(([, pkg]) => pkg);
  if (missing.length && isRoot) {
    log(`installing Debian ${missing.join(' and ')} (for the grid tests)`);
    try {
      // Debian's Java packages fail to configure on slim images that have no man page folder.
      mkdirSync('/usr/share/man/man1', { recursive: true });
      sh(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${missing.join(' ')}`);
    } catch {
      log(`installing ${missing.join(' and ')} failed: the grid tests will be skipped`);
    }
  } else if (missing.length) {
    log(`no ${missing.join(' or ')}: the grid tests will be skipped (install Debian's ${missing.join(' and ')})`);
  }
  if (existsSync(kSeleniumJar) || existsSync(join('node_modules', '@nightwatch', 'selenium-server', 'lib', `selenium-server-${kSeleniumVersion}.jar`))) return;
  log(`fetching the Selenium Server ${kSeleniumVersion} jar (npm pack @nightwatch/selenium-server@${kSeleniumVersion})`);
  const work = mkdtempSync(join(tmpdir(), 'boxflow-selenium-'));
  try {
    const pack = spawnSync('npm', ['pack', `@nightwatch/selenium-server@${kSeleniumVersion}`, '--pack-destination', work, '--silent'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    const tgz = pack.stdout?.trim().split('\n').at(-1);
    if (pack.status !== 0 || !tgz) throw new Error(`npm pack exited with ${pack.status}`);
    const inner = `package/lib/selenium-server-${kSeleniumVersion}.jar`;
    const untar = spawnSync('tar', ['-xzf', join(work, tgz), '-C', work, inner], { stdio: 'inherit' });
    if (untar.status !== 0) throw new Error(`tar exited with ${untar.status}`);
    mkdirSync(join(kSeleniumJar, '..'), { recursive: true });
    renameSync(join(work, inner), kSeleniumJar);
  } catch (err) {
    log(`fetching the Selenium jar failed (${err.message}): the grid tests will be skipped`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv.includes('--grid')) {
  setUpGrid();
  process.exit(0);
}

// npm deps as package-lock.json pins them, never writing a tracked file: `npm install` rewrites the
// lock whenever its npm is not the one that wrote it (Node 20's npm 10 drops the `libc` fields npm 11
// writes), so a fresh clone would end with a modified package-lock.json. `npm ci` does not write it;
// when it refuses (package.json edited and not installed yet), `npm install --no-save` writes neither.
if (!existsSync('node_modules/.package-lock.json')) {
  const install = 'npm install --no-save --no-audit --no-fund';
  if (existsSync('package-lock.json')) {
    log('installing npm dependencies (npm ci, as package-lock.json pins them)');
    try {
      sh('npm ci --no-audit --no-fund');
    } catch {
      log(`npm ci failed (package.json and package-lock.json disagree?): ${install}`);
      sh(install);
    }
  } else {
    log('installing npm dependencies');
    sh(install);
  }
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

// Video (issue 24): boxflow serve records Linux boxes with Debian's ffmpeg (and joins Android segments
// with it); installed like chromium. Without it recording answers 501 RECORDING_UNAVAILABLE and the
// video tests are skipped.
if (!(process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, 'ffmpeg')))) {
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    log('installing Debian ffmpeg (boxflow serve records Linux boxes with it)');
    try {
      sh('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ffmpeg');
    } catch {
      log('installing ffmpeg failed: recording will answer RECORDING_UNAVAILABLE and the video tests will be skipped');
    }
  } else {
    log('no ffmpeg found: recording will answer RECORDING_UNAVAILABLE (install Debian\'s ffmpeg)');
  }
}

setUpGrid();

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
// The flow validators compiled ahead of time (scripts/flowValidators.mjs), for each new build.
const validators = 'dist/src/flow/flowValidators.cjs';
if (!existsSync(validators) || statSync(validators).mtimeMs < statSync(out).mtimeMs) {
  const r = spawnSync(process.execPath, ['scripts/flowValidators.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
// The pages' scripts bundled for the built server (scripts/browserBundles.mjs), for each change of src/.
const bundled = Math.min(...['live', 'studio'].map((name) => {
  const f = `dist/browser/${name}.js`;
  return existsSync(f) ? statSync(f).mtimeMs : 0;
}));
if (bundled < newest('src')) {
  const r = spawnSync(process.execPath, ['scripts/browserBundles.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
