// A box as the registry holds it: its record, tenant, files, processes and the device behind it.
import type { Box, Resolution } from '../api/schemas.js';
import type { AndroidBox } from './adb/androidBox.js';
import type { BoxKind } from './boxRecords.js';
import type { BoxUser } from './boxUser.js';
import type { LinuxBox } from './chromium/linuxBox.js';
import type { BoxLedger } from './reaper.js';

export interface BoxEntry {
  record: Box;
  tenant: string;
  /** Where its device comes from; what stop and start give back and take again (boxLifecycle.ts). */
  kind: BoxKind;
  /** <dataDir>/boxes/<id>: profile and working dir; removed on terminate. The box's root "/". */
  dir: string;
  /** The real path of `record.config.workingDir` (a box path). */
  workDir: string;
  /** The box's own user when the server isolates boxes (runs as root); else undefined. */
  user: BoxUser | undefined;
  /** The processes the box started, for reaping after a crash of the server. */
  ledger: BoxLedger;
  linux: LinuxBox;
  /** An Android box's claimed device (src/server/adb), while it runs; such an entry has no linux, dir, user or ledger. */
  android?: AndroidBox;
  /** An Android box's device, claimed again at start, and the size it asked for (`config.resolution`). */
  serial?: string;
  deviceResolution?: Resolution;
  scale: number;
  /** Tail of this box's queue: requests for one box run one at a time. */
  tail: Promise<unknown>;
  expiryTimer?: NodeJS.Timeout;
  /** Closed when the browser goes away, so CDP proxies reconnect to the next one. */
  onBrowserGone: Set<() => void>;
}
