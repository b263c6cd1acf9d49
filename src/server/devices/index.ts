// The device under a registry entry, and what its kind declares. One device per entry: it reads the
// entry's current browser or device at each call, so a restart (a new Chromium, the device claimed
// again) needs no new one.
import type { EndpointName } from '../../api/schemas.js';
import type { BoxEntry } from '../boxEntry.js';
import { AndroidDevice } from './androidDevice.js';
import { need, refusal, type BoxDevice, type Facet, type KindDeclaration } from './device.js';
import { kKinds } from './kinds.js';
import { LinuxDevice } from './linuxDevice.js';

export { kFacetEndpoints, refusedEndpoints, type BoxDevice, type Facet, type KindDeclaration, type TargetMatch, type TargetResolution } from './device.js';
export { kAndroidKind, kGridKind, kKinds, kLocalKind } from './kinds.js';

const devices = new WeakMap<BoxEntry, BoxDevice>();

export function deviceOfBox(entry: BoxEntry): BoxDevice {
  let device = devices.get(entry);
  if (!device) devices.set(entry, (device = entry.kind === 'android' ? new AndroidDevice(entry) : new LinuxDevice(entry)));
  return device;
}

export function declarationOf(entry: BoxEntry): KindDeclaration {
  return kKinds[entry.kind];
}

/** What a box of this kind answers to `name` with `body` when its kind refuses it. */
export function refusalFor(entry: BoxEntry, name: EndpointName, body: unknown) {
  return refusal(kKinds[entry.kind], name, body);
}

/** The box's facet for `name` (refused as its kind declares when it has none). */
export function facet<F extends Facet>(entry: BoxEntry, f: F, name: EndpointName): NonNullable<BoxDevice[F]> {
  return need(deviceOfBox(entry), kKinds[entry.kind], f, name);
}
