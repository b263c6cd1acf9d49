// One handler per endpoint of the contract. Every request: auth → box (tenancy, type, state)
// → schema check of the body → work, serialised per box.
import type { Static, TSchema } from '@sinclair/typebox';
import { BoxflowError } from '../../errors.js';
import { parseDuration } from '../../api/duration.js';
import { endpoints, type CreateBoxBody, type DragBody, type EndpointName, type ListBoxesQuery, type OpenTabBody, type PressButtonBody, type PressKeyBody, type RenameBody, type Resolution, type ScreenshotBody, type TypeBody } from '../../api/schemas.js';
import type { BoxEntry } from '../boxes/boxEntry.js';
import type { BoxRegistry } from '../boxes/boxes.js';
import type { AndroidBox } from '../devices/android/androidBox.js';
import { deviceOfBox, facet, kGridKind, refusalFor, type BoxDevice } from '../devices/index.js';
import { refusal } from '../devices/device.js';
import { planDrag, typeMessage, typeTraceLabel } from './endpoints/dragPlan.js';
import { createGboxHandlers, type Prepared } from './endpoints/handlers.js';
import { createAppHandlers } from './endpoints/apps.js';
import { createRecordingHandlers } from './recording.js';
import { createCommandHandlers } from './endpoints/commands.js';
import { createFileHandlers } from './endpoints/files.js';
import { createAndroidAppHandlers } from './endpoints/androidApps.js';
import { createMediaHandlers } from './endpoints/media.js';
import { createStorageUrlHandlers } from './endpoints/storageUrl.js';
import { createDetectHandlers } from './endpoints/detect.js';
import { screenshotAnswer, screenshotPlan, withScreenshots, type ShotContext } from './screenshots.js';
import { presign } from './secret.js';
import type { ObjectStore } from './storage.js';
import { terminalPath, webTerminalReady } from './terminal.js';
import { liveViewUrlAnswer } from './liveView.js';
import { bodyOf } from './requestChecks.js';

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

export { kForeignBody, type ForeignBody } from './requestChecks.js';

/**
 * What a request is refused for before its body's schema is checked: an unknown box, or another
 * tenant's (404 BOX_NOT_FOUND), and what the box's kind declares it cannot do (devices/kinds.ts). A
 * request that names no box is the server's: on a server with --grid, a Linux box it makes is a grid
 * box. fastify runs this in preValidation (app.ts); boxCall again, for callers that are not routes.
 */
export function precheckBox(registry: BoxRegistry, name: string, tenant: string, boxId: string | undefined, body: unknown): BoxEntry | undefined {
  if (boxId === undefined) {
    const refused = name === 'createLinuxBox' && registry.linuxKind === 'grid' ? refusal(kGridKind, name, body) : undefined;
    if (refused) throw refused;
    return undefined;
  }
  const entry = registry.get(tenant, boxId);
  const refused = refusalFor(entry, name as EndpointName, body);
  if (refused) throw refused;
  return entry;
}

export function createHandlers(deps: RouteDeps) {
  const { registry } = deps;

  async function boxCall<T>(name: EndpointName, call: Call, work: (entry: BoxEntry, device: BoxDevice) => Promise<T>): Promise<T> {
    const entry = precheckBox(registry, name, call.tenant, call.params.boxId!, call.body)!;
    const refuse = () => registry.requireUsable(entry);
    refuse();
    return registry.run(entry, async () => {
      // The client went away while this waited: it never starts.
      call.signal?.throwIfAborted();
      refuse();
      try {
        return await work(entry, deviceOfBox(entry));
      } catch (err) {
        if (entry.record.status === 'terminated' || entry.record.status === 'stopped') throw new BoxflowError('BOX_NOT_RUNNING', `box ${entry.record.id} was ${entry.record.status === 'stopped' ? 'stopped' : 'terminated'} during the request`, { cause: err });
        if (call.signal?.aborted) throw call.signal.reason;
        registry.requireUsable(entry); // the browser died under it: BOX_CRASHED
        if (BoxflowError.is(err)) throw err;
        throw new BoxflowError('BROWSER_ERROR', `the box's browser failed: ${(err as Error).message.split('\n')[0]}`, { cause: err });
      }
    }, name);
  }

  function shots(entry: BoxEntry, device: BoxDevice, call: Call, body: Parameters<typeof screenshotPlan>[0]): ShotContext | null {
    const plan = screenshotPlan(body);
    if (!plan) return null;
    return {
      plan,
      ...device.shots(entry.scale),
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
  function action<S extends TSchema>(name: EndpointName, call: Call, prepare: (entry: BoxEntry, device: BoxDevice, body: Static<S>) => Promise<Prepared>): Promise<Answer> {
    return boxCall(name, call, async (entry, device) => {
      const body = bodyOf((endpoints[name] as { body?: S }).body, call.body);
      const p = await prepare(entry, device, body);
      const { value, screenshot } = await withScreenshots(shots(entry, device, call, body as Parameters<typeof screenshotPlan>[0]), async () => ({ value: await p.act(), trace: p.trace }));
      return { status: 200, body: { actionId: call.actionId, message: value ?? p.message, ...(p.actual !== undefined ? { actual: p.actual } : {}), ...(screenshot ? { screenshot } : {}) } };
    });
  }

  /** The pre-signed URL of the box's DevTools (docs/server.md): no API key in it. */
  function cdpUrl(entry: BoxEntry, origin: string, expiresIn = '120m'): string {
    const expiresAt = Date.now() + parseDuration(expiresIn, '/expiresIn');
    const path = `/cdp/${entry.record.id}`;
    return `${origin.replace(/^http/, 'ws')}${path}?${presign(deps.secret, path, expiresAt)}`;
  }

  /** An app endpoint of an Android box. */
  const onApps = (name: EndpointName, call: Call, work: (apps: AndroidBox, entry: BoxEntry) => Promise<Answer>) => boxCall(name, call, (entry) => work(facet(entry, 'apps', name), entry));
  const noted = (message: string, note: string | undefined) => (note ? `${message} (${note})` : undefined);

  const handlers: Record<EndpointName, (call: Call) => Promise<Answer>> = {
    // ------------------------------------------------------------ boxes
    listBoxes: async (call) => {
      const { labels, ...query } = call.query as ListBoxesQuery & { labels?: Record<string, string> };
      return { status: 200, body: registry.list(call.tenant, { ...query, ...(labels ? { labels } : {}) }) };
    },
    getBox: async (call) => ({ status: 200, body: registry.get(call.tenant, call.params.boxId!).record }),
    createLinuxBox: async (call) => {
      precheckBox(registry, 'createLinuxBox', call.tenant, undefined, call.body);
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
      action<typeof endpoints.drag.body>('drag', call, async (entry, device, body: DragBody) => {
        const scale = entry.scale;
        // Points off the screen (or far off it) are moved to its edge where the box knows it.
        const ctx = device.gestures(scale);
        const plan = await planDrag(body, ctx.resolve, ctx.fit);
        const act = () => device.drag(plan.points.map((p) => ({ x: p.x / scale, y: p.y / scale })), plan.segments, call.signal);
        return { message: plan.message, trace: plan.trace, actual: plan.actual, act };
      }),
    pressKey: (call) =>
      action<typeof endpoints.pressKey.body>('pressKey', call, async (_entry, device, body: PressKeyBody) => {
        const combination = body.combination ?? false;
        const label = body.keys.join(combination ? '+' : ', ');
        return { message: `pressed ${label}`, trace: { kind: 'label', text: `keys: ${label}` }, act: () => device.pressKeys(body.keys, combination, call.signal) };
      }),
    type: (call) =>
      action<typeof endpoints.type.body>('type', call, async (_entry, device, body: TypeBody) => {
        const message = typeMessage(body);
        const act = async () => noted(message, await device.type(body.text, { replace: body.mode === 'replace', pressEnter: body.pressEnter ?? false }, call.signal));
        return { message, trace: { kind: 'label', text: typeTraceLabel(body) }, act };
      }),
    // A Linux box has one hardware-like button: back (its kind refuses the others).
    pressButton: (call) =>
      action<typeof endpoints.pressButton.body>('pressButton', call, async (_entry, device, body: PressButtonBody) => {
        const message = `pressed ${body.buttons.join(', ')}`;
        return { message, trace: { kind: 'label', text: `buttons: ${body.buttons.join(', ')}` }, act: async () => noted(message, await device.pressButtons(body.buttons, call.signal)) };
      }),
    screenLayout: (call) => boxCall('screenLayout', call, async (_entry, device) => ({ status: 200, body: { content: await device.layout() } })),
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
      boxCall('screenshot', call, async (entry, device) => {
        const body = bodyOf(endpoints.screenshot.body, call.body) as ScreenshotBody;
        if (body.scrollCapture && body.clip) throw new BoxflowError('INVALID_REQUEST', '/scrollCapture and /clip cannot be combined: a scroll capture is the page from its top');
        const scale = entry.scale;
        const where = { store: deps.store, origin: call.origin, boxId: entry.record.id, actionId: call.actionId };
        if (body.scrollCapture) return screenshotAnswer(await facet(entry, 'browser', 'screenshot').tallScreenshot(scale, body.scrollCapture.maxHeight ?? 4000), body, where);
        const clip = body.clip && { x: body.clip.x / scale, y: body.clip.y / scale, width: body.clip.width / scale, height: body.clip.height / scale };
        const png = await device.screenshot(scale, clip);
        // The device's Pictures album, under a name of this box and action (the answer stays the same).
        if (body.saveToAlbum) await facet(entry, 'apps', 'screenshot').saveToAlbum(png, `boxflow-${entry.record.id}-${call.actionId ?? Date.now().toString(36)}`);
        return screenshotAnswer(png, body, where);
      }),

    // ------------------------------------------------------------ browser
    openTab: (call) =>
      boxCall('openTab', call, async (_entry, device) => {
        const body = bodyOf(endpoints.openTab.body, call.body) as Static<typeof OpenTabBody>;
        return { status: 200, body: await device.openLink(body.url, call.signal) };
      }),
    closeBrowser: (call) =>
      boxCall('closeBrowser', call, async (entry) => {
        await facet(entry, 'browser', 'closeBrowser').close();
        return { status: 200 };
      }),
    cdpUrl: (call) =>
      boxCall('cdpUrl', call, async (entry) => {
        const body = bodyOf(endpoints.cdpUrl.body, call.body) as { expiresIn?: string };
        return { status: 200, body: cdpUrl(entry, call.origin, body.expiresIn), jsonString: true };
      }),

    // ------------------------------------------------------------ utilities
    setResolution: (call) =>
      boxCall('setResolution', call, async (_entry, device) => {
        const body = bodyOf(endpoints.setResolution.body, call.body) as Resolution;
        await device.setResolution({ width: body.width, height: body.height });
        return { status: 200, body: { width: body.width, height: body.height } };
      }),
    webTerminalUrl: (call) =>
      boxCall('webTerminalUrl', call, async (entry) => {
        facet(entry, 'shell', 'webTerminalUrl');
        const body = bodyOf(endpoints.webTerminalUrl.body, call.body) as { expiresIn?: string };
        const expiresAt = Date.now() + parseDuration(body.expiresIn ?? '180m', '/expiresIn');
        await webTerminalReady();
        const path = terminalPath(entry.record.id);
        return { status: 201, body: { url: `${call.origin}${path}?${presign(deps.secret, path, expiresAt)}` } };
      }),
    liveViewUrl: (call) => boxCall('liveViewUrl', call, async (entry) => liveViewUrlAnswer(deps.secret, entry, { ...call, body: bodyOf(endpoints.liveViewUrl.body, call.body) })),
    renameFile: (call) =>
      boxCall('renameFile', call, async (entry) => {
        const body = bodyOf(endpoints.renameFile.body, call.body) as RenameBody;
        return { status: 200, body: await facet(entry, 'files', 'renameFile').rename(body) };
      }),

    // ------------------------------------------------------------ the rest of the GBOX vocabulary (src/server/gbox)
    ...createGboxHandlers({ boxCall, action, cdpUrl }),
    ...createRecordingHandlers({ registry, store: deps.store }),
    ...createCommandHandlers({ boxCall }),
    ...createFileHandlers({ boxCall }),
    ...createAppHandlers({ onApps, allowInnerDownloads: deps.allowInnerDownloads === true }),
    ...createAndroidAppHandlers({ boxCall }),
    ...createMediaHandlers({ boxCall }),
    ...createStorageUrlHandlers({ boxCall, store: deps.store }),
    ...createDetectHandlers({ boxCall, store: deps.store }),
  };
  return handlers;
}
