// The live view's page and its script (src/server/liveView.ts). The script opens the websocket at the
// page's own path with the page's own pre-signed query, so the page embeds nothing secret and needs no
// API key. The full page (`url`) has a bar with the box's details, a field to type into and a log of
// the actions sent with their actionIds; the raw page (`rawUrl`) is the screen alone, for an iframe.
// While a run says what it does (`boxflow test --live`, src/api/liveRun.ts), the full page shows its
// flow, running step and actionId over the screen, and its steps beside it.

export const kLiveViewAssetPrefix = '/live-view-static/';
export const kLiveViewCsp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data: blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function liveViewPageHtml(opts: { boxId: string; type: string; raw: boolean }): string {
  const id = escapeHtml(opts.boxId);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>boxflow live view · ${id}</title>
<link rel="icon" href="data:,">
<style>
html, body { margin: 0; height: 100%; background: #15171a; color: #d8dadd; font: 13px/1.4 system-ui, sans-serif; overflow: hidden; }
body { display: flex; flex-direction: column; }
#bar { display: flex; gap: 12px; align-items: center; padding: 6px 10px; background: #1f2226; border-bottom: 1px solid #2c3036; white-space: nowrap; }
#bar b { color: #fff; }
#bar .dim { color: #8b9097; }
#state[data-state="open"] { color: #6fcf7f; }
#state[data-state="closed"] { color: #e07070; }
#typing { flex: 1; max-width: 360px; background: #111316; color: #eee; border: 1px solid #3a3f46; border-radius: 4px; padding: 3px 6px; }
#main { flex: 1; display: flex; min-height: 0; }
#stage { flex: 1; position: relative; min-height: 0; }
#run { position: absolute; left: 8px; top: 8px; max-width: calc(100% - 16px); padding: 4px 8px; background: rgba(0,0,0,.72); border-radius: 4px; pointer-events: none; }
#run-flow { color: #8b9097; font-size: 12px; }
#run-step { color: #fff; font-weight: 600; }
#run-action { font: 12px/1.4 ui-monospace, monospace; color: #9ecbff; }
#run-action:empty { display: none; }
#steps { width: 320px; margin: 0; padding: 6px 0; overflow: auto; list-style: none; background: #1b1e22; border-left: 1px solid #2c3036; font-size: 12px; }
#steps li { padding: 2px 10px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#steps li[data-status="running"] { background: #263445; color: #fff; }
#steps li[data-status="failed"] .mark { color: #e07070; }
#steps li[data-status="passed"] .mark { color: #6fcf7f; }
#steps li[data-status="warned"] .mark { color: #e0b050; }
#steps .mark { display: inline-block; width: 1.4em; }
#steps .action { color: #8b9097; font-family: ui-monospace, monospace; margin-left: 6px; }
body:not([data-run="1"]) #run, body:not([data-run="1"]) #steps { display: none; }
#screen { position: absolute; inset: 0; margin: auto; max-width: 100%; max-height: 100%; background: #000; outline: none; cursor: crosshair; touch-action: none; }
#log { max-height: 72px; overflow: auto; padding: 4px 10px; background: #1f2226; border-top: 1px solid #2c3036; font: 12px/1.4 ui-monospace, monospace; color: #9aa0a6; }
#log .bad { color: #e07070; }
#status { position: absolute; left: 8px; bottom: 8px; padding: 2px 6px; background: rgba(0,0,0,.6); border-radius: 3px; font-size: 12px; }
#status:empty { display: none; }
body[data-raw="1"] #bar, body[data-raw="1"] #log, body[data-raw="1"] #run, body[data-raw="1"] #steps { display: none; }
</style>
</head>
<body data-raw="${opts.raw ? '1' : '0'}" data-box-id="${id}" data-box-type="${escapeHtml(opts.type)}">
<div id="bar">
  <b>boxflow live view</b>
  <span>box <b>${id}</b></span>
  <span class="dim" id="info">${escapeHtml(opts.type)}</span>
  <span class="dim" id="fps"></span>
  <span id="state" data-state="connecting">connecting…</span>
  <input id="typing" placeholder="type here and press Enter to send the text to the box" autocomplete="off">
</div>
<div id="main">
  <div id="stage"><canvas id="screen" tabindex="0" width="1" height="1"></canvas><div id="status"></div>
    <div id="run"><div id="run-flow"></div><div id="run-step"></div><div id="run-action"></div></div>
  </div>
  <ol id="steps" aria-label="steps of the run"></ol>
</div>
<div id="log"></div>
<script src="${kLiveViewAssetPrefix}live.js"></script>
</body>
</html>
`;
}

/** The script as the browser gets it; `__name` is what tsx's keepNames adds to functions (a no-op here). */
export function liveViewScript(): string {
  return `'use strict';\nvar __name = (f) => f;\n(${liveViewClient.toString()})();\n`;
}

/** Runs in the browser: it may use nothing from outside its own body. */
function liveViewClient(): void {
  const body = document.body;
  const raw = body.dataset.raw === '1';
  const canvas = document.getElementById('screen') as HTMLCanvasElement;
  const ctx = canvas.getContext('2d')!;
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
  const fit = () => {
    const stage = canvas.parentElement!;
    const { width, height } = view.screen;
    if (!width || !height) return;
    const k = Math.min(stage.clientWidth / width, stage.clientHeight / height);
    canvas.style.width = `${Math.floor(width * k)}px`;
    canvas.style.height = `${Math.floor(height * k)}px`;
  };
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

  let drawing = false;
  let waiting: { blob: Blob; meta: { width: number; height: number; seq: number } } | undefined;
  const frameTimes: number[] = [];
  const draw = async (blob: Blob, meta: { width: number; height: number; seq: number }) => {
    if (drawing) {
      waiting = { blob, meta }; // only the newest waits
      return;
    }
    drawing = true;
    try {
      const bitmap = await createImageBitmap(blob);
      if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) {
        canvas.width = bitmap.width;
        canvas.height = bitmap.height;
      }
      ctx.drawImage(bitmap, 0, 0);
      bitmap.close();
      const resized = meta.width !== view.screen.width || meta.height !== view.screen.height;
      view.screen = { width: meta.width, height: meta.height };
      view.seq = meta.seq;
      view.frames++;
      if (resized) fit();
      const now = performance.now();
      frameTimes.push(now);
      while (frameTimes.length && frameTimes[0]! < now - 2000) frameTimes.shift();
      fpsEl.textContent = `${meta.width}×${meta.height} · ${(frameTimes.length / 2).toFixed(1)} fps`;
    } catch {
      // an image that does not decode: wait for the next
    } finally {
      drawing = false;
      const next = waiting;
      waiting = undefined;
      if (next) void draw(next.blob, next.meta);
    }
  };

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
    const data = e.data as ArrayBuffer;
    const length = new DataView(data).getUint32(0);
    const meta = JSON.parse(new TextDecoder().decode(new Uint8Array(data, 4, length))) as { format: string; width: number; height: number; seq: number };
    void draw(new Blob([new Uint8Array(data, 4 + length)], { type: `image/${meta.format}` }), meta);
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
}
