// Android device state a flow changes, read before its first change and put back by the pool
// (src/runner/deviceState.ts): the readers of the device's answers (formats of the AOSP shell
// commands) and the exact lines that put each thing back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appopsMode, commandFailure, locationEnabled, nightMode, restoreCommands, runtimePermissions, settingValue, unchanged } from '../../src/runner/deviceState.js';

test('the answers read before a change: appops mode, the location switch, a system setting, the night mode', () => {
  // AppOpsService `get`: the package's own entry; else "No operations." (and on newer Androids the op's default, or a uid-level line).
  assert.equal(appopsMode('MOCK_LOCATION: allow; time=+1m2s ago; rejectTime=+3d ago\n'), 'allow');
  assert.equal(appopsMode('Uid mode: MOCK_LOCATION: allow\nMOCK_LOCATION: ignore; time=+5s ago\n'), 'ignore');
  assert.equal(appopsMode('No operations.\nDefault mode: deny\n'), 'deny');
  assert.equal(appopsMode('No operations.\n'), 'deny', 'MOCK_LOCATION\'s default (MODE_ERRORED)');
  assert.equal(appopsMode('Uid mode: MOCK_LOCATION: allow\n'), 'deny', 'no package entry: the default mode drops it again');
  assert.equal(appopsMode('Error: Unknown operation string: android:mock_location\n'), undefined);
  assert.equal(locationEnabled('true\n'), true);
  assert.equal(locationEnabled('false'), false);
  assert.equal(locationEnabled('Unknown command: is-location-enabled'), undefined);
  assert.equal(settingValue('1\n'), '1');
  assert.equal(settingValue('null\n'), 'null');
  assert.equal(settingValue('on'), undefined);
  assert.equal(nightMode('Night mode: yes\n'), 'yes');
  assert.equal(nightMode('Night mode: auto\n'), 'auto');
  assert.equal(nightMode('Night mode: custom_bedtime\n'), 'custom_bedtime');
  assert.equal(nightMode('Night mode: unknown\n'), undefined, 'not a mode `cmd uimode night` takes back');
  assert.equal(nightMode(''), undefined);
});

test('runtimePermissions: user 0\'s runtime permissions from `dumpsys package`; a permission not listed is not granted', () => {
  const dump = [
    'Packages:',
    '  Package [com.example.maps] (1a2b3c):',
    '    requested permissions:',
    '      android.permission.CAMERA',
    '    install permissions:',
    '      android.permission.INTERNET: granted=true',
    '    User 0: ceDataInode=8123 installed=true hidden=false',
    '      gids=[3003]',
    '      runtime permissions:',
    '        android.permission.CAMERA: granted=true, flags=[ USER_SET|USER_SENSITIVE_WHEN_GRANTED]',
    '        android.permission.ACCESS_FINE_LOCATION: granted=false, flags=[ USER_SENSITIVE_WHEN_DENIED]',
    '      disabledComponents:',
    '        com.example.maps.Other',
    '    User 10: ceDataInode=9 installed=true',
    '      runtime permissions:',
    '        android.permission.ACCESS_FINE_LOCATION: granted=true, flags=[ ]',
  ].join('\n');
  assert.deepEqual([...runtimePermissions(dump)], [['android.permission.CAMERA', true], ['android.permission.ACCESS_FINE_LOCATION', false]]);
  assert.deepEqual([...runtimePermissions('Packages:\n  Package [x] (1):\n    userId=1\n')], []);
  assert.deepEqual([...runtimePermissions('    User 0: installed=true\n      gids=[1]\n    User 10: installed=true\n      runtime permissions:\n        android.permission.CAMERA: granted=true, flags=[ ]\n')], [], 'another user\'s grants are not user 0\'s');
});

test('restoreCommands: the lines that put back each thing, in order, only for what changed', () => {
  assert.deepEqual(restoreCommands({ permissions: [] }), []);
  assert.equal(unchanged({ permissions: [] }), true);
  assert.equal(unchanged(undefined), true);
  const lines = restoreCommands({
    permissions: [{ app: "com.x'y", permission: 'android.permission.CAMERA', granted: false }, { app: 'com.x', permission: 'android.permission.RECORD_AUDIO', granted: true }],
    location: { providers: ['gps', 'network'], mockLocation: 'ignore', enabled: false },
    airplane: { on: false, legacy: true },
    rotation: { accelerometer: '1', user: 'null' },
    night: 'auto',
  }).map((c) => c.command);
  assert.deepEqual(lines, [
    `pm revoke 'com.x'\\''y' 'android.permission.CAMERA'`,
    `pm grant 'com.x' 'android.permission.RECORD_AUDIO'`,
    'cmd location providers remove-test-provider gps',
    'cmd location providers remove-test-provider network',
    'cmd location set-location-enabled false',
    'appops set com.android.shell android:mock_location ignore',
    'settings put global airplane_mode_on 0',
    'am broadcast -a android.intent.action.AIRPLANE_MODE --ez state false',
    'settings delete system user_rotation',
    'settings put system accelerometer_rotation 1',
    'cmd uimode night auto',
  ]);
  // What was as the flow left it needs no line: location on before, the shell's op allowed before.
  assert.deepEqual(restoreCommands({ permissions: [], location: { providers: ['gps'], mockLocation: 'allow', enabled: true }, airplane: { on: true, legacy: false } }).map((c) => c.command), [
    'cmd location providers remove-test-provider gps',
    'cmd connectivity airplane-mode enable',
  ]);
});

test('commandFailure: an exit code other than 0 or a Java exception in the output', () => {
  assert.equal(commandFailure({ exitCode: 0, stdout: 'Deleted 1 rows\n', stderr: '' }), undefined);
  assert.equal(commandFailure({ exitCode: 0, stdout: "Exception occurred while executing 'grant':\njava.lang.SecurityException: no\n", stderr: '' }), "failed: Exception occurred while executing 'grant': java.lang.SecurityException: no");
  assert.equal(commandFailure({ exitCode: 255, stdout: '', stderr: '' }), 'failed (exit 255): no output');
});
