// The one helper that quotes values for the device's sh (src/api/shellQuote.ts), and the
// package/activity names the Android routes accept (src/server/devices/android/names.ts). The quoting is checked
// against a real POSIX sh: what it prints for the quoted word must be the value, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { sh, shQuote } from '../../src/api/shellQuote.js';
import { activityClass, checkPackageName, isPackageName } from '../../src/server/devices/android/names.js';

const kNasty = [
  '',
  'plain.name',
  'x;id #',
  'x$(id)',
  'x`id`',
  "it's",
  "''",
  "'\\''",
  'a\nb',
  'a\\nb\\',
  '$HOME ${PATH} $((1+1))',
  '| & && || < > >> ( ) { } [ ] * ? ~ ! %',
  '-rf /',
  '"double" \'single\'',
  '日本語 🎉',
  '\t tab and spaces  ',
];

test('shQuote: POSIX single quotes; a real sh reads every value back unchanged', () => {
  assert.equal(shQuote('com.example'), "'com.example'");
  assert.equal(shQuote(''), "''");
  assert.equal(shQuote("it's"), "'it'\\''s'");
  assert.equal(shQuote('x;id #'), "'x;id #'");
  for (const value of kNasty) {
    // printf %s prints its argument as is: any expansion or command the quoting let through would show.
    const out = execFileSync('/bin/sh', ['-c', `printf %s ${shQuote(value)}`], { encoding: 'utf8' });
    assert.equal(out, value, `round trip of ${JSON.stringify(value)}`);
  }
  assert.throws(() => shQuote('a\0b'), (e: Error & { code?: string }) => e.code === 'INVALID_REQUEST' && /NUL/.test(e.message));
});

test('sh: every interpolated string is quoted, integers are digits, arrays one word each', () => {
  assert.equal(sh`am force-stop ${'x;id #'}`, "am force-stop 'x;id #'");
  assert.equal(sh`input keyevent ${[4, 3, 187]}`, 'input keyevent 4 3 187');
  assert.equal(sh`wm size ${720}x${1600}`, 'wm size 720x1600');
  assert.equal(sh`input tap ${-0} ${12}`, 'input tap 0 12');
  assert.equal(sh`mv ${'a b'} ${"c'd"}`, "mv 'a b' 'c'\\''d'");
  assert.equal(sh`x ${['a', 1]}`, "x 'a' 1");
  assert.throws(() => sh`input tap ${1.5} ${2}`, /not an integer/);
  assert.throws(() => sh`input tap ${Number.NaN} ${2}`, /not an integer/);
  // A whole command line through a real sh: one argument per value, whatever they hold.
  const line = sh`printf '[%s]' ${kNasty}`;
  const out = execFileSync('/bin/sh', ['-c', line], { encoding: 'utf8' });
  assert.equal(out, kNasty.map((v) => `[${v}]`).join(''));
});

test('package names follow Android\'s rule: letter-led segments of [A-Za-z0-9_], at least two (or `android`)', () => {
  for (const ok of ['com.example', 'com.example.app', 'io.selendroid.testapp', 'A.b_1.C2', 'android', 'com.google.android.apps.nexuslauncher', `a.${'b'.repeat(221)}`]) {
    assert.ok(isPackageName(ok), ok);
    assert.equal(checkPackageName(ok), ok);
  }
  for (const bad of ['', 'x', 'example', 'x;id #', 'x$(id)', 'x`id`', 'com.ex ample', 'com..example', '.com.example', 'com.example.', '1com.example', 'com.1example', 'com._example', 'com.exam-ple', 'com.exämple', 'com.example\n', '../etc', `a.${'b'.repeat(222)}`]) {
    assert.ok(!isPackageName(bad), JSON.stringify(bad));
    assert.throws(() => checkPackageName(bad), (e: Error & { code?: string }) => e.code === 'INVALID_REQUEST' && /is not an Android package name/.test(e.message));
  }
});

test('activity names: `.Rel`, `Rel`, fully qualified, `pkg/.Rel`, `$` inner classes; nothing else', () => {
  const pkg = 'com.example.app';
  assert.equal(activityClass(pkg, '.Main'), 'com.example.app.Main');
  assert.equal(activityClass(pkg, 'Main'), 'com.example.app.Main');
  assert.equal(activityClass(pkg, 'com.example.app.ui.Main'), 'com.example.app.ui.Main');
  assert.equal(activityClass(pkg, 'org.other.lib.Activity'), 'org.other.lib.Activity');
  assert.equal(activityClass(pkg, 'com.example.app/.Main'), 'com.example.app.Main');
  assert.equal(activityClass(pkg, 'com.example.app/com.example.app.Main'), 'com.example.app.Main');
  assert.equal(activityClass(pkg, '.Outer$Inner'), 'com.example.app.Outer$Inner');
  assert.equal(activityClass(pkg, '._Main'), 'com.example.app._Main');
  for (const bad of ['.', '..Main', 'a..B', '.Main;id', 'a.B #', '.B$(id)', '.B`id`', '.B C', '1.B', 'com.other/.Main', 'com.example.app/', '/.Main', '.Main/x', 'a.B\n', '.Ma-in', '.Mäin']) {
    assert.throws(() => activityClass(pkg, bad), (e: Error & { code?: string }) => e.code === 'INVALID_REQUEST' && /activityName/.test(e.message), JSON.stringify(bad));
  }
});

test("the runner's device commands quote with the same helper: a NUL is refused there too", async () => {
  const { shWord } = await import('../../src/runner/deviceState.js');
  assert.equal(shWord("it's"), shQuote("it's"));
  assert.throws(() => shWord('a\u0000b'), /NUL/);
});
