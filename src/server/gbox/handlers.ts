// The rest of the GBOX vocabulary in `boxflow serve` (docs/api.md): pointer actions, rotation,
// clipboard, browser and tabs, start and display. routes.ts gives the plumbing every request shares
// (boxCall: tenancy, state, the box's queue, cancellation; action: actionId and before/after/trace
// images); this file reads the requests and picks the box's backend (linux.ts, android.ts).
import { bodyOf } from '../requestChecks.js';
import type { Static, TSchema } from '@sinclair/typebox';
import { BoxflowError } from '../../errors.js';
import { endpoints, type ClipboardBody, type EndpointName, type OpenBrowserBody, type ScreenRotationBody } from '../../api/schemas.js';
import { deviceOf, isAndroid, type BoxEntry, type LinuxEntry } from '../boxEntry.js';
import type { TraceOp } from '../trace.js';
import { checkOpenUrl } from '../urlPolicy.js';
import type { Answer, Call } from '../call.js';
import { androidContext, androidDisplay, checkOnAndroid, notOnAndroid, performOnAndroid, rotateOnAndroid } from './android.js';
import { planClick, planLongPress, planMove, planScroll, planSwipe, planTap, planTouch, unscaled, type Gesture, type GestureContext, type GesturePlan } from './gestures.js';
import { closeTab, linuxContext, linuxDisplay, listTabs, navigateTab, performOnLinux, readClipboard, rotateLinux, switchTab, writeClipboard } from './linux.js';

/** What an action does, read from its request before any image is taken (a refusal comes first). */
export interface Prepared {
  message: string;
  trace: TraceOp;
  actual?: unknown;
  /** Runs between the before and after images; a string replaces the message. */
  act: () => Promise<string | void>;
}

export interface GboxDeps {
  boxCall: <T>(name: EndpointName, call: Call, work: (entry: BoxEntry) => Promise<T>) => Promise<T>;
  /** boxCall for an endpoint that Android boxes do not reach here (see routes.ts). */
  linuxCall: <T>(name: EndpointName, call: Call, work: (entry: LinuxEntry) => Promise<T>) => Promise<T>;
  action: <S extends TSchema>(name: EndpointName, call: Call, prepare: (entry: BoxEntry, body: Static<S>) => Promise<Prepared>) => Promise<Answer>;
  /** The box's pre-signed CDP URL (`expiresIn`, default 120m). */
  cdpUrl: (entry: BoxEntry, origin: string, expiresIn?: string) => string;
}

/** Endpoints whose handler here serves Android boxes too (the others are Linux-only: the browser's). */
export const kGboxAndroid: ReadonlySet<EndpointName> = new Set(['click', 'tap', 'longPress', 'move', 'scroll', 'swipe', 'touch', 'screenRotation', 'getClipboard', 'setClipboard', 'getDisplay']);

interface Backend {
  context: GestureContext;
  check: (g: Gesture) => void;
  perform: (g: Gesture, signal?: AbortSignal) => Promise<void>;
}

function backendOf(entry: BoxEntry): Backend {
  if (isAndroid(entry)) {
    const android = deviceOf(entry);
    return { context: androidContext(android, entry.scale), check: checkOnAndroid, perform: (g, signal) => performOnAndroid(android, g, signal) };
  }
  return { context: linuxContext(entry.linux, entry.scale), check: () => {}, perform: (g, signal) => performOnLinux(entry.linux, g, signal) };
}

const kSizeMin = 100;
const kSizeMax = 7680;

export function createGboxHandlers(deps: GboxDeps) {
  const { boxCall, linuxCall, action } = deps;

  /** A pointer action: planned in the action scale (gestures.ts), checked against the backend, performed in real pixels. */
  const gesture = <N extends 'click' | 'tap' | 'longPress' | 'move' | 'scroll' | 'swipe' | 'touch'>(name: N, plan: (body: Static<(typeof endpoints)[N]['body']>, ctx: GestureContext) => GesturePlan | Promise<GesturePlan>) =>
    (call: Call) =>
      action<(typeof endpoints)[N]['body']>(name, call, async (entry, body) => {
        const backend = backendOf(entry);
        const p = await plan(body, backend.context);
        backend.check(p.gesture);
        const real = unscaled(p.gesture, entry.scale);
        return { message: p.message, trace: p.trace, ...(p.actual ? { actual: p.actual } : {}), act: () => backend.perform(real, call.signal) };
      });

  return {
    click: gesture('click', planClick),
    tap: gesture('tap', planTap),
    longPress: gesture('longPress', planLongPress),
    move: gesture('move', planMove),
    scroll: gesture('scroll', planScroll),
    swipe: gesture('swipe', planSwipe),
    touch: gesture('touch', planTouch),
    screenRotation: (call: Call) =>
      action<typeof endpoints.screenRotation.body>('screenRotation', call, async (entry, body: ScreenRotationBody) => {
        if (isAndroid(entry)) return rotateOnAndroid(deviceOf(entry), body.orientation);
        return {
          message: `rotated the screen to ${body.orientation}`,
          trace: { kind: 'label', text: `rotate: ${body.orientation}` },
          act: async () => {
            const { resolution } = await rotateLinux(entry.linux, body.orientation);
            return `rotated the screen to ${body.orientation} (${resolution.width}×${resolution.height})`;
          },
        };
      }),
    getClipboard: (call: Call) =>
      boxCall('getClipboard', call, async (entry): Promise<Answer> => {
        if (isAndroid(entry)) notOnAndroid('the clipboard');
        return { status: 200, body: await readClipboard(entry.linux), jsonString: true };
      }),
    setClipboard: (call: Call) =>
      boxCall('setClipboard', call, async (entry): Promise<Answer> => {
        const body = bodyOf(endpoints.setClipboard.body, call.body) as ClipboardBody;
        if (isAndroid(entry)) notOnAndroid('the clipboard');
        await writeClipboard(entry.linux, body.content);
        return { status: 204 };
      }),

    // ------------------------------------------------------------ browser (Linux boxes; Android: 400 UNSUPPORTED_BOX_TYPE in routes.ts)
    openBrowser: (call: Call) =>
      linuxCall('openBrowser', call, async (entry): Promise<Answer> => {
        const body = bodyOf(endpoints.openBrowser.body, call.body) as OpenBrowserBody;
        // The browser's window is the box's screen: `size` sets it, `maximize` (which wins) keeps it as it is.
        if (body.size && !body.maximize) {
          const [width, height] = body.size.split('x').map(Number) as [number, number];
          if (![width, height].every((n) => n >= kSizeMin && n <= kSizeMax)) throw new BoxflowError('INVALID_REQUEST', `/size must be <width>x<height>, each ${kSizeMin} to ${kSizeMax}`);
          await entry.linux.setResolution({ width, height });
        }
        await entry.linux.ensureBrowser();
        return { status: 200, body: { cdpUrl: deps.cdpUrl(entry, call.origin) } };
      }),
    listTabs: (call: Call) => linuxCall('listTabs', call, async (entry): Promise<Answer> => ({ status: 200, body: { data: await listTabs(entry.linux) } })),
    updateTab: (call: Call) =>
      linuxCall('updateTab', call, async (entry): Promise<Answer> => {
        const body = bodyOf(endpoints.updateTab.body, call.body) as { url: string };
        return { status: 200, body: await navigateTab(entry.linux, call.params.tabId!, await checkOpenUrl(body.url, entry.dir), call.signal) };
      }),
    switchTab: (call: Call) => linuxCall('switchTab', call, async (entry): Promise<Answer> => ({ status: 200, body: await switchTab(entry.linux, call.params.tabId!) })),
    closeTab: (call: Call) => linuxCall('closeTab', call, async (entry): Promise<Answer> => ({ status: 200, body: await closeTab(entry.linux, call.params.tabId!) })),

    // ------------------------------------------------------------ the box (stop and start: routes.ts)
    getDisplay: (call: Call) => boxCall('getDisplay', call, async (entry): Promise<Answer> => ({ status: 200, body: isAndroid(entry) ? await androidDisplay(deviceOf(entry)) : linuxDisplay(entry.linux) })),
  } satisfies Partial<Record<EndpointName, (call: Call) => Promise<Answer>>>;
}
