// The device under a registry entry, and what its kind declares. One device per entry: it reads the
// entry's current browser or device at each call, so a restart (a new Chromium, the device claimed
// again) needs no new one.
import type { EndpointName } from '../../api/schemas.js';
import type { AndroidHeld, LinuxHeld } from './held.js';
import { AndroidDevice } from './android/androidDevice.js';
import { need, refusal, type BoxDevice, type Facet } from './device.js';
import { kKinds } from './kinds.js';
import { LinuxDevice } from './linux/linuxDevice.js';

export { kFacetEndpoints, refusedEndpoints, type BoxDevice, type Facet, type KindDeclaration, type TargetMatch, type TargetResolution } from './device.js';
export { kAndroidKind, kGridKind, kKinds, kLocalKind } from './kinds.js';

/** A box as a device sees it (the registry's entries are these). */
export type Held = LinuxHeld | AndroidHeld;

const devices = new WeakMap<Held, BoxDevice>();

export function deviceOfBox(entry: Held): BoxDevice {
  let device = devices.get(entry);
  if (!device) devices.set(entry, (device = entry.kind === 'android' ? new AndroidDevice(entry) : new LinuxDevice(entry)));
  return device;
}

/** What a box of this kind answers to `name` with `body` when its kind refuses it. */
export function refusalFor(entry: Held, name: EndpointName, body: unknown) {
  return refusal(kKinds[entry.kind], name, body);
}

/** The box's facet for `name` (refused as its kind declares when it has none). */
export function facet<F extends Facet>(entry: Held, f: F, name: EndpointName): NonNullable<BoxDevice[F]> {
  return need(deviceOfBox(entry), kKinds[entry.kind], f, name);
}
