// GBOX's Android app endpoints beyond the spec's (docs/api.md), on an Android box:
//   GET    $B/android/apps/{packageName}              → AndroidApp {packageName, activityName, activityClassName}
//   GET    $B/android/packages/simple?pkgType=…       → {data: [{apkPath, packageName, pkgType}]} (default thirdParty)
//   GET    $B/android/packages/{packageName}/activities → {data: Activity[]}, read from the package's base APK
//   DELETE $B/android/packages/{packageName}          → 204; JSON {keepData?} (`pm uninstall [-k]`)
//   GET    $B/android/connect-address                 → {adb}: what `adb connect` takes, where it can be known
// A package name is checked at the route (names.ts: Android's rule) before any device command, and
// quoted where it reaches the device's shell (shellQuote.ts). Linux boxes: 400 UNSUPPORTED_BOX_TYPE
// (routes.ts, kAndroidOnly).
import type { Static } from '@sinclair/typebox';
import { bodyOf } from '../requestChecks.js';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BoxflowError } from '../../../errors.js';
import { endpoints, kInstallMaxBytes, type EndpointName, type LauncherApp, type PackageSimple, type UninstallBody } from '../../../api/schemas.js';
import type { AndroidBox } from '../../devices/android/androidBox.js';
import { readApk, type Activity } from '../../devices/android/apk.js';
import { checkPackageName } from '../../devices/android/names.js';
import { sh } from '../../../api/shellQuote.js';
import { facet } from '../../devices/index.js';
import type { BoxCall, RouteAnswer as Answer, RouteCall } from './boxRoute.js';

interface AppDeps<Call extends RouteCall> {
  boxCall: BoxCall<Call>;
}

/** The endpoints of this file: Android-only, each served by its own handler on an Android box. */
export const kAndroidAppEndpoints = ['getApp', 'listPackagesSimple', 'listActivities', 'uninstallPackage', 'getConnectAddress'] as const satisfies readonly EndpointName[];

/** Pulling a base APK to read its manifest: a large app over a slow link still fits. */
const kPullTimeoutMs = 10 * 60_000;



const firstLine = (text: string) => text.trim().split('\n')[0]!.replace(/\r$/, '').slice(0, 300) || 'no output';

/** `package:<apk path>=<name>` lines of `pm list packages -f` (split on the LAST `=`: paths hold `==` since Android 11). */
export function parsePackageList(out: string, pkgType: PackageSimple['pkgType']): PackageSimple[] {
  return out
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.startsWith('package:') && l.includes('='))
    .map((line) => {
      const eq = line.lastIndexOf('=');
      return { apkPath: line.slice(8, eq), packageName: line.slice(eq + 1).trim(), pkgType };
    });
}

/** The APK paths `pm path` prints for an installed package; 404 PACKAGE_NOT_FOUND when there are none. */
async function apkPaths(box: AndroidBox, packageName: string): Promise<string[]> {
  const paths = (await box.shell(sh`pm path ${packageName}`))
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('package:'))
    .map((l) => l.slice(8));
  if (!paths.length) throw new BoxflowError('PACKAGE_NOT_FOUND', `no package "${packageName}" is installed on device ${box.info.serial}`);
  return paths;
}

const isLoopback = (host: string) => {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || (isIP(h) === 4 && h.startsWith('127.'));
};

/**
 * What `adb connect` takes to reach the device, or why no address can be given:
 * - a network device (serial `HOST:PORT`, as `adb connect` names it, STF's remote connect too): that
 *   address, unless HOST is a loopback of an adb server on another machine;
 * - an emulator `emulator-N` of an adb server on this machine: its adb port, N+1, on loopback;
 * - anything else (a USB device, an emulator of a remote adb server): none.
 * The address is as seen from the adb server's machine.
 */
export function connectAddress(serial: string, adb: { host: string; port: number }): { adb: string } | { why: string } {
  const server = `the adb server at ${adb.host}:${adb.port}`;
  const local = isLoopback(adb.host);
  const tcp = /^(.+):(\d{1,5})$/.exec(serial);
  if (tcp) {
    if (!isLoopback(tcp[1]!) || local) return { adb: serial };
    return { why: `device ${serial} is on the loopback of ${server}, another machine: no address reaches it from here` };
  }
  const emulator = /^emulator-(\d{1,5})$/.exec(serial);
  if (emulator) {
    if (local) return { adb: `127.0.0.1:${Number(emulator[1]) + 1}` };
    return { why: `device ${serial} is an emulator of ${server}, another machine; its adb port listens on that machine's loopback only` };
  }
  return { why: `device ${serial} is attached to ${server} without a network address (USB)` };
}

/** Activities read from a base APK, by its path, size and time on the device (a reinstall changes them). */
const activityCache = new WeakMap<AndroidBox, Map<string, Activity[]>>();

export function createAndroidAppHandlers<Call extends RouteCall>(deps: AppDeps<Call>) {
  const { boxCall } = deps;
  const packageParam = (call: Call) => checkPackageName(call.params.packageName, 'packageName');

  /** The package's activities from its base APK's manifest, pulled over sync into the box's scratch dir (as an install's upload) and removed after. */
  async function activitiesOf(box: AndroidBox, packageName: string, signal?: AbortSignal): Promise<Activity[]> {
    const paths = await apkPaths(box, packageName);
    const base = paths.find((p) => p.endsWith('/base.apk')) ?? paths[0]!;
    const st = await box.stat(base);
    if (!st) throw new BoxflowError('DEVICE_ERROR', `device ${box.info.serial}: \`pm path ${packageName}\` names ${base}, which cannot be read`);
    if (st.size > kInstallMaxBytes) throw new BoxflowError('UNPROCESSABLE', `the base APK of ${packageName} is ${Math.round(st.size / 2 ** 20)} MB; activities are read from APKs of at most ${kInstallMaxBytes / 2 ** 20} MB`);
    const id = `${base}\n${st.size}\n${st.mtime.getTime()}`;
    let cache = activityCache.get(box);
    const hit = cache?.get(id);
    if (hit) return hit;
    const dir = await box.installDir();
    try {
      const file = join(dir, 'base.apk');
      let got = 0;
      const bound = new Transform({
        transform(chunk: Buffer, _enc, done) {
          got += chunk.length;
          done(got > st.size ? new BoxflowError('DEVICE_ERROR', `${base} grew while it was read`) : null, chunk);
        },
      });
      const limit = AbortSignal.timeout(kPullTimeoutMs);
      try {
        await pipeline(await box.readStream(base), bound, createWriteStream(file), { signal: signal ? AbortSignal.any([signal, limit]) : limit });
      } catch (err) {
        if (BoxflowError.is(err)) throw err;
        if (signal?.aborted) throw signal.reason;
        throw new BoxflowError('DEVICE_ERROR', `device ${box.info.serial}: reading ${base} failed: ${firstLine(String((err as Error)?.message ?? err))}`, { cause: err });
      }
      let activities: Activity[];
      try {
        const set = await readApk(file, dir);
        await set.close();
        activities = set.manifest.activities;
      } catch (err) {
        throw new BoxflowError('UNPROCESSABLE', `the base APK of ${packageName} (${base}) has no manifest boxflow can read: ${firstLine(String((err as Error)?.message ?? err))}`, { cause: err });
      }
      if (!cache) activityCache.set(box, (cache = new Map()));
      if (cache.size >= 32) cache.delete(cache.keys().next().value!);
      cache.set(id, activities);
      return activities;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  return {
    getApp: (call: Call) =>
      boxCall('getApp', call, async (entry): Promise<Answer> => {
        const packageName = packageParam(call);
        const box = facet(entry, 'apps', 'getApp');
        const app: LauncherApp | undefined = (await box.listApps()).find((a) => a.packageName === packageName);
        if (app) return { status: 200, body: app };
        await apkPaths(box, packageName);
        throw new BoxflowError('PACKAGE_NOT_FOUND', `${packageName} is installed on device ${box.info.serial} but is no launcher app (it has no MAIN/LAUNCHER activity); GET /boxes/{boxId}/android/packages/${packageName} describes the package`);
      }),
    listPackagesSimple: (call: Call) =>
      boxCall('listPackagesSimple', call, async (entry): Promise<Answer> => {
        const query = call.query as Static<typeof endpoints.listPackagesSimple.query>;
        const box = facet(entry, 'apps', 'listPackagesSimple');
        const types = [...new Set(query.pkgType?.length ? query.pkgType : (['thirdParty'] as const))];
        // `-3` third-party packages only, `-s` system ones: one command per type asked for.
        const lists = await Promise.all(types.map(async (t) => parsePackageList(await box.shell(t === 'system' ? 'pm list packages -f -s' : 'pm list packages -f -3'), t)));
        return { status: 200, body: { data: lists.flat() } };
      }),
    listActivities: (call: Call) =>
      boxCall('listActivities', call, async (entry): Promise<Answer> => {
        const packageName = packageParam(call);
        return { status: 200, body: { data: await activitiesOf(facet(entry, 'apps', 'listActivities'), packageName, call.signal) } };
      }),
    uninstallPackage: (call: Call) =>
      boxCall('uninstallPackage', call, async (entry): Promise<Answer> => {
        const packageName = packageParam(call);
        const body = bodyOf(endpoints.uninstallPackage.body, call.body) as UninstallBody;
        const box = facet(entry, 'apps', 'uninstallPackage');
        await apkPaths(box, packageName);
        const out = await box.shell(body.keepData ? sh`pm uninstall -k ${packageName}` : sh`pm uninstall ${packageName}`);
        if (!/^Success\b/m.test(out)) throw new BoxflowError('UNPROCESSABLE', `device ${box.info.serial} did not uninstall ${packageName}: ${firstLine(out)}`);
        return { status: 204 };
      }),
    getConnectAddress: (call: Call) =>
      boxCall('getConnectAddress', call, async (entry): Promise<Answer> => {
        const box = facet(entry, 'apps', 'getConnectAddress');
        const address = connectAddress(box.info.serial, box.adbServer);
        if ('why' in address) {
          throw new BoxflowError('NOT_OFFERED_LOCALLY', `GET /boxes/{boxId}/android/connect-address: ${address.why}, so there is no address to \`adb connect\` to; the box's web terminal (POST /boxes/{boxId}/web-terminal-url) is an adb shell on it`);
        }
        return { status: 200, body: address };
      }),
  };
}
