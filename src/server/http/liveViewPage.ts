// The live view's page and its script (src/server/http/liveView.ts serves them; the script is
// src/browser/liveView.ts). The script opens the websocket at the page's own path with the page's own
// pre-signed query, so the page embeds nothing secret and needs no API key. The full page (`url`) has
// a bar with the box's details, a field to type into and a log of the actions sent with their
// actionIds; the raw page (`rawUrl`) is the screen alone, for an iframe. While a run says what it does
// (`boxflow test --live`, src/api/liveRun.ts), the full page shows its flow, running step and actionId
// over the screen, and its steps beside it.
import { browserScript } from '../../browserBundles.js';

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

/** The page's script, src/browser/liveView.ts bundled (src/browserBundles.ts); served at kLiveViewAssetPrefix, never inline (kLiveViewCsp). */
export function liveViewScript(): string {
  return browserScript('live');
}
