// Browser interactions beyond a drag or a key press. Each that acts on the screen is a Box API
// action with its actionId and images (doubleTap: click with double, hover: move, fill: a tap and a
// replacing type, check/uncheck: a tap). A pointer action on an element checks its target where it
// lands, as Playwright's hit-target check does: the pointer is moved there first (hover effects
// happen), the element looked up again until it stands still, and only then does the action act,
// on the element actually under the pointer. What only CDP can do (choosing an <option>, a date
// input's value, a file chooser) runs over a connection of its own to the box's pre-signed CDP URL
// whose commands wait their turn in the box's queue (on boxflow serve), bounded by the step's
// timeout and cancelled with the flow, with before/after screenshots from the screenshot endpoint;
// it needs a box whose service gives a CDP URL. The URL and title are read from the tab list.
import { kMaxPayload } from '../boxBrowser.js';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { BoxflowError } from '../../errors.js';
import type { Target } from '../../flow/types.js';
import { describeSelector, query, textMatcher } from '../../layout/index.js';
import type { LayoutNode, Selector } from '../../layout/types.js';
import { handler, type StepHandler, type StepRun } from './types.js';
import { pollUntil, untilAborted } from '../poll.js';
import { resolveTarget, findVisible, toAction } from './target.js';
import { tap } from './actions.js';
import { at, callOnNode, landingPoint, onElement } from './landing.js';
import { CdpConnection, CdpError } from '../../cdp/connection.js';
import { captureOnce } from './visual.js';

function requireLinux(run: StepRun, what: string): void {
  if (run.rt.box.type !== 'linux') throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `${what} needs a Linux box (a browser); box ${run.rt.box.id} is ${run.rt.box.type}`);
}


export const doubleTap: StepHandler<'doubleTap'> = handler(['target'], async (step, run) => {
  if (run.rt.box.type !== 'linux') {
    // Android: two taps of the Box API, as quickly as the service takes them.
    await tap({ ...step, kind: 'tap' }, run);
    const first = run.record.actionId;
    await tap({ ...step, kind: 'tap', target: { point: await pointOf(run, step.target) } }, run);
    run.record.message = `tapped twice (actions ${first}, ${run.record.actionId})`;
    return;
  }
  const p = await landingPoint(run, step.target);
  const result = await run.rt.client.click(run.rt.box.id, { ...toAction(run, p), double: true, options: run.actionOptions(step) }, { signal: run.signal, timeoutMs: run.rt.options.actionTimeout });
  await run.recordAction(result);
  run.record.message = `double-clicked at ${at(p)}`;
});

async function pointOf(run: StepRun, target: Target): Promise<{ x: number; y: number }> {
  const p = await resolveTarget(run, target);
  if (typeof p === 'string') throw new BoxflowError('UNSUPPORTED_BOX_TYPE', `${run.record.command} takes a selector or a point, not a {prompt}`);
  const s = run.rt.state.scale;
  return { x: p.x / s, y: p.y / s };
}

export const hover: StepHandler<'hover'> = handler(['target'], async (step, run) => {
  requireLinux(run, 'hover');
  const p = await landingPoint(run, step.target);
  const result = await run.rt.client.move(run.rt.box.id, { ...toAction(run, p), options: run.actionOptions(step) }, { signal: run.signal, timeoutMs: run.rt.options.actionTimeout });
  await run.recordAction(result);
  run.record.message = `mouse over ${at(p)}`;
});

/**
 * What only CDP can do (`fn` run in the page on the element behind `node`), with what a Box API
 * action would have recorded: before and after screenshots from the screenshot endpoint (as the
 * step's screenshot options ask). It runs over a connection of its own whose commands wait their
 * turn in the box's queue (openQueued), within the step's deadline and cancelled with the flow:
 * either closes the connection, which lets the queue go on.
 */
async function cdpOnly<T>(run: StepRun, step: Parameters<StepHandler>[0], node: LayoutNode, fn: string, ...args: unknown[]): Promise<T> {
  const opts = run.actionOptions(step);
  const phases = opts.screenshot === false ? [] : opts.screenshot.phases;
  const shots: NonNullable<typeof run.record.screenshots> = {};
  if (phases.includes('before')) shots.before = await run.rt.artifacts.put(await captureOnce(run), 'png');
  const left = Math.max(1, Math.round(run.deadline - performance.now()));
  const timeout = AbortSignal.timeout(left);
  const signal = AbortSignal.any([run.signal, timeout]);
  const result = await untilAborted(inQueue<T>(run, node, signal, fn, args), signal).catch((err: unknown) => {
    if (timeout.aborted && !run.signal.aborted) throw new BoxflowError('STEP_TIMEOUT', `${run.record.command}: the box's browser did not answer within ${run.timeoutMs} ms`);
    throw err;
  });
  if (phases.includes('after')) shots.after = await run.rt.artifacts.put(await captureOnce(run), 'png');
  if (Object.keys(shots).length) run.record.screenshots = { ...run.record.screenshots, ...shots };
  return result;
}

/** Runs `fn` on the element behind `node` over a queued connection to its frame's target. */
async function inQueue<T>(run: StepRun, node: LayoutNode, signal: AbortSignal, fn: string, args: unknown[]): Promise<T> {
  const { cdp, backendNodeId } = run.rt.layout.dom(node);
  const { targetInfo } = await cdp.send<{ targetInfo: { targetId: string } }>('Target.getTargetInfo');
  const url = await run.rt.client.cdpUrl(run.rt.box.id, {}, { signal });
  const conn = await openQueued(url, signal);
  try {
    const { sessionId } = await conn.send<{ sessionId: string }>('Target.attachToTarget', { targetId: targetInfo.targetId, flatten: true });
    return await callOnNode<T>(run, (method, params) => conn.send(method, params, { sessionId }), backendNodeId, fn, args);
  } catch (err) {
    if (err instanceof CdpError) throw new BoxflowError('BROWSER_ERROR', `the box's browser refused: ${err.message}`, { cause: err });
    throw err;
  } finally {
    conn.close();
  }
}

/**
 * A short DevTools connection for one CDP-only step, opened with `&queue=1` on the box's CDP URL:
 * on boxflow serve each command then waits its turn in the box's queue, as an action does, so the
 * step never interleaves with an action of this or another client. A service that does not know
 * the parameter serves the connection unqueued. Closing it (the step's end, its deadline, the
 * flow's cancel: `signal`) lets the queue go on.
 */
export function openQueued(cdpUrl: string, signal: AbortSignal): Promise<CdpConnection> {
  const url = new URL(cdpUrl);
  url.searchParams.set('queue', '1');
  return CdpConnection.open(url, { maxPayload: kMaxPayload, signal, closed: () => new BoxflowError('BOX_CRASHED', "the box's browser connection closed") });
}

async function element(run: StepRun, selector: Selector): Promise<LayoutNode> {
  return findVisible(run, selector, { needGeometry: true });
}

export const selectOption: StepHandler<'selectOption'> = handler(['selector', 'option'], async (step, run) => {
  requireLinux(run, 'selectOption');
  const node = await element(run, step.selector);
  const by = step.by;
  const want = step.option;
  const r = await cdpOnly<{ ok?: string; error?: string; options?: string[] }>(run, step, node, `function (by, want) {
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
});

/** Input types whose value typing sets as it reads (a date or a colour is typed otherwise). */
const kTypeable = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'number', 'textarea']);

export const fill: StepHandler<'fill'> = handler(['selector', 'value'], async (step, run) => {
  requireLinux(run, 'fill');
  const node = await element(run, step.selector);
  const { value } = step;
  const kind = await onElement<{ type: string; editable: boolean; error?: string }>(run, node, `function () {
    const tag = this.localName;
    if (this.isContentEditable) return { type: 'contenteditable', editable: true };
    if (tag !== 'input' && tag !== 'textarea') return { type: tag, editable: false, error: 'is a <' + tag + '>, not an input, textarea or contenteditable' };
    if (this.disabled || this.readOnly) return { type: tag, editable: false, error: 'is ' + (this.disabled ? 'disabled' : 'read-only') };
    return { type: tag === 'input' ? this.type : 'textarea', editable: true };
  }`);
  if (kind.error) throw new BoxflowError('UNPROCESSABLE', `${describeSelector(step.selector)} ${kind.error}`);
  if (kTypeable.has(kind.type) || kind.type === 'contenteditable') {
    // A tap on the field, then a type that replaces what it holds: two Box API actions.
    await tap({ kind: 'tap', target: { selector: step.selector }, source: run.record.source!, screenshots: false }, run);
    const result = await run.rt.client.type(run.rt.box.id, { text: value, mode: 'replace', options: run.actionOptions(step) }, { signal: run.signal, timeoutMs: run.rt.options.actionTimeout });
    await run.recordAction(result);
    const now = await onElement<string>(run, await element(run, step.selector), `function () { return this.isContentEditable ? this.textContent : this.value; }`);
    if (now !== value) throw new BoxflowError('UNPROCESSABLE', `${describeSelector(step.selector)} shows ${JSON.stringify(now)} after typing ${JSON.stringify(value)} (a length limit, or a script that rewrites it?)`);
    run.record.message = `value is now ${JSON.stringify(now)}`;
    return;
  }
  // A date, time, colour or range input: typing cannot set it, the value is set over CDP.
  const r = await setValue(run, step, node, value);
  if (r.error) throw new BoxflowError('UNPROCESSABLE', `${describeSelector(step.selector)} ${r.error}`);
  run.record.message = `value is now ${JSON.stringify(r.ok)}`;
});

function setValue(run: StepRun, step: Parameters<StepHandler>[0], node: LayoutNode, value: string): Promise<{ ok?: string; error?: string }> {
  // As Playwright's fill: the value is set as the browser's own editing would, and the page gets
  // input and change. Date/time inputs take their canonical form (2024-02-29, 13:45).
  return cdpOnly<{ ok?: string; error?: string }>(run, step, node, `function (value) {
    const el = this;
    const tag = el.localName;
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
}

async function setChecked(run: StepRun, step: Parameters<StepHandler>[0], selector: Selector, want: boolean): Promise<void> {
  const sel = selector;
  const node = await findVisible(run, sel, { needGeometry: true });
  if (node.state.checked === want) {
    run.record.message = `already ${want ? 'checked' : 'unchecked'}`;
    return;
  }
  await tap({ kind: 'tap', target: { selector: sel }, source: run.record.source!, ...(step.screenshots !== undefined ? { screenshots: step.screenshots } : {}) }, run);
  const done = await pollUntil(async () => {
    const tree = await run.rt.layout.tree(run.signal);
    const now = query(tree, sel)[0];
    return now && now.state.checked === want ? true : undefined;
  }, run.deadline, run.signal);
  if (!done.value) throw new BoxflowError('ASSERT_LAYOUT', `${describeSelector(sel)} is still ${want ? 'unchecked' : 'checked'} after a tap`);
  run.record.message = want ? 'checked' : 'unchecked';
}

export const check: StepHandler<'check'> = handler(['selector'], (step, run) => setChecked(run, step, step.selector, true));
export const uncheck: StepHandler<'uncheck'> = handler(['selector'], (step, run) => setChecked(run, step, step.selector, false));

export const uploadFile: StepHandler<'uploadFile'> = handler(['selector', 'files'], async (step, run) => {
  requireLinux(run, 'uploadFile');
  const node = await element(run, step.selector);
  // The files are read here and handed to the page: the box (maybe remote) need not have them.
  const files = await Promise.all(
    step.files.map(async (f) => {
      const path = f;
      const data = await readFile(path).catch((err: NodeJS.ErrnoException) => {
        throw new BoxflowError('FLOW_NOT_FOUND', `uploadFile: cannot read ${basename(path)} (${err.code ?? err.message})`);
      });
      return { name: basename(path), data: data.toString('base64') };
    }),
  );
  const r = await cdpOnly<{ ok?: string[]; error?: string }>(run, step, node, `function (files) {
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
});

/** The active tab's URL or title, from the Box API's tab list (through the box's queue, bounded). */
async function assertPage(run: StepRun, what: 'url' | 'title', want: string): Promise<void> {
  requireLinux(run, what === 'url' ? 'assertUrl' : 'assertTitle');
  const matches = textMatcher(want);
  let actual = '';
  const ok = await pollUntil(async () => {
    const { data } = await run.rt.client.listTabs(run.rt.box.id, { signal: run.signal, timeoutMs: Math.max(1_000, Math.round(run.deadline - performance.now())) });
    const tab = data.find((t) => t.active) ?? data.at(-1);
    actual = tab ? tab[what] : '';
    return matches(actual) ? true : undefined;
  }, run.deadline, run.signal);
  if (!ok.value) throw new BoxflowError('ASSERT_TAB', `the tab's ${what} is ${JSON.stringify(actual)}, expected ${want} (after ${run.timeoutMs} ms)`);
  run.record.message = `${what} ${JSON.stringify(actual)}`;
}

export const assertUrl: StepHandler<'assertUrl'> = handler(['url'], (step, run) => assertPage(run, 'url', step.url));
export const assertTitle: StepHandler<'assertTitle'> = handler(['title'], (step, run) => assertPage(run, 'title', step.title));
