// UI, browser and utility steps: each is one Box API call (waits only where a target is looked up).
import type { BrowserTab } from '../boxBrowser.js';
import { formatDuration } from '../../api/duration.js';
import { BoxflowError } from '../../errors.js';
import { describeSelector, matchText, overflowOf, query } from '../../layout/index.js';
import type { Bounds, LayoutNode, LayoutTree, Selector } from '../../layout/types.js';
import type { Target } from '../../flow/types.js';
import { handler, type StepHandler, type StepRun } from './types.js';
import { pngSize } from '../../visual/index.js';
import { delay } from '../poll.js';
import { attachEvidence, resolveTarget, screenSize, toAction, type ApiTarget, findVisible } from './target.js';
import { captureOnce } from './visual.js';
import { boxCommand } from './device.js';
import { landingPoint } from './landing.js';

/** A tap presses and releases at once, as Playwright's click does; a long press holds. */
const kTapMs = 0;

async function dragSimple(run: StepRun, start: ApiTarget, end: ApiTarget, durationMs: number, step: Parameters<StepHandler>[0]) {
  const result = await run.rt.client.drag(
    run.rt.box.id,
    { start, end, duration: formatDuration(durationMs), options: run.actionOptions(step) },
    { signal: run.signal, timeoutMs: run.rt.options.actionTimeout },
  );
  await run.recordAction(result);
}

/**
 * Where a tap or a long press acts. On a Linux box an element is checked where the pointer lands
 * (landingPoint: a menu the move closes, a banner over it, a button still sliding in); Android
 * boxes tap where the layout says.
 */
async function pressPoint(run: StepRun, target: Target): Promise<ApiTarget> {
  if (run.rt.box.type === 'linux' && 'selector' in target) return toAction(run, await landingPoint(run, target));
  return resolveTarget(run, target);
}

export const tap: StepHandler<'tap'> = handler(['target'], async (step, run) => {
  const p = await pressPoint(run, step.target);
  await dragSimple(run, p, p, kTapMs, step);
});

export const longPress: StepHandler<'longPress'> = handler(['target'], async (step, run) => {
  const p = await pressPoint(run, step.target);
  await dragSimple(run, p, p, step.duration, step);
});

/** A direction swipe spans the middle 60% of the screen (or of the `on` element). */
async function directionPoints(run: StepRun, direction: 'up' | 'down' | 'left' | 'right', on?: Parameters<typeof findVisible>[1]) {
  let box: { left: number; top: number; width: number; height: number };
  if (on) {
    const node = await findVisible(run, on, { needGeometry: true });
    const b = node.bounds!;
    box = { left: b.left, top: b.top, width: b.right - b.left, height: b.bottom - b.top };
  } else {
    const s = await screenSize(run);
    box = { left: 0, top: 0, width: s.width, height: s.height };
  }
  const cx = box.left + box.width / 2;
  const cy = box.top + box.height / 2;
  const dx = box.width * 0.3;
  const dy = box.height * 0.3;
  const from = { up: { x: cx, y: cy + dy }, down: { x: cx, y: cy - dy }, left: { x: cx + dx, y: cy }, right: { x: cx - dx, y: cy } }[direction];
  const to = { up: { x: cx, y: cy - dy }, down: { x: cx, y: cy + dy }, left: { x: cx - dx, y: cy }, right: { x: cx + dx, y: cy } }[direction];
  return { from: toAction(run, from), to: toAction(run, to) };
}

export const swipe: StepHandler<'swipe'> = handler(['on', 'from', 'to'], async (step, run) => {
  const duration = step.duration ?? 300;
  if (step.direction && step.from) return swipeFrom(run, step.direction, step.from, duration, step);
  if (step.direction && run.rt.box.type === 'linux') return wheelSwipe(run, step.direction, step.on, step);
  if (step.direction) {
    const { from, to } = await directionPoints(run, step.direction, step.on);
    return dragSimple(run, from, to, duration, step);
  }
  if (!step.from || !step.to) throw new BoxflowError('STEP_INVALID', 'swipe needs a direction or both from and to');
  await dragSimple(run, await resolveTarget(run, step.from), await resolveTarget(run, step.to), duration, step);
});

/**
 * From a target (an element's centre, or a point inside it) in a direction, as Maestro swipes from
 * an element: the finger goes to 10% of the screen from its edge that way. On a Linux box the mouse
 * wheel turns over that point instead, as far as a direction swipe moves a finger.
 */
async function swipeFrom(run: StepRun, direction: 'up' | 'down' | 'left' | 'right', from: Target, duration: number, step: Parameters<StepHandler>[0]) {
  const start = await resolveTarget(run, from);
  if (typeof start === 'string') throw new BoxflowError('STEP_INVALID', 'swipe from a {prompt} in a direction: give the start as a selector or a point');
  const s = run.rt.state.scale;
  const at = { x: start.x / s, y: start.y / s };
  if (run.rt.box.type === 'linux') return wheelSwipe(run, direction, undefined, step, at);
  const screen = await screenSize(run);
  const end = { up: { x: at.x, y: screen.height * 0.1 }, down: { x: at.x, y: screen.height * 0.9 }, left: { x: screen.width * 0.1, y: at.y }, right: { x: screen.width * 0.9, y: at.y } }[direction];
  await dragSimple(run, start, toAction(run, end), duration, step);
}

/**
 * A desktop browser does not scroll on a mouse drag: a direction swipe on a Linux box turns the
 * mouse wheel over the middle of the screen (or of `on`, or at the point `at`), as far as the swipe
 * would move a finger, and says what moved; a swipe that scrolls nothing says so.
 */
async function wheelSwipe(run: StepRun, direction: 'up' | 'down' | 'left' | 'right', on: Parameters<typeof findVisible>[1] | undefined, swipeStep: Parameters<StepHandler>[0], at?: { x: number; y: number }) {
  const s = await screenSize(run);
  let box = { left: 0, top: 0, right: s.width, bottom: s.height };
  if (on) {
    // Only the part of the element on screen can be under the mouse.
    const b = (await findVisible(run, on, { needGeometry: true })).bounds!;
    box = { left: Math.max(b.left, 0), top: Math.max(b.top, 0), right: Math.min(b.right, s.width), bottom: Math.min(b.bottom, s.height) };
  }
  const x = at?.x ?? (box.left + box.right) / 2;
  const y = at?.y ?? (box.top + box.bottom) / 2;
  const dx = (box.right - box.left) * 0.6;
  const dy = (box.bottom - box.top) * 0.6;
  // A finger moving up scrolls the content down.
  const delta = { up: [0, dy], down: [0, -dy], left: [dx, 0], right: [-dx, 0] }[direction] as [number, number];
  const moved = await wheelAt(run, { x, y }, delta, run.actionOptions(swipeStep));
  const where = on ? describeSelector(on) : at ? `(${Math.round(x)}, ${Math.round(y)})` : 'the page';
  run.record.message = !moved
    ? `nothing moved: swiping ${direction} over ${where} scrolled nothing (already at the end, or nothing there scrolls)`
    : `scrolled ${where} (swipe ${direction})`;
}

export const drag: StepHandler<'drag'> = handler(['from', 'to'], async (step, run) => {
  if (step.path) {
    const result = await run.rt.client.drag(
      run.rt.box.id,
      { path: step.path.map((p) => toAction(run, p)), duration: formatDuration(step.interval ?? 50), options: run.actionOptions(step) },
      { signal: run.signal, timeoutMs: run.rt.options.actionTimeout },
    );
    return run.recordAction(result);
  }
  if (!step.from || !step.to) throw new BoxflowError('STEP_INVALID', 'drag needs from and to, or a path');
  await dragSimple(run, await resolveTarget(run, step.from), await resolveTarget(run, step.to), step.duration ?? 500, step);
});

export const scrollUntilVisible: StepHandler<'scrollUntilVisible'> = handler(['selector'], async (step, run) => {
  const { selector } = step;
  // Scrolling down means the finger moves up.
  const finger = ({ down: 'up', up: 'down', left: 'right', right: 'left' } as const)[step.direction];
  let swipes = 0;
  let tree: LayoutTree;
  let hiddenBy: { container: LayoutNode; end: boolean } | undefined;
  const scrolled = new Set<string>();
  let centring = 0;
  for (; ; swipes++) {
    tree = await run.rt.layout.tree(run.signal);
    const found = query(tree, selector)[0];
    // `center`: as Maestro's centerElement, a few more swipes until the element is past the screen's middle that way.
    if (found && !(step.center && centring < 4 && !nearCentre(found, tree, step.direction) && (centring++, true))) {
      run.record.message = `visible after ${swipes} swipe${swipes === 1 ? '' : 's'}${scrolled.size ? ` (scrolled ${[...scrolled].join(', ')})` : ''}${step.center ? (nearCentre(found, tree, step.direction) ? ', near the middle of the screen' : ', not brought near the middle in 4 more swipes') : ''}`;
      return;
    }
    // The element is there but an inner scroll container clips it away: that container scrolls,
    // not the page (a desktop browser scrolls what is under the mouse wheel).
    const container = scrollContainerHiding(tree, selector);
    hiddenBy = container && { container, end: false };
    if (swipes >= step.maxSwipes) break;
    if (hiddenBy && hiddenBy.container.visible && tree.screen) {
      if (!(await wheelIn(run, hiddenBy.container.bounds!, tree.screen, step.direction))) {
        hiddenBy.end = true;
        break;
      }
      scrolled.add(describeContainer(run, hiddenBy.container));
      continue;
    }
    if (run.rt.box.type === 'linux') {
      // A desktop browser does not scroll on a mouse drag: the wheel turns over the middle of the
      // screen, scrolling what is under it (as a finger there would), by most of a screen.
      const s = tree.screen ?? (await screenSize(run));
      await wheelIn(run, { left: 0, top: 0, right: s.width, bottom: s.height }, s, step.direction);
    } else {
      const { from, to } = await directionPoints(run, finger);
      await dragSimple(run, from, to, 300, { ...step, screenshots: false });
      await delay(150, run.signal);
    }
  }
  const after = `after ${swipes} swipe${swipes === 1 ? '' : 's'} ${step.direction}`;
  if (hiddenBy) {
    await attachEvidence(run, selector, tree);
    const end = hiddenBy.end ? `, which scrolls no further ${step.direction}` : '';
    throw new BoxflowError('ELEMENT_NOT_FOUND', `${describeSelector(selector)} is hidden by its scroll container ${describeContainer(run, hiddenBy.container)}${end} (${after})`);
  }
  await findVisible(run, selector, {}).catch((err: unknown) => {
    throw new BoxflowError('ELEMENT_NOT_FOUND', `${(err as Error).message} (${after})`);
  });
});

/**
 * Maestro's isElementNearScreenCenter: scrolling down, the element's centre is above the screen's
 * middle plus a fifth of its height (and so on for each direction). True without geometry.
 */
function nearCentre(node: LayoutNode, tree: LayoutTree, direction: 'up' | 'down' | 'left' | 'right'): boolean {
  const b = node.bounds;
  const s = tree.screen;
  if (!b || !s) return true;
  const x = (b.left + b.right) / 2;
  const y = (b.top + b.bottom) / 2;
  return { down: y < s.height / 2 + s.height / 5, up: y > s.height / 2 - s.height / 5, right: x < s.width / 2 + s.width / 5, left: x > s.width / 2 - s.width / 5 }[direction];
}

/**
 * The nearest ancestor that scrolls or hides its overflow (`overflowOf`, Linux boxes' layouts)
 * and, with the containers inside it, clips a match of `selector` away entirely: what hides an
 * element that is there. Undefined when no such container hides any match (the element
 * is missing, off the page's own screen, or hidden by its style).
 */
function scrollContainerHiding(tree: LayoutTree, selector: Selector): LayoutNode | undefined {
  if (!tree.hasGeometry) return undefined;
  for (const node of query(tree, selector, { visibleOnly: false })) {
    let seen = node.bounds;
    if (!seen || seen.right <= seen.left || seen.bottom <= seen.top) continue;
    for (let a = node.parent; a?.parent; a = a.parent) {
      if (!a.bounds || overflowOf(a) === undefined || a.tag === 'html' || a.tag === 'body') continue;
      const b: Bounds = a.bounds;
      seen = { left: Math.max(seen.left, b.left), top: Math.max(seen.top, b.top), right: Math.min(seen.right, b.right), bottom: Math.min(seen.bottom, b.bottom) };
      if (seen.right <= seen.left || seen.bottom <= seen.top) return a;
    }
  }
  return undefined;
}

/** `div#list.inbox [8,60][308,260]`: a container as its markup names it, and where it is. */
function describeContainer(run: StepRun, node: LayoutNode): string {
  const classes = (node.attributes.class ?? '').split(/\s+/).filter(Boolean).map((c) => `.${c}`).join('');
  const b = node.bounds!;
  const r = Math.round;
  return run.rt.masker.text(`${node.tag}${node.id ? `#${node.id}` : ''}${classes} [${r(b.left)},${r(b.top)}][${r(b.right)},${r(b.bottom)}]`);
}

/**
 * Turns the mouse wheel over the middle of the part of `bounds` on the screen, by 80% of that
 * part (as Page Down scrolls a page), and waits until the scroll offsets there settle; false when
 * nothing moved (the container is at its end that way, or cannot be scrolled by a user).
 */
async function wheelIn(run: StepRun, bounds: Bounds, screen: { width: number; height: number }, direction: 'up' | 'down' | 'left' | 'right'): Promise<boolean> {
  const left = Math.max(bounds.left, 0);
  const top = Math.max(bounds.top, 0);
  const right = Math.min(bounds.right, screen.width);
  const bottom = Math.min(bounds.bottom, screen.height);
  const x = (left + right) / 2;
  const y = (top + bottom) / 2;
  const dx = (right - left) * 0.8;
  const dy = (bottom - top) * 0.8;
  const delta = { down: [0, dy], up: [0, -dy], right: [dx, 0], left: [-dx, 0] }[direction] as [number, number];
  return wheelAt(run, { x, y }, delta, { screenshot: false });
}

/**
 * Turns the mouse wheel at `at` (screen pixels) by `delta` through the Box API's scroll action (its
 * actionId and, as `options` ask, images), then waits until the scroll offsets of what is under that
 * point (and the page's) settle: the wheel scrolls asynchronously and may animate. False when
 * nothing moved.
 */
async function wheelAt(run: StepRun, at: { x: number; y: number }, delta: [number, number], options: ReturnType<StepRun['actionOptions']>): Promise<boolean> {
  const tab = await run.rt.layout.tab();
  const before = await scrollState(tab, at, null);
  const result = await run.rt.client.scroll(
    run.rt.box.id,
    { ...toAction(run, at), scrollX: delta[0] * run.rt.state.scale, scrollY: delta[1] * run.rt.state.scale, options },
    { signal: run.signal, timeoutMs: run.rt.options.actionTimeout },
  );
  await run.recordAction(result);
  run.signal.throwIfAborted();
  return (await scrollState(tab, at, before)) !== before;
}

/**
 * In the page: the scroll offsets of what is under (x, y) in the page (the element there and its
 * ancestors) and the page's own. Without `before`, as they are now; with it, once a scroll that
 * started since has ended: they changed from `before` and stayed the same over two animation
 * frames. A scroll that moves nothing is given up after 300 ms; one that never ends, after 2 s.
 * Source text: a function would carry the helpers a TypeScript loader injects (esbuild's __name),
 * which the page does not have.
 */
const kScrollState = `(x, y, before) => {
  const read = () => {
    let state = window.scrollX + ',' + window.scrollY;
    for (let el = document.elementFromPoint(x, y); el; el = el.parentElement) state += ';' + el.scrollLeft + ',' + el.scrollTop;
    return state;
  };
  if (before === null) return read();
  return new Promise((resolve) => {
    const started = performance.now();
    let last = read();
    let still = 0;
    const frame = () => {
      const now = read();
      still = now === last ? still + 1 : 0;
      last = now;
      const waited = performance.now() - started;
      if ((now !== before && still >= 2) || (now === before && waited > 300) || waited > 2000) resolve(now);
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    // A page that draws no frames (a background tab) never calls back: the bound holds anyway.
    setTimeout(() => resolve(read()), 2000);
  });
}`;
const scrollState = (tab: BrowserTab, at: { x: number; y: number }, before: string | null): Promise<string> =>
  tab.evaluate(`(${kScrollState})(${at.x}, ${at.y}, ${JSON.stringify(before)})`);

export const pressKey: StepHandler<'pressKey'> = handler([], async (step, run) => {
  if (step.keyCode !== undefined) {
    // An Android KEYCODE the spec's key names lack (DPAD_CENTER, TV input, ...): `input keyevent`.
    if (run.rt.box.type === 'linux') throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `pressKey keyCode ${step.keyCode} is an Android key code; box ${run.rt.box.id} is a Linux box (press a key name instead)`);
    const r = await boxCommand(run, `input keyevent ${step.keyCode}`, `pressKey keyCode ${step.keyCode}`);
    if (r.exitCode !== 0) throw new BoxflowError('DEVICE_ERROR', `input keyevent ${step.keyCode} failed (exit ${r.exitCode}): ${`${r.stdout}${r.stderr}`.trim() || 'no output'}`);
    run.rt.layout.reset();
    run.record.message = `pressed key code ${step.keyCode}`;
    return;
  }
  const result = await run.rt.client.pressKey(
    run.rt.box.id,
    { keys: step.keys, combination: step.combination, options: run.actionOptions(step) },
    { signal: run.signal, timeoutMs: run.rt.options.actionTimeout },
  );
  await run.recordAction(result);
});

export const type: StepHandler<'type'> = handler(['text'], async (step, run) => {
  const { text } = step;
  const options = run.actionOptions(step);
  const body: Parameters<typeof run.rt.client.type>[1] & { sensitive?: boolean } = { text, options };
  if (run.rt.masker.reveals(text)) {
    // The service learns the text it must type and nothing else about it. boxflow serve honours
    // `sensitive` (docs/api.md) and draws `type: ••••` on the trace; a service not known to
    // honour it is not asked for a trace, which would show the text.
    if (run.rt.client.isBoxflowService) body.sensitive = true;
    else if (options.screenshot) {
      const phases = options.screenshot.phases.filter((p) => p !== 'trace');
      body.options = { screenshot: phases.length ? { ...options.screenshot, phases } : false };
    }
  }
  if (step.mode) body.mode = step.mode;
  if (step.pressEnter !== undefined) body.pressEnter = step.pressEnter;
  const result = await run.rt.client.type(run.rt.box.id, body, { signal: run.signal, timeoutMs: run.rt.options.actionTimeout });
  await run.recordAction(result);
});

export const setScale: StepHandler<'setScale'> = handler([], async (step, run) => {
  const box = run.rt.boxState;
  box.scale ??= run.rt.state.scale;
  box.scaleChanged = true;
  const { scale } = await run.rt.client.updateSettings(run.rt.box.id, { scale: step.scale }, { signal: run.signal });
  run.rt.state.scale = scale;
  run.record.message = `action scale ${scale}`;
});

export const setResolution: StepHandler<'setResolution'> = handler([], async (step, run) => {
  const box = run.rt.boxState;
  if (!box.resolution) {
    // The spec has no way to read the resolution: a screenshot shows it (times the action scale).
    // When even that fails the step still runs; the pool then retires the box it cannot put back.
    const size = await captureOnce(run).then((png) => pngSize(png, 'screenshot'), () => undefined);
    const s = run.rt.state.scale;
    if (size) box.resolution = { width: Math.round(size.width / s), height: Math.round(size.height / s) };
  }
  box.resolutionChanged = true;
  const r = await run.rt.client.setResolution(run.rt.box.id, { width: step.width, height: step.height }, { signal: run.signal });
  run.record.message = `resolution ${r.width}×${r.height}`;
});

export const openTab: StepHandler<'openTab'> = handler(['url', 'expect'], async (step, run) => {
  const url = absoluteUrl(step.url, run.rt.options.appBaseUrl);
  const tab = await run.rt.client.openTab(run.rt.box.id, { url }, { signal: run.signal, timeoutMs: Math.max(run.timeoutMs, 30_000) });
  run.rt.state.tabId = tab.id;
  run.record.message = `opened "${tab.title}" at ${tab.url}`;
  for (const key of ['title', 'url'] as const) {
    const want = step.expect?.[key];
    if (want !== undefined && !matchText(want, tab[key])) {
      throw new BoxflowError('ASSERT_TAB', `tab ${key} is ${JSON.stringify(tab[key])}, expected ${want}`);
    }
  }
});

function absoluteUrl(url: string, base: string | undefined): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  if (!base) throw new BoxflowError('INVALID_URL', `openTab ${JSON.stringify(url)} is not an absolute URL: set appBaseUrl (or webServer.url) in boxflow.config to open paths of your app`);
  return new URL(url, base).href;
}

export const closeBrowser: StepHandler<'closeBrowser'> = handler([], async (_step, run) => {
  await run.rt.client.closeBrowser(run.rt.box.id, { signal: run.signal });
  run.rt.state.tabId = undefined;
  run.rt.layout.reset();
  run.record.message = 'browser closed';
});

/** Default bound of a command when the step has no timeout of its own (GBOX's default). */
const kCommandTimeoutMs = 30_000;

export const runCommand: StepHandler<'runCommand'> = handler(['command', 'workingDir'], async (step, run) => {
  const { command } = step;
  const timeoutMs = step.timeout ?? kCommandTimeoutMs;
  const result = await run.rt.client.runCommand(
    run.rt.box.id,
    { command, timeout: formatDuration(timeoutMs), ...(step.workingDir ? { workingDir: step.workingDir } : {}) },
    { signal: run.signal, timeoutMs: timeoutMs + 30_000 },
  );
  // Its output, masked like everything a step records, as attachments of the step.
  const attachments: NonNullable<typeof run.record.attachments> = [];
  for (const [name, text] of [['stdout', result.stdout], ['stderr', result.stderr]] as const) {
    if (text) attachments.push({ name, path: await run.rt.artifacts.put(Buffer.from(run.rt.masker.text(text)), 'txt'), contentType: 'text/plain' });
  }
  if (attachments.length) run.record.attachments = [...(run.record.attachments ?? []), ...attachments];
  const want = step.expectExit ?? 0;
  const tail = (text: string) => run.rt.masker.text(text.trim().split('\n').slice(-3).join(' | ')).slice(0, 300);
  if (result.exitCode !== want) {
    const why = result.exitCode === 124 ? ` (cut off at its timeout, ${formatDuration(timeoutMs)})` : '';
    throw new BoxflowError('COMMAND_FAILED', `the command exited with ${result.exitCode}, expected ${want}${why}${result.stderr.trim() ? `: ${tail(result.stderr)}` : result.stdout.trim() ? `: ${tail(result.stdout)}` : ''}`);
  }
  run.record.message = `exit ${result.exitCode}${result.stdout.trim() ? `: ${tail(result.stdout)}` : ''}`;
});

export const renameFile: StepHandler<'renameFile'> = handler(['from', 'to', 'workingDir'], async (step, run) => {
  const body: Parameters<typeof run.rt.client.renameFile>[1] = { oldPath: step.from, newPath: step.to };
  if (step.workingDir) body.workingDir = step.workingDir;
  const entry = await run.rt.client.renameFile(run.rt.box.id, body, { signal: run.signal });
  run.record.message = `renamed to ${entry.path}`;
});

export const deleteMedia: StepHandler<'deleteMedia'> = handler(['album', 'media'], async (step, run) => {
  await run.rt.client.deleteMedia(run.rt.box.id, step.album, step.media, { signal: run.signal });
  run.record.message = `deleted ${step.media} from ${step.album}`;
});

export const deleteAlbum: StepHandler<'deleteAlbum'> = handler(['album'], async (step, run) => {
  await run.rt.client.deleteAlbum(run.rt.box.id, step.album, { signal: run.signal });
  run.record.message = `deleted album ${step.album}`;
});

export const webTerminal: StepHandler<'webTerminal'> = handler([], async (_step, run) => {
  const { url } = await run.rt.client.webTerminalUrl(run.rt.box.id, {}, { signal: run.signal });
  run.record.url = url;
  run.record.message = 'web terminal URL recorded';
});

export const cdpUrl: StepHandler<'cdpUrl'> = handler([], async (_step, run) => {
  run.record.url = await run.rt.client.cdpUrl(run.rt.box.id, {}, { signal: run.signal });
  run.record.message = 'CDP URL recorded';
});

export const sleep: StepHandler<'sleep'> = handler([], async (step, run) => {
  await delay(step.ms, run.signal);
});

