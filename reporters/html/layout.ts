// Pretty-prints a failing step's layout snapshot (Android uiautomator XML or HTML) as indented
// lines for the viewer, marking the nodes that match the selector's near candidates.
import { parseDocument } from 'htmlparser2';
import { isTag, isText } from 'domhandler';
import type { ChildNode, Element } from 'domhandler';
import type { LayoutEvidence, SerializedTree } from '../../src/runner/types.js';

export interface PrettyLayout {
  format: 'android' | 'html';
  selector: string;
  candidates: LayoutEvidence['candidates'];
  /** [depth, text, candidate index (1-based) when the node matches a candidate] */
  lines: [number, string, number?][];
  truncated: boolean;
}

const kMaxLines = 5000;
const kAndroidFlags = ['clickable', 'checked', 'selected', 'focused', 'scrollable', 'long-clickable', 'password'];
const kHtmlAttrs = ['id', 'class', 'name', 'type', 'role', 'aria-label', 'alt', 'title', 'href', 'placeholder', 'value', 'hidden', 'disabled'];
const kSkipContent = new Set(['script', 'style', 'noscript', 'template']);

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
const clip = (s: string, n = 120) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function isElement(n: ChildNode): n is Element {
  return isTag(n);
}

function textOf(n: ChildNode): string {
  if (isText(n)) return n.data;
  if (isElement(n)) return n.children.map(textOf).join(' ');
  return '';
}

interface Fields {
  tag: string;
  text: string;
  id: string;
  desc: string;
}

function fieldsOf(el: Element, format: 'android' | 'html'): Fields {
  const a = el.attribs;
  if (format === 'android') return { tag: a.class ?? el.name, text: a.text ?? '', id: a['resource-id'] ?? '', desc: a['content-desc'] ?? '' };
  return { tag: el.name.toLowerCase(), text: collapse(textOf(el)), id: a.id ?? '', desc: a['aria-label'] ?? a.alt ?? a.title ?? '' };
}

function matches(f: Fields, c: LayoutEvidence['candidates'][number], format: 'android' | 'html'): boolean {
  if (!c.text && !c.id && !c.desc) return false;
  if (c.text && collapse(c.text) !== collapse(f.text)) return false;
  if (c.id) {
    const idOk = f.id === c.id || (format === 'android' && f.id.endsWith(`/${c.id}`)) || (format === 'android' && c.id.endsWith(`/${f.id}`) && f.id !== '');
    if (!idOk) return false;
  }
  if (c.desc && c.desc !== f.desc) return false;
  if (c.tag && c.tag.toLowerCase() !== f.tag.toLowerCase() && !f.tag.toLowerCase().endsWith(`.${c.tag.toLowerCase()}`)) return false;
  return true;
}

function quote(v: string): string {
  return `"${clip(v).replace(/"/g, '&quot;')}"`;
}

/** The tree the runner searched (runner/steps/target.ts): candidates are marked by their exact node. */
function prettySearched(tree: SerializedTree, evidence: Pick<LayoutEvidence, 'format' | 'selector' | 'candidates'>): PrettyLayout {
  const mark = new Map(evidence.candidates.map((c, i) => [c.order, i + 1]));
  const nodes = tree.nodes.slice(0, kMaxLines);
  const lines: PrettyLayout['lines'] = nodes.map((n) => {
    const parts = [tree.format === 'html' ? `<${n.tag}>` : n.tag];
    if (n.id) parts.push(`id=${quote(n.id)}`);
    for (const [k, v] of Object.entries(n.attributes ?? {})) parts.push(`${k}=${quote(v)}`);
    if (n.desc) parts.push(`desc=${quote(n.desc)}`);
    if (n.text) parts.push(`text=${quote(collapse(n.text))}`);
    for (const s of n.state ?? []) parts.push(s);
    if (n.bounds) parts.push(`[${[n.bounds.left, n.bounds.top].map(Math.round).join(',')}][${[n.bounds.right, n.bounds.bottom].map(Math.round).join(',')}]`);
    if (!n.visible) parts.push('(not visible)');
    const m = mark.get(n.order);
    return m ? [n.depth, parts.join(' '), m] : [n.depth, parts.join(' ')];
  });
  return { format: tree.format, selector: evidence.selector, candidates: evidence.candidates, lines, truncated: tree.nodes.length > kMaxLines };
}

export function prettyLayout(content: string, evidence: Pick<LayoutEvidence, 'format' | 'selector' | 'candidates'>): PrettyLayout {
  if (content.startsWith('{')) {
    const tree = JSON.parse(content) as SerializedTree;
    if (tree.kind === 'boxflow-layout') return prettySearched(tree, evidence);
  }
  const { format } = evidence;
  const doc = parseDocument(content, { xmlMode: format === 'android', decodeEntities: true });
  const lines: PrettyLayout['lines'] = [];
  let truncated = false;
  const push = (depth: number, text: string, mark?: number) => {
    if (lines.length >= kMaxLines) {
      truncated = true;
      return;
    }
    lines.push(mark ? [depth, text, mark] : [depth, text]);
  };
  const visit = (nodes: ChildNode[], depth: number) => {
    for (const n of nodes) {
      if (truncated) return;
      if (isText(n)) {
        if (format === 'html') {
          const t = collapse(n.data);
          if (t) push(depth, clip(t, 200));
        }
        continue;
      }
      if (!isElement(n)) continue;
      const f = fieldsOf(n, format);
      const idx = evidence.candidates.findIndex((c) => matches(f, c, format));
      const mark = idx >= 0 ? idx + 1 : undefined;
      if (format === 'android') {
        const a = n.attribs;
        const parts = [n.name === 'node' ? (a.class ?? 'node') : n.name];
        if (a.text) parts.push(`text=${quote(a.text)}`);
        if (a['resource-id']) parts.push(`id=${quote(a['resource-id'])}`);
        if (a['content-desc']) parts.push(`desc=${quote(a['content-desc'])}`);
        for (const flag of kAndroidFlags) if (a[flag] === 'true') parts.push(flag);
        if (a.enabled === 'false') parts.push('disabled');
        if (a.bounds) parts.push(a.bounds);
        push(depth, parts.join(' '), mark);
        visit(n.children, depth + 1);
      } else {
        const attrs = kHtmlAttrs.filter((k) => n.attribs[k] !== undefined).map((k) => (n.attribs[k] === '' ? k : `${k}=${quote(n.attribs[k]!)}`));
        push(depth, `<${n.name}${attrs.length ? ` ${attrs.join(' ')}` : ''}>`, mark);
        if (!kSkipContent.has(n.name)) visit(n.children, depth + 1);
      }
    }
  };
  visit(doc.children, 0);
  return { format, selector: evidence.selector, candidates: evidence.candidates, lines, truncated };
}
