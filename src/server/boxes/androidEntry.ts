// A registry entry for an Android box: a claimed device and the box record (docs/api.md).
import { BoxflowError } from '../../errors.js';
import { parseDuration } from '../../api/duration.js';
import type { Box, CreateBoxBody, Resolution } from '../../api/schemas.js';
import type { AndroidEntry, BoxEntry } from './boxEntry.js';
import type { AndroidBox } from '../devices/android/androidBox.js';
import type { AdbBackend, DeviceFilter } from '../devices/android/backend.js';

type AndroidConfig = NonNullable<CreateBoxBody['config']> & { deviceSerial?: unknown; deviceLabels?: unknown };

/** The device filter of a create body: `config.deviceSerial`, `config.deviceLabels`, `config.deviceType` (virtual|physical). */
export function deviceFilter(body: CreateBoxBody): DeviceFilter {
  const cfg = (body.config ?? {}) as AndroidConfig;
  const filter: DeviceFilter = {};
  if (cfg.deviceSerial !== undefined) {
    if (typeof cfg.deviceSerial !== 'string' || !cfg.deviceSerial) throw new BoxflowError('INVALID_REQUEST', '/config/deviceSerial must be a non-empty string (a serial `adb devices` lists)');
    filter.deviceSerial = cfg.deviceSerial;
  }
  const labels: Record<string, string> = {};
  if (cfg.deviceLabels !== undefined) {
    if (typeof cfg.deviceLabels !== 'object' || cfg.deviceLabels === null || Object.values(cfg.deviceLabels).some((v) => typeof v !== 'string')) {
      throw new BoxflowError('INVALID_REQUEST', '/config/deviceLabels must map names (model, manufacturer, sdk, release, deviceType) to strings');
    }
    Object.assign(labels, cfg.deviceLabels);
  }
  if (cfg.deviceType !== undefined) {
    if (cfg.deviceType !== 'virtual' && cfg.deviceType !== 'physical') throw new BoxflowError('INVALID_REQUEST', `/config/deviceType of an Android box is virtual or physical, not "${cfg.deviceType}"`);
    labels.deviceType = cfg.deviceType;
  }
  if (Object.keys(labels).length) filter.deviceLabels = labels;
  return filter;
}

/**
 * Claims a device and builds the entry (an AndroidEntry: no host directory, user, ledger or
 * browser; the registry's terminate releases the device instead).
 */
export async function createAndroidEntry(backend: AdbBackend, id: string, tenant: string, body: CreateBoxBody, onGone: (entry: BoxEntry, reason: string) => void): Promise<AndroidEntry> {
  const cfg = body.config ?? {};
  const expiresMs = cfg.expiresIn ? parseDuration(cfg.expiresIn, '/config/expiresIn') : undefined;
  let entry: AndroidEntry | undefined;
  let goneEarly: string | undefined;
  const android: AndroidBox = await backend.claim(id, deviceFilter(body), (reason) => (entry ? onGone(entry, reason) : (goneEarly = reason)));
  if (cfg.resolution) {
    try {
      await android.setResolution(cfg.resolution);
    } catch (err) {
      await backend.release(android);
      throw err;
    }
  }
  const now = new Date().toISOString();
  const record: Box = {
    id,
    type: 'android',
    status: 'running',
    reason: null,
    createdAt: now,
    updatedAt: now,
    expiresAt: expiresMs === undefined ? null : new Date(Date.now() + expiresMs).toISOString(),
    config: {
      // adb tells nothing reliable about a device's CPUs, memory or storage: 0 means unknown.
      cpu: 0,
      memory: 0,
      storage: 0,
      envs: { ...(cfg.envs ?? {}) },
      labels: { ...(cfg.labels ?? {}), 'boxflow/serial': android.info.serial, 'boxflow/model': android.info.model },
      os: { version: android.info.release },
      deviceType: android.info.virtual ? 'virtual' : 'physical',
      workingDir: android.workDir,
    },
  };
  entry = androidEntry(record, tenant, android.info.serial, cfg.resolution);
  entry.android = android;
  if (goneEarly) onGone(entry, goneEarly);
  return entry;
}

/** The entry of an Android box, without its device (a stopped box: boxLifecycle.ts claims it at start). */
export function androidEntry(record: Box, tenant: string, serial: string, resolution: Resolution | undefined, scale = 1): AndroidEntry {
  return { record, tenant, kind: 'android', serial, ...(resolution ? { deviceResolution: resolution } : {}), scale, tail: Promise.resolve(), onBrowserGone: new Set() };
}
