// The live view page's script (the page: src/server/http/liveViewPage.ts), bundled as live.js. It opens the
// websocket at the page's own path with the page's own pre-signed query, draws the box's frames, shows
// the run that a `boxflow test --live` reports, and sends what the hand does on the screen as actions.
import { decodeFrame, fitCanvas, frameDrawer, type FrameMeta } from './screen.js';

const body = document.body;
const raw = body.dataset.raw === '1';
const canvas = document.getElementById('screen') as HTMLCanvasElement;
const stateEl = document.getElementById('state')!;
const statusEl = document.getElementById('status')!;
const fpsEl = document.getElementById('fps')!;
const infoEl = document.getElementById('info')!;
const logEl = document.getElementById('log')!;
const typing = document.getElementById('typing') as HTMLInputElement;
const runFlowEl = document.getElementById('run-flow')!;
const runStepEl = document.getElementById('run-step')!;
const runActionEl = document.getElementById('run-action')!;
const stepsEl = document.getElementById('steps')!;
const keyNames: Record<string, string> = {
  Enter: 'enter', Backspace: 'backspace', Tab: 'tab', Escape: 'escape', Delete: 'delete', Insert: 'insert', Home: 'home', End: 'end',
  PageUp: 'pageUp', PageDown: 'pageDown', ArrowUp: 'arrowUp', ArrowDown: 'arrowDown', ArrowLeft: 'arrowLeft', ArrowRight: 'arrowRight', ' ': 'space',
};
const modifiers: Record<string, string> = { Control: 'control', Alt: 'alt', Shift: 'shift', Meta: 'meta' };
type RunStep = { id: string; label: string; status: string; actionId?: string };
type Run = { flow: { name: string; attempt: number; status: string }; steps: RunStep[]; earlier?: number };
const view = { frames: 0, seq: 0, screen: { width: 0, height: 0 }, actions: [] as { id: number; actionId?: string; ok: boolean; message?: string; code?: string }[], open: false, run: undefined as Run | undefined };
Object.assign(window, { liveView: view });

const setState = (state: string, text: string) => {
  stateEl.dataset.state = state;
  stateEl.textContent = text;
  if (raw && state === 'closed') statusEl.textContent = text;
};
const logLine = (text: string, bad: boolean) => {
  const line = document.createElement('div');
  if (bad) line.className = 'bad';
  line.textContent = text;
  logEl.prepend(line);
  while (logEl.childElementCount > 50) logEl.lastElementChild!.remove();
};

// The canvas keeps the screen's aspect ratio inside the stage.
const fit = () => fitCanvas(canvas, view.screen);
window.addEventListener('resize', fit);

// The run over the screen: its flow, the step running (the innermost, newest), and an actionId:
// the running step's, else the newest step's that has one, named by its step.
const marks: Record<string, string> = { running: '▶', passed: '✓', failed: '✗', warned: '!', skipped: '–' };
const showRun = (run: Run) => {
  const first = !view.run;
  view.run = run;
  body.dataset.run = '1';
  const steps = Array.isArray(run.steps) ? run.steps : [];
  const newestFirst = [...steps].reverse();
  const running = newestFirst.find((st) => st.status === 'running');
  const shown = running ?? steps.at(-1);
  const acted = running?.actionId ? running : newestFirst.find((st) => st.actionId);
  runFlowEl.textContent = `${run.flow.name}${run.flow.attempt > 1 ? ` · attempt ${run.flow.attempt}` : ''} · ${run.flow.status}`;
  runStepEl.textContent = shown ? `${marks[shown.status] ?? ''} ${shown.id}  ${shown.label}` : 'starting…';
  runActionEl.textContent = acted ? `actionId ${acted.actionId}${acted === running ? '' : ` (step ${acted.id})`}` : '';
  const items = steps.map((st) => {
    const li = document.createElement('li');
    li.dataset.stepId = st.id;
    li.dataset.status = st.status;
    li.style.paddingLeft = `${10 + 14 * (st.id.split('.').length - 1)}px`;
    const mark = document.createElement('span');
    mark.className = 'mark';
    mark.textContent = marks[st.status] ?? '';
    const label = document.createElement('span');
    label.className = 'label';
    label.textContent = `${st.id}  ${st.label}`;
    li.append(mark, label);
    if (st.actionId) {
      const action = document.createElement('span');
      action.className = 'action';
      action.textContent = st.actionId;
      li.append(action);
    }
    li.title = `${st.id} ${st.label}${st.actionId ? `\nactionId ${st.actionId}` : ''}`;
    return li;
  });
  if (run.earlier) {
    const li = document.createElement('li');
    li.textContent = `… ${run.earlier} earlier step${run.earlier === 1 ? '' : 's'}`;
    items.unshift(li);
  }
  stepsEl.replaceChildren(...items);
  const runningItems = stepsEl.querySelectorAll('[data-status="running"]');
  (runningItems[runningItems.length - 1] ?? stepsEl.lastElementChild)?.scrollIntoView({ block: 'nearest' });
  if (first) fit(); // the list now takes its share of the width
};

const wsUrl = new URL(location.href);
wsUrl.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
wsUrl.hash = '';
const ws = new WebSocket(wsUrl.href);
ws.binaryType = 'arraybuffer';
let nextId = 1;
const send = (msg: Record<string, unknown>) => {
  if (ws.readyState !== WebSocket.OPEN) return;
  ws.send(JSON.stringify({ ...msg, id: nextId++ }));
};

const draw = frameDrawer<FrameMeta>(canvas, 2000, (_bitmap, fps, meta) => {
  const resized = meta.width !== view.screen.width || meta.height !== view.screen.height;
  view.screen = { width: meta.width, height: meta.height };
  view.seq = meta.seq;
  view.frames++;
  if (resized) fit();
  fpsEl.textContent = `${meta.width}×${meta.height} · ${fps.toFixed(1)} fps`;
});

ws.onopen = () => {
  view.open = true;
  setState('open', 'live');
  canvas.focus();
};
ws.onclose = (e) => {
  view.open = false;
  setState('closed', `disconnected: ${e.reason || (e.code === 1006 ? 'the connection was refused or lost' : `code ${e.code}`)}`);
};
ws.onmessage = (e) => {
  if (typeof e.data === 'string') {
    const msg = JSON.parse(e.data) as Record<string, unknown>;
    if (msg.type === 'hello') {
      infoEl.textContent = `${String(msg.boxType)} · ${String(msg.source)} · up to ${String(msg.maxFps)} fps`;
    } else if (msg.type === 'status') {
      statusEl.textContent = String(msg.text ?? '');
    } else if (msg.type === 'run') {
      showRun(msg as Run);
    } else if (msg.type === 'action') {
      view.actions.push({ id: Number(msg.id), ok: msg.ok === true, ...(msg.actionId ? { actionId: String(msg.actionId) } : {}), ...(msg.message ? { message: String(msg.message) } : {}), ...(msg.code ? { code: String(msg.code) } : {}) });
      logLine(msg.ok ? `${String(msg.actionId)}  ${String(msg.message ?? 'done')}` : `${String(msg.actionId ?? '')}  ${String(msg.code)}: ${String(msg.message)}`, msg.ok !== true);
    }
    return;
  }
  const { meta, image } = decodeFrame(e.data as ArrayBuffer);
  void draw(image, meta);
};

// ------------------------------------------------------------ input: pointer, wheel, keys
const toScreen = (e: { clientX: number; clientY: number }) => {
  const r = canvas.getBoundingClientRect();
  const x = ((e.clientX - r.left) / Math.max(1, r.width)) * view.screen.width;
  const y = ((e.clientY - r.top) / Math.max(1, r.height)) * view.screen.height;
  return { x: Math.round(Math.min(Math.max(x, 0), view.screen.width) * 10) / 10, y: Math.round(Math.min(Math.max(y, 0), view.screen.height) * 10) / 10 };
};
let press: { path: { x: number; y: number }[]; started: number; button: number } | undefined;
canvas.addEventListener('pointerdown', (e) => {
  if (!view.screen.width) return;
  canvas.focus();
  canvas.setPointerCapture(e.pointerId);
  press = { path: [toScreen(e)], started: performance.now(), button: e.button };
  e.preventDefault();
});
canvas.addEventListener('pointermove', (e) => {
  if (press) press.path.push(toScreen(e));
});
canvas.addEventListener('pointerup', (e) => {
  const p = press;
  press = undefined;
  if (!p) return;
  const end = toScreen(e);
  p.path.push(end);
  const start = p.path[0]!;
  const moved = Math.hypot(end.x - start.x, end.y - start.y);
  // A press that stayed within a few pixels of where it began is a click; anything else is a drag.
  if (moved < Math.max(4, view.screen.width / 200)) send({ type: 'click', x: start.x, y: start.y, button: p.button === 2 ? 'right' : p.button === 1 ? 'middle' : 'left' });
  else send({ type: 'drag', path: p.path, durationMs: Math.round(performance.now() - p.started) });
});
canvas.addEventListener('contextmenu', (e) => e.preventDefault());
let wheel: { x: number; y: number; dx: number; dy: number } | undefined;
canvas.addEventListener(
  'wheel',
  (e) => {
    e.preventDefault();
    const at = toScreen(e);
    const k = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? view.screen.height : 1;
    if (!wheel) {
      wheel = { ...at, dx: 0, dy: 0 };
      // Turns within 150 ms are one scroll action.
      setTimeout(() => {
        const w = wheel!;
        wheel = undefined;
        if (w.dx || w.dy) send({ type: 'scroll', x: w.x, y: w.y, deltaX: Math.round(w.dx), deltaY: Math.round(w.dy) });
      }, 150);
    }
    wheel.dx += e.deltaX * k;
    wheel.dy += e.deltaY * k;
  },
  { passive: false },
);
// Printable keys gather into one `type` action (sent 150 ms after the last); other keys are press-key actions.
let text = '';
let textTimer: ReturnType<typeof setTimeout> | undefined;
const flushText = () => {
  clearTimeout(textTimer);
  if (text) send({ type: 'type', text });
  text = '';
};
canvas.addEventListener('keydown', (e) => {
  if (modifiers[e.key]) return;
  const held = [e.ctrlKey && 'control', e.altKey && 'alt', e.metaKey && 'meta'].filter(Boolean) as string[];
  if (e.key.length === 1 && !held.length && e.key !== ' ') {
    text += e.key;
    clearTimeout(textTimer);
    textTimer = setTimeout(flushText, 150);
    e.preventDefault();
    return;
  }
  if (e.key === ' ' && !held.length) {
    text += ' ';
    clearTimeout(textTimer);
    textTimer = setTimeout(flushText, 150);
    e.preventDefault();
    return;
  }
  const name = keyNames[e.key] ?? (e.key.length === 1 ? e.key.toLowerCase() : /^F\d{1,2}$/.test(e.key) ? e.key.toLowerCase() : undefined);
  if (!name) return;
  e.preventDefault();
  flushText();
  if (held.length || (e.shiftKey && !keyNames[e.key])) send({ type: 'key', keys: [...held, ...(e.shiftKey ? ['shift'] : []), name], combination: true });
  else send({ type: 'key', keys: [name] });
});
typing.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter' || !typing.value) return;
  send({ type: 'type', text: typing.value });
  typing.value = '';
});
