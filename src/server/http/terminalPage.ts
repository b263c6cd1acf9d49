// The web terminal page and its script. The script opens the websocket at the page's own path with
// the page's own pre-signed query, so the page needs no API key and embeds nothing secret.

export const kTerminalAssetPrefix = '/terminal/static/';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function terminalPageHtml(boxId: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>boxflow terminal · ${escapeHtml(boxId)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${kTerminalAssetPrefix}xterm.css">
<style>
html, body { margin: 0; height: 100%; background: #1e1e1e; overflow: hidden; }
#term { position: absolute; inset: 4px 4px 22px 4px; }
#status { position: absolute; left: 6px; right: 6px; bottom: 2px; height: 18px; font: 12px/18px monospace; color: #9a9a9a; white-space: nowrap; overflow: hidden; }
#status[data-state="closed"] { color: #e07070; }
</style>
</head>
<body>
<div id="term"></div>
<div id="status" data-state="connecting">connecting…</div>
<script src="${kTerminalAssetPrefix}xterm.js"></script>
<script src="${kTerminalAssetPrefix}terminal.js"></script>
</body>
</html>
`;
}

/** Runs in the browser (plain ES2020, no modules); xterm.js has defined the global `Terminal`. */
export const kTerminalScript = `(() => {
  'use strict';
  const status = document.getElementById('status');
  const host = document.getElementById('term');
  const setStatus = (state, text) => { status.dataset.state = state; status.textContent = text; };
  const fontSize = 14;
  const fontFamily = 'DejaVu Sans Mono, Liberation Mono, Menlo, Consolas, monospace';
  const term = new Terminal({ fontSize, fontFamily, cursorBlink: true, scrollback: 5000, allowProposedApi: false });
  window.term = term;
  term.open(host);

  // Cell size measured in the terminal's own font, so cols x rows fill the element.
  const probe = document.createElement('span');
  probe.style.cssText = 'position:absolute;visibility:hidden;white-space:pre;font-size:' + fontSize + 'px;font-family:' + fontFamily;
  probe.textContent = 'W'.repeat(64);
  document.body.appendChild(probe);
  const fit = () => {
    const box = probe.getBoundingClientRect();
    const cellW = box.width / 64 || 8;
    const row = host.querySelector('.xterm-rows > div');
    const cellH = (row && row.getBoundingClientRect().height) || box.height || fontSize * 1.2;
    const cols = Math.max(2, Math.floor(host.clientWidth / cellW));
    const rows = Math.max(1, Math.floor(host.clientHeight / cellH));
    if (cols !== term.cols || rows !== term.rows) term.resize(cols, rows);
  };
  fit();

  const wsUrl = new URL(location.href);
  wsUrl.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  wsUrl.hash = '';
  wsUrl.searchParams.set('cols', String(term.cols));
  wsUrl.searchParams.set('rows', String(term.rows));
  const ws = new WebSocket(wsUrl.href);
  window.termSocket = ws;
  const send = (msg) => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg)); };

  ws.onopen = () => { setStatus('open', 'connected'); send({ type: 'resize', cols: term.cols, rows: term.rows }); term.focus(); };
  ws.onmessage = (e) => { term.write(typeof e.data === 'string' ? e.data : new Uint8Array(e.data)); };
  ws.onclose = (e) => {
    const why = e.reason || (e.code === 1006 ? 'the connection was refused or lost' : 'code ' + e.code);
    setStatus('closed', 'disconnected: ' + why);
    term.write('\\r\\n\\x1b[31m[disconnected: ' + why + ']\\x1b[0m\\r\\n');
  };
  ws.binaryType = 'arraybuffer';

  term.onData((data) => send({ type: 'input', data }));
  term.onBinary((data) => send({ type: 'input', data }));
  term.onResize(({ cols, rows }) => send({ type: 'resize', cols, rows }));
  let pending = 0;
  window.addEventListener('resize', () => { cancelAnimationFrame(pending); pending = requestAnimationFrame(fit); });
})();
`;
