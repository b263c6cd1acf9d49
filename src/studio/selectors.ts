// The selector boxflow studio writes for an element: every candidate is run against the live layout
// with the runner's own resolver (src/layout/query.ts), and the first that matches only that element
// wins, in the order a person would keep them (as Playwright's codegen prefers getByTestId,
// getByRole, getByLabel, getByPlaceholder and getByText to CSS): an id the author wrote, a test id,
// the role with its accessible name, the label, the placeholder, the text (or description), a
// short CSS path (Linux boxes) or the class (Android), then, when nothing else singles it out, an
// index or a point. Each candidate carries how many elements it matches, so the page can show why
// one was chosen. Maestro has no role, label or placeholder selector: its files get the others.
import { accessibleName, labelTexts, roleOf } from '../layout/aria.js';
import { query } from '../layout/query.js';
import { hintOf } from '../layout/tree.js';
import { normaliseText, parseRegexLiteral } from '../layout/text.js';
import type { LayoutNode, LayoutTree, Selector, SelectorObject } from '../layout/types.js';
import { parseMaestroYaml } from '../flow/maestro.js';

export type Dialect = 'boxflow' | 'maestro';

export interface Candidate {
  /** What the flow file gets (boxflow: a selector; Maestro: a selector as Maestro writes it). */
  value: unknown;
  kind: 'id' | 'testId' | 'role' | 'label' | 'placeholder' | 'text' | 'desc' | 'css' | 'class' | 'index' | 'point';
  /** Elements it matches in the layout (visible ones, as the runner sees them). */
  count: number;
  /** It matches exactly one element, and that is the element (or inside it, or what it is inside of). */
  unique: boolean;
}

export interface Suggestion {
  best: Candidate;
  candidates: Candidate[];
}

/** Tags a person clicks on: the element a pointer over a label or icon inside them means. */
const kInteractive = new Set(['a', 'button', 'input', 'select', 'textarea', 'label', 'summary', 'option', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'td', 'th']);
const kInteractiveRoles = new Set(['button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'option', 'switch', 'status']);
const kMaxText = 80;

const related = (a: LayoutNode, b: LayoutNode) => a === b || isInside(a, b) || isInside(b, a);
function isInside(node: LayoutNode, ancestor: LayoutNode): boolean {
  for (let p = node.parent; p; p = p.parent) if (p === ancestor) return true;
  return false;
}

const contains = (n: LayoutNode, x: number, y: number) => !!n.bounds && x >= n.bounds.left && x < n.bounds.right && y >= n.bounds.top && y < n.bounds.bottom;
const area = (n: LayoutNode) => (n.bounds ? (n.bounds.right - n.bounds.left) * (n.bounds.bottom - n.bounds.top) : Infinity);

/**
 * The element at a point of the screen: the smallest visible element there, or, when that is a bare
 * part of something a person clicks on (an icon in a button, a span in a link), that thing.
 */
export function elementAt(tree: LayoutTree, x: number, y: number): LayoutNode | undefined {
  let best: LayoutNode | undefined;
  for (const n of tree.nodes) {
    if (!n.parent || !n.visible || !contains(n, x, y)) continue;
    if (!best || area(n) < area(best) || (area(n) === area(best) && isInside(n, best))) best = n;
  }
  if (!best || tree.format !== 'html') return best;
  for (let n: LayoutNode | null = best, up = 0; n?.parent && up < 4; n = n.parent, up++) {
    if (kInteractive.has(n.tag) || kInteractiveRoles.has(n.attributes.role ?? '') || n.id) return n;
  }
  return best;
}

/** An id a framework generated (ember123, :r1:, react-select-2-input, a hash): no good for a flow. */
function generatedId(id: string): boolean {
  return /\d{3,}|^:|[:]|^[a-f0-9]{8,}$/i.test(id) || id.length > 60;
}
const goodClass = (c: string) => /^[A-Za-z][\w-]*$/.test(c) && !/\d{3,}|^(css|sc|jsx|svelte|emotion)-|^_/.test(c) && c.length <= 30;

function cssIdent(s: string): string | undefined {
  return /^[A-Za-z_][\w-]*$/.test(s) ? s : undefined;
}
const attrValue = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** CSS selectors for an HTML element, shortest first: test ids, name, tag.class, then a path of tags under an ancestor with an id. */
export function cssCandidates(node: LayoutNode): string[] {
  const out: string[] = [];
  for (const a of ['data-testid', 'data-test-id', 'data-test', 'data-qa']) {
    const v = node.attributes[a];
    if (v) out.push(`[${a}=${attrValue(v)}]`);
  }
  if (node.attributes.name && ['input', 'select', 'textarea', 'button'].includes(node.tag)) out.push(`${node.tag}[name=${attrValue(node.attributes.name)}]`);
  const classes = (node.attributes.class ?? '').split(/\s+/).filter(goodClass).slice(0, 3);
  if (classes.length) out.push(`${node.tag}.${classes.join('.')}`);
  if (node.attributes.type && node.tag === 'input') out.push(`input[type=${attrValue(node.attributes.type)}]`);
  out.push(node.tag);
  // A path of tags (with :nth-of-type where siblings share the tag), under the nearest ancestor with a usable id, else from <body>.
  const segs: string[] = [];
  let anchor: string | undefined;
  for (let n: LayoutNode | null = node; n?.parent; n = n.parent) {
    if (n !== node && n.id && !generatedId(n.id)) {
      anchor = cssIdent(n.id) ? `#${n.id}` : `[id=${attrValue(n.id)}]`;
      break;
    }
    if (n.tag === 'body' || n.tag === 'html' || n.tag.startsWith('#')) break;
    const same = n.parent.children.filter((c) => c.tag === n!.tag);
    segs.unshift(same.length > 1 ? `${n.tag}:nth-of-type(${same.indexOf(n) + 1})` : n.tag);
  }
  for (let k = 1; k <= segs.length; k++) {
    const chain = segs.slice(segs.length - k).join(' > ');
    if (anchor) out.push(`${anchor} ${chain}`);
    out.push(chain);
  }
  return [...new Set(out)];
}

const shortId = (id: string) => id.slice(id.lastIndexOf('/') + 1);
const simpleClass = (tag: string) => tag.slice(tag.lastIndexOf('.') + 1);
// A Maestro id is a whole-string regex: only its metacharacters need a backslash, a slash does not.
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Text a person can read as a selector: one line, not too long, not a /regex/. */
function readableText(s: string): string | undefined {
  const t = normaliseText(s);
  return t && t.length <= kMaxText && !t.includes('\n') && !parseRegexLiteral(t) && !t.includes('${') ? t : undefined;
}

/** A Maestro selector value as boxflow's Maestro reader turns it into a boxflow selector. */
export function maestroSelector(value: unknown, web: boolean): Selector {
  const text = `${web ? 'url: http://localhost/' : 'appId: studio.app'}\n---\n- assertVisible: ${JSON.stringify(value)}\n`;
  const flow = parseMaestroYaml(text, '/studio/selector.yaml');
  return (flow.steps[0] as { selector: Selector }).selector;
}

/** Every candidate for `node`, in order of robustness, and the best one: the first that singles it out. */
export function suggestSelectors(tree: LayoutTree, node: LayoutNode, dialect: Dialect): Suggestion {
  const web = tree.format === 'html';
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  const toBoxflow = (value: unknown): Selector => (dialect === 'maestro' ? maestroSelector(value, web) : (value as Selector));
  const matches = (value: unknown): LayoutNode[] => {
    try {
      return query(tree, toBoxflow(value));
    } catch {
      return [];
    }
  };
  const add = (kind: Candidate['kind'], value: unknown) => {
    const key = JSON.stringify(value);
    if (seen.has(key)) return;
    seen.add(key);
    const found = matches(value);
    candidates.push({ value, kind, count: found.length, unique: found.length === 1 && related(found[0]!, node) });
  };
  /** `value` narrowed to this node by its place among the matches (index), when it matches several. */
  const indexed = (base: Record<string, unknown>) => {
    const found = matches(base);
    const k = found.findIndex((m) => related(m, node));
    if (found.length > 1 && k >= 0) add('index', { ...base, index: k });
  };

  // 1. The id (Android: the part after the package first, as boxflow matches it).
  const ids = !node.id || (web && generatedId(node.id)) ? [] : web || shortId(node.id) === node.id ? [node.id] : [shortId(node.id), node.id];
  const idValue = (id: string) => ({ id: dialect === 'maestro' ? escapeRe(id) : id });
  for (const id of ids) add('id', idValue(id));
  // 2. Test ids (a CSS attribute on the web: the author put them there for tests).
  if (web) for (const css of cssCandidates(node).filter((c) => c.startsWith('[data-'))) add('testId', { css });
  // 3. What a person reads the element by: its role and accessible name, its label, its placeholder
  //    (boxflow only). On Android a node's text is its own and what its users write: the role comes after it.
  const role = dialect === 'boxflow' ? roleOf(tree, node) : undefined;
  const roleName = role ? readableText(accessibleName(tree, node)) : undefined;
  const named = role && roleName && !kNamelessRoles.has(role) ? { role, name: roleName } : undefined;
  if (named && web) add('role', named);
  if (dialect === 'boxflow' && web) {
    const label = labelOf(tree, node);
    if (label) add('label', { labelText: label });
  }
  const placeholder = dialect === 'boxflow' ? readableText(hintOf(node)) : undefined;
  if (placeholder) add('placeholder', { placeholder });
  // 4. The text, else the description (aria-label, alt, title; content-desc). A bare string is a text selector in both dialects.
  const text = readableText(node.text) ?? (web ? undefined : readableText(node.attributes.hint ?? ''));
  if (text) add('text', text);
  const desc = readableText(node.desc);
  if (desc && desc !== text) add('desc', dialect === 'maestro' ? desc : { desc });
  if (named && !web) add('role', named);
  // A role alone singles out an element only when it is the one of its kind (the one text field).
  if (role && !kNamelessRoles.has(role)) add('role', { role });
  // 5. A short CSS path (web), or the class (Android; Maestro has no class selector).
  if (web) for (const css of cssCandidates(node).filter((c) => !c.startsWith('[data-'))) add('css', { css });
  else if (dialect === 'boxflow') add('class', { class: simpleClass(node.tag) });
  // 6. Narrowed by index: the role's, the text's, the id's, the class's.
  if (named) indexed(named);
  if (text) indexed({ text });
  if (ids[0]) indexed(idValue(ids[0]));
  if (!web && dialect === 'boxflow') indexed({ class: simpleClass(node.tag) });
  const real = [...candidates];
  let best = real.find((c) => c.unique);
  // 7. A point: the element's centre, as a share of the screen (it follows a resolution change).
  if (!best && node.bounds && tree.screen) {
    const pct = (v: number, of: number) => `${Math.round((v / of) * 1000) / 10}%`;
    const x = pct((node.bounds.left + node.bounds.right) / 2, tree.screen.width);
    const y = pct((node.bounds.top + node.bounds.bottom) / 2, tree.screen.height);
    best = { value: dialect === 'maestro' ? { point: `${x},${y}` } : `${x},${y}`, kind: 'point', count: 1, unique: true };
    real.push(best);
  }
  return { best: best ?? real[0] ?? { value: dialect === 'maestro' ? { point: '50%,50%' } : '50%,50%', kind: 'point', count: 0, unique: false }, candidates: real };
}

/** Roles no one finds an element by: a wrapper, a paragraph, the page itself. */
const kNamelessRoles = new Set(['generic', 'none', 'presentation', 'paragraph', 'document', 'rowgroup', 'list', 'listitem', 'group']);

/** The one label a form field has (its <label>, aria-label or aria-labelledby text), when it reads well. */
function labelOf(tree: LayoutTree, node: LayoutNode): string | undefined {
  try {
    const texts = labelTexts(tree, node);
    return texts.length ? readableText(texts[0]!) : undefined;
  } catch {
    return undefined;
  }
}

const kNoValueInputs = new Set(['checkbox', 'radio', 'file', 'hidden', 'password', 'submit', 'button', 'reset', 'image']);

/**
 * What a form field holds (its text in the layout is its value), for a value assertion; undefined
 * for an element that is not a field, and for a password field, whose value the layout never shows.
 */
export function fieldValue(tree: LayoutTree, node: LayoutNode): string | undefined {
  if (tree.format === 'html') {
    const type = (node.attributes.type ?? '').toLowerCase();
    if (!(node.tag === 'textarea' || node.tag === 'select' || (node.tag === 'input' && !kNoValueInputs.has(type)))) return undefined;
  } else if (roleOf(tree, node) !== 'textbox' || node.attributes.password === 'true') return undefined;
  return normaliseText(node.text);
}

/** A selector object (boxflow) with the node's text added, for a text assertion. */
export function withText(selector: unknown, text: string): SelectorObject | Record<string, unknown> {
  if (typeof selector === 'object' && selector !== null && !('text' in selector)) return { ...(selector as Record<string, unknown>), text };
  return { selector, text };
}
