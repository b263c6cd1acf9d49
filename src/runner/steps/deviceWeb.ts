// Device state on a Linux box is what its browser emulates for the flow (offline, geolocation,
// prefers-color-scheme, permission overrides), kept in the flow's state and set again on each new
// page the flow gets; it ends with the flow's CDP connection.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { BoxflowError } from '../../errors.js';
import type { PermissionValue } from '../../flow/types.js';
import { quietly } from '../layoutSource.js';
import type { StepRun, WebState } from './types.js';

export const webState = (run: StepRun): WebState => (run.rt.state.web ??= { permissions: [] });

/** A browser-level CDP session per connection, kept open: permission overrides end when it detaches. */
const kBrowserSessions = new WeakMap<Browser, Promise<CDPSession>>();
function browserSession(context: BrowserContext): Promise<CDPSession> {
  const browser = context.browser()!;
  let s = kBrowserSessions.get(browser);
  if (!s) kBrowserSessions.set(browser, (s = browser.newBrowserCDPSession()));
  return s;
}

export async function applyWeb(page: Page, s: WebState): Promise<void> {
  await quietly(async () => {
    const context = page.context();
    if (s.offline !== undefined) await context.setOffline(s.offline);
    if (s.geolocation) await context.setGeolocation({ ...s.geolocation, accuracy: 1 });
    if (s.colorScheme) await page.emulateMedia({ colorScheme: s.colorScheme });
    if (s.permissions.length) {
      const cdp = await browserSession(context);
      for (const p of s.permissions) await cdp.send('Browser.setPermission', { permission: { name: p.name }, setting: p.setting, origin: p.origin });
    }
  });
  s.page = page;
}

/** Sets the flow's browser emulation again when the flow's page is a new one (a new connection or tab). Linux boxes only. */
export async function keepWebState(run: StepRun): Promise<void> {
  const s = run.rt.state.web;
  if (!s || run.rt.box.type !== 'linux') return;
  const page = await run.rt.layout.page();
  if (s.page !== page) await applyWeb(page, s);
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

export async function webPermissions(run: StepRun, page: Page, permissions: Record<string, PermissionValue>): Promise<string> {
  const url = page.url();
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
  await applyWeb(page, s);
  return `permissions of ${origin}: ${done.join(', ') || 'none'}${none.length ? `; the web has no permission for ${none.join(', ')}` : ''}`;
}
