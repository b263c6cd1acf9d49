// Device state a flow changes on an Android box through the box's commands endpoint (steps/device.ts:
// airplane mode, location test providers, permissions, rotation, dark mode), and how it was before.
// Each thing is read with the device command just before a flow first changes it; the pool
// (boxPool.ts) puts it back before another flow gets the box, and at the end of the run on a box the
// user named. The readers of the device's answers and the lines that put things back live here, so
// that the steps and the pool share them (and the unit tests read them alone).
import type { BoxClient } from '../api/client.js';
import type { CommandResult } from '../api/schemas.js';
import { BoxflowError } from '../errors.js';
import { shQuote } from '../api/shellQuote.js';
import { rotationBack, type RotationSettings } from '../api/androidSettings.js';

export { settingValue } from '../api/androidSettings.js';

/** What flows changed on an Android device since the box was last put back, each as it was before. */
export interface AndroidChanges {
  /** Airplane mode before; `legacy`: the device has no `cmd connectivity airplane-mode` (API < 28), so the global setting and its broadcast. */
  airplane?: { on: boolean; legacy: boolean };
  /**
   * The location test providers the flow added (removed again), and, as they were before: the shell's
   * `android:mock_location` app op (its mode) and the location switch.
   */
  location?: { providers: string[]; mockLocation: string; enabled: boolean };
  /** Each permission a flow changed (the first change only), and whether it was granted before. */
  permissions: Array<{ app: string; permission: string; granted: boolean }>;
  /** `settings get system accelerometer_rotation` / `user_rotation` before (`null`: not set). */
  rotation?: RotationSettings;
  /** `cmd uimode night` before: yes, no, auto, custom, custom_schedule or custom_bedtime. */
  night?: string;
}

/**
 * How a device command failed (`failed (exit 1): <its first lines>`): an exit code other than 0, or
 * a Java exception in its output; undefined when it did not.
 */
export function commandFailure(r: CommandResult): string | undefined {
  const out = `${r.stdout}${r.stderr}`.trim();
  if (r.exitCode === 0 && !/^(?:Exception occurred|Error:|java\.lang\.\w+Exception|Security exception)/m.test(out)) return undefined;
  return `failed${r.exitCode !== 0 ? ` (exit ${r.exitCode})` : ''}: ${out.split('\n').slice(0, 3).join(' ') || 'no output'}`;
}

// ------------------------------------------------------------------ reading the state before a change

/**
 * The package mode of the shell's mock_location app op from `appops get com.android.shell
 * android:mock_location` (AppOpsService's shell command): the `MOCK_LOCATION: <mode>` line; none
 * ("No operations.", or only a `Uid mode:` line) means the op's default mode, printed as `Default
 * mode: <mode>` where the device says it, else `deny` (AppOpsManager's default for MOCK_LOCATION).
 * Setting that mode again drops the package's entry, as it was. Undefined: not this command's answer.
 */
export function appopsMode(out: string): string | undefined {
  const own = /^MOCK_LOCATION: (\w+)/m.exec(out);
  if (own) return kAppopsModes.includes(own[1]!) ? own[1] : undefined;
  if (!/^No operations\.|^Uid mode: MOCK_LOCATION: /m.test(out)) return undefined;
  const def = /^Default mode: (\w+)/m.exec(out)?.[1] ?? 'deny';
  return kAppopsModes.includes(def) ? def : undefined;
}
const kAppopsModes = ['allow', 'ignore', 'deny', 'default', 'foreground'];

/** `cmd location is-location-enabled`: true or false; undefined for anything else. */
export function locationEnabled(out: string): boolean | undefined {
  const t = out.trim();
  return t === 'true' ? true : t === 'false' ? false : undefined;
}

/** The night mode `cmd uimode night` prints (`Night mode: yes`), as `cmd uimode night <mode>` takes it back; undefined when it says none of those. */
export function nightMode(out: string): string | undefined {
  const m = /Night mode: (\w+)/i.exec(out)?.[1]?.toLowerCase();
  return m && kNightModes.includes(m) ? m : undefined;
}
const kNightModes = ['yes', 'no', 'auto', 'custom', 'custom_schedule', 'custom_bedtime'];

/**
 * Which runtime permissions of a package are granted, from `dumpsys package <pkg>`: the
 * `runtime permissions:` lines (`android.permission.CAMERA: granted=false, flags=[ … ]`) of user 0
 * (where `pm grant` without --user acts), else of the first user listed. A permission not listed
 * is not granted (a granted one always has its line).
 */
export function runtimePermissions(dumpsys: string): Map<string, boolean> {
  const lines = dumpsys.split('\n');
  const indent = (l: string) => /^\s*/.exec(l)![0].length;
  const user0 = lines.findIndex((l) => /^\s*User 0:/.test(l));
  const from = user0 >= 0 ? user0 : 0;
  // User 0's block ends where the next user's begins.
  const next = user0 >= 0 ? lines.findIndex((l, i) => i > user0 && /^\s*User \d+:/.test(l)) : -1;
  const at = lines.findIndex((l, i) => i > from && (next < 0 || i < next) && /^\s*runtime permissions:\s*$/.test(l));
  const out = new Map<string, boolean>();
  if (at < 0) return out;
  const base = indent(lines[at]!);
  for (const l of lines.slice(at + 1)) {
    if (/^\s*$/.test(l) || indent(l) <= base) break;
    const m = /^\s*([\w.]+): granted=(true|false)/.exec(l);
    if (m) out.set(m[1]!, m[2] === 'true');
  }
  return out;
}

// ------------------------------------------------------------------ putting it back

/** The device commands that put back what `c` records, in order: permissions, location, airplane mode, rotation, dark mode. */
export function restoreCommands(c: AndroidChanges): Array<{ what: string; command: string }> {
  const out: Array<{ what: string; command: string }> = [];
  for (const p of c.permissions) out.push({ what: `permission ${p.permission} of ${p.app}`, command: `pm ${p.granted ? 'grant' : 'revoke'} ${shWord(p.app)} ${shWord(p.permission)}` });
  if (c.location) {
    for (const provider of c.location.providers) out.push({ what: 'location', command: `cmd location providers remove-test-provider ${provider}` });
    if (!c.location.enabled) out.push({ what: 'location', command: 'cmd location set-location-enabled false' });
    if (c.location.mockLocation !== 'allow') out.push({ what: 'location', command: `appops set com.android.shell android:mock_location ${c.location.mockLocation}` });
  }
  if (c.airplane) {
    const { on, legacy } = c.airplane;
    if (legacy) {
      out.push({ what: 'airplane mode', command: `settings put global airplane_mode_on ${on ? 1 : 0}` });
      out.push({ what: 'airplane mode', command: `am broadcast -a android.intent.action.AIRPLANE_MODE --ez state ${on}` });
    } else out.push({ what: 'airplane mode', command: `cmd connectivity airplane-mode ${on ? 'enable' : 'disable'}` });
  }
  if (c.rotation) for (const command of rotationBack(c.rotation)) out.push({ what: 'orientation', command });
  if (c.night !== undefined) out.push({ what: 'dark mode', command: `cmd uimode night ${c.night}` });
  return out;
}

/** True when `c` records nothing to put back. */
export const unchanged = (c: AndroidChanges | undefined): boolean => !c || restoreCommands(c).length === 0;

/**
 * Puts the device back as `c` says it was, each command through the box's commands endpoint. Every
 * command is tried; the ones that failed are thrown together (DEVICE_ERROR), naming what each would
 * have put back, so that the box is not given to another flow with state nobody knows.
 */
export async function restoreAndroid(client: BoxClient, boxId: string, c: AndroidChanges, timeoutMs: number): Promise<void> {
  const failed: string[] = [];
  for (const { what, command } of restoreCommands(c)) {
    const why = await client.runCommand(boxId, { command }, { timeoutMs }).then(commandFailure, (err: unknown) => `failed: ${(err as Error).message}`);
    if (why !== undefined) failed.push(`${what} (\`${command}\` ${why})`);
  }
  if (failed.length) throw new BoxflowError('DEVICE_ERROR', `could not put back ${failed.join('; ')}`);
}

/** One POSIX single-quoted word, by the same helper serve uses (a NUL is refused): the device's sh gives nothing in it a meaning. */
export const shWord = shQuote;
