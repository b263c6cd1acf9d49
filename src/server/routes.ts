// One handler per endpoint of the contract. Every request: auth → box (tenancy, type, state)
// → schema check of the body → work, serialised per box.
import type { Static, TSchema } from '@sinclair/typebox';
import { BoxflowError } from '../errors.js';
import { parseDuration } from '../api/duration.js';
import { endpoints, type CreateBoxBody, type DragBody, type EndpointName, type ListBoxesQuery, type OpenTabBody, type PressButtonBody, type PressKeyBody, type RenameBody, type Resolution, type ScreenshotBody, type TypeBody } from '../api/schemas.js';
import { deviceOf, isAndroid, linuxOf, withDevice, type BoxEntry, type DeviceEntry, type LinuxEntry } from './boxEntry.js';
import type { BoxRegistry } from './boxes.js';
import { createAndroidHandlers } from './adb/routes.js';
import { renameInBox } from './boxFs.js';
import { planDrag, resolveTextTarget, typeMessage, typeTraceLabel } from './dragPlan.js';
import { createGboxHandlers, kGboxAndroid, type Prepared } from './gbox/handlers.js';
import { tallScreenshot } from './gbox/linux.js';
import { createRecordingHandlers } from './recording.js';
import { createCommandHandlers } from './gbox/commands.js';
import { createFileHandlers, kFileEndpoints } from './gbox/files.js';
import { createAndroidAppHandlers, kAndroidAppEndpoints } from './gbox/androidApps.js';
import { createMediaHandlers, kMediaEndpoints } from './gbox/media.js';
import { createStorageUrlHandlers } from './gbox/storageUrl.js';
import { createDetectHandlers } from './gbox/detect.js';
import { screenshotAnswer, screenshotPlan, withScreenshots, type ShotContext } from './screenshots.js';
import { presign } from './secret.js';
import type { ObjectStore } from './storage.js';
import { terminalPath, webTerminalReady } from './terminal.js';
import { liveViewUrlAnswer } from './liveView.js';
import { checkOpenUrl } from './urlPolicy.js';
import { bodyOf, checkQuery } from './requestChecks.js';

export interface RouteDeps {
  registry: BoxRegistry;
  store: ObjectStore;
  secret: string;
  /** See ServerOptions.allowInnerDownloads. */
  allowInnerDownloads?: boolean;
}

export { newActionId, type Answer, type Call } from './call.js';
import type { Answer, Call } from './call.js';

export const kActionEndpoints: ReadonlySet<EndpointName> = new Set(['drag', 'pressKey', 'type', 'screenshot', 'pressButton', 'click', 'tap', 'longPress', 'move', 'scroll', 'swipe', 'touch', 'screenRotation', 'setClipboard', 'detectElements']);
/** Endpoints whose handler here serves Android boxes itself; any other goes to src/server/adb/routes.ts. */
const kOwnAndroid: ReadonlySet<EndpointName> = new Set([...kGboxAndroid, 'screenshot', 'liveViewUrl', 'runCommand', 'websocketUrl', 'detectElements', ...kAndroidAppEndpoints, ...kMediaEndpoints, 'getMediaSupport', 'createPresignedUrl', ...kFileEndpoints]);
const kAndroidOnly: ReadonlySet<EndpointName> = new Set(['listPackages', 'getPackage', 'installPackage', 'listApps', 'closeAllApps', 'deleteMedia', 'deleteAlbum', 'openApp', 'restartApp', 'closeApp', 'clearAppData', ...kAndroidAppEndpoints, ...kMediaEndpoints]);

export { kForeignBody, type ForeignBody } from './requestChecks.js';

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * What a request on a box is refused for before its body is looked at: an unknown box, or another
 * tenant's (404 BOX_NOT_FOUND), and an endpoint only Android boxes have. fastify runs it before the
 * body's schema check (app.ts, preValidation); boxCall again, for callers that are not routes.
 */
export function precheckBox(registry: BoxRegistry, name: string, tenant: string, boxId: string | undefined): BoxEntry | undefined {
  if (boxId === undefined) return undefined;
  const entry = registry.get(tenant, boxId);
  if (kAndroidOnly.has(name as EndpointName) && entry.record.type !== 'android') {
    const { method, path } = endpoints[name as EndpointName];
    throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `${method} ${path} is for Android boxes; box ${entry.record.id} is a ${entry.record.type} box`);
  }
  return entry;
}

/** How a box's screen is taken for the images around an action. */
function captureOf(entry: BoxEntry, scale: number): Pick<ShotContext, 'capture' | 'screen' | 'settle'> {
  if (isAndroid(entry)) {
    const android = deviceOf(entry);
    return { capture: () => android.screenshot(scale) };
  }
  return {
    capture: () => entry.linux.screenshot(scale),
    screen: () => entry.linux.screen(scale),
    settle: (maxMs, signal, onStill) => entry.linux.settledScreen(scale, maxMs, signal, onStill),
  };
}

export function createHandlers(deps: RouteDeps) {
  const { registry } = deps;
  const android = createAndroidHandlers({ store: deps.store, secret: deps.secret, allowInnerDownloads: deps.allowInnerDownloads });

  /** An Android box's request, to src/server/adb/routes.ts; what has no meaning there is refused. */
  function onAndroid(name: EndpointName, entry: DeviceEntry, call: Call): Promise<Answer> {
    const handler = android[name];
    if (!handler) throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `${endpoints[name].method} ${endpoints[name].path} does not apply to Android boxes`);
    return handler(entry, call);
  }

  async function boxCall<T>(name: EndpointName, call: Call, work: (entry: BoxEntry) => Promise<T>): Promise<T> {
    const entry = precheckBox(registry, name, call.tenant, call.params.boxId!)!;
    const refuse = () => registry.requireUsable(entry);
    refuse();
    return registry.run(entry, async () => {
      // The client went away while this waited: it never starts.
      call.signal?.throwIfAborted();
      refuse();
      try {
        return isAndroid(entry) && !kOwnAndroid.has(name) ? ((await onAndroid(name, withDevice(entry), call)) as T) : await work(entry);
      } catch (err) {
        if (entry.record.status === 'terminated' || entry.record.status === 'stopped') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} was ${entry.record.status === 'stopped' ? 'stopped' : 'terminated'} during the request`, { cause: err });
        if (call.signal?.aborted) throw call.signal.reason;
        if (entry.kind !== 'android' && entry.linux.crashed) registry.requireUsable(entry); // the browser died under it: BOX_CRASHED
        if (BoxflowError.is(err)) throw err;
        throw new BoxflowError('BROWSER_ERROR', `the box's browser failed: ${(err as Error).message.split('\n')[0]}`, { cause: err });
      }
    }, name);
  }

  function shots(entry: BoxEntry, call: Call, body: Parameters<typeof screenshotPlan>[0]): ShotContext | null {
    const plan = screenshotPlan(body);
    if (!plan) return null;
    return {
      plan,
      ...captureOf(entry, entry.scale),
      store: deps.store,
      origin: call.origin,
      keyPrefix: `boxes/${entry.record.id}/actions/${call.actionId}`,
      ...(call.signal ? { signal: call.signal } : {}),
    };
  }

  /**
   * An action (an ActionResult answer with its actionId): the body checked, `prepare` reads it
   * (targets, limits: a refusal comes before any image), `act` runs between the before and after
   * images the options ask for.
   */
  function action<S extends TSchema>(name: EndpointName, call: Call, prepare: (entry: BoxEntry, body: Static<S>) => Promise<Prepared>): Promise<Answer> {
    return boxCall(name, call, async (entry) => {
      const body = bodyOf((endpoints[name] as { body?: S }).body, call.body);
      const p = await prepare(entry, body);
      const { value, screenshot } = await withScreenshots(shots(entry, call, body as Parameters<typeof screenshotPlan>[0]), async () => ({ value: await p.act(), trace: p.trace }));
      return { status: 200, body: { actionId: call.actionId, message: value ?? p.message, ...(p.actual !== undefined ? { actual: p.actual } : {}), ...(screenshot ? { screenshot } : {}) } };
    });
  }

  /** boxCall for an endpoint whose handler here is for Linux boxes: boxCall hands an Android box's request to adb/routes.ts. */
  function linuxCall<T>(name: EndpointName, call: Call, work: (entry: LinuxEntry) => Promise<T>): Promise<T> {
    return boxCall(name, call, (entry) => work(linuxOf(entry)));
  }

  /** action for an endpoint whose handler here is for Linux boxes (as linuxCall). */
  function linuxAction<S extends TSchema>(name: EndpointName, call: Call, prepare: (entry: LinuxEntry, body: Static<S>) => Promise<Prepared>): Promise<Answer> {
    return action<S>(name, call, (entry, body) => prepare(linuxOf(entry), body));
  }

  /** The pre-signed URL of the box's DevTools (docs/server.md): no API key in it. */
  function cdpUrl(entry: BoxEntry, origin: string, expiresIn = '120m'): string {
    const expiresAt = Date.now() + parseDuration(expiresIn, '/expiresIn');
    const path = `/cdp/${entry.record.id}`;
    return `${origin.replace(/^http/, 'ws')}${path}?${presign(deps.secret, path, expiresAt)}`;
  }


  const handlers: Record<EndpointName, (call: Call) => Promise<Answer>> = {
    // ------------------------------------------------------------ boxes
    listBoxes: async (call) => {
      const q: Record<string, unknown> = {};
      const labels: Record<string, string> = {};
      for (const [k, v] of Object.entries(call.query)) {
        const text = Array.isArray(v) ? v.join(',') : String(v);
        const label = /^labels\[(.+)\]$/.exec(k);
        if (label) labels[label[1]!] = text;
        else if (k === 'page' || k === 'pageSize') q[k] = /^\d+$/.test(text) ? Number(text) : text;
        else if (k === 'type' || k === 'status') q[k] = text.split(',').filter(Boolean);
        else q[k] = text;
      }
      const query = checkQuery(endpoints.listBoxes.query, q) as ListBoxesQuery;
      return { status: 200, body: registry.list(call.tenant, { ...query, labels }) };
    },
    getBox: async (call) => ({ status: 200, body: registry.get(call.tenant, call.params.boxId!).record }),
    createLinuxBox: async (call) => {
      const body = bodyOf(endpoints.createLinuxBox.body, call.body) as CreateBoxBody;
      const entry = await registry.create(call.tenant, 'linux', body);
      return { status: 201, body: entry.record };
    },
    createAndroidBox: async (call) => {
      const body = bodyOf(endpoints.createAndroidBox.body, call.body) as CreateBoxBody;
      const entry = await registry.createAndroid(call.tenant, body);
      return { status: 201, body: entry.record };
    },
    // A stopped box is not usable, so stop and start do not go through boxCall (docs/server.md, "Stopping and starting a box").
    stopBox: async (call) => {
      const entry = registry.get(call.tenant, call.params.boxId!);
      bodyOf(endpoints.stopBox.body, call.body);
      return { status: 200, body: await registry.stop(entry) };
    },
    startBox: async (call) => {
      const entry = registry.get(call.tenant, call.params.boxId!);
      const body = bodyOf(endpoints.startBox.body, call.body) as { wait?: boolean };
      return { status: 200, body: await registry.start(entry, body.wait !== false) };
    },
    terminateBox: async (call) => {
      const entry = registry.get(call.tenant, call.params.boxId!);
      bodyOf(endpoints.terminateBox.body, call.body);
      await registry.terminate(entry);
      return { status: 204 };
    },

    // ------------------------------------------------------------ UI actions
    drag: (call) =>
      linuxAction<typeof endpoints.drag.body>('drag', call, async (entry, body: DragBody) => {
        const scale = entry.scale;
        // Points off the screen (or far off it) are moved to its edge.
        const { width, height } = entry.linux.resolution;
        const clamp = (v: number, max: number) => round(Math.min(Math.max(v, 0), max));
        const plan = await planDrag(body, (t, field) => resolveTextTarget(t, field, entry.scale, (text) => entry.linux.resolveTarget(text)), (p) => ({ x: clamp(p.x, width * scale), y: clamp(p.y, height * scale) }));
        const act = () => entry.linux.drag(plan.points.map((p) => ({ x: p.x / scale, y: p.y / scale })), plan.segments, call.signal);
        return { message: plan.message, trace: plan.trace, actual: plan.actual, act };
      }),
    pressKey: (call) =>
      linuxAction<typeof endpoints.pressKey.body>('pressKey', call, async (entry, body: PressKeyBody) => {
        const combination = body.combination ?? false;
        const label = body.keys.join(combination ? '+' : ', ');
        return { message: `pressed ${label}`, trace: { kind: 'label', text: `keys: ${label}` }, act: () => entry.linux.pressKeys(body.keys, combination, call.signal) };
      }),
    type: (call) =>
      linuxAction<typeof endpoints.type.body>('type', call, async (entry, body: TypeBody) => {
        const message = typeMessage(body);
        const act = async () => {
          const focus = await entry.linux.type(body.text, body.mode === 'replace');
          if (body.pressEnter) await entry.linux.pressKeys(['enter'], false);
          return focus === 'none' || focus === 'other' ? `${message} (no editable element has focus)` : undefined;
        };
        return { message, trace: { kind: 'label', text: typeTraceLabel(body) }, act };
      }),
    screenLayout: (call) => linuxCall('screenLayout', call, async (entry) => ({ status: 200, body: { content: await entry.linux.layout() } })),
    updateSettings: (call) =>
      boxCall('updateSettings', call, async (entry) => {
        const body = bodyOf(endpoints.updateSettings.body, call.body) as { scale: number };
        entry.scale = body.scale;
        return { status: 200, body: { scale: entry.scale } };
      }),
    getSettings: (call) => boxCall('getSettings', call, async (entry) => ({ status: 200, body: { scale: entry.scale } })),
    resetSettings: (call) =>
      boxCall('resetSettings', call, async (entry) => {
        entry.scale = 1;
        return { status: 200, body: { scale: 1 } };
      }),
    screenshot: (call) =>
      boxCall('screenshot', call, async (entry) => {
        const body = bodyOf(endpoints.screenshot.body, call.body) as ScreenshotBody;
        if (body.saveToAlbum && !isAndroid(entry)) throw new BoxflowError('UNPROCESSABLE', `/saveToAlbum: boxflow serve keeps no screenshot album on ${entry.record.type} boxes; store the image with outputFormat: storageKey instead`);
        if (body.scrollCapture && body.clip) throw new BoxflowError('INVALID_REQUEST', '/scrollCapture and /clip cannot be combined: a scroll capture is the page from its top');
        if (isAndroid(entry)) {
          if (body.scrollCapture) throw new BoxflowError('UNPROCESSABLE', '/scrollCapture is not offered on Android boxes: it would need swipes and stitching');
          return onAndroid('screenshot', withDevice(entry), call);
        }
        const scale = entry.scale;
        if (body.scrollCapture) {
          const png = await tallScreenshot(entry.linux, scale, body.scrollCapture.maxHeight ?? 4000);
          return screenshotAnswer(png, body, { store: deps.store, origin: call.origin, boxId: entry.record.id, actionId: call.actionId });
        }
        const screen = entry.linux.resolution;
        if (body.clip && (body.clip.x + body.clip.width > screen.width * scale + 0.5 || body.clip.y + body.clip.height > screen.height * scale + 0.5)) {
          throw new BoxflowError('INVALID_REQUEST', `/clip reaches outside the screen, which is ${round(screen.width * scale)}×${round(screen.height * scale)} at scale ${scale}`);
        }
        const clip = body.clip && { x: body.clip.x / scale, y: body.clip.y / scale, width: body.clip.width / scale, height: body.clip.height / scale };
        const png = await entry.linux.screenshot(scale, clip);
        return screenshotAnswer(png, body, { store: deps.store, origin: call.origin, boxId: entry.record.id, actionId: call.actionId });
      }),

    // ------------------------------------------------------------ Android-only (refused on Linux boxes by boxCall)
    listPackages: (call) => boxCall('listPackages', call, unreachable),
    getPackage: (call) => boxCall('getPackage', call, unreachable),
    installPackage: (call) => boxCall('installPackage', call, unreachable),
    listApps: (call) => boxCall('listApps', call, unreachable),
    closeAllApps: (call) => boxCall('closeAllApps', call, unreachable),
    openApp: (call) => boxCall('openApp', call, unreachable),
    restartApp: (call) => boxCall('restartApp', call, unreachable),
    closeApp: (call) => boxCall('closeApp', call, unreachable),
    clearAppData: (call) => boxCall('clearAppData', call, unreachable),
    // A Linux box has one hardware-like button: back, the active tab's history back.
    pressButton: (call) =>
      linuxAction<typeof endpoints.pressButton.body>('pressButton', call, async (entry, body: PressButtonBody) => {
        const other = body.buttons.find((b) => b !== 'back');
        if (other) throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `/buttons: a Linux box has no "${other}" button (only back, the tab's history back)`);
        // The answer says what happened: a back with no history left goes nowhere, and says so.
        const act = async () => {
          const page = await entry.linux.activePage();
          const cdp = await entry.linux.pageCdp();
          let none = 0;
          for (let i = 0; i < body.buttons.length; i++) {
            const { currentIndex } = await cdp.send<{ currentIndex: number }>('Page.getNavigationHistory');
            if (currentIndex <= 0) none++;
            // 'commit': a same-document (SPA) back fires no load event.
            else await page.goBack({ waitUntil: 'commit', timeout: 10_000 });
          }
          return none ? `pressed ${body.buttons.join(', ')} (the tab had no history to go back to${none < body.buttons.length ? ` for ${none} of them` : ''})` : undefined;
        };
        return { message: `pressed ${body.buttons.join(', ')}`, trace: { kind: 'label', text: 'buttons: back' }, act };
      }),
    deleteMedia: (call) => boxCall('deleteMedia', call, unreachable),
    deleteAlbum: (call) => boxCall('deleteAlbum', call, unreachable),

    // ------------------------------------------------------------ browser
    openTab: (call) =>
      linuxCall('openTab', call, async (entry) => {
        const body = bodyOf(endpoints.openTab.body, call.body) as Static<typeof OpenTabBody>;
        return { status: 200, body: await entry.linux.openTab(await checkOpenUrl(body.url, entry.dir), call.signal) };
      }),
    closeBrowser: (call) =>
      linuxCall('closeBrowser', call, async (entry) => {
        await entry.linux.closeBrowser();
        return { status: 200 };
      }),
    cdpUrl: (call) =>
      boxCall('cdpUrl', call, async (entry) => {
        const body = bodyOf(endpoints.cdpUrl.body, call.body) as { expiresIn?: string };
        return { status: 200, body: cdpUrl(entry, call.origin, body.expiresIn), jsonString: true };
      }),

    // ------------------------------------------------------------ utilities
    setResolution: (call) =>
      linuxCall('setResolution', call, async (entry) => {
        const body = bodyOf(endpoints.setResolution.body, call.body) as Resolution;
        await entry.linux.setResolution({ width: body.width, height: body.height });
        return { status: 200, body: { width: body.width, height: body.height } };
      }),
    webTerminalUrl: (call) =>
      boxCall('webTerminalUrl', call, async (entry) => {
        const body = bodyOf(endpoints.webTerminalUrl.body, call.body) as { expiresIn?: string };
        const expiresAt = Date.now() + parseDuration(body.expiresIn ?? '180m', '/expiresIn');
        await webTerminalReady();
        const path = terminalPath(entry.record.id);
        return { status: 201, body: { url: `${call.origin}${path}?${presign(deps.secret, path, expiresAt)}` } };
      }),
    liveViewUrl: (call) => boxCall('liveViewUrl', call, async (entry) => liveViewUrlAnswer(deps.secret, entry, { ...call, body: bodyOf(endpoints.liveViewUrl.body, call.body) })),
    renameFile: (call) =>
      linuxCall('renameFile', call, async (entry) => {
        const body = bodyOf(endpoints.renameFile.body, call.body) as RenameBody;
        return { status: 200, body: await renameInBox(entry.dir, entry.record.config.workingDir!, body, entry.user) };
      }),

    // ------------------------------------------------------------ the rest of the GBOX vocabulary (src/server/gbox)
    ...createGboxHandlers({ boxCall, linuxCall, action, cdpUrl }),
    ...createRecordingHandlers({ registry, store: deps.store }),
    ...createCommandHandlers({ boxCall }),
    ...createFileHandlers({ boxCall }),
    ...createAndroidAppHandlers({ boxCall }),
    ...createMediaHandlers({ boxCall }),
    ...createStorageUrlHandlers({ boxCall, store: deps.store }),
    ...createDetectHandlers({ boxCall, store: deps.store }),
  };
  return handlers;
}

async function unreachable(): Promise<never> {
  throw new BoxflowError('ANDROID_UNAVAILABLE', 'no Android backend');
}
