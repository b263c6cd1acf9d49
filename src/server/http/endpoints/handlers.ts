// The rest of the GBOX vocabulary in `boxflow serve` (docs/api.md): pointer actions, rotation,
// clipboard, browser and tabs, start and display. routes.ts gives the plumbing every request shares
// (boxCall: tenancy, state, the box's queue, cancellation; action: actionId and before/after/trace
// images); this file reads the requests and hands them to the box's device (devices/).
import { bodyOf } from '../requestChecks.js';
import type { Static, TSchema } from '@sinclair/typebox';
import { BoxflowError } from '../../../errors.js';
import { endpoints, type ClipboardBody, type EndpointName, type OpenBrowserBody, type ScreenRotationBody } from '../../../api/schemas.js';
import type { BoxEntry } from '../../boxes/boxEntry.js';
import type { TraceOp } from '../trace.js';
import type { Answer, Call } from '../call.js';
import { facet, type BoxDevice } from '../../devices/index.js';
import { planClick, planLongPress, planMove, planScroll, planSwipe, planTap, planTouch, unscaled, type GestureContext, type GesturePlan } from './gestures.js';

/** What an action does, read from its request before any image is taken (a refusal comes first). */
export interface Prepared {
  message: string;
  trace: TraceOp;
  actual?: unknown;
  /** Runs between the before and after images; a string replaces the message. */
  act: () => Promise<string | void>;
}

export interface GboxDeps {
  boxCall: <T>(name: EndpointName, call: Call, work: (entry: BoxEntry, device: BoxDevice) => Promise<T>) => Promise<T>;
  action: <S extends TSchema>(name: EndpointName, call: Call, prepare: (entry: BoxEntry, device: BoxDevice, body: Static<S>) => Promise<Prepared>) => Promise<Answer>;
  /** The box's pre-signed CDP URL (`expiresIn`, default 120m). */
  cdpUrl: (entry: BoxEntry, origin: string, expiresIn?: string) => string;
}

const kSizeMin = 100;
const kSizeMax = 7680;

export function createGboxHandlers(deps: GboxDeps) {
  const { boxCall, action } = deps;

  /** A pointer action: planned in the action scale (gestures.ts), checked by the device, performed in real pixels. */
  const gesture = <N extends 'click' | 'tap' | 'longPress' | 'move' | 'scroll' | 'swipe' | 'touch'>(name: N, plan: (body: Static<(typeof endpoints)[N]['body']>, ctx: GestureContext) => GesturePlan | Promise<GesturePlan>) =>
    (call: Call) =>
      action<(typeof endpoints)[N]['body']>(name, call, async (entry, device, body) => {
        const p = await plan(body, device.gestures(entry.scale));
        device.checkGesture(p.gesture);
        const real = unscaled(p.gesture, entry.scale);
        return { message: p.message, trace: p.trace, ...(p.actual ? { actual: p.actual } : {}), act: () => device.perform(real, call.signal) };
      });
  const browser = (entry: BoxEntry, name: EndpointName) => facet(entry, 'browser', name);

  return {
    click: gesture('click', planClick),
    tap: gesture('tap', planTap),
    longPress: gesture('longPress', planLongPress),
    move: gesture('move', planMove),
    scroll: gesture('scroll', planScroll),
    swipe: gesture('swipe', planSwipe),
    touch: gesture('touch', planTouch),
    screenRotation: (call: Call) =>
      action<typeof endpoints.screenRotation.body>('screenRotation', call, async (_entry, device, body: ScreenRotationBody) => ({
        message: `rotated the screen to ${body.orientation}`,
        trace: { kind: 'label', text: `rotate: ${body.orientation}` },
        act: () => device.rotate(body.orientation),
      })),
    getClipboard: (call: Call) => boxCall('getClipboard', call, async (entry): Promise<Answer> => ({ status: 200, body: await facet(entry, 'clipboard', 'getClipboard').read(), jsonString: true })),
    setClipboard: (call: Call) =>
      boxCall('setClipboard', call, async (entry): Promise<Answer> => {
        const body = bodyOf(endpoints.setClipboard.body, call.body) as ClipboardBody;
        await facet(entry, 'clipboard', 'setClipboard').write(body.content);
        return { status: 204 };
      }),

    // ------------------------------------------------------------ browser (a kind without one refuses these: devices/kinds.ts)
    openBrowser: (call: Call) =>
      boxCall('openBrowser', call, async (entry): Promise<Answer> => {
        const body = bodyOf(endpoints.openBrowser.body, call.body) as OpenBrowserBody;
        // The browser's window is the box's screen: `size` sets it, `maximize` (which wins) keeps it as it is.
        let size: { width: number; height: number } | undefined;
        if (body.size && !body.maximize) {
          const [width, height] = body.size.split('x').map(Number) as [number, number];
          if (![width, height].every((n) => n >= kSizeMin && n <= kSizeMax)) throw new BoxflowError('INVALID_REQUEST', `/size must be <width>x<height>, each ${kSizeMin} to ${kSizeMax}`);
          size = { width, height };
        }
        await browser(entry, 'openBrowser').open(size);
        return { status: 200, body: { cdpUrl: deps.cdpUrl(entry, call.origin) } };
      }),
    listTabs: (call: Call) => boxCall('listTabs', call, async (entry): Promise<Answer> => ({ status: 200, body: { data: await browser(entry, 'listTabs').tabs() } })),
    updateTab: (call: Call) =>
      boxCall('updateTab', call, async (entry): Promise<Answer> => {
        const body = bodyOf(endpoints.updateTab.body, call.body) as { url: string };
        return { status: 200, body: await browser(entry, 'updateTab').navigate(call.params.tabId!, body.url, call.signal) };
      }),
    switchTab: (call: Call) => boxCall('switchTab', call, async (entry): Promise<Answer> => ({ status: 200, body: await browser(entry, 'switchTab').switchTo(call.params.tabId!) })),
    closeTab: (call: Call) => boxCall('closeTab', call, async (entry): Promise<Answer> => ({ status: 200, body: await browser(entry, 'closeTab').closeTab(call.params.tabId!) })),

    // ------------------------------------------------------------ the box (stop and start: routes.ts)
    getDisplay: (call: Call) => boxCall('getDisplay', call, async (_entry, device): Promise<Answer> => ({ status: 200, body: await device.display() })),
  } satisfies Partial<Record<EndpointName, (call: Call) => Promise<Answer>>>;
}
