// Roles, accessible names and labels of layout nodes, for the `role`/`name`, `label` and
// `placeholder` selector keys: what Playwright's getByRole, getByLabel and getByPlaceholder match.
// HTML follows WAI-ARIA's implicit roles (HTML-AAM) and the accessible name computation (accname
// 1.2) for the common cases, as Playwright's role engine does: aria-labelledby, aria-label, the
// <label>s of a form control, alt and title, then the text of the content for the roles named by
// their content. Android maps what its layout has: the class to a role where it is obvious,
// content-desc (else the text; for a text field, its hint) to the name.
import { BoxflowError } from '../errors.js';
import { kAriaRoles, type AriaRole, type LayoutNode, type LayoutTree } from './types.js';
import { normaliseText } from './text.js';
import { contentOf, isUnrendered, treeIndex } from './tree.js';

const kRoleSet = new Set<string>(kAriaRoles);

/** Roles whose name is the text of their content when nothing else names them. */
const kNameFromContent = new Set([
  'button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
  'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem',
]);

const kInputRoles: Record<string, AriaRole> = { button: 'button', checkbox: 'checkbox', image: 'button', number: 'spinbutton', radio: 'radio', range: 'slider', reset: 'button', submit: 'button', file: 'button' };
const kTextInputs = new Set(['', 'text', 'email', 'tel', 'url', 'search', 'password']);
const kSimpleRoles: Record<string, AriaRole> = {
  article: 'article', aside: 'complementary', blockquote: 'blockquote', button: 'button', caption: 'caption', code: 'code',
  datalist: 'listbox', dd: 'definition', del: 'deletion', details: 'group', dfn: 'term', dialog: 'dialog', dt: 'term',
  em: 'emphasis', fieldset: 'group', figure: 'figure', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading',
  h6: 'heading', hr: 'separator', html: 'document', ins: 'insertion', li: 'listitem', main: 'main', math: 'math', menu: 'list',
  meter: 'meter', nav: 'navigation', ol: 'list', optgroup: 'group', option: 'option', output: 'status', p: 'paragraph',
  progress: 'progressbar', strong: 'strong', sub: 'subscript', sup: 'superscript', svg: 'img', table: 'table', tbody: 'rowgroup',
  textarea: 'textbox', tfoot: 'rowgroup', thead: 'rowgroup', time: 'time', tr: 'row', ul: 'list', td: 'cell',
};
/** Inside these, <header> and <footer> are not the page's banner and contentinfo. */
const kSectioning = new Set(['article', 'aside', 'main', 'nav', 'section']);

const attr = (n: LayoutNode, k: string) => n.attributes[k];
const hasExplicitName = (n: LayoutNode) => !!(attr(n, 'aria-label')?.trim() || attr(n, 'aria-labelledby')?.trim() || attr(n, 'title')?.trim());

/** The role of an HTML element: its `role` attribute's first known role, else its implicit role. */
function htmlRole(n: LayoutNode): AriaRole | undefined {
  const explicit = (attr(n, 'role') ?? '').split(/\s+/).find((r) => kRoleSet.has(r.toLowerCase()));
  if (explicit) return explicit.toLowerCase() as AriaRole;
  const tag = n.tag;
  switch (tag) {
    case 'a':
    case 'area':
      return attr(n, 'href') !== undefined ? 'link' : undefined;
    case 'input': {
      const type = (attr(n, 'type') ?? '').toLowerCase();
      if (type === 'hidden') return undefined;
      if (type === 'search') return attr(n, 'list') !== undefined ? 'combobox' : 'searchbox';
      if (kTextInputs.has(type)) return attr(n, 'list') !== undefined ? 'combobox' : 'textbox';
      return kInputRoles[type] ?? 'textbox';
    }
    case 'select':
      return attr(n, 'multiple') !== undefined || Number(attr(n, 'size')) > 1 ? 'listbox' : 'combobox';
    case 'img':
      return attr(n, 'alt') === '' && !hasExplicitName(n) ? 'presentation' : 'img';
    case 'th':
      return attr(n, 'scope') === 'row' ? 'rowheader' : 'columnheader';
    case 'header':
    case 'footer': {
      for (let p = n.parent; p; p = p.parent) if (kSectioning.has(p.tag)) return undefined;
      return tag === 'header' ? 'banner' : 'contentinfo';
    }
    case 'form':
      return hasExplicitName(n) ? 'form' : undefined;
    case 'section':
      return hasExplicitName(n) ? 'region' : undefined;
    default:
      return kSimpleRoles[tag];
  }
}

/** Android classes whose role is obvious, by simple name (the first that fits wins). */
const kAndroidRoles: [RegExp, AriaRole][] = [
  [/RadioButton$/, 'radio'],
  [/CheckBox$/, 'checkbox'],
  [/(Switch|SwitchCompat|SwitchMaterial|ToggleButton)$/, 'switch'],
  [/(EditText|AutoCompleteTextView)$/, 'textbox'],
  [/Button$/, 'button'],
  [/SeekBar$/, 'slider'],
  [/ProgressBar$/, 'progressbar'],
  [/Spinner$/, 'combobox'],
  [/ImageView$/, 'img'],
  [/(RecyclerView|ListView)$/, 'list'],
];

export function roleOf(tree: LayoutTree, n: LayoutNode): AriaRole | undefined {
  if (tree.format === 'html') return htmlRole(n);
  const simple = n.tag.slice(n.tag.lastIndexOf('.') + 1);
  return kAndroidRoles.find(([re]) => re.test(simple))?.[1];
}

/** Hidden from assistive technology: aria-hidden on it or an ancestor (rendering is `visible`'s business). */
export function ariaHidden(n: LayoutNode): boolean {
  for (let p: LayoutNode | null = n; p; p = p.parent) if (attr(p, 'aria-hidden') === 'true') return true;
  return false;
}

/** Elements by id, once per tree (aria-labelledby and label[for] refer to them). */
function byId(tree: LayoutTree): Map<string, LayoutNode> {
  const idx = treeIndex(tree);
  let ids = idx.extra.get('aria:ids') as Map<string, LayoutNode> | undefined;
  if (!ids) {
    ids = new Map();
    for (const n of idx.nodes) if (n.id && !ids.has(n.id)) ids.set(n.id, n);
    idx.extra.set('aria:ids', ids);
  }
  return ids;
}

/** <label for=id> elements, once per tree. */
function labelsFor(tree: LayoutTree): Map<string, LayoutNode[]> {
  const idx = treeIndex(tree);
  let map = idx.extra.get('aria:labels') as Map<string, LayoutNode[]> | undefined;
  if (!map) {
    map = new Map();
    for (const n of idx.nodes) {
      const f = n.tag === 'label' ? attr(n, 'for') : undefined;
      if (f) map.set(f, [...(map.get(f) ?? []), n]);
    }
    idx.extra.set('aria:labels', map);
  }
  return map;
}

const kLabelable = new Set(['input', 'select', 'textarea', 'button', 'meter', 'output', 'progress']);
const isControl = (n: LayoutNode) => kLabelable.has(n.tag) && !(n.tag === 'input' && (attr(n, 'type') ?? '').toLowerCase() === 'hidden');

/** The <label>s of a form control: those naming its id, and the one around it. */
function labelsOf(tree: LayoutTree, n: LayoutNode): LayoutNode[] {
  if (!isControl(n)) return [];
  const out = n.id ? [...(labelsFor(tree).get(n.id) ?? [])] : [];
  for (let p = n.parent; p; p = p.parent) {
    if (p.tag === 'label') {
      if (attr(p, 'for') === undefined && !out.includes(p)) out.push(p);
      break;
    }
  }
  return out;
}

const kInline = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'i', 'kbd', 'label', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'img']);

interface NameCtx {
  tree: LayoutTree;
  /** Followed an aria-labelledby: no second one is followed, and the referenced node counts even when hidden. */
  labelledBy: boolean;
  /** The control whose label is being read: it does not name itself. */
  skip?: LayoutNode;
  seen: Set<LayoutNode>;
}

/** The value an embedded control gives to the name of what it sits in. */
function embeddedValue(n: LayoutNode): string | undefined {
  const role = htmlRole(n);
  if (role === 'textbox' || role === 'searchbox' || role === 'combobox' || role === 'listbox' || role === 'spinbutton' || role === 'slider') return n.text;
  return undefined;
}

/** The text of an element's content, each child element by its own name (an image by its alt). */
function contentText(n: LayoutNode, ctx: NameCtx): string {
  const parts = contentOf(n);
  if (!parts) return n.text;
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    if (part === ctx.skip) continue;
    const inner = nameOf(part, ctx, true);
    out += kInline.has(part.tag) ? inner : ` ${inner} `;
  }
  return out;
}

function nameOf(n: LayoutNode, ctx: NameCtx, traversing: boolean, root = false): string {
  if (ctx.seen.has(n)) return '';
  // A node that does not render, or is hidden from assistive technology, names nothing (unless aria-labelledby points at it).
  if (!root && (isUnrendered(n) || attr(n, 'aria-hidden') === 'true')) return '';
  ctx.seen.add(n);
  try {
    const labelledBy = attr(n, 'aria-labelledby');
    if (!ctx.labelledBy && labelledBy?.trim()) {
      const ids = byId(ctx.tree);
      const text = labelledBy
        .trim()
        .split(/\s+/)
        .map((id) => ids.get(id))
        .filter((r): r is LayoutNode => !!r)
        .map((r) => nameOf(r, { ...ctx, labelledBy: true, seen: new Set() }, true, true))
        .join(' ');
      if (normaliseText(text)) return text;
    }
    // An embedded control inside a label or a button gives its value.
    if (traversing && !root) {
      const value = embeddedValue(n);
      if (value !== undefined) return value;
    }
    const label = attr(n, 'aria-label');
    if (label?.trim()) return label;
    const native = nativeName(n, ctx);
    if (native !== undefined && normaliseText(native)) return native;
    const role = htmlRole(n);
    if (traversing || (role !== undefined && kNameFromContent.has(role))) {
      const text = contentText(n, ctx);
      if (normaliseText(text)) return text;
    }
    return attr(n, 'title') ?? '';
  } finally {
    ctx.seen.delete(n);
  }
}

/** What the element's own markup names it by: its <label>s, value, alt, legend, caption; undefined when none applies. */
function nativeName(n: LayoutNode, ctx: NameCtx): string | undefined {
  const tag = n.tag;
  const type = (attr(n, 'type') ?? '').toLowerCase();
  if (tag === 'input' && (type === 'button' || type === 'submit' || type === 'reset')) {
    const value = attr(n, 'value');
    if (value) return value;
    return type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : attr(n, 'title');
  }
  if (tag === 'input' && type === 'image') return attr(n, 'alt') || attr(n, 'title') || 'Submit';
  if (isControl(n) && tag !== 'button') {
    const labels = labelsOf(ctx.tree, n)
      .map((l) => nameOf(l, { ...ctx, skip: n }, true, true))
      .join(' ');
    if (normaliseText(labels)) return labels;
    if ((tag === 'input' && kTextInputs.has(type)) || tag === 'textarea') return attr(n, 'title') || attr(n, 'placeholder');
    return attr(n, 'title');
  }
  if (tag === 'img') return attr(n, 'alt') ?? attr(n, 'title');
  const first = (t: string) => n.children.find((c) => c.tag === t);
  if (tag === 'fieldset') return withContent(first('legend'), ctx);
  if (tag === 'table') return withContent(first('caption'), ctx);
  if (tag === 'figure') return withContent(first('figcaption'), ctx);
  return undefined;
}

const withContent = (n: LayoutNode | undefined, ctx: NameCtx) => (n ? contentText(n, ctx) : undefined);

/** The accessible name, whitespace collapsed ('' when it has none). */
export function accessibleName(tree: LayoutTree, n: LayoutNode): string {
  if (tree.format !== 'html') {
    if (n.desc) return normaliseText(n.desc);
    return normaliseText(roleOf(tree, n) === 'textbox' ? (n.attributes.hint ?? '') : n.text);
  }
  return normaliseText(nameOf(n, { tree, labelledBy: false, seen: new Set() }, false, true));
}

/**
 * What getByLabel matches an element by: the text of the elements its aria-labelledby names, its
 * aria-label, and the text of its <label>s. HTML only: an Android layout has no labels (STEP_INVALID).
 */
export function labelTexts(tree: LayoutTree, n: LayoutNode): string[] {
  if (tree.format !== 'html') throw new BoxflowError('STEP_INVALID', kNoAndroidLabel);
  const out: string[] = [];
  const ctx: NameCtx = { tree, labelledBy: true, seen: new Set() };
  const labelledBy = attr(n, 'aria-labelledby')?.trim();
  if (labelledBy) {
    const ids = byId(tree);
    out.push(labelledBy.split(/\s+/).map((id) => ids.get(id)).filter((r): r is LayoutNode => !!r).map((r) => nameOf(r, { ...ctx, seen: new Set() }, true, true)).join(' '));
  }
  const label = attr(n, 'aria-label');
  if (label?.trim()) out.push(label);
  for (const l of labelsOf(tree, n)) out.push(nameOf(l, { ...ctx, skip: n, seen: new Set() }, true, true));
  return out.map(normaliseText).filter((t) => t !== '');
}

export const kNoAndroidLabel =
  'the selector key "labelText" finds a web page\'s form field by its <label>, aria-label or aria-labelledby, and an Android layout has none of them: use desc (content-desc), placeholder (the hint) or text';
