// CDP `DOMSnapshot.captureSnapshot` output → LayoutTree with real geometry. Call it with
// computedStyles ['display', 'visibility', 'opacity', 'white-space'] (in that order; white-space may be left out) and includeDOMRects true.
import { BoxflowError } from '../errors.js';
import type { Bounds, LayoutTree } from './types.js';
import { HtmlTreeBuilder, kHiddenTags, type LiveState } from './html.js';
import { intersects, isEmptyBounds, registerTree } from './tree.js';

interface RareStringData {
  index: number[];
  value: number[];
}
interface RareBooleanData {
  index: number[];
}

/** The parts of the CDP DOMSnapshot types this module reads (structurally compatible with them). */
export interface DomSnapshot {
  documents: {
    nodes: {
      parentIndex?: number[];
      nodeType?: number[];
      nodeName?: number[];
      nodeValue?: number[];
      attributes?: number[][];
      inputValue?: RareStringData;
      inputChecked?: RareBooleanData;
      optionSelected?: RareBooleanData;
      isClickable?: RareBooleanData;
      pseudoType?: { index: number[] };
    };
    layout: {
      nodeIndex: number[];
      styles: number[][];
      bounds: number[][];
    };
    scrollOffsetX?: number;
    scrollOffsetY?: number;
  }[];
  strings: string[];
}

export interface Viewport {
  width: number;
  height: number;
  /** CSS px the page is scrolled by; default: the snapshot's own scroll offsets. */
  scrollX?: number;
  scrollY?: number;
}

const kElement = 1;
const kText = 3;

/** Builds the tree of the main frame (document 0). Bounds are CSS px relative to the viewport. */
export function fromDomSnapshot(snapshot: DomSnapshot, viewport: Viewport): LayoutTree {
  const doc = snapshot?.documents?.[0];
  if (!doc || !Array.isArray(snapshot.strings)) throw new BoxflowError('INVALID_ARGUMENT', 'fromDomSnapshot: not a DOMSnapshot.captureSnapshot result (no documents[0] or strings)');
  const str = snapshot.strings;
  const s = (i: number | undefined) => (i === undefined || i < 0 ? '' : (str[i] ?? ''));
  const { nodes: dn, layout } = doc;
  const parentIndex = dn.parentIndex ?? [];
  const count = parentIndex.length;
  const scrollX = viewport.scrollX ?? doc.scrollOffsetX ?? 0;
  const scrollY = viewport.scrollY ?? doc.scrollOffsetY ?? 0;

  // 1. Per DOM node: its layout box (union of its layout objects) and computed style.
  const box: (Bounds | undefined)[] = new Array(count);
  const style: (number[] | undefined)[] = new Array(count);
  for (let li = 0; li < layout.nodeIndex.length; li++) {
    const ni = layout.nodeIndex[li]!;
    const r = layout.bounds[li];
    if (!r || r.length < 4) continue;
    const b = { left: r[0]! - scrollX, top: r[1]! - scrollY, right: r[0]! + r[2]! - scrollX, bottom: r[1]! + r[3]! - scrollY };
    const prev = box[ni];
    box[ni] = prev
      ? { left: Math.min(prev.left, b.left), top: Math.min(prev.top, b.top), right: Math.max(prev.right, b.right), bottom: Math.max(prev.bottom, b.bottom) }
      : b;
    style[ni] ??= layout.styles[li];
  }
  const rare = (d: RareBooleanData | undefined) => new Set(d?.index ?? []);
  const checked = rare(dn.inputChecked);
  const selected = rare(dn.optionSelected);
  const clickable = rare(dn.isClickable);
  const pseudo = rare(dn.pseudoType);
  const inputValue = new Map<number, string>();
  if (dn.inputValue) dn.inputValue.index.forEach((ni, k) => inputValue.set(ni, s(dn.inputValue!.value[k])));

  // 2. Children lists (DOM order), so the walk does not depend on how the arrays are ordered.
  const children: number[][] = Array.from({ length: count }, () => []);
  for (let i = 1; i < count; i++) {
    const p = parentIndex[i]!;
    if (p >= 0 && p < count && p !== i) children[p]!.push(i);
  }

  // 3. Walk: elements become nodes, text feeds rendered text; fragments (shadow roots) are transparent.
  const b = new HtmlTreeBuilder();
  const nodeOf = new Map<number, number>(); // LayoutNode order → DOM node index
  const hasBox: boolean[] = [];
  const subtreeHasBox = new Uint8Array(count);
  const opacityZero: boolean[] = [false];
  const cssHidden: boolean[] = [false];
  // order: the LayoutNode's position, -1 for the document and fragments.
  const stack: { i: number; child: number; order: number }[] = [{ i: 0, child: 0, order: -1 }];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.child < children[top.i]!.length) {
      const c = children[top.i]![top.child++]!;
      const type = dn.nodeType?.[c];
      if (type === kText) {
        b.text(s(dn.nodeValue?.[c]));
        continue;
      }
      if (type === kElement && !pseudo.has(c)) {
        const attrs: Record<string, string> = {};
        const flat = dn.attributes?.[c] ?? [];
        for (let k = 0; k + 1 < flat.length; k += 2) attrs[s(flat[k]).toLowerCase()] = s(flat[k + 1]);
        const st = style[c];
        const node = b.open(s(dn.nodeName?.[c]), attrs, false, st ? { display: s(st[0]), ...(st[3] !== undefined ? { whiteSpace: s(st[3]) } : {}) } : {});
        nodeOf.set(node.order, c);
        hasBox[node.order] = box[c] !== undefined;
        opacityZero[node.order] = (st !== undefined && Number(s(st[2])) === 0) || opacityZero[node.parent!.order]!;
        cssHidden[node.order] = st !== undefined && (s(st[0]) === 'none' || s(st[1]) === 'hidden' || s(st[1]) === 'collapse');
        stack.push({ i: c, child: 0, order: node.order });
      } else if (type !== kElement && children[c]!.length) {
        stack.push({ i: c, child: 0, order: -1 }); // document fragment (shadow root)
      }
      continue;
    }
    stack.pop();
    if (box[top.i]) subtreeHasBox[top.i] = 1;
    const parent = stack[stack.length - 1];
    if (parent && subtreeHasBox[top.i]) subtreeHasBox[parent.i] = 1;
    if (top.order < 0) continue;
    const { i, order } = top;
    const live: LiveState = {};
    if (inputValue.has(i)) live.value = inputValue.get(i)!;
    if (checked.has(i)) live.checked = true;
    else if (dn.inputChecked && s(dn.nodeName?.[i]).toLowerCase() === 'input') live.checked = false;
    if (selected.has(i)) live.selected = true;
    else if (dn.optionSelected && s(dn.nodeName?.[i]).toLowerCase() === 'option') live.selected = false;
    if (clickable.has(i)) live.clickable = true;
    // No box and no boxed descendant: display:none (or never rendered), so its text is not on screen.
    const selfHidden = !subtreeHasBox[i] || cssHidden[order]! || (opacityZero[order]! && !opacityZero[b.nodes[order]!.parent!.order]);
    b.close(live, selfHidden);
  }
  const { root, nodes, end } = b.finish();

  // 4. Geometry and visibility.
  root.bounds = { left: 0, top: 0, right: viewport.width, bottom: viewport.height };
  root.visible = true;
  for (let k = 1; k < nodes.length; k++) {
    const node = nodes[k]!;
    const bx = box[nodeOf.get(k)!];
    if (bx) node.bounds = bx;
    node.visible =
      hasBox[k] === true &&
      !cssHidden[k] &&
      !opacityZero[k] &&
      node.attributes.hidden === undefined &&
      !kHiddenTags.has(node.tag) &&
      bx !== undefined &&
      !isEmptyBounds(bx) &&
      intersects(bx, viewport.width, viewport.height);
  }
  const tree: LayoutTree = { format: 'html', root, nodes, screen: { width: viewport.width, height: viewport.height }, hasGeometry: true };
  registerTree(tree, end);
  return tree;
}
