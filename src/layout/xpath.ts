// XPath over Android trees: an @xmldom/xmldom document is built once per tree (and naming style)
// from the LayoutNodes themselves, so hand-built trees work too; results map back by identity.
import { DOMImplementation } from '@xmldom/xmldom';
import xpath from 'xpath';
import { BoxflowError } from '../errors.js';
import type { LayoutNode, LayoutTree } from './types.js';
import { treeIndex } from './tree.js';

interface XDoc {
  doc: unknown;
  owner: Map<unknown, LayoutNode>;
}

/**
 * Names as in the dump (`//node[@text="OK"]`), or Appium style (`//android.widget.Button[@text="OK"]`)
 * when a name test in the expression, outside string literals, contains a dot.
 */
export function usesClassNames(expression: string): boolean {
  const bare = expression.replace(/'[^']*'|"[^"]*"/g, "''");
  return /(?:^|\/|::|\()\s*[A-Za-z_][\w-]*(?:\.[A-Za-z_$][\w$-]*)+/.test(bare);
}

function xmlName(s: string): string {
  const cleaned = s.replace(/[^\w.-]/g, '_');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

function buildDoc(tree: LayoutTree, classNames: boolean): XDoc {
  const impl = new DOMImplementation();
  const doc = impl.createDocument(null, 'hierarchy', null);
  const owner = new Map<unknown, LayoutNode>();
  const rootEl = doc.documentElement!;
  owner.set(rootEl, tree.root);
  const setAttrs = (el: { setAttribute(n: string, v: string): void }, attrs: Record<string, string>) => {
    for (const [k, v] of Object.entries(attrs)) {
      try {
        el.setAttribute(k, v);
      } catch {
        // A name XML cannot hold cannot be queried either.
      }
    }
  };
  setAttrs(rootEl, tree.root.attributes);
  const stack: [LayoutNode, { appendChild(c: unknown): unknown }][] = [[tree.root, rootEl as never]];
  while (stack.length) {
    const [node, el] = stack.pop()!;
    for (const child of node.children) {
      const c = doc.createElement(classNames ? xmlName(child.tag) : 'node');
      setAttrs(c, child.attributes);
      el.appendChild(c);
      owner.set(c, child);
      stack.push([child, c as never]);
    }
  }
  return { doc, owner };
}

/** Nodes an XPath expression selects (all, visible or not). Attribute and text results map to their element. */
export function xpathMatches(tree: LayoutTree, expression: string): Set<LayoutNode> {
  if (tree.format !== 'android') throw new BoxflowError('INVALID_ARGUMENT', `xpath selectors apply to Android layouts only; this layout is ${tree.format} (use css)`);
  const classNames = usesClassNames(expression);
  const key = classNames ? 'xpath:class' : 'xpath:node';
  const { extra } = treeIndex(tree);
  let x = extra.get(key) as XDoc | undefined;
  if (!x) {
    x = buildDoc(tree, classNames);
    extra.set(key, x);
  }
  let result: unknown;
  try {
    result = xpath.select(expression, x.doc as Node);
  } catch (err) {
    throw new BoxflowError('INVALID_ARGUMENT', `invalid xpath ${JSON.stringify(expression)}: ${(err as Error).message}`, { cause: err });
  }
  if (!Array.isArray(result)) throw new BoxflowError('INVALID_ARGUMENT', `xpath ${JSON.stringify(expression)} gives a ${typeof result}, not elements`);
  const out = new Set<LayoutNode>();
  for (const r of result as { nodeType: number; ownerElement?: unknown; parentNode?: unknown }[]) {
    const el = r.nodeType === 2 ? r.ownerElement : r.nodeType === 1 ? r : r.parentNode;
    const node = x.owner.get(el);
    if (node && node !== tree.root) out.add(node);
  }
  return out;
}
