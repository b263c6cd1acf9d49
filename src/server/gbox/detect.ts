// POST /boxes/{boxId}/actions/elements/detect (docs/api.md): the interactive elements on
// the box's screen, without a model, and two images of it: `source` (the screenshot) and `marked`
// (the same with a numbered box around each element; the number is the element's `id`).
//
// Linux boxes: the active tab's elements a user could act on: links, buttons, inputs (not hidden
// ones), selects, textareas, <summary>, media with controls, elements with an interactive ARIA role,
// an onclick attribute, contenteditable or a tabindex of 0 or more, in the document and its open
// shadow roots (not in iframes); disabled and inert ones are left out, and so is any element not in
// the viewport, not rendered (checkVisibility: display, visibility, opacity) or covered at its
// centre by another element (elementFromPoint, as a click there would land elsewhere; its own label
// may cover it). Its box is its part inside the viewport. Found by a script in an isolated world
// of the page (the page's own globals cannot change the answer) over the tab's CDP connection, so
// bounded by the box's CDP timeout.
// Android boxes: the nodes of the uiautomator dump (as screen-layout reads it) that are clickable,
// long-clickable, checkable or an EditText, enabled, not `visible-to-user="false"`, with their
// bounds inside the screen.
//
// Coordinates are in the action scale (PUT /actions/settings; at the default 1 the screen's pixels):
// the pixels of the two images, and the units click, tap and long-press take, so an element handed
// back as their `target` is acted on at its centre. At most kDetectMaxElements elements, in document
// order (`truncated: true` says when there were more). The request runs in the box's queue and has
// an actionId (the `x-boxflow-action-id` header, and `actionId` in the body as screenshot has); its
// images are stored under it with `outputFormat: storageKey`.
import { bodyOf } from '../requestChecks.js';
import { Parser } from 'htmlparser2';
import { BoxflowError } from '../../errors.js';
import { parseDuration } from '../../api/duration.js';
import { endpoints, kDetectMaxElements, type DetectedElement, type DetectElementsBody } from '../../api/schemas.js';
import type { FoundElement } from '../devices/device.js';
import type { BoxCall } from './boxRoute.js';
import type { Answer, Call } from '../call.js';
import type { LinuxBox } from '../chromium/linuxBox.js';
import { call as callScript } from '../chromium/pageScripts.js';
import { loadCanvas } from '../optionalPackages.js';
import { pngSize } from '../../png/png.js';
import type { ObjectStore } from '../storage.js';
import { isolatedWorld, type Evaluated } from './linux.js';

export interface DetectDeps {
  boxCall: BoxCall<Call>;
  store: ObjectStore;
}

/** An element as a backend finds it: its box in the screen's real pixels. */
type Found = FoundElement;

const kLabelChars = 200;

/** In the page (an isolated world): the interactive elements in the viewport, at most `max` (+1 to tell a cut). */
const kDetectScript = String.raw`(max) => {
  const vw = innerWidth, vh = innerHeight;
  const sel = ['a[href]', 'area[href]', 'button', 'input:not([type=hidden])', 'select', 'textarea', 'summary', 'video[controls]', 'audio[controls]',
    '[role=button]', '[role=link]', '[role=checkbox]', '[role=radio]', '[role=switch]', '[role=tab]', '[role=menuitem]', '[role=menuitemcheckbox]',
    '[role=menuitemradio]', '[role=option]', '[role=combobox]', '[role=textbox]', '[role=searchbox]', '[role=slider]', '[role=spinbutton]', '[role=treeitem]',
    '[onclick]', '[contenteditable=""]', '[contenteditable=true]', '[contenteditable=plaintext-only]', '[tabindex]:not([tabindex^="-"])'].join(',');
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const textById = (id) => { const e = document.getElementById(id); return e ? e.innerText || e.textContent : ''; };
  const labelOf = (el) => {
    const tag = el.tagName;
    const tries = [
      () => el.getAttribute('aria-label'),
      () => (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean).map(textById).join(' '),
      () => el.labels ? [...el.labels].map((l) => l.innerText).join(' ') : '',
      () => tag === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type) ? el.value : '',
      () => tag === 'SELECT' ? [...el.selectedOptions].map((o) => o.text).join(', ') : '',
      () => tag === 'INPUT' || tag === 'TEXTAREA' ? '' : el.innerText,
      () => el.getAttribute('alt') || (el.querySelector && el.querySelector('img[alt]') ? el.querySelector('img[alt]').getAttribute('alt') : ''),
      () => el.getAttribute('placeholder'),
      () => el.getAttribute('title'),
      () => el.getAttribute('name'),
    ];
    for (const t of tries) { const v = norm(t()); if (v) return v; }
    return '';
  };
  const kInput = { checkbox: 'checkbox', radio: 'radio', range: 'slider', button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button', color: 'button', number: 'spinbutton', search: 'searchbox' };
  const typeOf = (el) => {
    const role = norm(el.getAttribute('role')).split(' ')[0];
    if (role) return role;
    const tag = el.tagName;
    if (tag === 'A' || tag === 'AREA') return 'link';
    if (tag === 'BUTTON' || tag === 'SUMMARY') return 'button';
    if (tag === 'SELECT') return el.multiple ? 'listbox' : 'combobox';
    if (tag === 'TEXTAREA') return 'textbox';
    if (tag === 'INPUT') return kInput[el.type] || 'textbox';
    if (tag === 'VIDEO' || tag === 'AUDIO') return tag.toLowerCase();
    if (el.isContentEditable) return 'textbox';
    return 'clickable';
  };
  const pathOf = (el) => {
    const parts = [];
    for (let n = el; n; ) {
      const parent = n.parentNode;
      let index = 0, same = 0;
      if (parent && parent.children) for (const c of parent.children) { if (c.localName === n.localName) { same++; if (c === n) index = same; } }
      parts.unshift(same > 1 ? n.localName + '[' + index + ']' : n.localName);
      if (n.parentElement) n = n.parentElement;
      else if (parent instanceof ShadowRoot) { parts.unshift('#shadow-root'); n = parent.host; }
      else n = null;
    }
    return '/' + parts.join('/');
  };
  const out = [];
  let truncated = false;
  const consider = (el) => {
    if (el.disabled === true || el.closest('[inert]')) return;
    const r = el.getBoundingClientRect();
    const x1 = Math.max(0, r.left), y1 = Math.max(0, r.top), x2 = Math.min(vw, r.right), y2 = Math.min(vh, r.bottom);
    if (x2 - x1 < 1 || y2 - y1 < 1) return;
    if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true })) return;
    const root = el.getRootNode();
    const hit = (root.elementFromPoint ? root : document).elementFromPoint((x1 + x2) / 2, (y1 + y2) / 2);
    const mine = (h) => h && (h === el || el.contains(h));
    if (!mine(hit) && !(el.labels && [...el.labels].some((l) => l === hit || l.contains(hit)))) return;
    if (out.length >= max) { truncated = true; return; }
    out.push({ x: x1, y: y1, width: x2 - x1, height: y2 - y1, label: labelOf(el).slice(0, ${kLabelChars}), path: pathOf(el), type: typeOf(el) });
  };
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (truncated) return;
      if (el.matches(sel)) consider(el);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  if (document.documentElement) visit(document);
  return { elements: out, truncated };
}`;

export async function detectOnLinux(box: LinuxBox): Promise<{ found: Found[]; truncated: boolean }> {
  const cdp = await box.pageCdp();
  const contextId = await isolatedWorld(cdp, 'boxflow-detect');
  const r = await cdp.send<Evaluated>('Runtime.evaluate', { expression: callScript(kDetectScript, kDetectMaxElements), contextId, returnByValue: true });
  if (r.exceptionDetails) throw new BoxflowError('BROWSER_ERROR', `the active tab's elements could not be read: ${r.exceptionDetails.text}`);
  const value = r.result.value as { elements: Found[]; truncated: boolean } | undefined;
  if (!value || !Array.isArray(value.elements)) throw new BoxflowError('BROWSER_ERROR', "the active tab's elements could not be read: no answer from the page");
  return { found: value.elements, truncated: value.truncated };
}

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


const round = (n: number) => Math.round(n * 100) / 100;

/**
 * The elements in the action scale, clipped to the screen (`width`×`height`, the screenshot's
 * pixels); those with less than a pixel left are dropped. Ids count from 1.
 */
export function inScreen(found: Found[], scale: number, width: number, height: number, source: string): { elements: DetectedElement[]; truncated: boolean } {
  const out: DetectedElement[] = [];
  for (const f of found) {
    const x1 = Math.max(0, f.x * scale);
    const y1 = Math.max(0, f.y * scale);
    const x2 = Math.min(width, (f.x + f.width) * scale);
    const y2 = Math.min(height, (f.y + f.height) * scale);
    if (x2 - x1 < 1 || y2 - y1 < 1) continue;
    if (out.length >= kDetectMaxElements) return { elements: out, truncated: true };
    const w = x2 - x1;
    const h = y2 - y1;
    out.push({ id: String(out.length + 1), x: round(x1), y: round(y1), width: round(w), height: round(h), centerX: round(x1 + w / 2), centerY: round(y1 + h / 2), label: f.label, path: f.path.slice(0, 4096), source, type: f.type });
  }
  return { elements: out, truncated: false };
}

const kColors = ['#e11d48', '#2563eb', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d'];

/** The screenshot with each element's box drawn and its id in a tag at its top-left corner. */
export async function drawMarked(png: Buffer, elements: readonly DetectedElement[]): Promise<Buffer> {
  const { createCanvas, loadImage } = await loadCanvas();
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const unit = Math.max(1, Math.min(image.width, image.height) / 400);
  const line = Math.max(1, Math.round(unit));
  const size = Math.round(Math.max(10, 6 * unit));
  const pad = Math.round(size / 4);
  ctx.font = `bold ${size}px "DejaVu Sans", sans-serif`;
  ctx.textBaseline = 'middle';
  for (const [i, e] of elements.entries()) {
    const color = kColors[i % kColors.length]!;
    ctx.strokeStyle = color;
    ctx.lineWidth = line;
    ctx.strokeRect(e.x + line / 2, e.y + line / 2, Math.max(0, e.width - line), Math.max(0, e.height - line));
    const w = Math.ceil(ctx.measureText(e.id).width) + 2 * pad;
    const h = size + 2 * pad;
    // Above the box, or inside it at the top when there is no room above; never past the right edge.
    const x = Math.max(0, Math.min(e.x, image.width - w));
    const y = e.y - h >= 0 ? e.y - h : e.y;
    ctx.fillStyle = color;
    ctx.fillRect(x, y, w, h);
    ctx.fillStyle = '#ffffff';
    ctx.fillText(e.id, x + pad, y + h / 2);
  }
  return canvas.encode('png');
}


export function createDetectHandlers(deps: DetectDeps) {
  return {
    detectElements: (call: Call) =>
      deps.boxCall('detectElements', call, async (entry, device): Promise<Answer> => {
        const body = bodyOf(endpoints.detectElements.body, call.body) as DetectElementsBody;
        const format = body.screenshot?.outputFormat ?? 'base64';
        const expiresAt = Date.now() + parseDuration(body.screenshot?.presignedExpiresIn ?? '30m', '/screenshot/presignedExpiresIn');
        await loadCanvas(); // the marked image needs it: refused before the box does anything
        const scale = entry.scale;
        // The box's elements and then its screen.
        const { found, truncated, by } = await device.elements();
        const png = await device.screenshot(scale);
        const { width, height } = pngSize(png, 'the screenshot');
        const { elements, truncated: cut } = inScreen(found, scale, width, height, by);
        const marked = await drawMarked(png, elements);
        const image = async (data: Buffer, name: 'source' | 'marked') => {
          if (format === 'base64') return { uri: `data:image/png;base64,${data.toString('base64')}` };
          const key = `boxes/${entry.record.id}/actions/${call.actionId}/${name}.png`;
          await deps.store.put(key, data, expiresAt);
          return { uri: key, presignedUrl: deps.store.url(call.origin, key, expiresAt) };
        };
        const [source, markedEntry] = await Promise.all([image(png, 'source'), image(marked, 'marked')]);
        return {
          status: 200,
          body: { elements, screenshot: { source, marked: markedEntry }, actionId: call.actionId, ...(truncated || cut ? { truncated: true } : {}) },
        };
      }),
  };
}
