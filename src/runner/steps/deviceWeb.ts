// Device state on a Linux box is what its browser emulates for the flow (offline, geolocation,
// prefers-color-scheme, permission overrides), kept in the flow's state and set again on each new
// tab session the flow gets; it ends with the flow's CDP connection (emulation ends with the
// session that set it, permission overrides with the connection's browser session).
import { BoxflowError } from '../../errors.js';
import type { PermissionValue } from '../../flow/types.js';
import type { BrowserTab } from '../boxBrowser.js';
import type { StepRun, WebState } from './types.js';

export const webState = (run: StepRun): WebState => (run.rt.state.web ??= { permissions: [] });

export async function applyWeb(tab: BrowserTab, s: WebState): Promise<void> {
  if (s.offline !== undefined) await tab.send('Network.emulateNetworkConditions', { offline: s.offline, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  if (s.geolocation) await tab.send('Emulation.setGeolocationOverride', { ...s.geolocation, accuracy: 1 });
  if (s.colorScheme) await tab.send('Emulation.setEmulatedMedia', { media: '', features: [{ name: 'prefers-color-scheme', value: s.colorScheme }] });
  for (const p of s.permissions) await tab.browser.send('Browser.setPermission', { permission: { name: p.name }, setting: p.setting, origin: p.origin });
  s.page = tab;
}

/** Sets the flow's browser emulation again when the flow's tab session is a new one (a new connection or tab). Linux boxes only. */
export async function keepWebState(run: StepRun): Promise<void> {
  const s = run.rt.state.web;
  if (!s || run.rt.box.type !== 'linux') return;
  const tab = await run.rt.layout.tab();
  if (s.page !== tab) await applyWeb(tab, s);
}

/** Maestro's permission names as the web's (Permissions API names, as Browser.setPermission takes them); names the web has no permission for map to none. */
const kWebPermissions: Record<string, string[]> = {
  location: ['geolocation'],
  camera: ['camera'],
  microphone: ['microphone'],
  notifications: ['notifications'],
  motion: ['accelerometer', 'gyroscope', 'magnetometer'],
  bluetooth: [],
  calendar: [],
  contacts: [],
  medialibrary: [],
  photos: [],
  phone: [],
  sms: [],
  storage: [],
};
const kAllWeb = ['geolocation', 'camera', 'microphone', 'notifications', 'accelerometer', 'gyroscope', 'magnetometer'];

export async function webPermissions(run: StepRun, tab: BrowserTab, permissions: Record<string, PermissionValue>): Promise<string> {
  const url = await tab.url();
  if (!/^https?:/.test(url)) throw new BoxflowError('UNPROCESSABLE', `permissions: the active tab shows ${url}, which has no web origin to grant permissions to; launchApp or openTab the site first`);
  const origin = new URL(url).origin;
  const s = webState(run);
  const done: string[] = [];
  const none: string[] = [];
  for (const [name, value] of Object.entries(permissions)) {
    const names = name === 'all' ? kAllWeb : (kWebPermissions[name.toLowerCase()] ?? [name]);
    if (!names.length) none.push(name);
    const setting = value === 'allow' ? 'granted' : value === 'deny' ? 'denied' : 'prompt';
    for (const n of names) {
      s.permissions = [...s.permissions.filter((p) => !(p.origin === origin && p.name === n)), { origin, name: n, setting }];
      done.push(`${n} ${setting}`);
    }
  }
  await applyWeb(tab, s);
  return `permissions of ${origin}: ${done.join(', ') || 'none'}${none.length ? `; the web has no permission for ${none.join(', ')}` : ''}`;
}
