// The words a step's default label is made of: `tap #email`, `type "demo@…"`, `assertVisible "Welcome"`.
// Each step's own label function sits in its entry of the step table (steps.ts) and builds on these;
// boxflow's reports (runner/label.ts) and Playwright's step titles (playwright/titles.ts) both use it.
import { parseRegexLiteral } from '../layout/text.js';
import { kNestedKeys, kSelectorKeys, type Selector } from '../layout/types.js';
import type { Target } from './types.js';

/**
 * What a label function gets besides the step: `mask` hides secrets in a value before it is cut
 * short (a secret cut short is one no masker finds afterwards).
 */
export interface LabelCtx {
  mask(text: string): string;
}

export const kNoMask: LabelCtx = { mask: (text) => text };

/** A value of the step, masked, then cut to `n` characters. */
export function clip(ctx: LabelCtx, s: string, n: number): string {
  const m = ctx.mask(s);
  return m.length > n ? `${m.slice(0, n - 1)}…` : m;
}

export const quoted = (ctx: LabelCtx, s: string, n = 40): string => JSON.stringify(clip(ctx, s, n));

/** Text as a label shows it: plain text quoted ("Welcome"), a /regex/ as written (/Welcome, .+/). */
const textLabel = (ctx: LabelCtx, s: string): string => (isRegexLiteral(s) ? clip(ctx, s, 40) : quoted(ctx, s));

/** The last part of a path: `runFlow login.yaml`, `installApp app.apk`. */
export const baseName = (ctx: LabelCtx, file: string): string => ctx.mask(file.slice(file.lastIndexOf('/') + 1));

/** A selector as a user would point at it: "Welcome", #email, .todo label, [Menu], button "Sign in", "OK" below #title. */
export function selectorLabel(sel: Selector, ctx: LabelCtx = kNoMask): string {
  if (typeof sel === 'string') return textLabel(ctx, sel);
  const relative = kNestedKeys.filter((k) => sel[k] !== undefined);
  if (relative.length) {
    const base = { ...sel };
    for (const k of relative) delete base[k];
    const inner = (v: Selector | Selector[]) => (Array.isArray(v) ? `[${v.map((s) => selectorLabel(s, ctx)).join(', ')}]` : selectorLabel(v, ctx));
    if (Object.keys(base).length) return `${selectorLabel(base, ctx)} ${relative.map((k) => `${k} ${inner(sel[k]!)}`).join(' ')}`;
  }
  const keys = Object.keys(sel).filter((k) => sel[k as keyof typeof sel] !== undefined);
  const index = sel.index !== undefined ? ` [${sel.index}]` : '';
  // As the user reads the page: `button "Sign in"`, `label "Email"`, `placeholder "you@example.com"`.
  if (sel.role !== undefined && sel.name !== undefined && keys.length === (index ? 3 : 2)) return `${sel.role} ${textLabel(ctx, sel.name)}${index}`;
  if (keys.length === 1 || (keys.length === 2 && index)) {
    if (sel.role !== undefined) return `role ${sel.role}${index}`;
    if (sel.labelText !== undefined) return `label ${textLabel(ctx, sel.labelText)}${index}`;
    if (sel.placeholder !== undefined) return `placeholder ${textLabel(ctx, sel.placeholder)}${index}`;
    if (sel.css !== undefined) return clip(ctx, sel.css, 60) + index;
    if (sel.id !== undefined) return `#${ctx.mask(sel.id)}${index}`;
    if (sel.text !== undefined) return textLabel(ctx, sel.text) + index;
    if (sel.textContains !== undefined) return `…${quoted(ctx, sel.textContains)}…${index}`;
    if (sel.desc !== undefined) return `[${clip(ctx, sel.desc, 40)}]${index}`;
    if (sel.xpath !== undefined) return clip(ctx, sel.xpath, 60) + index;
    if (sel.class !== undefined) return ctx.mask(sel.class) + index;
  }
  return clip(ctx, fullSelector(sel, ctx), 80);
}

const isRegexLiteral = (s: string): boolean => {
  try {
    return parseRegexLiteral(s) !== null;
  } catch {
    return false;
  }
};

/**
 * Every key of a selector, as layout's describeSelector writes it (`{traits: ["square"], size:
 * {width: 48}}`), secrets masked; flow/ may not import layout's query code, only its types and text.
 */
function fullSelector(sel: Selector | Record<string, unknown>, ctx: LabelCtx): string {
  const value = (v: unknown): string => {
    if (typeof v === 'string') return isRegexLiteral(v) ? ctx.mask(v) : JSON.stringify(ctx.mask(v));
    if (Array.isArray(v)) return `[${v.map(value).join(', ')}]`;
    if (typeof v === 'object' && v !== null) return fullSelector(v as Record<string, unknown>, ctx);
    return String(v);
  };
  if (typeof sel !== 'object') return value(sel);
  const rec = sel as Record<string, unknown>;
  const keys = [...kSelectorKeys.filter((k) => k in rec), ...Object.keys(rec).filter((k) => !(kSelectorKeys as readonly string[]).includes(k))];
  return `{${keys.filter((k) => rec[k] !== undefined).map((k) => `${k}: ${value(rec[k])}`).join(', ')}}`;
}

export function targetLabel(t: Target, ctx: LabelCtx = kNoMask): string {
  if ('selector' in t) return selectorLabel(t.selector, ctx);
  if ('point' in t) return `(${t.point.x}, ${t.point.y})`;
  if ('percent' in t) return `${t.percent.x}%,${t.percent.y}%`;
  if ('runtimePoint' in t) return `point ${quoted(ctx, t.runtimePoint)}`;
  return quoted(ctx, t.prompt);
}
