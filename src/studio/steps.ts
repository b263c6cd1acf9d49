// The steps boxflow studio writes, in each dialect: boxflow's YAML (docs/flows.md) and Maestro's
// (tapOn, assertVisible, inputText, ...), as YAML list items (`{tap: {id: x}}`, `'back'`). One studio
// action may be two Maestro commands (typing, then Enter). What the hand did is kept: a tap where it
// landed inside a large element, a tap on the screen, a drag along its path.
import type { Dialect } from './selectors.js';
import { withText } from './selectors.js';

export const kElementActions = ['tap', 'doubleTap', 'longPress', 'assertVisible', 'assertNotVisible', 'assertText', 'assertValue', 'assertScreenshot'] as const;
export type ElementAction = (typeof kElementActions)[number];
export const kKeys = ['enter', 'backspace', 'tab', 'escape', 'back', 'arrowUp', 'arrowDown', 'arrowLeft', 'arrowRight'] as const;
export type StudioKey = (typeof kKeys)[number];

const isPoint = (selector: unknown) => (typeof selector === 'string' && /^-?[\d.]+%?,\s*-?[\d.]+%?$/.test(selector)) || (typeof selector === 'object' && selector !== null && 'point' in selector);
// Maestro's text is a whole-string regex (that also matches its own text): only regex
// metacharacters need a backslash, a slash does not.
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What an element's action takes beside its selector. */
export interface ElementStepOptions {
  /** The element's text (what assertText expects). */
  text?: string;
  /** A form field's value (what assertValue expects); undefined when the element is not a field. */
  value?: string;
  /** Selectors of the elements a screenshot assertion paints over. */
  masks?: unknown[];
  /** The screenshot's name (its baseline file). */
  name?: string;
  /** The screenshot holds only the element (its baseline has the element's size), not the whole screen. */
  crop?: boolean;
  /** Where the pointer landed inside a large element, "x%,y%". */
  at?: string;
}

/**
 * The list items for an action on an element; a string is why there is none (an assertion needs a
 * selector, not a point).
 */
export function elementSteps(dialect: Dialect, action: ElementAction, selector: unknown, opts: ElementStepOptions = {}): unknown[] | string {
  const point = isPoint(selector);
  // Where the pointer landed inside the element (`point` beside the selector keys, in both dialects).
  if (opts.at && !point && (action === 'tap' || action === 'doubleTap' || action === 'longPress')) {
    selector = { ...(typeof selector === 'string' ? { text: selector } : (selector as Record<string, unknown>)), point: opts.at };
  }
  if (point && (action === 'assertVisible' || action === 'assertNotVisible' || action === 'assertText' || action === 'assertValue')) return 'no selector singles this element out, so there is nothing to assert on; pick another element';
  if (action === 'assertScreenshot') {
    const name = opts.name?.trim();
    if (!name) return 'a screenshot assertion needs a name (its baseline file)';
    if (opts.crop && point) return 'no selector singles this element out, so the screenshot cannot be cropped to it; take the whole screen';
    const masks = (opts.masks ?? []).filter((m) => !isPoint(m));
    if (dialect === 'maestro') return [opts.crop ? { takeScreenshot: { path: name, cropOn: selector } } : { takeScreenshot: name }];
    const arg = { name, ...(opts.crop ? { crop: selector } : {}), ...(masks.length ? { mask: masks } : {}) };
    return [Object.keys(arg).length > 1 ? { assertScreenshot: arg } : { assertScreenshot: name }];
  }
  if (action === 'assertValue') {
    if (opts.value === undefined) return 'the element is not a form field, so it has no value to assert; assert its text instead';
    if (dialect === 'maestro') return [{ assertVisible: { ...(typeof selector === 'string' ? { text: selector } : (selector as Record<string, unknown>)), text: escapeRe(opts.value) } }];
    // The explicit form: `text` here is what the field holds (a form field's text is its value).
    return [{ assertLayout: { selector, text: opts.value } }];
  }
  if (action === 'assertText') {
    const text = opts.text ?? '';
    if (!text) return 'the element shows no text to assert';
    if (dialect === 'maestro') {
      if (typeof selector === 'string' || (typeof selector === 'object' && selector !== null && 'text' in selector)) return [{ assertVisible: selector }];
      return [{ assertVisible: { ...(selector as Record<string, unknown>), text: escapeRe(text) } }];
    }
    if (typeof selector === 'string' && selector === text) return [{ assertVisible: text }];
    return [{ assertLayout: withText(selector, text) }];
  }
  if (dialect === 'maestro') {
    const name = { tap: 'tapOn', doubleTap: 'doubleTapOn', longPress: 'longPressOn', assertVisible: 'assertVisible', assertNotVisible: 'assertNotVisible' }[action];
    return [{ [name]: selector }];
  }
  return [{ [action]: selector }];
}

export function typeSteps(dialect: Dialect, text: string, pressEnter: boolean): unknown[] {
  if (dialect === 'maestro') return [{ inputText: text }, ...(pressEnter ? [{ pressKey: 'Enter' }] : [])];
  return [pressEnter ? { type: { text, pressEnter: true } } : { type: text }];
}

/**
 * Maestro's openLink takes an absolute URL (a path means nothing to Maestro): one relative to the
 * app is resolved against the first of `bases` that is a URL; a string is why it cannot be.
 */
export function openSteps(dialect: Dialect, url: string, bases: (string | undefined)[] = []): unknown[] | string {
  if (dialect !== 'maestro') return [{ openTab: url }];
  if (URL.canParse(url)) return [{ openLink: url }];
  const base = bases.find((b) => b !== undefined && /^https?:\/\//i.test(b));
  if (!base) return `Maestro opens absolute URLs only, and there is no app URL to resolve ${JSON.stringify(url)} against: write the whole URL (https://…)`;
  return [{ openLink: new URL(url, base).href }];
}

export function keySteps(dialect: Dialect, key: StudioKey): unknown[] {
  if (key === 'back') return ['back'];
  if (dialect === 'maestro') return [{ pressKey: key.startsWith('arrow') ? `Remote Dpad ${key.slice(5)}` : key[0]!.toUpperCase() + key.slice(1) }];
  return [{ pressKey: key }];
}

export interface Point {
  x: number;
  y: number;
}
type Bounds = [number, number, number, number];

const pct = (v: number) => `${Math.round(Math.min(Math.max(v, 0), 100) * 10) / 10}%`;

/** A point inside an element's bounds [left, top, right, bottom] as `point` writes it: "x%,y%" of its size. */
export function pointInside(bounds: Bounds, at: Point): string {
  const w = Math.max(1, bounds[2] - bounds[0]);
  const h = Math.max(1, bounds[3] - bounds[1]);
  return `${pct(((at.x - bounds[0]) / w) * 100)},${pct(((at.y - bounds[1]) / h) * 100)}`;
}

/** A tap at a point of the screen (nothing there to aim at): a share of the screen, so it follows a resolution change. */
export function screenTapSteps(dialect: Dialect, at: Point, screen: { width: number; height: number } | undefined): unknown[] {
  const point = screen ? `${pct((at.x / screen.width) * 100)},${pct((at.y / screen.height) * 100)}` : `${Math.round(at.x)},${Math.round(at.y)}`;
  return [{ [dialect === 'maestro' ? 'tapOn' : 'tap']: { point } }];
}

/** A path drawn with fewer points: the ones it turns at (Douglas-Peucker within `tolerance` pixels), its ends kept. */
export function simplifyPath(path: Point[], tolerance = 2): Point[] {
  if (path.length <= 2) return path;
  const a = path[0]!;
  const b = path.at(-1)!;
  const len = Math.hypot(b.x - a.x, b.y - a.y);
  let far = 0;
  let at = 0;
  for (let i = 1; i < path.length - 1; i++) {
    const p = path[i]!;
    const d = len ? Math.abs((b.x - a.x) * (a.y - p.y) - (a.x - p.x) * (b.y - a.y)) / len : Math.hypot(p.x - a.x, p.y - a.y);
    if (d > far) [far, at] = [d, i];
  }
  if (far <= tolerance) return [a, b];
  return [...simplifyPath(path.slice(0, at + 1), tolerance).slice(0, -1), ...simplifyPath(path.slice(at), tolerance)];
}

/** Points kept in a recorded drag's path. */
const kMaxPathPoints = 40;
/** A straight move this quick is a swipe (a flick); slower, or along a path, a drag. */
const kSwipeMs = 300;

/**
 * A pointer's move from press to release, in pixels of the screen: a `swipe` for a quick straight
 * flick, a `drag` from and to for a slow straight one, a `drag` along its path otherwise (Maestro has
 * only a swipe from start to end, which gets the move's ends).
 */
export function dragSteps(dialect: Dialect, path: Point[], durationMs: number): unknown[] {
  const round = (p: Point): Point => ({ x: Math.round(p.x), y: Math.round(p.y) });
  let points = simplifyPath(path.map(round));
  for (let tolerance = 4; points.length > kMaxPathPoints; tolerance *= 2) points = simplifyPath(path.map(round), tolerance);
  const ms = Math.round(Math.min(Math.max(durationMs, 50), 10_000));
  const xy = (p: Point) => [p.x, p.y];
  const from = points[0]!;
  const to = points.at(-1)!;
  if (dialect === 'maestro') return [{ swipe: { start: `${from.x},${from.y}`, end: `${to.x},${to.y}`, duration: ms } }];
  if (points.length > 2) return [{ drag: { path: points.map(xy), interval: `${Math.max(1, Math.round(ms / (points.length - 1)))}ms` } }];
  return [{ [ms <= kSwipeMs ? 'swipe' : 'drag']: { from: xy(from), to: xy(to), duration: `${ms}ms` } }];
}
