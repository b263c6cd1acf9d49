// One node tree for every screen-layout format: Android uiautomator XML, HTML, and HTML with
// geometry from the browser (CDP DOMSnapshot). Selector semantics are defined once, over this.

/** Real screen pixels (not scaled), edges as Android writes them: [left,top][right,bottom]. */
export interface Bounds {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface NodeState {
  enabled: boolean;
  checked: boolean;
  selected: boolean;
  focused: boolean;
  clickable: boolean;
  scrollable: boolean;
}

export interface LayoutNode {
  /** Android class (`android.widget.Button`) or lower-case HTML tag (`button`). */
  tag: string;
  /** Android `text`; HTML: the rendered text as innerText gives it (line breaks between blocks; form controls: their value). */
  text: string;
  /** Android `resource-id`; HTML `id`. Empty when absent. */
  id: string;
  /** Android `content-desc`; HTML `aria-label`, else `alt`, else `title`. Empty when absent. */
  desc: string;
  /** Every raw attribute of the source node. */
  attributes: Record<string, string>;
  /** Absent when the format carries no geometry (plain HTML). */
  bounds?: Bounds;
  /** Android: displayed != false, non-empty bounds on screen. HTML: not hidden. */
  visible: boolean;
  state: NodeState;
  children: LayoutNode[];
  parent: LayoutNode | null;
  /** Position in document order, 0 for the root. */
  order: number;
}

export interface LayoutTree {
  format: 'android' | 'html';
  root: LayoutNode;
  /** Every node in document order. */
  nodes: LayoutNode[];
  /** Screen size in real pixels when known (Android: root bounds; HTML with geometry: viewport). */
  screen?: { width: number; height: number };
  /** True when nodes carry bounds. */
  hasGeometry: boolean;
}

/** A selector as users write it in flows. A bare string is a text selector. */
export type Selector = string | SelectorObject;

export interface SelectorObject {
  /**
   * Exact text (whitespace-normalised), or `/regex/flags` (a search). Matches the node's text, its
   * desc or its hint (Android `hint`, HTML `placeholder`). On HTML, only the innermost matches.
   */
  text?: string;
  textContains?: string;
  id?: string;
  desc?: string;
  /**
   * The element's ARIA role, explicit (`role=`) or implicit (`<button>`: button, `<a href>`: link,
   * `<input>`: textbox, checkbox...; Android: from the class where it is obvious), as getByRole.
   */
  role?: AriaRole;
  /** With `role`: its accessible name (aria-labelledby, aria-label, <label>, alt, title, its text; Android: content-desc, else text). Exact text or `/regex/flags`. */
  name?: string;
  /** A form field by its <label>, aria-label or aria-labelledby text (HTML only), as getByLabel. Exact text or `/regex/flags`. */
  labelText?: string;
  /** A field by its placeholder (HTML `placeholder`, Android `hint`), as getByPlaceholder. Exact text or `/regex/flags`. */
  placeholder?: string;
  class?: string;
  css?: string;
  xpath?: string;
  /** All must hold: `text` (has text), `long-text` (more than 200 characters), `square` (sides within 3%). */
  traits?: Trait[];
  /** Bounds size in the layout's pixels, each side within ± tolerance (default 0). */
  size?: SelectorSize;
  /**
   * n-th match (0-based, negative counts from the end: -1 is the last), top-to-bottom then
   * left-to-right (document order without geometry); with below/above/leftOf/rightOf, nearest to
   * the anchor first.
   */
  index?: number;
  enabled?: boolean;
  checked?: boolean;
  selected?: boolean;
  focused?: boolean;
  clickable?: boolean;
  scrollable?: boolean;
  below?: Selector;
  above?: Selector;
  leftOf?: Selector;
  rightOf?: Selector;
  childOf?: Selector;
  /** A direct child matches this selector. */
  containsChild?: Selector;
  /** Each of these selectors matches some descendant. */
  containsDescendants?: Selector[];
}

/** The roles `role` takes (WAI-ARIA 1.2, abstract roles left out), as Playwright's getByRole takes them. */
export const kAriaRoles = [
  'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button', 'caption', 'cell', 'checkbox', 'code',
  'columnheader', 'combobox', 'complementary', 'contentinfo', 'definition', 'deletion', 'dialog', 'directory', 'document',
  'emphasis', 'feed', 'figure', 'form', 'generic', 'grid', 'gridcell', 'group', 'heading', 'img', 'insertion', 'link', 'list',
  'listbox', 'listitem', 'log', 'main', 'marquee', 'math', 'meter', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'navigation', 'none', 'note', 'option', 'paragraph', 'presentation', 'progressbar', 'radio', 'radiogroup',
  'region', 'row', 'rowgroup', 'rowheader', 'scrollbar', 'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status',
  'strong', 'subscript', 'superscript', 'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time', 'timer',
  'toolbar', 'tooltip', 'tree', 'treegrid', 'treeitem',
] as const;
export type AriaRole = (typeof kAriaRoles)[number];

/** Why a selector with `name` and no `role` is refused (at load time, and by the query). */
export const kNameWithoutRole = '"name" is the accessible name of a role: give the role too, e.g. { role: button, name: "Sign in" }';

export const kTraits = ['text', 'long-text', 'square'] as const;
export type Trait = (typeof kTraits)[number];

export interface SelectorSize {
  width?: number;
  height?: number;
  tolerance?: number;
}

/**
 * What a selector key's value is: `pattern` is text that may be `/regex/flags`; `string` is plain
 * text; `role` one of the ARIA roles; `position` a selector the node lies beside; `selector` / `selectors` nested selectors.
 */
export type SelectorKeyKind = 'pattern' | 'string' | 'role' | 'traits' | 'size' | 'index' | 'state' | 'position' | 'selector' | 'selectors';

/** The one list of selector keys (in the order messages print them); the compiler keeps it equal to SelectorObject. */
export const kSelectorKeyKinds = {
  text: 'pattern',
  textContains: 'string',
  id: 'pattern',
  desc: 'pattern',
  role: 'role',
  name: 'pattern',
  labelText: 'pattern',
  placeholder: 'pattern',
  class: 'pattern',
  css: 'string',
  xpath: 'string',
  traits: 'traits',
  size: 'size',
  index: 'index',
  enabled: 'state',
  checked: 'state',
  selected: 'state',
  focused: 'state',
  clickable: 'state',
  scrollable: 'state',
  below: 'position',
  above: 'position',
  leftOf: 'position',
  rightOf: 'position',
  childOf: 'selector',
  containsChild: 'selector',
  containsDescendants: 'selectors',
} as const satisfies { [K in keyof Required<SelectorObject>]: SelectorKeyKind };

export type SelectorKey = keyof typeof kSelectorKeyKinds;
type KeysOf<Kind extends SelectorKeyKind> = { [K in SelectorKey]: (typeof kSelectorKeyKinds)[K] extends Kind ? K : never }[SelectorKey];

const keysOf = <Kind extends SelectorKeyKind>(...kinds: Kind[]): KeysOf<Kind>[] =>
  (Object.keys(kSelectorKeyKinds) as SelectorKey[]).filter((k): k is KeysOf<Kind> => (kinds as SelectorKeyKind[]).includes(kSelectorKeyKinds[k]));

export const kSelectorKeys: readonly SelectorKey[] = Object.keys(kSelectorKeyKinds) as SelectorKey[];
/** Keys whose value may be `/regex/flags`. */
export const kPatternKeys = keysOf('pattern');
export const kStateKeys = keysOf('state') satisfies (keyof NodeState)[];
export const kPositionalKeys = keysOf('position');
/** Keys whose value holds other selectors (anchors, parents, children, descendants). */
export const kNestedKeys = keysOf('position', 'selector', 'selectors');
