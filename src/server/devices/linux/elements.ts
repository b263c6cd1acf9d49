// detect-elements on a Linux box: the active tab's elements a user could act on (the rules: the
// endpoint's handler, http/endpoints/detect.ts), found by a script in an isolated world of the page
// over the tab's CDP connection, so bounded by the box's CDP timeout.
import { BoxflowError } from '../../../errors.js';
import { kDetectMaxElements } from '../../../api/schemas.js';
import type { FoundElement as Found } from '../device.js';
import type { LinuxBox } from './chromium/linuxBox.js';
import { call as callScript } from './chromium/pageScripts.js';
import { isolatedWorld, type Evaluated } from './actions.js';

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

