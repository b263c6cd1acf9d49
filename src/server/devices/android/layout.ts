// `uiautomator dump /dev/tty` output → the hierarchy XML, and text targets resolved against it
// with the same rules as a Linux box's page (exact, then contains; innermost; unique or 422).
import { Parser } from 'htmlparser2';
import { BoxflowError } from '../../../errors.js';
import type { TargetMatch, TargetResolution } from '../targets.js';

const kOpen = /<\?xml[^>]*\?>\s*<hierarchy\b|<hierarchy\b/;
const kClose = '</hierarchy>';

/**
 * The XML document inside a dump: real captures carry a UTF-8 BOM, the `UI hierchary dumped to:`
 * trailer glued after `</hierarchy>`, and on MIUI Java stack traces before it. Output without a
 * complete hierarchy is the device's error, never an empty screen.
 */
export function extractHierarchy(raw: Buffer | string): string {
  const text = (typeof raw === 'string' ? raw : raw.toString('utf8')).replace(/^\uFEFF/, '');
  const open = kOpen.exec(text);
  const close = text.lastIndexOf(kClose);
  if (!open || close < open.index) {
    const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    const said = lines.find((l) => /^ERROR:/.test(l)) ?? lines.slice(0, 2).join(' | ');
    throw new BoxflowError('DEVICE_ERROR', `uiautomator dump returned no layout: ${said ? said.slice(0, 400) : 'no output'}`);
  }
  return text.slice(open.index, close + kClose.length);
}

/**
 * The hierarchy with the soft keyboard's state on its root (`keyboard="shown"|"hidden"`): a dump has
 * no IME window, and hideKeyboard must know whether back would close the keyboard or leave the screen.
 */
export function withKeyboard(xml: string, shown: boolean): string {
  return xml.replace(/<hierarchy\b/, `<hierarchy keyboard="${shown ? 'shown' : 'hidden'}"`);
}

interface Node {
  tag: string;
  names: string[];
  x: number;
  y: number;
  parent: Node | undefined;
}

const norm = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim().toLowerCase();
const kBounds = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/;

/** Visible nodes that show or are labelled by some text, with their centres in device pixels. */
function namedNodes(xml: string): Node[] {
  const out: Node[] = [];
  const stack: Array<Node | undefined> = [];
  const parser = new Parser(
    {
      onopentag(name, a) {
        const parent = stack.findLast((n) => n !== undefined);
        if (name !== 'node') return void stack.push(undefined);
        const b = kBounds.exec(a.bounds ?? '');
        const names = [a.text, a['content-desc'], a.hint].map(norm).filter(Boolean);
        const visible = b && Number(b[3]) > Number(b[1]) && Number(b[4]) > Number(b[2]) && a['visible-to-user'] !== 'false';
        const node: Node = { tag: (a.class ?? 'node').split('.').pop()!, names, x: b ? (Number(b[1]) + Number(b[3])) / 2 : 0, y: b ? (Number(b[2]) + Number(b[4])) / 2 : 0, parent };
        if (visible && names.length && a.password !== 'true') out.push(node);
        stack.push(node);
      },
      onclosetag() {
        stack.pop();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  return out;
}

const contains = (outer: Node, inner: Node) => {
  for (let p = inner.parent; p; p = p.parent) if (p === outer) return true;
  return false;
};

export function resolveTargetInLayout(xml: string, target: string): TargetResolution {
  const want = norm(target);
  const all = namedNodes(xml);
  const innermost = (list: Node[]) => list.filter((c) => !list.some((o) => o !== c && contains(c, o)));
  const describe = (n: Node): TargetMatch => ({ tag: n.tag, text: n.names[0]!.slice(0, 80), x: n.x, y: n.y });
  let how = 'exact';
  let matches = innermost(all.filter((n) => n.names.includes(want)));
  if (!matches.length) {
    how = 'contains';
    matches = innermost(all.filter((n) => n.names.some((s) => s.includes(want))));
  }
  if (matches.length === 1) return { how, found: describe(matches[0]!) };
  if (matches.length > 1) return { how, ambiguous: matches.slice(0, 20).map(describe) };
  return { how, candidates: innermost(all).slice(0, 300).map(describe) };
}
