// CSS selectors over LayoutNode trees (HTML and snapshot trees) through a css-select adapter,
// so no second DOM is kept. The root (`#document`) is not an element.
import { compile, type Options } from 'css-select';
import { BoxflowError } from '../errors.js';
import type { LayoutNode, LayoutTree } from './types.js';
import { treeIndex } from './tree.js';

const isTag = (n: LayoutNode): n is LayoutNode => n.parent !== null;

const kAdapter: NonNullable<Options<LayoutNode, LayoutNode>['adapter']> = {
  isTag,
  getAttributeValue: (e, name) => e.attributes[name],
  getChildren: (n) => n.children,
  getName: (e) => e.tag,
  getParent: (e) => e.parent,
  getSiblings: (n) => (n.parent ? n.parent.children : [n]),
  prevElementSibling: (n) => {
    const sibs = n.parent?.children;
    if (!sibs) return null;
    const i = sibs.indexOf(n);
    return i > 0 ? sibs[i - 1]! : null;
  },
  getText: (n) => n.text,
  hasAttrib: (e, name) => Object.prototype.hasOwnProperty.call(e.attributes, name),
  removeSubsets: (nodes) => {
    const set = new Set(nodes);
    return nodes.filter((n) => {
      for (let p = n.parent; p; p = p.parent) if (set.has(p)) return false;
      return true;
    });
  },
};

const kOptions: Options<LayoutNode, LayoutNode> = { adapter: kAdapter, xmlMode: false, cacheResults: false };
const kCompiled = new Map<string, ReturnType<typeof compile<LayoutNode, LayoutNode>>>();
const kMaxCompiled = 256;

function compiled(selector: string) {
  let c = kCompiled.get(selector);
  if (!c) {
    try {
      c = compile<LayoutNode, LayoutNode>(selector, kOptions);
    } catch (err) {
      throw new BoxflowError('INVALID_ARGUMENT', `invalid css selector ${JSON.stringify(selector)}: ${(err as Error).message}`, { cause: err });
    }
    if (kCompiled.size >= kMaxCompiled) kCompiled.delete(kCompiled.keys().next().value!);
    kCompiled.set(selector, c);
  }
  return c;
}

/** Nodes matching a CSS selector (all, visible or not), as a set. */
export function cssMatches(tree: LayoutTree, selector: string): Set<LayoutNode> {
  if (tree.format !== 'html') throw new BoxflowError('INVALID_ARGUMENT', `css selectors apply to HTML layouts only; this layout is ${tree.format} (use id, class, text or xpath)`);
  const query = compiled(selector);
  const out = new Set<LayoutNode>();
  const { nodes } = treeIndex(tree);
  for (let i = 1; i < nodes.length; i++) if (query(nodes[i]!)) out.add(nodes[i]!);
  return out;
}

