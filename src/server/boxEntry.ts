// A box as the registry holds it: its record, tenant, files, processes and the device behind it.
import { BoxflowError } from '../errors.js';
import type { Box, Resolution } from '../api/schemas.js';
import type { AndroidBox } from './adb/androidBox.js';
import type { BoxKind } from './boxRecords.js';
import type { BoxUser } from './boxUser.js';
import type { LinuxBox } from './chromium/linuxBox.js';
import type { BoxLedger } from './reaper.js';

/** What every kind of box has. */
interface EntryBase {
  record: Box;
  tenant: string;
  /** Where its device comes from; what stop and start give back and take again (boxLifecycle.ts). */
  kind: BoxKind;
  scale: number;
  /** Tail of this box's queue: requests for one box run one at a time. */
  tail: Promise<unknown>;
  expiryTimer?: NodeJS.Timeout;
  /** Closed when the browser goes away, so CDP proxies reconnect to the next one. */
  onBrowserGone: Set<() => void>;
}

/** A Linux box: local (Chromium under the box's uids) or grid (a Selenium Grid session). */
export interface LinuxEntry extends EntryBase {
  kind: 'local' | 'grid';
  /** <dataDir>/boxes/<id>: profile and working dir; removed on terminate. The box's root "/". */
  dir: string;
  /** The real path of `record.config.workingDir` (a box path). */
  workDir: string;
  /** The box's own user when the server isolates boxes (runs as root); else undefined. */
  user: BoxUser | undefined;
  /** The processes the box started, for reaping after a crash of the server. */
  ledger: BoxLedger;
  linux: LinuxBox;
}

/** An Android box: a device over adb. It has no host directory, user, ledger or browser. */
export interface AndroidEntry extends EntryBase {
  kind: 'android';
  /** The claimed device, while the box runs (a stopped box has none). */
  android?: AndroidBox;
  /** The device, claimed again at start, and the size the box asked for (`config.resolution`). */
  serial: string;
  deviceResolution?: Resolution;
}

export type BoxEntry = LinuxEntry | AndroidEntry;

/** An Android box that holds its device: what its requests act on. */
export type DeviceEntry = AndroidEntry & { android: AndroidBox };

export function isAndroid(entry: BoxEntry): entry is AndroidEntry {
  return entry.kind === 'android';
}

export function hasDevice(entry: BoxEntry): entry is DeviceEntry {
  return entry.kind === 'android' && entry.android !== undefined;
}

/** An Android box with its device; between a stop and its start (or while it starts) there is none to act on. */
export function withDevice(entry: AndroidEntry): DeviceEntry {
  if (hasDevice(entry)) return entry;
  throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} holds no device while it is ${entry.record.status}`);
}

/** An Android box's device (see withDevice). */
export function deviceOf(entry: AndroidEntry): AndroidBox {
  return withDevice(entry).android;
}

/**
 * The entry of a Linux box, for code that an Android box's requests do not reach (they go to
 * adb/routes.ts, or are refused before): an Android box here is refused as of the wrong kind.
 */
export function linuxOf(entry: BoxEntry): LinuxEntry {
  if (entry.kind === 'android') throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `box ${entry.record.id} is an Android box; this is for Linux boxes`);
  return entry;
}
