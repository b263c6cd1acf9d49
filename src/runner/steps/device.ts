// Device state a test sets up (setDevice, assertDevice; launchApp's permissions): airplane mode,
// location, permissions, orientation, dark mode, the clipboard pasteText types. Android boxes: device
// commands through the box's commands endpoint (POST /boxes/{id}/commands),
// each value quoted. Linux boxes: what the browser emulates (offline, geolocation, permission
// overrides, prefers-color-scheme) over the box's CDP URL, or the screen-rotation action. What a box
// cannot do fails when the step runs, with a code and the reason, never at load time. On Android,
// each thing is read before the flow first changes it and recorded in the box's state
// (runner/deviceState.ts), which the pool puts back before another flow gets the box; the browser's
// emulation ends with the flow's CDP connection.
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { BoxApiError } from '../../api/client.js';
import { BoxflowError, kAssertDevice, kStepNeedsApp, kStepValue } from '../../errors.js';
import type { DeviceSettings, GeoPoint, PermissionValue, Step } from '../../flow/types.js';
import { scriptHostFor } from '../script.js';
import { putOnClipboard } from './clipboard.js';
import { delay } from '../poll.js';
import { handler, type StepHandler, type StepRun } from './types.js';
import { applyWeb, keepWebState, webPermissions, webState } from './deviceWeb.js';
import type { CommandResult } from '../../api/schemas.js';
import { appopsMode, commandFailure, locationEnabled, nightMode, runtimePermissions, settingValue, shWord, type AndroidChanges } from '../deviceState.js';
import { kRotationReads, rotationCommands } from '../../api/androidSettings.js';

const isLinux = (run: StepRun) => run.rt.box.type === 'linux';

export { keepWebState, shWord };

/**
 * Runs one command line in the box (Android: `adb shell`). The service must offer the commands
 * endpoint; one that does not (404, 405, 501) is said so, with what needed it.
 */
export async function boxCommand(run: StepRun, command: string, what: string): Promise<CommandResult> {
  try {
    return await run.rt.client.runCommand(run.rt.box.id, { command }, { signal: run.signal, timeoutMs: Math.max(1_000, run.deadline - performance.now()) });
  } catch (err) {
    if (err instanceof BoxApiError && [404, 405, 501].includes(err.httpStatus ?? 0) && err.serverCode !== 'BOX_NOT_FOUND') {
      throw new BoxflowError('UNPROCESSABLE', `${what} runs device commands through the box's commands endpoint (POST /boxes/{id}/commands), which this service does not answer (${err.httpStatus}: ${err.message})`, { cause: err });
    }
    throw err;
  }
}

/** A device command that must succeed: exit code 0 and no Java exception in its output. */
async function device(run: StepRun, command: string, what: string): Promise<string> {
  const r = await boxCommand(run, command, what);
  const failed = commandFailure(r);
  if (failed) throw new BoxflowError('DEVICE_ERROR', `${what}: \`${command}\` ${failed}`);
  return r.stdout;
}

async function androidSdk(run: StepRun, what: string): Promise<number> {
  return (run.rt.state.sdk ??= Number((await device(run, 'getprop ro.build.version.sdk', what)).trim()));
}

/** What the flows changed on this Android box, each as it was before (shared with the pool, which puts it back before the next flow). */
const changes = (run: StepRun): AndroidChanges => (run.rt.boxState.android ??= { permissions: [] });

/**
 * A state read with a device command before the flow first changes it. Output the reader cannot
 * read fails the step before anything is changed: the device could not be put back after the flow.
 */
async function before<T>(run: StepRun, command: string, what: string, read: (out: string) => T | undefined): Promise<T> {
  const out = await device(run, command, what);
  const value = read(out);
  if (value === undefined) throw unreadable(command, what, out);
  return value;
}
const unreadable = (command: string, what: string, out: string) =>
  new BoxflowError('DEVICE_ERROR', `${what}: \`${command}\` answered ${JSON.stringify(out.trim().slice(0, 200))}, which boxflow cannot read, so it could not put the device back after the flow; nothing was changed`);

// ------------------------------------------------------------------ the values, checked when the step runs

// Each takes the value the step gave (its `${...}` resolved before the step ran) and the value as
// written, which a message names beside what it gave.

/** A latitude or longitude checked to be degrees in range. */
function degrees(value: number | string, written: number | string, what: 'latitude' | 'longitude'): number {
  const max = what === 'latitude' ? 90 : 180;
  const text = typeof value === 'number' ? String(value) : value.trim();
  const n = Number(text);
  const range = `a number from -${max} to ${max}`;
  if (text === '' || !(Math.abs(n) <= max)) throw typeof written === 'string' ? kStepValue(what, written, text, range) : new BoxflowError('STEP_INVALID', `${what}: ${value} is not ${range}`);
  return n;
}

/** A place (a path point may be one `${...}` giving "lat,lng"). */
function place(p: GeoPoint, written: GeoPoint): { latitude: number; longitude: number } {
  if (p.longitude === '') {
    const text = String(p.latitude).trim();
    const [lat, lng, extra] = text.split(',');
    if (lng === undefined || extra !== undefined) throw kStepValue('location path point', written.latitude, text, '"latitude,longitude"');
    return { latitude: degrees(lat!.trim(), lat!.trim(), 'latitude'), longitude: degrees(lng.trim(), lng.trim(), 'longitude') };
  }
  return { latitude: degrees(p.latitude, written.latitude, 'latitude'), longitude: degrees(p.longitude, written.longitude, 'longitude') };
}

const kPermissionValues = ['allow', 'deny', 'unset'];
function permissionValues(permissions: Record<string, PermissionValue>, written: Record<string, PermissionValue>): Record<string, PermissionValue> {
  const out: Record<string, PermissionValue> = {};
  for (const [name, raw] of Object.entries(permissions)) {
    const v = raw.trim();
    if (!kPermissionValues.includes(v)) throw kStepValue(`permissions.${name}`, written[name] ?? raw, v, 'allow, deny or unset');
    out[name] = v as PermissionValue;
  }
  return out;
}

/** Maestro's orientation names (any case, underscores optional) and boxflow's, as the GBOX names. */
const kOrientationNames: Record<string, 'portrait' | 'landscapeLeft' | 'landscapeRight' | 'portraitUpsideDown'> = {
  portrait: 'portrait',
  landscapeleft: 'landscapeLeft',
  landscaperight: 'landscapeRight',
  upsidedown: 'portraitUpsideDown',
  portraitupsidedown: 'portraitUpsideDown',
};
function orientationOf(value: string, written: string) {
  const text = value.trim();
  const o = kOrientationNames[text.replace(/_/g, '').toLowerCase()];
  if (!o) throw new BoxflowError('STEP_INVALID', `orientation: ${written === text ? '' : `${written} is `}${JSON.stringify(text)} is not portrait, landscapeLeft, landscapeRight or upsideDown`);
  return o;
}

// ------------------------------------------------------------------ Android

/**
 * Maestro's permission names (AndroidDriver.translatePermissionName): each is one or more Android
 * permissions; any other name is an Android permission as written.
 */
const kAndroidPermissions: Record<string, string[]> = {
  bluetooth: ['BLUETOOTH_CONNECT', 'BLUETOOTH_SCAN'],
  calendar: ['WRITE_CALENDAR', 'READ_CALENDAR'],
  camera: ['CAMERA'],
  contacts: ['READ_CONTACTS', 'WRITE_CONTACTS'],
  location: ['ACCESS_FINE_LOCATION', 'ACCESS_COARSE_LOCATION'],
  medialibrary: ['WRITE_EXTERNAL_STORAGE', 'READ_EXTERNAL_STORAGE', 'READ_MEDIA_AUDIO', 'READ_MEDIA_IMAGES', 'READ_MEDIA_VIDEO'],
  microphone: ['RECORD_AUDIO'],
  notifications: ['POST_NOTIFICATIONS'],
  phone: ['CALL_PHONE', 'ANSWER_PHONE_CALLS'],
  sms: ['READ_SMS', 'RECEIVE_SMS', 'SEND_SMS'],
  storage: ['WRITE_EXTERNAL_STORAGE', 'READ_EXTERNAL_STORAGE'],
};
const androidPermissions = (name: string): string[] =>
  (kAndroidPermissions[name.toLowerCase()] ?? [name]).map((p) => (p.includes('.') ? p : `android.permission.${p}`));

/** `dumpsys package <app>`: what it asks for and which runtime permissions it has. */
async function dumpsysPackage(run: StepRun, appId: string, what: string): Promise<string> {
  const out = await device(run, `dumpsys package ${shWord(appId)}`, what);
  if (/Unable to find package/.test(out)) throw new BoxflowError('PACKAGE_NOT_FOUND', `permissions: ${appId} is not installed`);
  return out;
}

/** The permissions an app asks for (`dumpsys package`: "requested permissions:"), as Maestro's `all` reads them from the APK. */
function requestedPermissions(out: string): string[] {
  const lines = out.split('\n');
  const at = lines.findIndex((l) => /^\s*requested permissions:\s*$/.test(l));
  if (at < 0) return [];
  const indent = /^\s*/.exec(lines[at]!)![0].length;
  const perms: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (/^\s*$/.test(l) || /^\s*/.exec(l)![0].length <= indent) break;
    const name = /^\s*([\w.]+)/.exec(l)?.[1];
    if (name) perms.push(name);
  }
  return perms;
}

/**
 * Grants (allow) or revokes (deny, unset) each permission with `pm`, as Maestro does. A permission
 * that cannot be changed that way (not a runtime one, not asked for by the app) is left as it is,
 * and said so in the message, as Maestro ignores it. Before the flow first changes a permission,
 * whether it was granted is read from `dumpsys package` (one read per step), so that the pool can
 * put it back.
 */
async function androidPermissions_(run: StepRun, appId: string, permissions: Record<string, PermissionValue>): Promise<string> {
  const changed: string[] = [];
  const left: string[] = [];
  const recorded = changes(run).permissions;
  let dump: Promise<string> | undefined;
  const dumpsys = (what: string) => (dump ??= dumpsysPackage(run, appId, what));
  for (const [name, value] of Object.entries(permissions)) {
    const perms = name === 'all' ? requestedPermissions(await dumpsys('permissions: all')) : androidPermissions(name);
    for (const perm of perms) {
      const verb = value === 'allow' ? 'grant' : 'revoke';
      const known = recorded.some((p) => p.app === appId && p.permission === perm);
      const was = known ? undefined : (runtimePermissions(await dumpsys(`permissions.${name}`)).get(perm) ?? false);
      const r = await boxCommand(run, `pm ${verb} ${shWord(appId)} ${shWord(perm)}`, `permissions.${name}`);
      const out = `${r.stdout}${r.stderr}`.trim();
      const ok = r.exitCode === 0 && !/Exception|Error/.test(out);
      // The first change of a permission in this flow is recorded with what it was (a grant of a granted one changes nothing).
      if (ok && was !== undefined && was !== (verb === 'grant')) recorded.push({ app: appId, permission: perm, granted: was });
      if (ok) changed.push(`${verb === 'grant' ? '+' : '-'}${perm.replace(/^android\.permission\./, '')}`);
      else if (/Unknown package|not installed/i.test(out)) throw new BoxflowError('PACKAGE_NOT_FOUND', `permissions: ${appId} is not installed`);
      else left.push(`${perm.replace(/^android\.permission\./, '')} (${/(?:Exception|Error)[^:]*: (.*)/.exec(out)?.[1]?.trim() ?? (out.split('\n')[0] || `exit ${r.exitCode}`)})`);
    }
  }
  const done = changed.length ? `permissions of ${appId}: ${changed.join(' ')}` : `no permission of ${appId} changed`;
  return left.length ? `${done}; left as they are: ${left.join(', ')}` : done;
}

async function androidAirplane(run: StepRun, want: boolean | 'toggle'): Promise<string> {
  const what = 'airplaneMode';
  const state = (await device(run, 'cmd connectivity airplane-mode', what)).trim();
  // API < 28 has no `cmd connectivity airplane-mode`: the global setting and its broadcast, as Maestro does.
  const legacy = state !== 'enabled' && state !== 'disabled';
  const now = legacy ? (await device(run, 'settings get global airplane_mode_on', what)).trim() === '1' : state === 'enabled';
  const on = want === 'toggle' ? !now : want;
  const c = changes(run);
  if (on !== now && !c.airplane) c.airplane = { on: now, legacy };
  if (legacy) {
    await device(run, `settings put global airplane_mode_on ${on ? 1 : 0}`, what);
    await device(run, `am broadcast -a android.intent.action.AIRPLANE_MODE --ez state ${on}`, what);
  } else {
    await device(run, `cmd connectivity airplane-mode ${on ? 'enable' : 'disable'}`, what);
  }
  return `airplane mode ${on ? 'on' : 'off'}${on === now ? ' (it already was)' : ''}`;
}

/**
 * The device's location through a test provider of the location service (Android 12+: `cmd
 * location providers`, what Android's own location tests use), for the gps and network
 * providers; the shell may mock locations once `appops` lets it. Apps that read Google Play
 * services' fused location see it only where that follows these providers.
 */
async function androidLocation(run: StepRun, p: { latitude: number; longitude: number }): Promise<void> {
  const what = 'location';
  if (!run.rt.state.mockReady) {
    const sdk = await androidSdk(run, what);
    if (sdk < 31) {
      throw new BoxflowError('UNPROCESSABLE', `location: box ${run.rt.box.id} runs Android API ${sdk}; setting the location over adb needs Android 12 (API 31) or later (\`cmd location providers\`). An emulator's own \`emu geo fix\` is a console command, not a device shell command, so the Box API cannot send it`);
    }
    // As they were, for the pool to put back: the shell's mock_location app op, the location switch, and (below) the providers added.
    const c = changes(run);
    c.location ??= {
      mockLocation: await before(run, 'appops get com.android.shell android:mock_location', what, appopsMode),
      enabled: await before(run, 'cmd location is-location-enabled', what, locationEnabled),
      providers: [],
    };
    await device(run, 'appops set com.android.shell android:mock_location allow', what);
    await device(run, 'cmd location set-location-enabled true', what);
    for (const provider of kProviders) {
      await device(run, `cmd location providers add-test-provider ${provider}`, what);
      if (!c.location.providers.includes(provider)) c.location.providers.push(provider);
      await device(run, `cmd location providers set-test-provider-enabled ${provider} true`, what);
    }
    run.rt.state.mockReady = true;
  }
  for (const provider of kProviders) await device(run, `cmd location providers set-test-provider-location ${provider} --location ${shWord(`${p.latitude},${p.longitude}`)}`, what);
}
const kProviders = ['gps', 'network'];

/** Maestro's rotation values (AndroidDriver.setOrientation): the accelerometer off, then user_rotation. */
const kUserRotation = { portrait: 0, landscapeLeft: 1, portraitUpsideDown: 2, landscapeRight: 3 } as const;

async function androidDarkMode(run: StepRun, want?: boolean | 'toggle'): Promise<boolean> {
  const out = (await device(run, 'cmd uimode night', 'darkMode')).trim();
  const now = /Night mode: yes/i.test(out);
  if (want === undefined) return now;
  const on = want === 'toggle' ? !now : want;
  // The mode before the flow's first change (auto and custom ones too), for the pool to put back.
  const c = changes(run);
  if (c.night === undefined) {
    const mode = nightMode(out);
    if (mode === undefined) throw unreadable('cmd uimode night', 'darkMode', out);
    if (mode !== (on ? 'yes' : 'no')) c.night = mode;
  }
  await device(run, `cmd uimode night ${on ? 'yes' : 'no'}`, 'darkMode');
  return on;
}

// ------------------------------------------------------------------ the steps

/** The flow's own appId, resolved now (a step's appId is resolved with its step). */
export const flowAppId = (run: StepRun): string | undefined => run.rt.flow.appId && run.resolve(run.rt.flow.appId);

async function setPermissions(run: StepRun, appId: string | undefined, permissions: Record<string, PermissionValue>, written: Record<string, PermissionValue>): Promise<string> {
  const values = permissionValues(permissions, written);
  if (isLinux(run)) return webPermissions(run, await run.rt.layout.tab(), values);
  const app = appId ?? flowAppId(run);
  if (!app) throw kStepNeedsApp('setDevice permissions', 'setDevice');
  return androidPermissions_(run, app, values);
}

/** launchApp's permissions (Android: before the app starts; Linux boxes: for the site, once it is open). */
export function launchPermissions(run: StepRun, appId: string | undefined, permissions: Record<string, PermissionValue>, written: Record<string, PermissionValue>): Promise<string> {
  return setPermissions(run, appId, permissions, written);
}

/** Maestro's travel: 50 steps per leg, each after the leg's time / 50; the time as Maestro computes it (see below). */
async function travel(run: StepRun, path: GeoPoint[], written: GeoPoint[], speed: number, set: (p: { latitude: number; longitude: number }) => Promise<void>): Promise<string> {
  const points = path.map((p, i) => place(p, written[i] ?? p));
  await set(points[0]!);
  let ms = 0;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    const legMs = (maestroDistance(a, b) / speed) * 1000;
    for (let k = 1; k <= 50; k++) {
      await set({ latitude: a.latitude + ((b.latitude - a.latitude) * k) / 50, longitude: a.longitude + ((b.longitude - a.longitude) * k) / 50 });
      await delay(Math.floor(legMs / 50), run.signal);
    }
    ms += legMs;
  }
  return `travelled ${points.length} points in ${Math.round(ms)} ms`;
}

/**
 * The distance Maestro's travel uses (TravelCommand.getDistanceInMeters): the haversine formula with
 * the coordinate differences converted to radians twice, so about 1/57 of the real distance; kept,
 * so that a travel takes as long as under Maestro.
 */
function maestroDistance(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const [oLat, oLon, aLat, aLon] = [rad(a.latitude), rad(a.longitude), rad(b.latitude), rad(b.longitude)];
  const dLat = rad(aLat - oLat);
  const dLon = rad(aLon - oLon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(oLat)) * Math.cos(rad(aLat)) * Math.sin(dLon / 2) ** 2;
  return 6371 * 2 * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h)) * 1000;
}

async function setLocation(run: StepRun, location: NonNullable<DeviceSettings['location']>, written: NonNullable<DeviceSettings['location']>): Promise<string> {
  const linux = isLinux(run);
  const set = async (p: { latitude: number; longitude: number }) => {
    if (!linux) return androidLocation(run, p);
    const s = webState(run);
    s.geolocation = p;
    await applyWeb(await run.rt.layout.tab(), s);
  };
  if ('path' in location) return travel(run, location.path, 'path' in written ? written.path : [], location.speed, set);
  const p = place(location, 'path' in written ? location : written);
  await set(p);
  return `location ${p.latitude},${p.longitude}`;
}

async function setOrientation(run: StepRun, value: string, written: string, step: Step): Promise<string> {
  const o = orientationOf(value, written);
  if (!isLinux(run)) {
    const c = changes(run);
    c.rotation ??= {
      accelerometer: await before(run, kRotationReads.accelerometer, 'orientation', settingValue),
      user: await before(run, kRotationReads.user, 'orientation', settingValue),
    };
    for (const line of rotationCommands(kUserRotation[o])) await device(run, line, 'orientation');
    run.rt.layout.reset();
    return `orientation ${o}`;
  }
  // A Linux box turns its screen (width and height swap); the pool puts the size back for the next flow.
  const box = run.rt.boxState;
  if (!box.resolution) box.resolution = (await run.rt.client.getDisplay(run.rt.box.id, { signal: run.signal })).resolution;
  box.resolutionChanged = true;
  const result = await run.rt.client.screenRotation(run.rt.box.id, { orientation: o, options: run.actionOptions(step) }, { signal: run.signal, timeoutMs: run.rt.options.actionTimeout });
  await run.recordAction(result);
  return `orientation ${o}`;
}

async function darkModeOf(run: StepRun, want?: boolean | 'toggle'): Promise<boolean> {
  if (!isLinux(run)) return androidDarkMode(run, want);
  const tab = await run.rt.layout.tab();
  const now = await tab.evaluate<boolean>("matchMedia('(prefers-color-scheme: dark)').matches");
  if (want === undefined) return now;
  const on = want === 'toggle' ? !now : want;
  const s = webState(run);
  s.colorScheme = on ? 'dark' : 'light';
  await applyWeb(tab, s);
  return on;
}

async function airplaneMode(run: StepRun, want: boolean | 'toggle'): Promise<string> {
  if (!isLinux(run)) return androidAirplane(run, want);
  // The web meaning: the browser is offline (requests fail, navigator.onLine is false).
  const s = webState(run);
  const on = want === 'toggle' ? !s.offline : want;
  s.offline = on;
  await applyWeb(await run.rt.layout.tab(), s);
  return `airplane mode ${on ? 'on: the browser is offline' : 'off: the browser is online'}`;
}

/**
 * Photos and videos into the gallery (Maestro's addMedia): the Box API's media album endpoints, the
 * album made when it is not there. The web has no gallery: as Maestro, nothing is added (said so).
 */
async function addMedia(run: StepRun, files: string[], album = 'boxflow'): Promise<string> {
  const names = files.map((f) => basename(f));
  if (isLinux(run)) return `media: a Linux box has no gallery, ${names.join(', ')} not added (Maestro does nothing with addMedia on the web either)`;
  const media = await Promise.all(
    files.map(async (f) => {
      const path = resolve(dirname(run.flowFile), f);
      const data = await readFile(path).catch((err: NodeJS.ErrnoException) => {
        throw new BoxflowError('FILE_NOT_FOUND', `media: cannot read ${basename(path)} (${err.code ?? err.message})`);
      });
      return { name: basename(path), data };
    }),
  );
  const name = album;
  const { client, box } = run.rt;
  const opts = { signal: run.signal, timeoutMs: Math.max(run.timeoutMs, 120_000) };
  const exists = await client.getAlbum(box.id, name, { signal: run.signal }).then(
    () => true,
    (err: unknown) => {
      if (err instanceof BoxApiError && err.httpStatus === 404 && err.serverCode !== 'BOX_NOT_FOUND') return false;
      throw err;
    },
  );
  const result = exists ? await client.updateAlbum(box.id, name, { media }, opts) : await client.createAlbum(box.id, { name, media }, opts);
  return `media ${names.join(', ')} added to the album ${result.name} (${result.path}, ${result.mediaCount} media)`;
}

export const setDevice: StepHandler<'setDevice'> = handler(['location', 'permissions', 'appId', 'orientation', 'clipboard', 'media', 'album'], async (step, run) => {
  const said: string[] = [];
  if (step.clearKeychain) said.push(kKeychainNote(run));
  if (step.airplaneMode !== undefined) said.push(await airplaneMode(run, step.airplaneMode));
  const written = run.written as typeof step;
  if (step.location !== undefined) said.push(await setLocation(run, step.location, written.location ?? step.location));
  if (step.permissions !== undefined) said.push(await setPermissions(run, step.appId, step.permissions, written.permissions ?? step.permissions));
  if (step.orientation !== undefined) said.push(await setOrientation(run, step.orientation, written.orientation ?? step.orientation, step));
  if (step.darkMode !== undefined) said.push(`dark mode ${(await darkModeOf(run, step.darkMode)) ? 'on' : 'off'}`);
  if (step.media !== undefined) said.push(await addMedia(run, step.media, step.album));
  if (step.clipboard !== undefined) {
    const text = step.clipboard;
    scriptHostFor(run.rt.state).copiedText = text;
    said.push(await putOnClipboard(run, text));
  }
  run.record.message = said.join('; ');
});

export const assertDevice: StepHandler<'assertDevice'> = handler([], async (step, run) => {
  const said: string[] = [];
  if (step.darkMode !== undefined) {
    const on = await darkModeOf(run);
    if (on !== step.darkMode) throw kAssertDevice('dark mode', on ? 'on' : 'off', step.darkMode ? 'on' : 'off');
    said.push(`dark mode ${on ? 'on' : 'off'}`);
  }
  if (step.airplaneMode !== undefined) {
    let on: boolean;
    if (isLinux(run)) on = webState(run).offline ?? false;
    else {
      const state = (await device(run, 'cmd connectivity airplane-mode', 'airplaneMode')).trim();
      on = state === 'enabled' || state === 'disabled' ? state === 'enabled' : (await device(run, 'settings get global airplane_mode_on', 'airplaneMode')).trim() === '1';
    }
    if (on !== step.airplaneMode) throw kAssertDevice('airplane mode', on ? 'on' : 'off', step.airplaneMode ? 'on' : 'off');
    said.push(`airplane mode ${on ? 'on' : 'off'}`);
  }
  run.record.message = said.join('; ');
});

/** clearKeychain is iOS-only: Maestro does nothing on Android and the web, and neither does boxflow; the record says so. */
export const kKeychainNote = (run: StepRun): string => `clearKeychain: iOS-only, nothing to clear on ${run.rt.box.type === 'linux' ? 'a Linux box' : 'an Android box'} (Maestro ignores it there too)`;

/**
 * record start / stop: the box records its screen (GBOX recording endpoints) and the stop attaches the
 * video. With the run's `video` on, the attempt's own recording is running: a second one would end
 * it, so both steps only say where the video is.
 */
export const record: StepHandler<'record'> = handler(['name'], async (step, run) => {
  const video = run.rt.options.video;
  if (video && video !== 'off') {
    run.record.message = `the attempt is recorded already (video: ${video}); this step is a chapter of that video`;
    return;
  }
  const { client, box } = run.rt;
  if (step.action === 'start') {
    const name = step.name ?? 'recording';
    await client.startRecording(box.id, { signal: run.signal });
    run.rt.state.recording = name;
    run.record.message = `recording ${name}`;
    return;
  }
  const name = run.rt.state.recording;
  if (name === undefined) throw new BoxflowError('STEP_INVALID', 'record stop: no recording was started in this flow (record: {start: name} first)');
  run.rt.state.recording = undefined;
  const result = await client.stopRecording(box.id, undefined, { signal: run.signal, timeoutMs: Math.max(run.timeoutMs, 120_000) });
  const bytes = await client.fetchObject(result.presignedUrl, { signal: run.signal, timeoutMs: Math.max(run.timeoutMs, 120_000) });
  const ext = result.contentType?.includes('webm') ? 'webm' : 'mp4';
  const path = await run.rt.artifacts.put(bytes, ext);
  run.record.attachments = [{ name: `${name}.${ext}`, path, contentType: result.contentType ?? `video/${ext}` }];
  run.record.message = `recorded ${name}${result.durationMs !== undefined ? ` (${(result.durationMs / 1000).toFixed(1)} s)` : ''}${result.truncated ? `, cut at its ${result.truncated} bound` : ''}`;
});

