// boxflow studio's page script (the page: src/studio/page.ts), bundled as studio.js: the box's screen
// (screen.ts), the layout tree and the element inspector, the element's menu, runs and their results,
// the recorder of what the hand does (record.ts), the list of steps (stepList.ts) and the screenshot
// assertion's form (shotForm.ts).
import type { Inspection, State, StepView, TreeNode } from '../../studio/pageTypes.js';
import { studioRecorder } from './record.js';
import { studioScreen } from './screen.js';
import { studioShotForm } from './shotForm.js';
import { studioStepList } from './stepList.js';

const token = new URLSearchParams(location.search).get('token') ?? '';
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const canvas = $<HTMLCanvasElement>('screen');
const hl = $('hl');
const hlLabel = $('hl-label');
const masksEl = $('masks');
const busyEl = $('busy');
const menu = $('menu');
const toastEl = $('toast');
const interactive = new Set(['a', 'button', 'input', 'select', 'textarea', 'label', 'summary', 'option', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'td', 'th']);

const studio = {
  frames: 0,
  screen: { width: 0, height: 0 },
  tree: { version: 0, format: 'html', nodes: [] as TreeNode[], byIndex: new Map<number, TreeNode>() },
  hovered: undefined as number | undefined,
  pinned: undefined as number | undefined,
  inspection: undefined as Inspection | undefined,
  chosen: new Map<string, unknown>(),
  masks: [] as { value: unknown; b: [number, number, number, number] | null; label: string }[],
  busy: false,
  state: undefined as State | undefined,
  /** The step selected in the list: new steps go after it. */
  selected: undefined as number | undefined,
};
Object.assign(window, { studio });

// ------------------------------------------------------------ helpers
async function api<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-studio-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await res.json()) as T & { message?: string };
  if (!res.ok) throw new Error(data.message ?? `${res.status}`);
  return data;
}
let toastTimer: ReturnType<typeof setTimeout> | undefined;
const toast = (text: string, bad = false) => {
  toastEl.textContent = text;
  toastEl.className = bad ? 'bad' : '';
  toastEl.style.display = 'block';
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (toastEl.style.display = 'none'), bad ? 6000 : 2500);
};
const el = (tag: string, props: Record<string, string> = {}, ...children: (Node | string)[]) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
};
/** A selector as the flow file shows it. */
const show = (v: unknown): string => {
  if (typeof v === 'string') return /^[\w .,'-]+$/.test(v) && !/^\d/.test(v) ? v : JSON.stringify(v);
  if (typeof v !== 'object' || v === null) return String(v);
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  return `{ ${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}: ${show(x)}`).join(', ')} }`;
};

// ------------------------------------------------------------ the screen
const screen = studioScreen({ canvas, studio, token, fpsEl: $('fps'), placed: () => placeHighlight(), treeScreen: () => treeScreen });

// ------------------------------------------------------------ the layout
let treeScreen: { width: number; height: number } | undefined;
async function refreshTree(): Promise<void> {
  try {
    const t = await api<{ version: number; unchanged?: boolean; format: string; screen: { width: number; height: number } | null; nodes: TreeNode[] }>(`/api/tree?since=${studio.tree.version}`);
    if (!t.unchanged) {
      studio.tree = { version: t.version, format: t.format, nodes: t.nodes, byIndex: new Map(t.nodes.map((n) => [n.i, n])) };
      treeScreen = t.screen ?? undefined;
      if (t.screen && !studio.screen.width) screen.setScreen(t.screen.width, t.screen.height);
      renderTree();
      if (studio.pinned !== undefined || studio.hovered !== undefined) placeHighlight();
    }
  } catch {
    // the box is busy or its page is changing: the next look
  }
}
setInterval(() => void refreshTree(), 1200);

const depthOf = (n: TreeNode) => {
  let d = 0;
  for (let p = studio.tree.byIndex.get(n.p); p && d < 60; p = studio.tree.byIndex.get(p.p)) d++;
  return d;
};
function renderTree(): void {
  const box = $('tree');
  const rows: HTMLElement[] = [];
  const unseen = new Set(['head', 'title', 'style', 'script', 'meta', 'link', 'noscript', 'template']);
  for (const n of studio.tree.nodes) {
    if (rows.length > 2500) break;
    if (unseen.has(n.tag) && !n.b) continue;
    const row = el('div', { class: `node${n.v ? '' : ' hidden'}`, 'data-i': String(n.i), 'data-testid': 'tree-node' });
    row.style.paddingLeft = `${8 + depthOf(n) * 10}px`;
    row.append(el('span', { class: 'tag', text: n.tag }));
    if (n.id) row.append(' ', el('span', { class: 'id', text: `#${n.id}` }));
    const text = n.text || n.desc;
    if (text && (!n.p || (studio.tree.byIndex.get(n.p)?.text ?? '') !== n.text || !n.text)) row.append(' ', el('span', { class: 'txt', text: `"${text.slice(0, 50)}"` }));
    rows.push(row);
  }
  box.replaceChildren(...rows);
  $('tree-info').textContent = `${studio.tree.nodes.length} elements`;
}
$('tree').addEventListener('mouseover', (e) => {
  const row = (e.target as HTMLElement).closest('.node') as HTMLElement | null;
  if (row && !menuOpen()) hover(Number(row.dataset.i));
});
$('tree').addEventListener('click', (e) => {
  const row = (e.target as HTMLElement).closest('.node') as HTMLElement | null;
  if (row) studio.pinned = Number(row.dataset.i);
});
$('tree').addEventListener('contextmenu', (e) => {
  const row = (e.target as HTMLElement).closest('.node') as HTMLElement | null;
  if (!row) return;
  e.preventDefault();
  hover(Number(row.dataset.i));
  void openMenu(e.clientX, e.clientY);
});

/** The element at a point of the screen, as the server's elementAt picks it. */
function elementAt(x: number, y: number): TreeNode | undefined {
  let best: TreeNode | undefined;
  const area = (n: TreeNode) => (n.b ? (n.b[2] - n.b[0]) * (n.b[3] - n.b[1]) : Infinity);
  for (const n of studio.tree.nodes) {
    if (!n.v || !n.b || x < n.b[0] || x >= n.b[2] || y < n.b[1] || y >= n.b[3]) continue;
    if (!best || area(n) <= area(best)) best = n;
  }
  if (!best || studio.tree.format !== 'html') return best;
  for (let n: TreeNode | undefined = best, up = 0; n && n.p > 0 && up < 4; n = studio.tree.byIndex.get(n.p), up++) {
    if (interactive.has(n.tag) || n.id) return n;
  }
  return best;
}

const screenRect = (b: [number, number, number, number]) => {
  const r = canvas.getBoundingClientRect();
  const stage = canvas.parentElement!.getBoundingClientRect();
  const kx = r.width / Math.max(1, studio.screen.width);
  const ky = r.height / Math.max(1, studio.screen.height);
  return { left: r.left - stage.left + b[0] * kx, top: r.top - stage.top + b[1] * ky, width: (b[2] - b[0]) * kx, height: (b[3] - b[1]) * ky };
};
function placeHighlight(): void {
  const i = studio.hovered ?? studio.pinned;
  const n = i === undefined ? undefined : studio.tree.byIndex.get(i);
  if (!n?.b) {
    hl.style.display = 'none';
  } else {
    const r = screenRect(n.b);
    Object.assign(hl.style, { display: 'block', left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
  }
  masksEl.replaceChildren(
    ...studio.masks.filter((m) => m.b).map((m) => {
      const r = screenRect(m.b!);
      const d = el('div', { class: 'mask', title: `masked: ${m.label}` });
      Object.assign(d.style, { left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
      return d;
    }),
  );
  for (const row of Array.from(document.querySelectorAll('#tree .node.hot'))) row.classList.remove('hot');
  if (i !== undefined) document.querySelector(`#tree .node[data-i="${i}"]`)?.classList.add('hot');
}

let inspectTimer: ReturnType<typeof setTimeout> | undefined;
function hover(i: number | undefined): void {
  if (i === studio.hovered) return;
  studio.hovered = i;
  placeHighlight();
  clearTimeout(inspectTimer);
  if (i === undefined) return;
  inspectTimer = setTimeout(() => void inspect(i), 60);
}
const inspections = new Map<string, Inspection>();
async function inspect(i: number): Promise<Inspection | undefined> {
  const key = `${studio.tree.version}:${i}`;
  let found = inspections.get(key);
  if (!found) {
    try {
      found = await api<Inspection>('/api/inspect', { version: studio.tree.version, node: i });
    } catch (err) {
      $('selector').textContent = (err as Error).message;
      return undefined;
    }
    inspections.set(key, found);
    if (inspections.size > 400) inspections.delete(inspections.keys().next().value!);
  }
  if (studio.hovered === i || studio.pinned === i) renderInspection(found);
  return found;
}
const chosenOf = (ins: Inspection) => {
  const key = `${ins.version}:${ins.node}`;
  return studio.chosen.has(key) ? ins.candidates.find((c) => JSON.stringify(c.value) === JSON.stringify(studio.chosen.get(key))) ?? ins.best : ins.best;
};
function renderInspection(ins: Inspection): void {
  studio.inspection = ins;
  const use = chosenOf(ins);
  $('selector').textContent = show(use.value);
  hlLabel.textContent = `${show(use.value)}  ·  ${use.count} match${use.count === 1 ? '' : 'es'}`;
  const count = $('match-count');
  count.textContent = `${use.count} match${use.count === 1 ? '' : 'es'}`;
  count.className = `count${use.count === 1 ? '' : use.count ? ' many' : ' none'}`;
  $('candidates').replaceChildren(
    ...ins.candidates.map((c) => {
      const li = el('li', { class: c === use ? 'chosen' : '', 'data-testid': 'candidate', title: c.unique ? 'matches only this element' : c.count ? `matches ${c.count} elements` : 'matches nothing' },
        el('span', { class: 'kind', text: c.kind }), el('code', { text: show(c.value) }), el('span', { class: `count${c.count === 1 && c.unique ? '' : c.count ? ' many' : ' none'}`, text: String(c.count) }));
      li.addEventListener('click', () => {
        studio.chosen.set(`${ins.version}:${ins.node}`, c.value);
        renderInspection(ins);
      });
      return li;
    }),
  );
}

// ------------------------------------------------------------ pointer on the screen
const toScreen = (e: MouseEvent) => {
  const r = canvas.getBoundingClientRect();
  return { x: ((e.clientX - r.left) / Math.max(1, r.width)) * studio.screen.width, y: ((e.clientY - r.top) / Math.max(1, r.height)) * studio.screen.height };
};
canvas.addEventListener('mousemove', (e) => {
  if (menuOpen() || studio.busy) return;
  const p = toScreen(e);
  hover(elementAt(p.x, p.y)?.i);
});
canvas.addEventListener('mouseleave', () => {
  if (!menuOpen()) hover(undefined);
});
canvas.addEventListener('contextmenu', (e) => {
  e.preventDefault();
  const p = toScreen(e);
  const n = elementAt(p.x, p.y);
  if (!n) return;
  studio.hovered = undefined;
  hover(n.i);
  void openMenu(e.clientX, e.clientY);
});

// ------------------------------------------------------------ the element's menu
const clip = (t: string) => `${t.slice(0, 30)}${t.length > 30 ? '…' : ''}`;
const shotForm = studioShotForm({ form: $('shot-form'), el, toast, masks: () => studio.masks.map((m) => m.label) });
const menuOpen = () => !menu.hidden || shotForm.isOpen();
const closeMenu = () => {
  menu.hidden = true;
};
document.addEventListener('mousedown', (e) => {
  if (menuOpen() && !menu.contains(e.target as Node)) closeMenu();
});
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape') closeMenu();
});
async function openMenu(x: number, y: number): Promise<void> {
  const i = studio.hovered;
  if (i === undefined) return;
  const ins = await inspect(i);
  if (!ins) return;
  const use = chosenOf(ins);
  const n = studio.tree.byIndex.get(i);
  const item = (label: string, testid: string, run: () => void) => {
    const b = el('button', { 'data-testid': testid, text: label });
    b.addEventListener('click', () => {
      closeMenu();
      run();
    });
    return b;
  };
  const masked = studio.masks.findIndex((m) => JSON.stringify(m.value) === JSON.stringify(use.value));
  const maestro = studio.state?.dialect === 'maestro';
  menu.replaceChildren(
    el('div', { class: 'title', text: `${show(use.value)} · ${use.count} match${use.count === 1 ? '' : 'es'}` }),
    item('Tap', 'menu-tap', () => void act('tap', i)),
    item('Double tap', 'menu-double-tap', () => void act('doubleTap', i)),
    item('Long press', 'menu-long-press', () => void act('longPress', i)),
    el('hr'),
    item('Assert visible', 'menu-assert-visible', () => void act('assertVisible', i)),
    item('Assert not visible', 'menu-assert-not-visible', () => void act('assertNotVisible', i)),
    item(ins.text ? `Assert text "${clip(ins.text)}"` : 'Assert text', 'menu-assert-text', () => void act('assertText', i)),
    ...(ins.value !== undefined ? [item(`Assert value "${clip(ins.value)}"`, 'menu-assert-value', () => void act('assertValue', i))] : []),
    el('hr'),
    ...(maestro
      ? []
      : [item(masked >= 0 ? 'Unmask in screenshots' : 'Mask in screenshots', 'menu-mask', () => {
          if (masked >= 0) studio.masks.splice(masked, 1);
          else studio.masks.push({ value: use.value, b: n?.b ?? null, label: show(use.value) });
          placeHighlight();
          toast(`${studio.masks.length} element${studio.masks.length === 1 ? '' : 's'} masked in the next screenshot assertion`);
        })]),
    item(maestro ? 'Take a screenshot (takeScreenshot)…' : `Assert screenshot${studio.masks.length ? ` (${studio.masks.length} masked)` : ''}…`, 'menu-assert-screenshot', () => {
      // The form in the page asks for the name and what the screenshot holds; the element is cropped to only when a selector singles it out.
      shotForm.open(use.unique && use.kind !== 'point' ? show(use.value) : undefined, async ({ name, crop }) => {
        const ok = await act('assertScreenshot', i, { name, crop, masks: studio.masks.map((m) => m.value) });
        if (ok) {
          studio.masks = [];
          placeHighlight();
        }
        return ok;
      });
    }),
    item('Copy selector', 'menu-copy', () => void navigator.clipboard?.writeText(show(use.value)).then(() => toast('copied'))),
  );
  menu.hidden = false;
  const w = menu.offsetWidth;
  const h = menu.offsetHeight;
  menu.style.left = `${Math.min(x, innerWidth - w - 8)}px`;
  menu.style.top = `${Math.min(y, innerHeight - h - 8)}px`;
}

// ------------------------------------------------------------ actions, runs, results
const idleWaiters: (() => void)[] = [];
const idle = () => new Promise<void>((r) => (studio.busy ? idleWaiters.push(r) : r()));
function setBusy(text: string | undefined): void {
  studio.busy = !!text;
  busyEl.textContent = text ?? '';
  busyEl.style.display = text ? 'block' : 'none';
  if (!text) for (const r of idleWaiters.splice(0)) r();
}
/** Runs an action that adds steps (after the selected step, if any); the selection follows the steps added. */
async function perform(what: string, path: string, body: unknown): Promise<boolean> {
  if (studio.busy) return false;
  setBusy(what);
  try {
    const r = await api<{ ok: boolean; steps: StepView[]; added: number[] }>(path, { ...(body as object), ...(studio.selected !== undefined ? { after: studio.selected } : {}) });
    if (r.ok && studio.selected !== undefined) studio.selected = r.added.at(-1) ?? studio.selected;
    showResults(r.steps, r.ok ? `${what}: added to the file` : `${what}: failed, not added`);
    if (!r.ok) toast(`${what} failed: ${r.steps.find((s) => s.error)?.error?.message ?? 'see the result'}`, true);
    return r.ok;
  } catch (err) {
    toast((err as Error).message, true);
    return false;
  } finally {
    setBusy(undefined);
    studio.tree.version = 0;
    void refreshTree();
    void refreshState();
  }
}
async function act(action: string, i: number, extra: Record<string, unknown> = {}): Promise<boolean> {
  const ins = studio.inspection?.node === i && studio.inspection.version === studio.tree.version ? studio.inspection : await inspect(i);
  const key = ins ? `${ins.version}:${ins.node}` : '';
  return perform(action, '/api/act', { version: studio.tree.version, node: i, action, ...(studio.chosen.has(key) ? { selector: studio.chosen.get(key) } : {}), ...extra });
}
async function run(step?: number): Promise<void> {
  if (studio.busy) return;
  setBusy(step === undefined ? 'running the file' : `running step ${step + 1}`);
  try {
    const r = await api<{ status: string; steps: StepView[] }>('/api/run', step === undefined ? {} : { step });
    showResults(r.steps, step === undefined ? `run: ${r.status}` : `step ${step + 1}: ${r.status}`);
  } catch (err) {
    toast((err as Error).message, true);
  } finally {
    setBusy(undefined);
    studio.tree.version = 0;
    void refreshTree();
    void refreshState();
  }
}
const mark = (s: string) => (s === 'passed' ? '✓' : s === 'failed' ? '✗' : s === 'warned' ? '!' : s === 'skipped' ? '–' : '');
function showResults(steps: StepView[], title: string): void {
  const box = $('result');
  box.replaceChildren(
    el('div', { class: 'hint', 'data-testid': 'result-title', text: title }),
    ...steps.map((s) => {
      const head = el('div', { class: 'head' }, el('span', { class: `status ${s.status}`, text: mark(s.status) }), el('span', { class: 'label', text: s.label }), el('span', { class: 'aid', text: `${s.durationMs} ms` }));
      const rec = el('div', { class: 'rec', 'data-testid': 'result-step', 'data-status': s.status }, head);
      if (s.actionId) rec.append(el('div', { class: 'aid', 'data-testid': 'action-id', text: s.actionId }));
      if (s.message) rec.append(el('div', { class: 'msg', text: s.message }));
      if (s.error) rec.append(el('div', { class: 'err', text: `${s.error.code}: ${s.error.message}` }));
      if (s.images.length) {
        rec.append(el('div', { class: 'imgs' }, ...s.images.map((im) => el('a', { href: im.url, target: '_blank', title: im.name }, el('img', { src: im.url, alt: im.name, 'data-testid': `image-${im.name}` }), im.name))));
      }
      return rec;
    }),
  );
}

async function refreshState(): Promise<void> {
  let s: State;
  try {
    s = await api<State>('/api/state');
  } catch {
    return;
  }
  const first = !studio.state;
  studio.state = s;
  $('file').textContent = s.file + (s.exists ? '' : ' (new)');
  $('file').title = s.path;
  $('dialect').textContent = s.dialect === 'maestro' ? '· Maestro YAML' : '· boxflow YAML';
  $('box').textContent = `${s.box.id} (${s.box.type})`;
  ($('open-url') as HTMLInputElement).placeholder = s.dialect === 'maestro' ? 'URL to open (adds openLink)' : 'URL to open (adds openTab)';
  $('key-back').style.display = s.box.type === 'android' || s.dialect === 'maestro' ? '' : 'none';
  $('source').textContent = s.text;
  const problem = $('problem');
  problem.textContent = s.problem ?? '';
  problem.style.display = s.problem ? 'block' : 'none';
  stepList.render(s);
  if (first) {
    if (s.live) screen.watchLive(s.live.websocketUrl);
    else void screen.pollScreen();
    if (s.lastRun) showResults(s.lastRun.steps, `last run: ${s.lastRun.status}`);
  }
}

const stepList = studioStepList({ list: $('steps'), studio, el, mark, api, run, showResults, toast, refresh: refreshState });

// ------------------------------------------------------------ the bar
$('run-all').addEventListener('click', () => void run());
const openInput = $<HTMLInputElement>('open-url');
openInput.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter' || !openInput.value.trim()) return;
  const url = openInput.value.trim();
  void perform(`open ${url}`, '/api/open', { url }).then((ok) => ok && (openInput.value = ''));
});
const typeInput = $<HTMLInputElement>('type-text');
typeInput.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter' || !typeInput.value) return;
  const text = typeInput.value;
  void perform('type', '/api/type', { text, pressEnter: e.shiftKey }).then((ok) => ok && (typeInput.value = ''));
});
$('key-enter').addEventListener('click', () => void perform('press Enter', '/api/key', { key: 'enter' }));
$('key-back').addEventListener('click', () => void perform('back', '/api/key', { key: 'back' }));

studioRecorder({ canvas, studio, toScreen, elementAt, menuOpen, act, perform, toast, idle });

void refreshState().then(() => refreshTree());
setInterval(() => void refreshState(), 2500);
