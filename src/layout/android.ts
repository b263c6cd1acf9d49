// Android uiautomator dumps (`uiautomator dump`, `/dev/tty` output, tool re-prints) → LayoutTree.
import { Parser } from 'htmlparser2';
import type { Bounds, LayoutNode, LayoutTree } from './types.js';
import { intersects, isEmptyBounds, makeNode, registerTree } from './tree.js';

const kBounds = /^\s*\[\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\]\s*\[\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\]\s*$/;

/** `[l,t][r,b]` → Bounds; undefined when absent or malformed. */
export function parseBounds(s: string | undefined): Bounds | undefined {
  if (s === undefined) return undefined;
  const m = kBounds.exec(s);
  if (!m) return undefined;
  return { left: Number(m[1]), top: Number(m[2]), right: Number(m[3]), bottom: Number(m[4]) };
}

/**
 * Strips what real captures carry around the XML: a UTF-8 BOM (PowerShell redirects) and the
 * `UI hierchary dumped to: /dev/tty` trailer Android prints after `</hierarchy>`.
 */
export function cleanAndroidXml(content: string): string {
  let s = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  const close = s.lastIndexOf('</hierarchy>');
  if (close >= 0) s = s.slice(0, close + '</hierarchy>'.length);
  return s;
}

export function parseAndroid(content: string): LayoutTree {
  const xml = cleanAndroidXml(content);
  const nodes: LayoutNode[] = [];
  const end: number[] = [];
  let root: LayoutNode | null = null;
  // null marks a transparent element: a second <hierarchy> whose windows join the first one.
  const stack: (LayoutNode | null)[] = [];
  const parentOf = (): LayoutNode | null => {
    for (let i = stack.length - 1; i >= 0; i--) if (stack[i]) return stack[i]!;
    return root;
  };
  const add = (node: LayoutNode) => {
    node.order = nodes.length;
    nodes.push(node);
    end.push(node.order);
    node.parent?.children.push(node);
  };

  const parser = new Parser(
    {
      onopentag: (name, attribs) => {
        if (name === 'hierarchy' && !root) {
          root = makeNode('hierarchy', attribs, null);
          add(root);
          stack.push(root);
          return;
        }
        if (name === 'hierarchy') {
          stack.push(null);
          return;
        }
        if (!root) {
          root = makeNode('hierarchy', {}, null);
          add(root);
        }
        const node = makeNode(attribs.class || name, attribs, parentOf());
        add(node);
        stack.push(node);
      },
      onclosetag: () => {
        const node = stack.pop();
        if (node) end[node.order] = nodes.length - 1;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  if (!root) {
    root = makeNode('hierarchy', {}, null);
    add(root);
  }
  end[0] = nodes.length - 1;

  for (const node of nodes) {
    if (node === root) continue;
    const a = node.attributes;
    node.text = a.text ?? '';
    node.id = a['resource-id'] ?? '';
    node.desc = a['content-desc'] ?? '';
    const b = parseBounds(a.bounds);
    if (b) node.bounds = b;
    node.state = {
      enabled: a.enabled !== 'false',
      checked: a.checked === 'true',
      selected: a.selected === 'true',
      focused: a.focused === 'true',
      clickable: a.clickable === 'true',
      scrollable: a.scrollable === 'true',
    };
  }

  const screen = screenOf(root);
  for (const node of nodes) {
    if (node === root) continue;
    const a = node.attributes;
    const b = node.bounds;
    node.visible =
      a.displayed !== 'false' &&
      a['visible-to-user'] !== 'false' &&
      b !== undefined &&
      !isEmptyBounds(b) &&
      (!screen || intersects(b, screen.width, screen.height));
  }
  const r = root as LayoutNode;
  if (screen) r.bounds = { left: 0, top: 0, right: screen.width, bottom: screen.height };

  const tree: LayoutTree = { format: 'android', root: r, nodes, hasGeometry: true };
  if (screen) tree.screen = screen;
  registerTree(tree, end);
  return tree;
}

/** The screen is what the top-level windows cover (two windows: status bar + app). */
function screenOf(root: LayoutNode): { width: number; height: number } | undefined {
  const own = parseBounds(root.attributes.bounds);
  if (own && !isEmptyBounds(own)) return { width: own.right, height: own.bottom };
  let width = 0;
  let height = 0;
  for (const w of root.children) {
    if (!w.bounds) continue;
    width = Math.max(width, w.bounds.right);
    height = Math.max(height, w.bounds.bottom);
  }
  return width > 0 && height > 0 ? { width, height } : undefined;
}
