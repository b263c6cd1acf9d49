// Selectors over a LayoutTree: every key of the flow language, combined with AND. The rules a
// user relies on (which fields text keys look at, the innermost HTML match, runs of text, positions,
// order and `index`) are in docs/flows.md, "Selectors"; the code below follows them one by one.
import { distance } from 'fastest-levenshtein';
import { BoxflowError } from '../errors.js';
import {
  kAriaRoles,
  kNameWithoutRole,
  kPositionalKeys,
  kSelectorKeyKinds,
  kSelectorKeys,
  kStateKeys,
  kTraits,
  type Bounds,
  type LayoutNode,
  type LayoutTree,
  type Selector,
  type SelectorKeyKind,
  type SelectorObject,
} from './types.js';
import { accessibleName, ariaHidden, kNoAndroidLabel, labelTexts, roleOf } from './aria.js';
import { cssMatches } from './css.js';
import { containsMatcher, normaliseText, parseRegexLiteral, textMatcher, type TextMatcher } from './text.js';
import { hintOf, normDesc, normHint, normText, textRuns, treeIndex, type TreeIndex } from './tree.js';
import { xpathMatches } from './xpath.js';

export interface QueryOptions {
  /** Only nodes that are visible on screen (default true). */
  visibleOnly?: boolean;
}

/** Every selector key, in the order describeSelector prints them. */
export const selectorKeys = kSelectorKeys;

type Positional = (typeof kPositionalKeys)[number];

const isSelectorValue = (v: unknown) => typeof v === 'string' || (typeof v === 'object' && v !== null && !Array.isArray(v));
const isSize = (v: unknown): boolean => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  const ok = (k: string) => o[k] === undefined || (typeof o[k] === 'number' && Number.isFinite(o[k]) && o[k] >= 0);
  return Object.keys(o).every((k) => ['width', 'height', 'tolerance'].includes(k) && ok(k)) && (o.width !== undefined || o.height !== undefined);
};

/** What each kind of key takes, for the error message, and the check. */
const kValueRules: Record<SelectorKeyKind, [string, (v: unknown) => boolean]> = {
  pattern: ['a string', (v) => typeof v === 'string'],
  string: ['a string', (v) => typeof v === 'string'],
  role: ['an ARIA role (button, link, textbox, checkbox, heading, ...)', (v) => typeof v === 'string' && (kAriaRoles as readonly string[]).includes(v)],
  traits: [`a non-empty list of ${kTraits.join(', ')}`, (v) => Array.isArray(v) && v.length > 0 && v.every((t) => (kTraits as readonly unknown[]).includes(t))],
  size: ['{width, height, tolerance} (numbers >= 0, width or height required)', isSize],
  index: ['a whole number (negative counts from the end)', (v) => Number.isInteger(v)],
  state: ['true or false', (v) => typeof v === 'boolean'],
  position: ['a selector', isSelectorValue],
  selector: ['a selector', isSelectorValue],
  selectors: ['a non-empty list of selectors', (v) => Array.isArray(v) && v.length > 0 && v.every(isSelectorValue)],
};

/** A bare string is `{text}`; an object is checked key by key (INVALID_ARGUMENT on a bad one). */
export function toSelectorObject(selector: Selector): SelectorObject {
  if (typeof selector === 'string') return { text: selector };
  if (typeof selector !== 'object' || selector === null || Array.isArray(selector)) {
    throw new BoxflowError('INVALID_ARGUMENT', `a selector is a string or an object, not ${Array.isArray(selector) ? 'an array' : String(selector)}`);
  }
  for (const [key, value] of Object.entries(selector)) {
    if (value === undefined) continue;
    const kind = (kSelectorKeyKinds as Record<string, SelectorKeyKind>)[key];
    if (!kind) throw new BoxflowError('INVALID_ARGUMENT', `unknown selector key "${key}" (known: ${selectorKeys.join(', ')})`);
    const [want, ok] = kValueRules[kind];
    if (!ok(value)) throw new BoxflowError('INVALID_ARGUMENT', `selector key "${key}" takes ${want}, got ${JSON.stringify(value)}`);
  }
  if (selector.name !== undefined && selector.role === undefined) throw new BoxflowError('INVALID_ARGUMENT', kNameWithoutRole);
  return selector;
}

function idMatcher(want: string, format: LayoutTree['format']): (id: string) => boolean {
  const re = parseRegexLiteral(want);
  if (re) return (id) => re.test(id);
  if (format === 'html') return (id) => id === want;
  return (id) => id === want || (id.length > want.length && id.endsWith(want) && id[id.length - want.length - 1] === '/');
}

function classMatcher(want: string, format: LayoutTree['format']): (tag: string) => boolean {
  const re = parseRegexLiteral(want);
  if (re) return (tag) => re.test(tag);
  if (format === 'html') {
    const lower = want.toLowerCase();
    return (tag) => tag === lower;
  }
  return (tag) => tag === want || (tag.length > want.length && tag.endsWith(want) && tag[tag.length - want.length - 1] === '.');
}

/** `runs`: a run of text the node holds beside its element children may match on its own (plain `text`). */
function anyTextField(m: TextMatcher, idx: TreeIndex, runs = false): (i: number) => boolean {
  return (i) => {
    const n = idx.nodes[i]!;
    return (
      m(n.text, normText(idx, i)) ||
      (n.desc !== '' && m(n.desc, normDesc(idx, i))) ||
      (hintOf(n) !== '' && m(hintOf(n), normHint(idx, i))) ||
      (runs && textRuns(n).some((run) => m(run)))
    );
  };
}

interface Relation {
  key: Positional;
  anchors: Bounds[];
}

/** Gap to the nearest anchor the node is on the right side of, and whether it overlaps it on the other axis. */
function relate(b: Bounds, rel: Relation, self: Bounds | undefined): { gap: number; aligned: boolean } | undefined {
  let best: { gap: number; aligned: boolean } | undefined;
  for (const a of rel.anchors) {
    if (a === self) continue;
    let gap: number;
    let aligned: boolean;
    switch (rel.key) {
      case 'below':
        gap = b.top - a.bottom;
        aligned = b.left < a.right && b.right > a.left;
        break;
      case 'above':
        gap = a.top - b.bottom;
        aligned = b.left < a.right && b.right > a.left;
        break;
      case 'leftOf':
        gap = a.left - b.right;
        aligned = b.top < a.bottom && b.bottom > a.top;
        break;
      case 'rightOf':
        gap = b.left - a.right;
        aligned = b.top < a.bottom && b.bottom > a.top;
        break;
    }
    if (gap < 0) continue;
    if (!best || (aligned && !best.aligned) || (aligned === best.aligned && gap < best.gap)) best = { gap, aligned };
  }
  return best;
}

/** Nodes matching the selector, in selector order (see the rules above). */
export function query(tree: LayoutTree, selector: Selector, opts: QueryOptions = {}): LayoutNode[] {
  return select(tree, selector, opts, true);
}

function needGeometry(tree: LayoutTree, what: string): void {
  if (!tree.hasGeometry) throw new BoxflowError('GEOMETRY_UNAVAILABLE', `${what} needs element positions, and this ${tree.format} layout has none`);
}

/** Prefix counts of `inner`'s matches over document order, to count them inside any subtree in O(1). */
function descendantCounts(idx: TreeIndex, inner: LayoutNode[]): Int32Array {
  const n = idx.nodes.length;
  const hits = new Int32Array(n + 1);
  for (const d of inner) hits[idx.pos.get(d)! + 1]! += 1;
  for (let i = 1; i <= n; i++) hits[i]! += hits[i - 1]!;
  // hits[i] = matches at positions < i, so a subtree (p, end[p]] holds hits[end+1] - hits[p+1].
  return hits;
}

function select(tree: LayoutTree, selector: Selector, opts: QueryOptions, innermost: boolean): LayoutNode[] {
  const sel = toSelectorObject(selector);
  const visibleOnly = opts.visibleOnly ?? true;
  const idx = treeIndex(tree);
  const { nodes } = idx;
  const preds: ((i: number) => boolean)[] = [];

  // 1. Cheap structural and state checks first, text last.
  if (visibleOnly) preds.push((i) => nodes[i]!.visible);
  for (const k of kStateKeys) {
    const want = sel[k];
    if (want !== undefined) preds.push((i) => nodes[i]!.state[k] === want);
  }
  if (sel.size !== undefined) {
    needGeometry(tree, '"size"');
    const { width, height, tolerance = 0 } = sel.size;
    preds.push((i) => {
      const b = nodes[i]!.bounds;
      return b !== undefined && (width === undefined || Math.abs(b.right - b.left - width) <= tolerance) && (height === undefined || Math.abs(b.bottom - b.top - height) <= tolerance);
    });
  }
  for (const trait of new Set(sel.traits ?? [])) {
    if (trait === 'square') {
      needGeometry(tree, 'the trait "square"');
      preds.push((i) => {
        const b = nodes[i]!.bounds;
        return b !== undefined && b.bottom > b.top && Math.abs(1 - (b.right - b.left) / (b.bottom - b.top)) < 0.03;
      });
    } else {
      const min = trait === 'text' ? 1 : 201;
      preds.push((i) => normText(idx, i).length >= min);
    }
  }
  if (sel.css !== undefined) {
    const set = cssMatches(tree, sel.css);
    preds.push((i) => set.has(nodes[i]!));
  }
  if (sel.xpath !== undefined) {
    const set = xpathMatches(tree, sel.xpath);
    preds.push((i) => set.has(nodes[i]!));
  }
  if (sel.childOf !== undefined) {
    const inside = new Int32Array(nodes.length + 1);
    for (const a of query(tree, sel.childOf, opts)) {
      const p = idx.pos.get(a)!;
      inside[p + 1]! += 1;
      inside[idx.end[p]! + 1]! -= 1;
    }
    for (let i = 1; i < inside.length; i++) inside[i]! += inside[i - 1]!;
    preds.push((i) => inside[i]! > 0);
  }
  if (sel.containsChild !== undefined) {
    const parents = new Set(select(tree, sel.containsChild, opts, false).map((c) => c.parent));
    preds.push((i) => parents.has(nodes[i]!));
  }
  for (const inner of sel.containsDescendants ?? []) {
    const hits = descendantCounts(idx, select(tree, inner, opts, false));
    preds.push((i) => hits[idx.end[i]! + 1]! - hits[i + 1]! > 0);
  }
  const relations: Relation[] = [];
  // The selector's own key order decides which relation orders the matches.
  for (const key of Object.keys(sel).filter((k): k is Positional => (kPositionalKeys as readonly string[]).includes(k))) {
    const anchorSel = sel[key];
    if (anchorSel === undefined) continue;
    needGeometry(tree, `"${key}"`);
    const anchors = query(tree, anchorSel, opts).flatMap((a) => (a.bounds ? [a.bounds] : []));
    const rel = { key, anchors };
    relations.push(rel);
    preds.push((i) => {
      const b = nodes[i]!.bounds;
      return b !== undefined && relate(b, rel, b) !== undefined;
    });
  }
  if (sel.id !== undefined) {
    const m = idMatcher(sel.id, tree.format);
    preds.push((i) => m(nodes[i]!.id));
  }
  if (sel.class !== undefined) {
    const m = classMatcher(sel.class, tree.format);
    preds.push((i) => m(nodes[i]!.tag));
  }
  if (sel.desc !== undefined) {
    const m = textMatcher(sel.desc);
    preds.push((i) => m(nodes[i]!.desc, normDesc(idx, i)));
  }
  if (sel.placeholder !== undefined) {
    const m = textMatcher(sel.placeholder);
    preds.push((i) => hintOf(nodes[i]!) !== '' && m(hintOf(nodes[i]!), normHint(idx, i)));
  }
  if (sel.labelText !== undefined) {
    if (tree.format !== 'html') throw new BoxflowError('STEP_INVALID', kNoAndroidLabel);
    const m = textMatcher(sel.labelText);
    preds.push((i) => labelTexts(tree, nodes[i]!).some((t) => m(t, t)));
  }
  if (sel.role !== undefined) {
    const role = sel.role;
    // Playwright's getByRole leaves out what is hidden from assistive technology.
    preds.push((i) => roleOf(tree, nodes[i]!) === role && !ariaHidden(nodes[i]!));
    if (sel.name !== undefined) {
      const m = textMatcher(sel.name);
      preds.push((i) => {
        const name = accessibleName(tree, nodes[i]!);
        return m(name, name);
      });
    }
  }
  const hasText = sel.text !== undefined || sel.textContains !== undefined || (sel.traits ?? []).some((t) => t !== 'square');
  if (sel.text !== undefined) preds.push(anyTextField(textMatcher(sel.text), idx, parseRegexLiteral(sel.text) === null));
  if (sel.textContains !== undefined) preds.push(anyTextField(containsMatcher(sel.textContains), idx));

  // 2. One pass over the nodes (the root is never a match).
  let matches: number[] = [];
  outer: for (let i = 1; i < nodes.length; i++) {
    for (const p of preds) if (!p(i)) continue outer;
    matches.push(i);
  }

  // 3. HTML text keys: keep the innermost. Descendants follow their ancestor in document order,
  //    so checking the next match is enough. (Not for containsChild/containsDescendants, which ask
  //    about every element that matches.)
  if (innermost && hasText && tree.format === 'html' && matches.length > 1) {
    matches = matches.filter((p, k) => {
      const next = matches[k + 1];
      return next === undefined || next > idx.end[p]!;
    });
  }

  // 4. Order, then index.
  let ordered: LayoutNode[];
  if (relations.length) {
    const rel = relations[0]!;
    const keyed = matches.map((p) => ({ p, n: nodes[p]!, r: relate(nodes[p]!.bounds!, rel, nodes[p]!.bounds)! }));
    keyed.sort((x, y) => Number(y.r.aligned) - Number(x.r.aligned) || x.r.gap - y.r.gap || byPosition(x.n, y.n) || x.p - y.p);
    ordered = keyed.map((k) => k.n);
  } else if (tree.hasGeometry) {
    const keyed = matches.map((p) => ({ p, n: nodes[p]! }));
    keyed.sort((x, y) => byPosition(x.n, y.n) || x.p - y.p);
    ordered = keyed.map((k) => k.n);
  } else {
    ordered = matches.map((p) => nodes[p]!);
  }
  if (sel.index === undefined) return ordered;
  const at = ordered[sel.index < 0 ? ordered.length + sel.index : sel.index];
  return at ? [at] : [];
}

function byPosition(a: LayoutNode, b: LayoutNode): number {
  if (!a.bounds || !b.bounds) return (a.bounds ? 0 : 1) - (b.bounds ? 0 : 1);
  return a.bounds.top - b.bounds.top || a.bounds.left - b.bounds.left;
}

/** The centre of a node's bounds, rounded to whole pixels; `mask` hides secrets in the error's node text. */
export function centre(node: LayoutNode, mask?: (text: string) => string): { x: number; y: number } {
  const b = node.bounds;
  if (!b) throw new BoxflowError('GEOMETRY_UNAVAILABLE', `${describeNode(node, mask)} has no bounds, so it cannot be aimed at`);
  return { x: Math.round((b.left + b.right) / 2), y: Math.round((b.top + b.bottom) / 2) };
}

function describeValue(v: unknown): string {
  if (typeof v === 'string') return parseRegexLiteralSafe(v) ? v : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(describeValue).join(', ')}]`;
  if (typeof v === 'object' && v !== null) return describeSelector(v as Selector);
  return String(v);
}

function parseRegexLiteralSafe(s: string): boolean {
  try {
    return parseRegexLiteral(s) !== null;
  } catch {
    return false;
  }
}

/** For messages: `"Log in"`, `{text: /^Log/i, enabled: true, below: {id: "email"}}`. */
export function describeSelector(selector: Selector): string {
  if (typeof selector === 'string') return describeValue(selector);
  if (typeof selector !== 'object' || selector === null) return String(selector);
  const parts: string[] = [];
  const rec = selector as Record<string, unknown>;
  for (const k of selectorKeys) if (rec[k] !== undefined) parts.push(`${k}: ${describeValue(rec[k])}`);
  for (const k of Object.keys(rec)) if (!(k in kSelectorKeyKinds) && rec[k] !== undefined) parts.push(`${k}: ${describeValue(rec[k])}`);
  return `{${parts.join(', ')}}`;
}

function shortBounds(b: Bounds): string {
  const r = (n: number) => Math.round(n * 10) / 10;
  return `[${r(b.left)},${r(b.top)}][${r(b.right)},${r(b.bottom)}]`;
}

/**
 * For messages and reports: `Button "Just once" #android:id/button_once [72,2124][538,2178] disabled`.
 * Long text is cut, after `mask` (a secret cut short is one no masker finds afterwards).
 */
export function describeNode(node: LayoutNode, mask: (text: string) => string = (t) => t): string {
  const simple = node.tag.includes('.') ? node.tag.slice(node.tag.lastIndexOf('.') + 1) : node.tag;
  const parts = [simple];
  const clip = (text: string) => {
    const s = mask(text);
    return s.length > 60 ? `${s.slice(0, 57)}...` : s;
  };
  if (node.text) parts.push(JSON.stringify(clip(normaliseText(node.text))));
  if (node.desc && node.desc !== node.text) parts.push(`desc=${JSON.stringify(clip(normaliseText(node.desc)))}`);
  if (node.id) parts.push(`#${node.id}`);
  if (node.bounds) parts.push(shortBounds(node.bounds));
  if (!node.visible) parts.push('hidden');
  if (!node.state.enabled) parts.push('disabled');
  for (const k of ['checked', 'selected', 'focused'] as const) if (node.state[k]) parts.push(k);
  return parts.join(' ');
}

/**
 * Candidates for a selector that failed, best first: nodes whose text, desc or id is closest (edit
 * distance, case-insensitive) to the selector's strings; a node that matches exactly but is hidden
 * or in the wrong state ranks first. Without strings to compare (css, xpath, state only), the
 * selector's hidden matches.
 */
export function nearMatches(tree: LayoutTree, selector: Selector, n = 5): LayoutNode[] {
  let sel: SelectorObject;
  try {
    sel = toSelectorObject(selector);
  } catch {
    return [];
  }
  const idx = treeIndex(tree);
  const targets: { value: string; fields: ('text' | 'desc' | 'id' | 'hint' | 'tag')[] }[] = [];
  const plain = (s: string) => {
    const re = parseRegexLiteralSafe(s) ? /^\/(.+)\/[a-z]*$/s.exec(s)![1]!.replace(/[\\^$.*+?()[\]{}|]/g, '') : s;
    return normaliseText(re).toLowerCase();
  };
  if (sel.text !== undefined) targets.push({ value: plain(sel.text), fields: ['text', 'desc', 'hint'] });
  if (sel.textContains !== undefined) targets.push({ value: plain(sel.textContains), fields: ['text', 'desc', 'hint'] });
  if (sel.desc !== undefined) targets.push({ value: plain(sel.desc), fields: ['desc'] });
  if (sel.id !== undefined) targets.push({ value: plain(sel.id), fields: ['id'] });
  if (sel.class !== undefined) targets.push({ value: plain(sel.class), fields: ['tag'] });
  // An accessible name or a label is most often the text or description of the element (or of its label).
  if (sel.name !== undefined) targets.push({ value: plain(sel.name), fields: ['text', 'desc', 'hint'] });
  if (sel.labelText !== undefined) targets.push({ value: plain(sel.labelText), fields: ['text', 'desc'] });
  if (sel.placeholder !== undefined) targets.push({ value: plain(sel.placeholder), fields: ['hint'] });
  if (!targets.length) {
    try {
      return query(tree, selector, { visibleOnly: false }).filter((x) => !x.visible).slice(0, n);
    } catch {
      return [];
    }
  }
  const kMaxLen = 200;
  const scored: { node: LayoutNode; score: number; i: number }[] = [];
  for (let i = 1; i < idx.nodes.length; i++) {
    const node = idx.nodes[i]!;
    let best = Infinity;
    for (const t of targets) {
      for (const f of t.fields) {
        let v: string;
        if (f === 'text') v = normText(idx, i);
        else if (f === 'desc') v = normDesc(idx, i);
        else if (f === 'hint') v = normHint(idx, i);
        else if (f === 'id') v = node.id.slice(node.id.lastIndexOf('/') + 1);
        else v = node.tag.slice(node.tag.lastIndexOf('.') + 1);
        if (!v) continue;
        v = v.toLowerCase();
        const d = v === t.value ? 0 : v.includes(t.value) ? 0.5 : distance(t.value, v.length > kMaxLen ? v.slice(0, kMaxLen) : v) / Math.max(t.value.length, 1);
        if (d < best) best = d;
      }
    }
    if (best <= 0.5) scored.push({ node, score: best, i });
  }
  scored.sort((a, b) => a.score - b.score || Number(b.node.visible) - Number(a.node.visible) || a.i - b.i);
  // HTML ancestors repeat their children's text: keep the innermost of equal candidates.
  const kept =
    tree.format === 'html'
      ? scored.filter((s) => !scored.some((o) => o.i > s.i && o.i <= idx.end[s.i]! && o.node.text === s.node.text))
      : scored;
  return kept.slice(0, n).map((s) => s.node);
}
