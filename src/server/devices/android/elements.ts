// detect-elements on an Android box: the nodes of the uiautomator dump that a user could act on
// (the rules: the endpoint's handler, http/endpoints/detect.ts), their bounds in real pixels.
import { Parser } from 'htmlparser2';
import type { FoundElement as Found } from '../device.js';

const kLabelChars = 200;

const kBounds = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/;

/** A node's kind, from its class and flags. */
function androidType(cls: string, a: Record<string, string>): string {
  const name = cls.split('.').pop() ?? '';
  if (/EditText$/.test(name)) return 'textbox';
  if (/Switch$/.test(name)) return 'switch';
  if (/RadioButton$/.test(name)) return 'radio';
  if (/CheckBox$/.test(name) || a.checkable === 'true') return 'checkbox';
  if (/SeekBar$/.test(name)) return 'slider';
  if (/Button$/.test(name)) return 'button';
  return 'clickable';
}

/** The acting nodes of a uiautomator dump, in device pixels, in document order. */
export function androidElements(xml: string): Found[] {
  const out: Found[] = [];
  /** Per open element: how many `node` children it has had so far. */
  const counts: number[] = [0];
  const path: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, a) {
        const index = ++counts[counts.length - 1]!;
        counts.push(0);
        path.push(name === 'node' ? `node[${index}]` : name);
        if (name !== 'node') return;
        const cls = a.class ?? '';
        const acts = a.clickable === 'true' || a['long-clickable'] === 'true' || a.checkable === 'true' || /EditText$/.test(cls);
        const b = kBounds.exec(a.bounds ?? '');
        if (!acts || !b || a.enabled === 'false' || a['visible-to-user'] === 'false') return;
        const [x1, y1, x2, y2] = [b[1], b[2], b[3], b[4]].map(Number) as [number, number, number, number];
        if (x2 <= x1 || y2 <= y1) return;
        const id = (a['resource-id'] ?? '').replace(/^.*:id\//, '');
        const label = [a.password === 'true' ? '' : a.text, a['content-desc'], a.hint, id].map((s) => (s ?? '').replace(/\s+/g, ' ').trim()).find(Boolean) ?? '';
        out.push({ x: x1, y: y1, width: x2 - x1, height: y2 - y1, label: label.slice(0, kLabelChars), path: `/${path.join('/')}`, type: androidType(cls, a) });
      },
      onclosetag() {
        counts.pop();
        path.pop();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  return out;
}


