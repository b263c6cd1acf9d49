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
  class?: string;
  css?: string;
  xpath?: string;
  /**
   * n-th match (0-based), top-to-bottom then left-to-right (document order without geometry);
   * with below/above/leftOf/rightOf, nearest to the anchor first.
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
}
