// Endpoints of the GBOX API that a local server has no use for: features of the cloud account
// (snapshots, its device fleet, the box and browser proxies, the hosted model) and what needs a
// model, a background recorder or could only be pretended (app backups, an Appium
// server, the recording rewind). Each answers 501
// NOT_OFFERED_LOCALLY, after the key and, for a box's route, the box (another tenant's box is 404
// as everywhere), so a client learns at once that asking again will not help.
import { BoxflowError } from '../../../errors.js';

export interface NotOffered {
  /** A name for the log line. */
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Relative to /api/v1; `{boxId}` is checked against the caller's boxes first. */
  path: string;
  what: string;
}

const cloud = 'a feature of the GBOX cloud account';
/**
 * The browser proxy: proxies are the cloud account's, and the box's browser would fetch its pages,
 * and a PAC script (`pacUrl`, a file: URL too), through what the tenant names, outside the URL
 * checks boxflow serve makes on what a box opens (docs/server.md, Security model).
 */
const browserProxy = `the browser proxy, ${cloud}; here the box's browser would also fetch its pages and a PAC script (which may be a file: URL) through what the request names, outside the URL checks this server makes on what a box opens`;
/**
 * Rewind needs a recorder running in the background all the time with the last 5 minutes kept;
 * boxflow serve records only between recording/start and recording/stop.
 */
const rewind = 'the recording rewind (it needs a recorder running all the time in the background, keeping the last 5 minutes; this server records only between POST /boxes/{boxId}/actions/recording/start and /stop, which give the video of that span)';
/** GBOX's backup format is not documented, and Android's own (`adb backup`, `bu`) leaves out the data of apps that target Android 12 or later. */
const appBackups = 'app backups (GBOX does not document their format, and adb backup leaves out the data of apps that target Android 12 or later, so a restore would not give the app back as it was)';

export const kNotOffered: readonly NotOffered[] = [
  { name: 'extract', method: 'POST', path: '/boxes/{boxId}/actions/extract', what: 'extracting data with a model (it needs an LLM, which this server does not have)' },
  { name: 'backupApp', method: 'POST', path: '/boxes/{boxId}/android/packages/{packageName}/backup', what: appBackups },
  { name: 'backupAllApps', method: 'POST', path: '/boxes/{boxId}/android/packages/backup-all', what: appBackups },
  { name: 'restoreApps', method: 'POST', path: '/boxes/{boxId}/android/packages/restore', what: appBackups },
  { name: 'appiumUrl', method: 'POST', path: '/boxes/{boxId}/android/connect-url/appium', what: 'an Appium server for the box (none runs beside boxflow serve; the box\'s device is on its adb server, GET /boxes/{boxId}/android/connect-address)' },
  { name: 'getBoxProxy', method: 'GET', path: '/boxes/{boxId}/proxy', what: `the box proxy, ${cloud}` },
  { name: 'setBoxProxy', method: 'POST', path: '/boxes/{boxId}/proxy', what: `the box proxy, ${cloud}` },
  { name: 'clearBoxProxy', method: 'DELETE', path: '/boxes/{boxId}/proxy', what: `the box proxy, ${cloud}` },
  { name: 'getBrowserProxy', method: 'GET', path: '/boxes/{boxId}/browser/proxy', what: browserProxy },
  { name: 'setBrowserProxy', method: 'POST', path: '/boxes/{boxId}/browser/proxy', what: browserProxy },
  { name: 'clearBrowserProxy', method: 'DELETE', path: '/boxes/{boxId}/browser/proxy', what: browserProxy },
  { name: 'enableRewind', method: 'POST', path: '/boxes/{boxId}/actions/recording/rewind', what: rewind },
  { name: 'disableRewind', method: 'DELETE', path: '/boxes/{boxId}/actions/recording/rewind', what: rewind },
  { name: 'extractRewind', method: 'POST', path: '/boxes/{boxId}/actions/recording/rewind/extract', what: rewind },
  { name: 'createSnapshot', method: 'POST', path: '/snapshots/{boxId}', what: `snapshots, ${cloud}` },
  { name: 'listSnapshots', method: 'GET', path: '/snapshots', what: `snapshots, ${cloud}` },
  { name: 'getSnapshot', method: 'GET', path: '/snapshots/{snapshotName}', what: `snapshots, ${cloud}` },
  { name: 'deleteSnapshot', method: 'DELETE', path: '/snapshots/{snapshotName}', what: `snapshots, ${cloud}` },
  { name: 'listDevices', method: 'GET', path: '/devices', what: `the device fleet, ${cloud} (Android boxes here come from the adb server: POST /boxes/android)` },
  { name: 'getDevice', method: 'GET', path: '/devices/{deviceId}', what: `the device fleet, ${cloud}` },
  { name: 'deviceBox', method: 'POST', path: '/devices/{deviceId}/box', what: `the device fleet, ${cloud} (claim a device with POST /boxes/android and config.deviceSerial)` },
  { name: 'callModel', method: 'POST', path: '/model', what: `the hosted model, ${cloud}` },
];

/** The refusal of one of them; `checkBox` answers 404 for a box id that is not the caller's. */
export function notOffered(route: NotOffered, params: Record<string, string>, checkBox: (boxId: string) => void): never {
  if (params.boxId !== undefined) checkBox(params.boxId);
  throw new BoxflowError('NOT_OFFERED_LOCALLY', `${route.method} ${route.path}: ${route.what}; boxflow serve does not offer it`);
}
