// What a device reads of the box it serves: its record, the hook that tells it the box's browser or
// device went away, and what the kind holds. The registry's entry (boxes/boxEntry.ts) is this and more
// (its tenant, queue, expiry), so a device never reaches up into the registry.
import { BoxflowError } from '../../errors.js';
import type { Box } from '../../api/schemas.js';
import type { BoxUser } from '../host/boxUser.js';
import type { BoxLedger } from '../host/processes.js';
import type { AndroidBox } from './android/androidBox.js';
import type { LinuxBox } from './linux/chromium/linuxBox.js';

export interface HeldBox {
  record: Box;
  /** Called when the browser (or device) goes away, so what streams from it ends. */
  onBrowserGone: Set<() => void>;
}

/** A Linux box: local (Chromium under the box's uids) or grid (a Selenium Grid session). */
export interface LinuxHeld extends HeldBox {
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

/** An Android box: a device over adb, while it holds one (a stopped box has none). */
export interface AndroidHeld extends HeldBox {
  kind: 'android';
  android?: AndroidBox;
}

/** The device an Android box holds; between a stop and its start (or while it starts) there is none to act on. */
export function heldDevice(box: AndroidHeld): AndroidBox {
  if (box.android) return box.android;
  throw new BoxflowError('BOX_NOT_RUNNING', `box ${box.record.id} holds no device while it is ${box.record.status}`);
}
