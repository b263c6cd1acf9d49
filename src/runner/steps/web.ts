// Browser interactions a drag or a key press cannot express (double click, hover, form controls,
// files, URL and title). Linux boxes: done over the box's pre-signed CDP URL, on the node the
// step's selector found in the layout the runner searched.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { BoxflowError } from '../../errors.js';
import type { Target } from '../../flow/types.js';
import { centre, describeSelector, query, textMatcher } from '../../layout/index.js';
import type { LayoutNode, Selector } from '../../layout/types.js';
import type { StepHandler, StepRun } from './types.js';
import { pollUntil } from '../poll.js';
import { resolveTarget, screenSize, findVisible } from './target.js';
import { tap } from './actions.js';

function requireLinux(run: StepRun, what: string): void {
  if (run.rt.box.type !== 'linux') throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `${what} needs a Linux box (a browser); box ${run.rt.box.id} is ${run.rt.box.type}`);
}

/** A target in CSS px of the page (Linux boxes: screen pixels are CSS px). */
async function pagePoint(run: StepRun, target: Target): Promise<{ x: number; y: number }> {
  if ('prompt' in target) throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `${run.record.command} takes a selector or a point, not a {prompt}`);
  if ('point' in target) return target.point;
  if ('percent' in target) {
    const s = await screenSize(run);
    return { x: (target.percent.x / 100) * s.width, y: (target.percent.y / 100) * s.height };
  }
  return centre(await findVisible(run, run.resolve(target.selector), { needGeometry: true }), (t) => run.rt.masker.text(t));
}

const at = (p: { x: number; y: number }) => `(${Math.round(p.x)}, ${Math.round(p.y)})`;

export const doubleTap: StepHandler<'doubleTap'> = async (step, run) => {
  if (run.rt.box.type !== 'linux') {
    // No double tap in the Box API: two taps, as quickly as the service takes them.
    await tap({ ...step, kind: 'tap' }, run);
    const first = run.record.actionId;
    await tap({ ...step, kind: 'tap', target: { point: await pointOf(run, step.target) } }, run);
    run.record.message = `tapped twice (actions ${first}, ${run.record.actionId})`;
    return;
  }
  const p = await pagePoint(run, step.target);
  await (await run.rt.layout.page()).mouse.dblclick(p.x, p.y);
  run.record.message = `double-clicked at ${at(p)}`;
};

async function pointOf(run: StepRun, target: Target): Promise<{ x: number; y: number }> {
  const p = await resolveTarget(run, target);
  if (typeof p === 'string') throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `${run.record.command} takes a selector or a point, not a {prompt}`);
  const s = run.rt.state.scale;
  return { x: p.x / s, y: p.y / s };
}

export const hover: StepHandler<'hover'> = async (step, run) => {
  requireLinux(run, 'hover');
  const p = await pagePoint(run, step.target);
  await (await run.rt.layout.page()).mouse.move(p.x, p.y);
  run.record.message = `mouse over ${at(p)}`;
};

/** Runs `fn` in the page on the element behind `node` (in its own frame), returning its result. */
async function onElement<T>(run: StepRun, node: LayoutNode, fn: string, ...args: unknown[]): Promise<T> {
  const { cdp, backendNodeId } = run.rt.layout.dom(node);
  const { object } = await cdp.send('DOM.resolveNode', { backendNodeId });
  const res = await cdp.send('Runtime.callFunctionOn', {
    objectId: object.objectId!,
    functionDeclaration: fn,
    arguments: args.map((value) => ({ value })),
    returnByValue: true,
    awaitPromise: true,
  });
  await cdp.send('Runtime.releaseObject', { objectId: object.objectId! }).catch(() => {});
  if (res.exceptionDetails) throw new BoxflowError('UNPROCESSABLE', `${run.record.command}: the page threw ${res.exceptionDetails.exception?.description ?? res.exceptionDetails.text}`);
  return res.result.value as T;
}

async function element(run: StepRun, selector: Selector): Promise<LayoutNode> {
  return findVisible(run, run.resolve(selector), { needGeometry: true });
}

export const selectOption: StepHandler<'selectOption'> = async (step, run) => {
  requireLinux(run, 'selectOption');
  const node = await element(run, step.selector);
  const by = step.by;
  const want = run.resolve(step.option);
  const r = await onElement<{ ok?: string; error?: string; options?: string[] }>(run, node, `function (by, want) {
    if (this.localName !== 'select') return { error: 'is a <' + this.localName + '>, not a <select>' };
    const opts = [...this.options];
    const o = opts.find((o) => by === 'value' ? o.value === want : o.label.trim() === want.trim() || o.text.trim() === want.trim());
    if (!o) return { error: 'has no option with ' + by + ' ' + JSON.stringify(want), options: opts.map((o) => by === 'value' ? o.value : o.label) };
    if (o.disabled) return { error: 'option ' + JSON.stringify(o.label) + ' is disabled' };
    this.focus();
    o.selected = true;
    this.dispatchEvent(new Event('input', { bubbles: true }));
    this.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: o.label };
  }`, by, want);
  if (r.error) {
    const options = r.options ? `; options: ${r.options.map((o) => JSON.stringify(o)).join(', ')}` : '';
    throw new BoxflowError('ELEMENT_NOT_FOUND', `${describeSelector(step.selector)} ${r.error}${options}`);
  }
  run.record.message = `selected "${r.ok}"`;
};

export const fill: StepHandler<'fill'> = async (step, run) => {
  requireLinux(run, 'fill');
  const node = await element(run, step.selector);
  const value = run.resolve(step.value);
  // As Playwright's fill: the value is set as the browser's own editing would, and the page gets
  // input and change. Date/time/number inputs take their canonical form (2024-02-29, 13:45).
  const r = await onElement<{ ok?: string; error?: string }>(run, node, `function (value) {
    const el = this;
    if (el.isContentEditable) { el.focus(); el.textContent = value; el.dispatchEvent(new Event('input', { bubbles: true })); return { ok: value }; }
    const tag = el.localName;
    if (tag !== 'input' && tag !== 'textarea') return { error: 'is a <' + tag + '>, not an input, textarea or contenteditable' };
    if (el.disabled || el.readOnly) return { error: 'is ' + (el.disabled ? 'disabled' : 'read-only') };
    const type = tag === 'input' ? el.type : 'textarea';
    if (['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image', 'hidden'].includes(type)) return { error: 'is an input of type ' + type + ' (use check, uncheck, uploadFile or tap)' };
    el.focus();
    const proto = tag === 'input' ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, value);
    if (value !== '' && el.value === '') return { error: 'of type ' + type + ' does not take ' + JSON.stringify(value) + (type === 'date' ? ' (write YYYY-MM-DD)' : type === 'time' ? ' (write HH:MM)' : type === 'datetime-local' ? ' (write YYYY-MM-DDTHH:MM)' : '') };
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: el.value };
  }`, value);
  if (r.error) throw new BoxflowError('UNPROCESSABLE', `${describeSelector(step.selector)} ${r.error}`);
  run.record.message = `value is now ${JSON.stringify(r.ok)}`;
};

async function setChecked(run: StepRun, selector: Selector, want: boolean): Promise<void> {
  const sel = run.resolve(selector);
  const node = await findVisible(run, sel, { needGeometry: true });
  if (node.state.checked === want) {
    run.record.message = `already ${want ? 'checked' : 'unchecked'}`;
    return;
  }
  await tap({ kind: 'tap', target: { selector: sel }, source: run.record.source!, screenshots: false }, run);
  const done = await pollUntil(async () => {
    const tree = await run.rt.layout.tree(run.signal);
    const now = query(tree, sel)[0];
    return now && now.state.checked === want ? true : undefined;
  }, run.deadline, run.signal);
  if (!done.value) throw new BoxflowError('ASSERT_LAYOUT', `${describeSelector(sel)} is still ${want ? 'unchecked' : 'checked'} after a tap`);
  run.record.message = want ? 'checked' : 'unchecked';
}

export const check: StepHandler<'check'> = (step, run) => setChecked(run, step.selector, true);
export const uncheck: StepHandler<'uncheck'> = (step, run) => setChecked(run, step.selector, false);

export const uploadFile: StepHandler<'uploadFile'> = async (step, run) => {
  requireLinux(run, 'uploadFile');
  const node = await element(run, step.selector);
  // The files are read here and handed to the page: the box (maybe remote) need not have them.
  const files = await Promise.all(
    step.files.map(async (f) => {
      const path = run.resolve(f);
      const data = await readFile(path).catch((err: NodeJS.ErrnoException) => {
        throw new BoxflowError('FLOW_NOT_FOUND', `uploadFile: cannot read ${basename(path)} (${err.code ?? err.message})`);
      });
      return { name: basename(path), data: data.toString('base64') };
    }),
  );
  const r = await onElement<{ ok?: string[]; error?: string }>(run, node, `function (files) {
    if (this.localName !== 'input' || this.type !== 'file') return { error: 'is not an <input type=file>' };
    if (files.length > 1 && !this.multiple) return { error: 'takes one file (no multiple attribute), got ' + files.length };
    const dt = new DataTransfer();
    for (const f of files) {
      const bytes = Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], f.name, { type: '' }));
    }
    this.files = dt.files;
    this.dispatchEvent(new Event('input', { bubbles: true }));
    this.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: [...this.files].map((f) => f.name) };
  }`, files);
  if (r.error) throw new BoxflowError('UNPROCESSABLE', `${describeSelector(step.selector)} ${r.error}`);
  run.record.message = `uploaded ${r.ok!.join(', ')}`;
};

async function assertPage(run: StepRun, what: 'url' | 'title', want: string): Promise<void> {
  requireLinux(run, what === 'url' ? 'assertUrl' : 'assertTitle');
  const matches = textMatcher(want);
  let actual = '';
  const ok = await pollUntil(async () => {
    const page = await run.rt.layout.page();
    actual = what === 'url' ? page.url() : await page.title();
    return matches(actual) ? true : undefined;
  }, run.deadline, run.signal);
  if (!ok.value) throw new BoxflowError('ASSERT_TAB', `the tab's ${what} is ${JSON.stringify(actual)}, expected ${want} (after ${run.timeoutMs} ms)`);
  run.record.message = `${what} ${JSON.stringify(actual)}`;
}

export const assertUrl: StepHandler<'assertUrl'> = (step, run) => assertPage(run, 'url', run.resolve(step.url));
export const assertTitle: StepHandler<'assertTitle'> = (step, run) => assertPage(run, 'title', run.resolve(step.title));
