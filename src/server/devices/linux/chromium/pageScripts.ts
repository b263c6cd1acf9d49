// In-page scripts, kept as source text: a function handed to page.evaluate would carry the
// helpers a TypeScript loader injects (e.g. esbuild's __name), which do not exist in the page.

/** Finds elements whose visible text or label matches a target; exact first, then contains. */
export const kResolveTarget = String.raw`(target) => {
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim().toLowerCase();
  const want = norm(target);
  const vw = innerWidth, vh = innerHeight;
  const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'TITLE', 'META', 'LINK', 'HTML', 'BODY']);
  const namesOf = (el) => {
    const out = [];
    if (el.innerText) out.push(el.innerText);
    for (const a of ['aria-label', 'placeholder', 'alt', 'title']) { const v = el.getAttribute(a); if (v) out.push(v); }
    if (el.labels) for (const l of el.labels) out.push(l.innerText);
    const by = el.getAttribute('aria-labelledby');
    if (by) for (const id of by.split(/\s+/)) { const e = document.getElementById(id); if (e) out.push(e.innerText); }
    if (el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type)) out.push(el.value);
    return out.map(norm).filter(Boolean);
  };
  const all = [];
  for (const el of document.querySelectorAll('body *')) {
    if (skip.has(el.tagName)) continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || r.right <= 0 || r.bottom <= 0 || r.left >= vw || r.top >= vh) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || Number(cs.opacity) === 0) continue;
    const names = namesOf(el);
    if (names.length) all.push({ el, names, r });
  }
  const innermost = (list) => list.filter((c) => !list.some((o) => o !== c && c.el.contains(o.el)));
  const pick = (pred) => {
    const m = innermost(all.filter((c) => c.names.some(pred)));
    return m.filter((c) => !(c.el.tagName === 'LABEL' && c.el.control && m.some((o) => o.el === c.el.control)));
  };
  const describe = (c) => ({ tag: c.el.tagName.toLowerCase(), text: c.names[0].slice(0, 80), x: c.r.left + c.r.width / 2, y: c.r.top + c.r.height / 2 });
  let how = 'exact';
  let matches = pick((n) => n === want);
  if (!matches.length) { how = 'contains'; matches = pick((n) => n.includes(want)); }
  if (matches.length === 1) return { how, found: describe(matches[0]) };
  if (matches.length > 1) return { how, ambiguous: matches.slice(0, 20).map(describe) };
  return { how, candidates: innermost(all).slice(0, 300).map(describe) };
}`;

/** The document as HTML, with the live state of form fields written into the markup (not passwords). */
export const kSerializeDocument = String.raw`() => {
  const src = document.documentElement;
  if (!src) return '';
  const clone = src.cloneNode(true);
  const sel = 'input, textarea, option';
  const a = src.querySelectorAll(sel), b = clone.querySelectorAll(sel);
  for (let i = 0; i < a.length && i < b.length; i++) {
    const o = a[i], c = b[i];
    if (o.tagName === 'INPUT') {
      if (o.type === 'checkbox' || o.type === 'radio') { if (o.checked) c.setAttribute('checked', ''); else c.removeAttribute('checked'); }
      else if (o.type !== 'password' && o.type !== 'file') c.setAttribute('value', o.value);
    } else if (o.tagName === 'TEXTAREA') c.textContent = o.value;
    else if (o.selected) c.setAttribute('selected', ''); else c.removeAttribute('selected');
  }
  const dt = document.doctype ? '<!DOCTYPE ' + document.doctype.name + '>' : '';
  return dt + clone.outerHTML;
}`;

/** Selects the whole content of the focused field; returns what has focus. With `clear`, deletes it too. */
export const kSelectFocused = String.raw`(clear) => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el === document.body) return 'none';
  if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') el.select();
  else if (el.isContentEditable) {
    const r = document.createRange();
    r.selectNodeContents(el);
    const s = getSelection();
    s.removeAllRanges();
    s.addRange(r);
  } else return 'other';
  if (clear) document.execCommand('delete');
  return 'field';
}`;

export const kTabInfo = String.raw`() => {
  const icon = document.querySelector('link[rel~="icon"], link[rel="shortcut icon"]');
  let favicon = icon ? icon.href : '';
  if (!favicon && /^https?:$/.test(location.protocol)) favicon = location.origin + '/favicon.ico';
  return { title: document.title, favicon, readyState: document.readyState };
}`;

export const call = (fn: string, arg?: unknown) => `(${fn})(${arg === undefined ? '' : JSON.stringify(arg)})`;

/**
 * Puts `text` on the browser's clipboard from the page: a copy command whose event carries the text
 * (works in any page, secure or not, given the user gesture the caller's evaluate declares). True
 * once the text was set.
 */
export const kClipboardWrite = String.raw`(text) => {
  let done = false;
  const onCopy = (e) => { e.clipboardData.setData('text/plain', text); e.preventDefault(); e.stopImmediatePropagation(); done = true; };
  addEventListener('copy', onCopy, true);
  try { document.execCommand('copy'); } finally { removeEventListener('copy', onCopy, true); }
  return done;
}`;

/**
 * Catches the next paste event before the page sees it: `text` holds what it carried (null until it
 * came); `stop()` removes the catcher.
 */
export const kClipboardCatch = String.raw`() => {
  const box = { text: null, stop: null };
  const onPaste = (e) => { box.text = e.clipboardData ? e.clipboardData.getData('text/plain') : ''; e.preventDefault(); e.stopImmediatePropagation(); };
  addEventListener('paste', onPaste, true);
  box.stop = () => removeEventListener('paste', onPaste, true);
  return box;
}`;
