// CDP `DOMSnapshot.captureSnapshot` output → LayoutTree with real geometry. Call it with
// computedStyles kSnapshotStyles (the first three are required, in that order) and includeDOMRects true.
import { BoxflowError } from '../errors.js';
import type { Bounds, LayoutNode, LayoutTree } from './types.js';
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
      backendNodeId?: number[];
      contentDocumentIndex?: { index: number[]; value: number[] };
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

/** A frame in another process (cross-origin iframe): its own snapshot, and its <iframe> in the parent. */
export interface FrameSnapshot {
  snapshot: DomSnapshot;
  /** backendNodeId of the <iframe> element in the main snapshot. */
  ownerBackendNodeId: number;
}

/** Where a node lives in the browser: which snapshot (0 main, k: frames[k-1]) and its backend node id. */
export interface DomRef {
  snapshot: number;
  backendNodeId: number;
}
const kDomRefs = new WeakMap<LayoutNode, DomRef>();

/** The browser node behind a node of a `fromDomSnapshot` tree (undefined for other trees). */
export function domRef(node: LayoutNode): DomRef | undefined {
  return kDomRefs.get(node);
}

const kOverflow = new WeakMap<LayoutNode, string>();

/**
 * The computed `overflow` of a node of a `fromDomSnapshot` tree that clips its content (`hidden`,
 * `auto`, `scroll`, `clip`, or two of them: "x y"); undefined when it does not (`visible`) and for
 * other trees. Such a node (but `html` and `body`, the page's own scrolling) is what `visible` calls
 * an ancestor that scrolls or hides its overflow.
 */
export function overflowOf(node: LayoutNode): string | undefined {
  return kOverflow.get(node);
}

/** One document of a snapshot, indexed for the walk. */
class Doc {
  readonly box: (Bounds | undefined)[];
  readonly style: (number[] | undefined)[];
  readonly children: number[][];
  readonly checked: Set<number>;
  readonly selected: Set<number>;
  readonly clickable: Set<number>;
  readonly pseudo: Set<number>;
  readonly inputValue = new Map<number, string>();
  readonly contentDoc = new Map<number, number>();
  readonly backend: number[];

  constructor(
    readonly snap: DomSnapshot,
    readonly index: number,
    readonly snapshotNo: number,
    /** Viewport position of this document's (0,0): its frame's content box less the document's scroll. */
    readonly dx: number,
    readonly dy: number,
    /** The frame's content box on the viewport; nodes outside it are not visible. */
    readonly clip: Bounds | undefined,
  ) {
    const doc = snap.documents[index]!;
    const dn = doc.nodes;
    const count = (dn.parentIndex ?? []).length;
    this.box = new Array(count);
    this.style = new Array(count);
    const { layout } = doc;
    for (let li = 0; li < layout.nodeIndex.length; li++) {
      const ni = layout.nodeIndex[li]!;
      const r = layout.bounds[li];
      if (!r || r.length < 4) continue;
      const b = { left: r[0]! + dx, top: r[1]! + dy, right: r[0]! + r[2]! + dx, bottom: r[1]! + r[3]! + dy };
      const prev = this.box[ni];
      this.box[ni] = prev
        ? { left: Math.min(prev.left, b.left), top: Math.min(prev.top, b.top), right: Math.max(prev.right, b.right), bottom: Math.max(prev.bottom, b.bottom) }
        : b;
      this.style[ni] ??= layout.styles[li];
    }
    const rare = (d: RareBooleanData | undefined) => new Set(d?.index ?? []);
    this.checked = rare(dn.inputChecked);
    this.selected = rare(dn.optionSelected);
    this.clickable = rare(dn.isClickable);
    this.pseudo = rare(dn.pseudoType);
    if (dn.inputValue) dn.inputValue.index.forEach((ni, k) => this.inputValue.set(ni, this.s(dn.inputValue!.value[k])));
    if (dn.contentDocumentIndex) dn.contentDocumentIndex.index.forEach((ni, k) => this.contentDoc.set(ni, dn.contentDocumentIndex!.value[k]!));
    this.backend = dn.backendNodeId ?? [];
    // Children lists (DOM order), so the walk does not depend on how the arrays are ordered.
    this.children = Array.from({ length: count }, () => []);
    const parentIndex = dn.parentIndex ?? [];
    for (let i = 1; i < count; i++) {
      const p = parentIndex[i]!;
      if (p >= 0 && p < count && p !== i) this.children[p]!.push(i);
    }
  }

  get nodes() {
    return this.snap.documents[this.index]!.nodes;
  }

  s(i: number | undefined): string {
    return i === undefined || i < 0 ? '' : (this.snap.strings[i] ?? '');
  }

  /** Where a frame's document starts on the viewport: the <iframe>'s box inside its border and padding. */
  frameOrigin(ni: number): { x: number; y: number; clip: Bounds } | undefined {
    const b = this.box[ni];
    if (!b) return undefined;
    const st = this.style[ni] ?? [];
    const px = (k: number) => Number.parseFloat(this.s(st[k])) || 0;
    const x = b.left + px(4) + px(6);
    const y = b.top + px(5) + px(7);
    const clip = { left: x, top: y, right: b.right - px(4), bottom: b.bottom - px(5) };
    return { x, y, clip: this.clip ? intersect(this.clip, clip) : clip };
  }
}

function intersect(a: Bounds, b: Bounds): Bounds {
  return { left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) };
}

/** The computed styles `fromDomSnapshot` reads, in this order. */
export const kSnapshotStyles = ['display', 'visibility', 'opacity', 'white-space', 'border-left-width', 'border-top-width', 'padding-left', 'padding-top', 'overflow'];

/**
 * Builds the tree of the main frame (document 0), with same-process iframes' documents and the
 * given cross-process frames inside their <iframe> elements. Bounds are CSS px relative to the viewport.
 */
export function fromDomSnapshot(snapshot: DomSnapshot, viewport: Viewport, frames: FrameSnapshot[] = []): LayoutTree {
  const doc0 = snapshot?.documents?.[0];
  if (!doc0 || !Array.isArray(snapshot.strings)) throw new BoxflowError('INVALID_ARGUMENT', 'fromDomSnapshot: not a DOMSnapshot.captureSnapshot result (no documents[0] or strings)');
  const scrollX = viewport.scrollX ?? doc0.scrollOffsetX ?? 0;
  const scrollY = viewport.scrollY ?? doc0.scrollOffsetY ?? 0;
  const main = new Doc(snapshot, 0, 0, -scrollX, -scrollY, undefined);
  const remote = new Map<number, { snapshot: DomSnapshot; no: number }>();
  frames.forEach((f, k) => f.snapshot?.documents?.[0] && remote.set(f.ownerBackendNodeId, { snapshot: f.snapshot, no: k + 1 }));

  const b = new HtmlTreeBuilder();
  const nodeOf = new Map<number, { doc: Doc; i: number }>(); // LayoutNode order → DOM node
  const hasBox: boolean[] = [];
  const opacityZero: boolean[] = [false];
  const cssHidden: boolean[] = [false];
  const subtreeHasBox = new Map<Doc, Uint8Array>();
  const boxed = (d: Doc) => {
    let a = subtreeHasBox.get(d);
    if (!a) subtreeHasBox.set(d, (a = new Uint8Array(d.box.length)));
    return a;
  };
  // order: the LayoutNode's position, -1 for a document and fragments (shadow roots), which are transparent.
  // clip: what ancestors that scroll or hide their overflow (and frames) let show.
  const clipOf: (Bounds | undefined)[] = [undefined];
  const stack: { doc: Doc; i: number; child: number; order: number; clip: Bounds | undefined }[] = [{ doc: main, i: 0, child: 0, order: -1, clip: undefined }];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    const { doc } = top;
    const dn = doc.nodes;
    if (top.child < doc.children[top.i]!.length) {
      const c = doc.children[top.i]![top.child++]!;
      const type = dn.nodeType?.[c];
      if (type === kText) {
        b.text(doc.s(dn.nodeValue?.[c]));
        continue;
      }
      if (type === kElement && !doc.pseudo.has(c)) {
        const attrs: Record<string, string> = {};
        const flat = dn.attributes?.[c] ?? [];
        for (let k = 0; k + 1 < flat.length; k += 2) attrs[doc.s(flat[k]).toLowerCase()] = doc.s(flat[k + 1]);
        const st = doc.style[c];
        const node = b.open(doc.s(dn.nodeName?.[c]), attrs, false, st ? { display: doc.s(st[0]), ...(st[3] !== undefined ? { whiteSpace: doc.s(st[3]) } : {}) } : {});
        nodeOf.set(node.order, { doc, i: c });
        const backendNodeId = doc.backend[c];
        if (backendNodeId !== undefined) kDomRefs.set(node, { snapshot: doc.snapshotNo, backendNodeId });
        hasBox[node.order] = doc.box[c] !== undefined;
        opacityZero[node.order] = (st !== undefined && Number(doc.s(st[2])) === 0) || opacityZero[node.parent!.order]!;
        cssHidden[node.order] = st !== undefined && (doc.s(st[0]) === 'none' || doc.s(st[1]) === 'hidden' || doc.s(st[1]) === 'collapse');
        clipOf[node.order] = top.clip;
        const overflow = st?.[8] !== undefined ? doc.s(st[8]) : 'visible';
        if (overflow !== 'visible' && overflow !== '') kOverflow.set(node, overflow);
        const bx = doc.box[c];
        const clip = bx && overflow !== 'visible' && node.tag !== 'html' && node.tag !== 'body' ? (top.clip ? intersect(top.clip, bx) : bx) : top.clip;
        stack.push({ doc, i: c, child: 0, order: node.order, clip });
        // A frame's document goes inside its <iframe>, placed where the frame shows it.
        const sub = doc.contentDoc.get(c);
        const far = doc === main && backendNodeId !== undefined ? remote.get(backendNodeId) : undefined;
        const origin = sub !== undefined || far ? doc.frameOrigin(c) : undefined;
        if (origin) {
          const snap = far ? far.snapshot : snapshot;
          const index = far ? 0 : sub!;
          const d = snap.documents[index]!;
          const child = new Doc(snap, index, far ? far.no : doc.snapshotNo, origin.x - (d.scrollOffsetX ?? 0), origin.y - (d.scrollOffsetY ?? 0), origin.clip);
          stack.push({ doc: child, i: 0, child: 0, order: -1, clip: top.clip ? intersect(top.clip, origin.clip) : origin.clip });
        }
      } else if (type !== kElement && doc.children[c]!.length) {
        stack.push({ doc, i: c, child: 0, order: -1, clip: top.clip });
      }
      continue;
    }
    stack.pop();
    const parent = stack[stack.length - 1];
    const mine = boxed(doc);
    if (doc.box[top.i]) mine[top.i] = 1;
    if (parent && mine[top.i]) boxed(parent.doc)[parent.i] = 1;
    if (top.order < 0) continue;
    const { i, order } = top;
    const live: LiveState = {};
    const tag = doc.s(dn.nodeName?.[i]).toLowerCase();
    if (doc.inputValue.has(i)) live.value = doc.inputValue.get(i)!;
    if (doc.checked.has(i)) live.checked = true;
    else if (dn.inputChecked && tag === 'input') live.checked = false;
    if (doc.selected.has(i)) live.selected = true;
    else if (dn.optionSelected && tag === 'option') live.selected = false;
    if (doc.clickable.has(i)) live.clickable = true;
    // No box and no boxed descendant: display:none (or never rendered), so its text is not on screen.
    const selfHidden = !mine[i] || cssHidden[order]! || (opacityZero[order]! && !opacityZero[b.nodes[order]!.parent!.order]);
    b.close(live, selfHidden);
  }
  const { root, nodes, end } = b.finish();

  // Geometry and visibility.
  root.bounds = { left: 0, top: 0, right: viewport.width, bottom: viewport.height };
  root.visible = true;
  for (let k = 1; k < nodes.length; k++) {
    const node = nodes[k]!;
    const at = nodeOf.get(k)!;
    const bx = at.doc.box[at.i];
    if (bx) node.bounds = bx;
    const clip = clipOf[k];
    const seen = bx && clip ? intersect(bx, clip) : bx;
    node.visible =
      hasBox[k] === true &&
      !cssHidden[k] &&
      !opacityZero[k] &&
      node.attributes.hidden === undefined &&
      !kHiddenTags.has(node.tag) &&
      seen !== undefined &&
      !isEmptyBounds(seen) &&
      intersects(seen, viewport.width, viewport.height);
  }
  const tree: LayoutTree = { format: 'html', root, nodes, screen: { width: viewport.width, height: viewport.height }, hasGeometry: true };
  registerTree(tree, end);
  return tree;
}
