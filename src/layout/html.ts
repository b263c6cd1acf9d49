// HTML semantics shared by plain HTML (`parseHtml`, no geometry) and browser snapshots
// (`fromDomSnapshot`): rendered text, desc, states, and which elements never render.
import { Parser } from 'htmlparser2';
import type { LayoutNode, LayoutTree } from './types.js';
import { defaultState, makeNode, registerTree } from './tree.js';

/** Elements whose content never renders. */
export const kHiddenTags = new Set(['head', 'script', 'style', 'template', 'noscript']);

/** Rendered as their own line: their text is kept apart from neighbours' text. */
const kBlockTags = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup',
  'hr', 'html', 'legend', 'li', 'main', 'nav', 'ol', 'optgroup', 'option', 'p', 'pre', 'section', 'summary',
  'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'button', 'select', 'textarea', 'input', 'img',
]);

const kClickableTags = new Set(['a', 'button', 'select', 'textarea', 'summary']);
const kClickableRoles = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'option']);
/** <input> types whose value is what the user sees. */
const kValueInputs = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'number', 'password', 'date', 'time', 'datetime-local', 'month', 'week', 'color', 'range', 'submit', 'button', 'reset']);

const kStyleDisplayNone = /(?:^|;)\s*display\s*:\s*none\s*(?:!important\s*)?(?:;|$)/i;
const kStyleVisibilityHidden = /(?:^|;)\s*visibility\s*:\s*(?:hidden|collapse)\s*(?:!important\s*)?(?:;|$)/i;

/** Hidden by its own markup (ancestors aside) when no computed style is known. */
export function hiddenByMarkup(tag: string, attrs: Record<string, string>): boolean {
  if (kHiddenTags.has(tag) || attrs.hidden !== undefined || attrs['aria-hidden'] === 'true') return true;
  if (tag === 'input' && (attrs.type ?? '').toLowerCase() === 'hidden') return true;
  const style = attrs.style;
  return style !== undefined && (kStyleDisplayNone.test(style) || kStyleVisibilityHidden.test(style));
}

export function isPasswordInput(tag: string, attrs: Record<string, string>): boolean {
  return tag === 'input' && (attrs.type ?? '').toLowerCase() === 'password';
}

/** What a password field shows instead of its value (as Android does), so no secret lands in a tree. */
export function maskSecret(value: string): string {
  return '•'.repeat([...value].length);
}

function collapse(s: string): string {
  return s.replace(/[ \t\n\r\f]+/g, ' ').trim();
}

interface Frame {
  node: LayoutNode;
  pieces: string[];
  selfHidden: boolean;
}

/** Live form state a snapshot knows and markup does not. */
export interface LiveState {
  value?: string;
  checked?: boolean;
  selected?: boolean;
  clickable?: boolean;
}

/** Builds HTML-format trees from open/text/close events (parser callbacks or a snapshot walk). */
export class HtmlTreeBuilder {
  readonly root: LayoutNode;
  readonly nodes: LayoutNode[] = [];
  readonly end: number[] = [];
  private readonly _stack: Frame[] = [];

  constructor(rootAttributes: Record<string, string> = {}) {
    this.root = makeNode('#document', rootAttributes, null);
    this._push(this.root);
  }

  private _push(node: LayoutNode): void {
    node.order = this.nodes.length;
    this.nodes.push(node);
    this.end.push(node.order);
    this._stack.push({ node, pieces: [], selfHidden: false });
  }

  get depth(): number {
    return this._stack.length;
  }

  /** `selfHidden` may be given here (markup) or when closing (computed from the subtree). */
  open(rawTag: string, attributes: Record<string, string>, selfHidden = false): LayoutNode {
    const tag = rawTag.toLowerCase();
    const parent = this._stack[this._stack.length - 1]!.node;
    if (isPasswordInput(tag, attributes) && attributes.value) attributes.value = maskSecret(attributes.value);
    const node = makeNode(tag, attributes, parent);
    parent.children.push(node);
    node.id = attributes.id ?? '';
    node.desc = attributes['aria-label'] || attributes.alt || attributes.title || '';
    const role = attributes.role;
    const type = (attributes.type ?? '').toLowerCase();
    node.state = {
      ...defaultState(),
      enabled: attributes.disabled === undefined && attributes['aria-disabled'] !== 'true',
      checked: attributes.checked !== undefined || attributes['aria-checked'] === 'true',
      selected: attributes.selected !== undefined || attributes['aria-selected'] === 'true',
      focused: attributes.autofocus !== undefined || (attributes.focused !== undefined && attributes.focused !== 'false'),
      clickable:
        kClickableTags.has(tag) ||
        (tag === 'input' && type !== 'hidden') ||
        attributes.onclick !== undefined ||
        (role !== undefined && kClickableRoles.has(role)),
    };
    this._push(node);
    this._stack[this._stack.length - 1]!.selfHidden = selfHidden;
    return node;
  }

  text(data: string): void {
    this._stack[this._stack.length - 1]!.pieces.push(data);
  }

  /**
   * Closes the innermost open element. `selfHidden`: it does not render, so its text stays out of
   * its ancestors' text (its own text still holds its content, for hidden-element queries).
   */
  close(live?: LiveState, selfHidden?: boolean): LayoutNode {
    const frame = this._stack.pop()!;
    const { node } = frame;
    const hidden = selfHidden ?? frame.selfHidden;
    const tag = node.tag;
    this.end[node.order] = this.nodes.length - 1;
    if (live?.checked !== undefined) node.state.checked = live.checked;
    if (live?.selected !== undefined) node.state.selected = live.selected;
    if (live?.clickable) node.state.clickable = true;

    let text: string;
    if (tag === 'script' || tag === 'style') text = '';
    else if (tag === 'input') {
      const type = (node.attributes.type ?? '').toLowerCase();
      const value = live?.value ?? node.attributes.value ?? '';
      text = !kValueInputs.has(type) ? '' : type === 'password' ? maskSecret(value) : collapse(value);
    } else if (tag === 'textarea') text = collapse(live?.value ?? frame.pieces.join(''));
    else if (tag === 'select') text = this._selectText(node);
    else text = collapse(frame.pieces.join(''));
    node.text = text;

    const parent = this._stack[this._stack.length - 1];
    if (parent && !hidden) {
      if (tag === 'br') parent.pieces.push('\n');
      else if (text) parent.pieces.push(kBlockTags.has(tag) ? ` ${text} ` : text);
      else if (frame.pieces.length) parent.pieces.push(' ');
    }
    return node;
  }

  private _selectText(select: LayoutNode): string {
    let first: LayoutNode | undefined;
    for (let i = select.order + 1; i <= this.end[select.order]!; i++) {
      const n = this.nodes[i]!;
      if (n.tag !== 'option') continue;
      if (n.state.selected) return n.text;
      first ??= n;
    }
    return first?.text ?? '';
  }

  /** Closes what is still open and returns the nodes; the caller sets visibility and geometry. */
  finish(): { root: LayoutNode; nodes: LayoutNode[]; end: number[] } {
    while (this._stack.length > 1) this.close();
    const rootFrame = this._stack[0]!;
    this.root.text = collapse(rootFrame.pieces.join(''));
    this.end[0] = this.nodes.length - 1;
    return { root: this.root, nodes: this.nodes, end: this.end };
  }
}

export function parseHtml(content: string): LayoutTree {
  const b = new HtmlTreeBuilder();
  const hidden: boolean[] = [false];
  const parser = new Parser(
    {
      onopentag: (name, attribs) => {
        const tag = name.toLowerCase();
        const selfHidden = hiddenByMarkup(tag, attribs);
        const node = b.open(tag, { ...attribs }, selfHidden);
        hidden[node.order] = selfHidden;
      },
      ontext: (data) => b.text(data),
      onclosetag: () => {
        // The parser only closes what it opened; the root frame is never popped here.
        if (b.depth > 1) b.close();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(content.charCodeAt(0) === 0xfeff ? content.slice(1) : content);
  parser.end();
  const { root, nodes, end } = b.finish();
  for (const node of nodes) node.visible = node === root || (!hidden[node.order] && node.parent!.visible);
  const tree: LayoutTree = { format: 'html', root, nodes, hasGeometry: false };
  registerTree(tree, end);
  return tree;
}
