// Turning an Android screen and putting it back, one way for serve's Android box (over adb) and the
// runner's setOrientation (over the commands endpoint): as Maestro's AndroidDriver.setOrientation,
// auto-rotate goes off and `user_rotation` is set; the two settings are read before the first turn
// and put back afterwards, an unset one (`null`) by a delete.
import { sh } from './shellQuote.js';

/** The two rotation settings as `settings get` printed them: digits, or `null` when unset. */
export interface RotationSettings {
  accelerometer: string;
  user: string;
}

/** The commands that read them. */
export const kRotationReads: Record<keyof RotationSettings, string> = {
  accelerometer: 'settings get system accelerometer_rotation',
  user: 'settings get system user_rotation',
};

/** A setting as `settings get` prints it (an integer, or `null`: unset); undefined for anything else. */
export function settingValue(out: string): string | undefined {
  const t = out.trim();
  return /^(?:-?\d+|null)$/.test(t) ? t : undefined;
}

/** Turns the screen to `rotation` quarter turns (0°, 90°, 180°, 270°): auto-rotate off, then the rotation. */
export function rotationCommands(rotation: 0 | 1 | 2 | 3): string[] {
  return ['settings put system accelerometer_rotation 0', sh`settings put system user_rotation ${rotation}`];
}

/** Puts the settings back as read: `user_rotation` first, since with auto-rotate back on the sensor takes over from it. */
export function rotationBack(before: RotationSettings): string[] {
  return [settingBack('user_rotation', before.user), settingBack('accelerometer_rotation', before.accelerometer)];
}

function settingBack(key: 'user_rotation' | 'accelerometer_rotation', value: string): string {
  return value === 'null' ? `settings delete system ${key}` : `settings put system ${key} ${sh`${Number(value)}`}`;
}
