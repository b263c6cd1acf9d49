// A searched tree as evidence: the nodes the runner queried, as it saw them (text, state, bounds,
// visibility), in document order with their depth, so a report shows exactly what was searched.
import type { Bounds, LayoutTree } from './types.js';

export interface SerializedNode {
  /** Position in document order (what candidates' `order` points at). */
  order: number;
  depth: number;
  tag: string;
  text?: string;
  id?: string;
  desc?: string;
  attributes?: Record<string, string>;
  bounds?: Bounds;
  visible: boolean;
  state?: string[];
}

export interface SerializedTree {
  kind: 'boxflow-layout';
  format: LayoutTree['format'];
  screen?: { width: number; height: number };
  nodes: SerializedNode[];
}

const kShownAttributes = ['class', 'name', 'type', 'role', 'href', 'placeholder', 'value', 'hint', 'package'];
const clip = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** `mask` hides secrets before long text is cut (a secret cut short is one no masker finds afterwards). */
export function serializeTree(tree: LayoutTree, mask: (text: string) => string = (t) => t): SerializedTree {
  const depth = new Map<unknown, number>();
  const nodes = tree.nodes.map((n): SerializedNode => {
    const d = n.parent ? (depth.get(n.parent) ?? 0) + 1 : 0;
    depth.set(n, d);
    const out: SerializedNode = { order: n.order, depth: d, tag: n.tag, visible: n.visible };
    // An element's own text: what its children do not already show.
    const childText = n.children.map((c) => c.text).join('');
    if (n.text && (!n.children.length || n.text.replace(/\s/g, '') !== childText.replace(/\s/g, ''))) out.text = clip(mask(n.text));
    if (n.id) out.id = n.id;
    if (n.desc) out.desc = n.desc;
    const attrs = Object.fromEntries(kShownAttributes.filter((k) => n.attributes[k] !== undefined).map((k) => [k, clip(mask(n.attributes[k]!))]));
    if (Object.keys(attrs).length) out.attributes = attrs;
    if (n.bounds) out.bounds = n.bounds;
    const state = Object.entries(n.state).filter(([k, v]) => (k === 'enabled' ? !v : v)).map(([k]) => (k === 'enabled' ? 'disabled' : k));
    if (state.length) out.state = state;
    return out;
  });
  return { kind: 'boxflow-layout', format: tree.format, ...(tree.screen ? { screen: tree.screen } : {}), nodes };
}
