// boxflow studio's page: the box's screen, the layout tree beside it, the flow file and its results.
// Its script is src/browser/studio bundled, served as /studio.js.
import { browserScript } from '../browserBundles.js';

export function studioPageHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>boxflow studio</title>
<link rel="icon" href="data:,">
<style>
:root { --bg: #f6f7f9; --panel: #fff; --line: #dfe2e7; --text: #1d2127; --dim: #69707a; --accent: #2463eb; --ok: #16803c; --bad: #c62828; --warn: #b26a00; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: var(--bg); color: var(--text); font: 13px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
body { display: flex; flex-direction: column; overflow: hidden; }
header { display: flex; align-items: center; gap: 10px; padding: 7px 12px; background: #1d2127; color: #e9ecef; flex-wrap: wrap; }
header .meta code { max-width: 260px; display: inline-block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; vertical-align: bottom; }
header .brand { font-weight: 700; letter-spacing: .2px; }
header .meta { color: #aab1bb; }
header code { color: #fff; }
header input { background: #2b3038; color: #fff; border: 1px solid #444b55; border-radius: 5px; padding: 4px 8px; width: 190px; }
header button, .pane button { border: 1px solid var(--line); background: #fff; color: var(--text); border-radius: 5px; padding: 3px 9px; cursor: pointer; font: inherit; }
header button { background: #2b3038; color: #e9ecef; border-color: #444b55; }
header button.primary { background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 600; }
header .spacer { flex: 1; }
main { flex: 1; display: grid; grid-template-columns: minmax(380px, 1.35fr) minmax(220px, .75fr) minmax(300px, 1fr); gap: 10px; padding: 10px; min-height: 0; }
.pane { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; display: flex; flex-direction: column; min-height: 0; overflow: hidden; }
.pane h2 { margin: 0; padding: 7px 10px; font-size: 12px; text-transform: uppercase; letter-spacing: .6px; color: var(--dim); border-bottom: 1px solid var(--line); display: flex; align-items: center; gap: 8px; }
.pane h2 .grow { flex: 1; }
#stage { flex: 1; position: relative; min-height: 200px; background: #e9ebef; }
#screen { position: absolute; inset: 0; margin: auto; max-width: 100%; max-height: 100%; background: #fff; box-shadow: 0 1px 6px rgba(0,0,0,.18); cursor: crosshair; touch-action: none; }
#screen:focus { outline: 2px solid var(--accent); outline-offset: 1px; }
#hl { position: absolute; pointer-events: none; border: 2px solid var(--accent); background: rgba(36, 99, 235, .12); border-radius: 2px; display: none; }
#hl.masked { border-color: #8e24aa; background: rgba(142, 36, 170, .15); }
.mask { position: absolute; pointer-events: none; background: rgba(142, 36, 170, .35); border: 1px dashed #8e24aa; }
#hl-label { position: absolute; left: 0; top: -22px; background: var(--accent); color: #fff; font: 11px/20px ui-monospace, monospace; padding: 0 6px; border-radius: 3px; white-space: nowrap; max-width: 420px; overflow: hidden; text-overflow: ellipsis; }
#busy { position: absolute; right: 8px; top: 8px; background: rgba(29,33,39,.85); color: #fff; padding: 3px 9px; border-radius: 4px; font-size: 12px; display: none; }
#inspector { border-top: 1px solid var(--line); padding: 8px 10px; height: 168px; flex: none; overflow: auto; }
#inspector .row { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
#inspector code, .steps code, pre { font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
#selector { background: #eef3ff; padding: 1px 6px; border-radius: 4px; color: #173b91; }
.count { font-size: 12px; padding: 0 6px; border-radius: 9px; background: #e8f5e9; color: var(--ok); }
.count.many { background: #fff3e0; color: var(--warn); }
.count.none { background: #ffebee; color: var(--bad); }
#candidates { list-style: none; margin: 6px 0 0; padding: 0; }
#candidates li { display: flex; gap: 8px; align-items: baseline; padding: 1px 4px; border-radius: 4px; cursor: pointer; }
#candidates li:hover { background: #f1f3f6; }
#candidates li.chosen { background: #eef3ff; }
#candidates .kind { color: var(--dim); width: 44px; flex: none; font-size: 11px; }
.hint { color: var(--dim); font-size: 12px; margin-top: 6px; }
#tree { flex: 1; overflow: auto; padding: 4px 0; font: 12px/1.5 ui-monospace, monospace; }
#tree .node { white-space: nowrap; padding: 0 8px; cursor: default; overflow: hidden; text-overflow: ellipsis; }
#tree .node:hover, #tree .node.hot { background: #eef3ff; }
#tree .tag { color: #8e3b8e; }
#tree .id { color: #1b6e3a; }
#tree .txt { color: #555; }
#tree .node.hidden, #tree .node.hidden :is(.tag, .id, .txt) { color: #b3b8c0; font-style: italic; }
#flow { flex: 1; display: flex; flex-direction: column; min-height: 0; }
.steps { list-style: none; margin: 0; padding: 4px 0; overflow: auto; flex: 0 1 auto; max-height: 45%; border-bottom: 1px solid var(--line); }
.steps li { display: flex; gap: 6px; align-items: center; padding: 2px 8px; }
.steps li:hover { background: #f6f7f9; }
.steps li { cursor: pointer; }
.steps li.selected { background: #eef3ff; box-shadow: inset 3px 0 var(--accent); }
.steps li.insert { height: 0; padding: 0 8px; border-top: 2px solid var(--accent); margin: 1px 0 1px 34px; cursor: default; }
.steps .ln { color: var(--dim); width: 28px; text-align: right; flex: none; font-size: 11px; }
.steps code { flex: 1; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.steps .st { width: 16px; text-align: center; flex: none; }
.steps button { padding: 0 6px; font-size: 11px; }
.st.passed, .status.passed { color: var(--ok); }
.st.failed, .status.failed { color: var(--bad); }
.st.warned, .status.warned { color: var(--warn); }
.st.new { color: var(--accent); }
#problem { color: var(--bad); padding: 6px 10px; white-space: pre-wrap; font: 12px ui-monospace, monospace; display: none; }
#result { flex: 1; overflow: auto; padding: 8px 10px; }
#result .rec { border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; margin-bottom: 8px; }
#result .rec .head { display: flex; gap: 8px; align-items: baseline; }
#result .rec .label { font-weight: 600; flex: 1; }
#result .rec .msg { color: var(--dim); font-size: 12px; word-break: break-word; }
#result .rec .err { color: var(--bad); font-size: 12px; white-space: pre-wrap; }
#result .rec .aid { font: 11px ui-monospace, monospace; color: var(--dim); }
#result .imgs { display: flex; gap: 6px; margin-top: 6px; flex-wrap: wrap; }
#result .imgs a { display: flex; flex-direction: column; align-items: center; font-size: 11px; color: var(--dim); text-decoration: none; }
#result .imgs img { max-width: 140px; max-height: 100px; border: 1px solid var(--line); border-radius: 3px; background: #fff; }
details { border-top: 1px solid var(--line); }
details summary { padding: 5px 10px; cursor: pointer; color: var(--dim); font-size: 12px; }
pre#source { margin: 0; padding: 6px 10px; max-height: 220px; overflow: auto; background: #fafbfc; }
#menu { position: fixed; z-index: 10; background: #fff; border: 1px solid var(--line); border-radius: 7px; box-shadow: 0 6px 24px rgba(0,0,0,.18); padding: 4px; min-width: 230px; }
#menu[hidden] { display: none; }
#menu .title { padding: 4px 8px; font: 11px ui-monospace, monospace; color: var(--dim); max-width: 320px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#menu button { display: block; width: 100%; text-align: left; border: 0; background: none; padding: 5px 8px; border-radius: 4px; cursor: pointer; font: inherit; }
#menu button:hover { background: #eef3ff; }
#menu hr { border: 0; border-top: 1px solid var(--line); margin: 3px 0; }
#shot-form { position: fixed; z-index: 11; left: 50%; top: 20%; transform: translateX(-50%); background: #fff; border: 1px solid var(--line); border-radius: 8px; box-shadow: 0 8px 30px rgba(0,0,0,.22); padding: 12px 14px; width: 420px; max-width: 90%; }
#shot-form[hidden] { display: none; }
#shot-form .title { font-weight: 600; margin-bottom: 8px; }
#shot-form .field { display: flex; gap: 8px; align-items: center; margin-bottom: 8px; }
#shot-form .field input { flex: 1; padding: 4px 6px; border: 1px solid var(--line); border-radius: 5px; font: 12px ui-monospace, monospace; }
#shot-form .choice { display: block; margin: 3px 0; font-size: 12px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#shot-form .err { color: var(--bad); font-size: 12px; min-height: 1em; }
#shot-form .buttons { display: flex; gap: 8px; justify-content: flex-end; margin-top: 8px; }
#shot-form button { border: 1px solid var(--line); background: #fff; border-radius: 5px; padding: 3px 10px; cursor: pointer; font: inherit; }
#shot-form button.primary { background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 600; }
#toast { position: fixed; left: 50%; bottom: 16px; transform: translateX(-50%); background: #1d2127; color: #fff; padding: 6px 14px; border-radius: 6px; display: none; max-width: 70%; z-index: 20; }
#toast.bad { background: var(--bad); }
</style>
</head>
<body>
<header>
  <span class="brand">boxflow studio</span>
  <span class="meta">file <code id="file" data-testid="file"></code> <span id="dialect" data-testid="dialect"></span></span>
  <span class="meta">box <code id="box" data-testid="box"></code></span>
  <span class="spacer"></span>
  <input id="open-url" data-testid="open-url" placeholder="URL to open (adds openTab)" autocomplete="off">
  <input id="type-text" data-testid="type-text" placeholder="text to type (⇧⏎: + Enter)" title="Enter adds a type step; Shift+Enter also presses Enter after the text" autocomplete="off">
  <button id="key-enter" title="press Enter (adds pressKey)">Enter</button>
  <button id="key-back" title="back button (adds back)">Back</button>
  <button id="run-all" class="primary" data-testid="run-all">▶ Run file</button>
</header>
<main>
  <section class="pane">
    <h2><span class="grow">Screen</span><span id="fps" data-testid="fps"></span></h2>
    <div id="stage"><canvas id="screen" data-testid="screen" width="1" height="1" tabindex="0"></canvas><div id="masks"></div><div id="hl" data-testid="highlight"><div id="hl-label"></div></div><div id="busy" data-testid="busy"></div></div>
    <div id="inspector" data-testid="inspector">
      <div class="row"><span>selector</span> <code id="selector" data-testid="selector">point at an element</code> <span id="match-count" class="count" data-testid="match-count"></span></div>
      <ul id="candidates" data-testid="candidates"></ul>
      <div class="hint">Click: tap it and add the step (inside a large element, at that point). Drag: a drag along the path. Type: the keys go to the box. Right-click: assertions, screenshot masks and more. The selector is the first that matches only this element, in the order a person keeps them: its id, a test id, its role and name, its label, its placeholder, its text, a short CSS path. New steps go after the selected step (click one), else after the step that ran last.</div>
    </div>
  </section>
  <section class="pane">
    <h2><span class="grow">Layout</span><span id="tree-info"></span></h2>
    <div id="tree" data-testid="tree"></div>
  </section>
  <section class="pane" id="flow">
    <h2><span class="grow">Flow</span></h2>
    <div id="problem" data-testid="problem"></div>
    <ol class="steps" id="steps" data-testid="steps"></ol>
    <div id="result" data-testid="result"></div>
    <details><summary>the file</summary><pre id="source" data-testid="source"></pre></details>
  </section>
</main>
<div id="menu" data-testid="menu" hidden></div>
<div id="shot-form" data-testid="shot-form" role="dialog" aria-label="Assert screenshot" hidden></div>
<div id="toast" data-testid="toast"></div>
<script src="/studio.js"></script>
</body>
</html>
`;
}

/** The page's script, src/browser/studio/main.ts bundled (src/browserBundles.ts). */
export function studioScript(): string {
  return browserScript('studio');
}
