// The steps boxflow studio writes, in each dialect: boxflow's YAML (docs/flows.md) and Maestro's
// (tapOn, assertVisible, inputText, ...), as YAML list items (`{tap: {id: x}}`, `'back'`). One studio
// action may be two Maestro commands (typing, then Enter).
import type { Dialect } from './selectors.js';
import { withText } from './selectors.js';

export const kElementActions = ['tap', 'doubleTap', 'longPress', 'assertVisible', 'assertNotVisible', 'assertText', 'assertScreenshot'] as const;
export type ElementAction = (typeof kElementActions)[number];
export const kKeys = ['enter', 'backspace', 'tab', 'escape', 'back'] as const;
export type StudioKey = (typeof kKeys)[number];

const isPoint = (selector: unknown) => (typeof selector === 'string' && /^-?[\d.]+%?,\s*-?[\d.]+%?$/.test(selector)) || (typeof selector === 'object' && selector !== null && 'point' in selector);
// Maestro's text is a whole-string regex (that also matches its own text): only regex
// metacharacters need a backslash, a slash does not.
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The list items for an action on an element; a string is why there is none (an assertion needs a
 * selector, not a point).
 */
export function elementSteps(dialect: Dialect, action: ElementAction, selector: unknown, opts: { text?: string; masks?: unknown[]; name?: string } = {}): unknown[] | string {
  const point = isPoint(selector);
  if (point && (action === 'assertVisible' || action === 'assertNotVisible' || action === 'assertText')) return 'no selector singles this element out, so there is nothing to assert on; pick another element';
  if (action === 'assertScreenshot') {
    const name = opts.name?.trim() || 'screen';
    const masks = (opts.masks ?? []).filter((m) => !isPoint(m));
    if (dialect === 'maestro') return [{ takeScreenshot: name }];
    return [masks.length ? { assertScreenshot: { name, mask: masks } } : { assertScreenshot: name }];
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
  if (dialect === 'maestro') return [{ pressKey: key[0]!.toUpperCase() + key.slice(1) }];
  return [{ pressKey: key }];
}
