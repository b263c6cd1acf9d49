// A box as the registry holds it: its record, tenant, files, processes and the device behind it.
import type { Resolution } from '../../api/schemas.js';
import type { AndroidBox } from '../devices/android/androidBox.js';
import type { AndroidHeld, HeldBox, LinuxHeld } from '../devices/held.js';
import { heldDevice } from '../devices/held.js';
import type { BoxKind } from './boxRecords.js';

/** What every kind of box has. */
interface EntryBase extends HeldBox {
  tenant: string;
  /** Where its device comes from; what stop and start give back and take again (boxLifecycle.ts). */
  kind: BoxKind;
  scale: number;
  /** Tail of this box's queue: requests for one box run one at a time. */
  tail: Promise<unknown>;
  expiryTimer?: NodeJS.Timeout;
  }

/** A Linux box: local (Chromium under the box's uids) or grid (a Selenium Grid session). */
export interface LinuxEntry extends EntryBase, LinuxHeld {
  kind: 'local' | 'grid';
}

/** An Android box: a device over adb. It has no host directory, user, ledger or browser. */
export interface AndroidEntry extends EntryBase, AndroidHeld {
  kind: 'android';
  /** The device, claimed again at start, and the size the box asked for (`config.resolution`). */
  serial: string;
  deviceResolution?: Resolution;
}

export type BoxEntry = LinuxEntry | AndroidEntry;

/** An Android box's device; between a stop and its start (or while it starts) there is none to act on. */
export function deviceOf(entry: AndroidEntry): AndroidBox {
  return heldDevice(entry);
}
