// HTML semantics shared by plain HTML (`parseHtml`, no geometry) and browser snapshots
// (`fromDomSnapshot`): rendered text, desc, states, and which elements never render.
import { Parser } from 'htmlparser2';
import type { LayoutNode, LayoutTree } from './types.js';
import { addContent, defaultState, makeNode, markUnrendered, registerTree, setTextRuns } from './tree.js';

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

// Rendered text follows the innerText rules (HTML spec, "rendered text collection steps"). While
// the tree is built each element gathers a stream: text with collapsible whitespace already folded
// to single spaces, and these markers, resolved once per element by `renderedText`.
const kBreak1 = '\u0001'; // one required line break (block-level box boundary)
const kBreak2 = '\u0002'; // two required line breaks (<p>)
const kPreSpace = '\u0003'; // a preserved space (white-space: pre*)
const kHardBreak = '\u0004'; // a forced line break (<br>, a newline in preformatted text)
const kTab = '\u0005'; // between table cells

/** innerText of a stream: markers resolved, collapsible spaces at line edges dropped. */
export function renderedText(stream: string): string {
  return stream
    .replace(/ {2,}/g, ' ')
    .replace(/ *([\u0001\u0002\u0004\u0005]) */g, '$1')
    .replace(/\u0005(?=[\u0001\u0002]|$)/g, '')
    .replace(/^[ \u0001\u0002]+|[ \u0001\u0002]+$/g, '')
    .replace(/[\u0001\u0002]+/g, (run) => (run.includes(kBreak2) ? '\n\n' : '\n'))
    .replace(/\u0003/g, ' ')
    .replace(/\u0004/g, '\n')
    .replace(/\u0005/g, '\t');
}

/** How an element takes part in rendered text: its computed (or, for markup, default) display. */
export interface TextStyle {
  display?: string;
  whiteSpace?: string;
}

const kInlineDisplays = new Set(['inline', 'inline-block', 'inline-flex', 'inline-grid', 'inline-table', 'contents', 'ruby', 'ruby-text']);

function defaultDisplay(tag: string): string {
  if (tag === 'td' || tag === 'th') return 'table-cell';
  if (tag === 'tr') return 'table-row';
  if (tag === 'li') return 'list-item';
  return kBlockTags.has(tag) && !kFormTags.has(tag) ? 'block' : 'inline';
}
const kFormTags = new Set(['button', 'select', 'textarea', 'input', 'img']);

interface Frame {
  node: LayoutNode;
  pieces: string[];
  selfHidden: boolean;
  display: string;
  /** white-space: pre* keeps spaces and newlines; pre-line keeps newlines only. */
  preserve: false | 'all' | 'lines';
  /** The text nodes since the last element child (comments do not break a run), and the runs before. */
  run: string[];
  runs: string[];
  hasElementChild: boolean;
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
    this._push(this.root, 'block', false);
  }

  private _push(node: LayoutNode, display: string, preserve: Frame['preserve']): void {
    node.order = this.nodes.length;
    this.nodes.push(node);
    this.end.push(node.order);
    this._stack.push({ node, pieces: [], selfHidden: false, display, preserve, run: [], runs: [], hasElementChild: false });
  }

  /** Ends the frame's current run of text nodes, keeping it when it shows any text. */
  private _endRun(frame: Frame): void {
    const text = renderedText(frame.run.join(''));
    if (text.trim()) frame.runs.push(text);
    frame.run = [];
  }

  get depth(): number {
    return this._stack.length;
  }

  /**
   * `selfHidden` may be given here (markup) or when closing (computed from the subtree). `style`:
   * the element's computed display and white-space; without it the tag's defaults apply.
   */
  open(rawTag: string, attributes: Record<string, string>, selfHidden = false, style: TextStyle = {}): LayoutNode {
    const tag = rawTag.toLowerCase();
    const parentFrame = this._stack[this._stack.length - 1]!;
    const parent = parentFrame.node;
    this._endRun(parentFrame);
    parentFrame.hasElementChild = true;
    if (isPasswordInput(tag, attributes) && attributes.value) attributes.value = maskSecret(attributes.value);
    const node = makeNode(tag, attributes, parent);
    parent.children.push(node);
    addContent(parent, node);
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
    const ws = style.whiteSpace;
    const preserve: Frame['preserve'] =
      ws === undefined ? (tag === 'pre' || tag === 'textarea' ? 'all' : parentFrame.preserve) : ws === 'pre-line' ? 'lines' : ws.startsWith('pre') || ws === 'break-spaces' ? 'all' : false;
    this._push(node, style.display || defaultDisplay(tag), preserve);
    this._stack[this._stack.length - 1]!.selfHidden = selfHidden;
    return node;
  }

  text(data: string): void {
    const frame = this._stack[this._stack.length - 1]!;
    const lf = data.replace(/\r\n?/g, '\n');
    let piece: string;
    if (frame.preserve === 'all') piece = lf.replace(/[ \t]/g, kPreSpace).replace(/\n/g, kHardBreak);
    else if (frame.preserve === 'lines') piece = lf.replace(/[ \t\f]+/g, ' ').replace(/\n/g, kHardBreak);
    else piece = lf.replace(/[ \t\n\f]+/g, ' ');
    frame.pieces.push(piece);
    frame.run.push(piece);
    addContent(frame.node, data);
  }

  /**
   * Closes the innermost open element. `selfHidden`: it does not render, so its text stays out of
   * its ancestors' text (its own text still holds its content, for hidden-element queries).
   */
  close(live?: LiveState, selfHidden?: boolean): LayoutNode {
    const frame = this._stack.pop()!;
    const { node } = frame;
    const hidden = selfHidden ?? frame.selfHidden;
    if (hidden) markUnrendered(node);
    const tag = node.tag;
    this.end[node.order] = this.nodes.length - 1;
    if (live?.checked !== undefined) node.state.checked = live.checked;
    if (live?.selected !== undefined) node.state.selected = live.selected;
    if (live?.clickable) node.state.clickable = true;

    // Form controls show their value, not their content: that is their text, and (unlike
    // innerText, which leaves controls out) what their ancestors' text holds, as a reader sees it.
    let control: string | undefined;
    if (tag === 'input') {
      const type = (node.attributes.type ?? '').toLowerCase();
      const value = live?.value ?? node.attributes.value ?? '';
      control = !kValueInputs.has(type) ? '' : type === 'password' ? maskSecret(value) : collapse(value);
    } else if (tag === 'textarea') control = collapse(live?.value ?? renderedText(frame.pieces.join('')));
    else if (tag === 'select') control = this._selectText(node);
    const stream = tag === 'script' || tag === 'style' ? '' : control !== undefined ? ` ${control} ` : frame.pieces.join('');
    node.text = control ?? renderedText(stream);
    // A run of text beside element children is text a reader sees on its own, as Playwright's text
    // engine matches it: keep the runs for whole-text selectors (query.ts).
    this._endRun(frame);
    if (control === undefined && stream !== '' && frame.hasElementChild && frame.runs.length) setTextRuns(node, frame.runs);

    const parent = this._stack[this._stack.length - 1];
    if (parent && !hidden) {
      const d = frame.display;
      if (tag === 'br') parent.pieces.push(kHardBreak);
      else if (d === 'table-cell') parent.pieces.push(stream, kTab);
      else if (tag === 'p' && !kInlineDisplays.has(d)) parent.pieces.push(kBreak2, stream, kBreak2);
      else if (!kInlineDisplays.has(d)) parent.pieces.push(kBreak1, stream, kBreak1);
      else parent.pieces.push(stream);
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
    this.root.text = renderedText(rootFrame.pieces.join(''));
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
