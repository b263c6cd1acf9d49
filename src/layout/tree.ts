// Node construction and the per-tree index that queries share: document order, subtree ranges
// and normalised text, computed once per tree (trees are immutable once built).
import type { Bounds, LayoutNode, LayoutTree, NodeState } from './types.js';
import { normaliseText } from './text.js';

export function defaultState(): NodeState {
  return { enabled: true, checked: false, selected: false, focused: false, clickable: false, scrollable: false };
}

export function makeNode(tag: string, attributes: Record<string, string>, parent: LayoutNode | null): LayoutNode {
  return { tag, text: '', id: '', desc: '', attributes, visible: true, state: defaultState(), children: [], parent, order: 0 };
}

const kTextRuns = new WeakMap<LayoutNode, string[]>();

/**
 * The runs of text an HTML element holds directly beside its element children (`clicked` in
 * `<body><button>Go</button>clicked</body>`), each as rendered; none for an element without element
 * children (its text is its one run) and for Android nodes, whose text is always their own.
 */
export function textRuns(node: LayoutNode): readonly string[] {
  return kTextRuns.get(node) ?? [];
}

export function setTextRuns(node: LayoutNode, runs: string[]): void {
  kTextRuns.set(node, runs);
}

const kContent = new WeakMap<LayoutNode, (string | LayoutNode)[]>();
const kUnrendered = new WeakSet<LayoutNode>();

/**
 * An HTML element's children as the document has them: its text nodes (raw) and its element
 * children, in order. The accessible name of a button or link is computed from it (aria.ts), where
 * a child's alt or aria-label stands for the child; undefined for Android nodes.
 */
export function contentOf(node: LayoutNode): readonly (string | LayoutNode)[] | undefined {
  return kContent.get(node);
}

export function addContent(node: LayoutNode, part: string | LayoutNode): void {
  const list = kContent.get(node);
  if (list) list.push(part);
  else kContent.set(node, [part]);
}

/** An HTML element that does not render (display: none, hidden, <script>...): its text is no one's name. */
export function markUnrendered(node: LayoutNode): void {
  kUnrendered.add(node);
}

export function isUnrendered(node: LayoutNode): boolean {
  return kUnrendered.has(node);
}

export function isEmptyBounds(b: Bounds): boolean {
  return b.right <= b.left || b.bottom <= b.top;
}

export function intersects(b: Bounds, width: number, height: number): boolean {
  return b.left < width && b.right > 0 && b.top < height && b.bottom > 0;
}

export interface TreeIndex {
  /** Every node in document order (root first). */
  nodes: LayoutNode[];
  pos: Map<LayoutNode, number>;
  /** Position of the last descendant of the node at each position (itself when a leaf). */
  end: Int32Array;
  norm: { text: (string | undefined)[]; desc: (string | undefined)[]; hint: (string | undefined)[] };
  /** Lazily built helpers (css adapter caches, xpath documents) keyed by purpose. */
  extra: Map<string, unknown>;
}

const kIndexes = new WeakMap<LayoutTree, TreeIndex>();

/** The index of a tree; trees built by hand (plain objects) are indexed on first use. */
export function treeIndex(tree: LayoutTree): TreeIndex {
  let idx = kIndexes.get(tree);
  if (!idx) {
    idx = buildIndex(tree.root);
    kIndexes.set(tree, idx);
  }
  return idx;
}

function buildIndex(root: LayoutNode): TreeIndex {
  const nodes: LayoutNode[] = [];
  const pos = new Map<LayoutNode, number>();
  const endList: number[] = [];
  // Iterative DFS: real layouts nest deep enough (WebViews, Compose) to make recursion a risk.
  const stack: { node: LayoutNode; child: number }[] = [{ node: root, child: -1 }];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.child === -1) {
      pos.set(top.node, nodes.length);
      nodes.push(top.node);
      endList.push(0);
      top.child = 0;
    }
    if (top.child < top.node.children.length) {
      stack.push({ node: top.node.children[top.child++]!, child: -1 });
    } else {
      endList[pos.get(top.node)!] = nodes.length - 1;
      stack.pop();
    }
  }
  const n = nodes.length;
  return { nodes, pos, end: Int32Array.from(endList), norm: { text: new Array(n), desc: new Array(n), hint: new Array(n) }, extra: new Map() };
}

/** Called by the parsers, which already know the document order and subtree ends. */
export function registerTree(tree: LayoutTree, end: number[]): void {
  const pos = new Map<LayoutNode, number>();
  const { nodes } = tree;
  for (let i = 0; i < nodes.length; i++) pos.set(nodes[i]!, i);
  const n = nodes.length;
  kIndexes.set(tree, { nodes, pos, end: Int32Array.from(end), norm: { text: new Array(n), desc: new Array(n), hint: new Array(n) }, extra: new Map() });
}

export function normText(idx: TreeIndex, i: number): string {
  return (idx.norm.text[i] ??= normaliseText(idx.nodes[i]!.text));
}

export function normDesc(idx: TreeIndex, i: number): string {
  return (idx.norm.desc[i] ??= normaliseText(idx.nodes[i]!.desc));
}

/** Android `hint`, HTML `placeholder`: the third field a text selector looks at. */
export function hintOf(node: LayoutNode): string {
  return node.attributes.hint ?? node.attributes.placeholder ?? '';
}

export function normHint(idx: TreeIndex, i: number): string {
  return (idx.norm.hint[i] ??= normaliseText(hintOf(idx.nodes[i]!)));
}
