// Maestro flows (issue 23) on the embedded Linux box: real `boxflow serve`, real Chromium, the runner
// as `boxflow test` runs it. A point inside an element, device state with its web meaning
// (permissions, offline, geolocation, travel, dark mode) ending with the flow, clearKeychain noted,
// a ${...} timeout and a ${...} point evaluated when they run, assertScreenshot with path, cropOn and thresholdPercentage; each step
// titled by its Maestro command as written.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMaestroYaml } from '../../src/flow/index.js';
import { ReporterHost } from '../../src/runner/reporterHost.js';
import { runFlows } from '../../src/runner/run.js';
import type { RunOptions } from '../../src/runner/options.js';
import type { FlowResult, StepRecord } from '../../src/runner/types.js';
import { decodePng } from '../../src/visual/index.js';
import { useLocalServer } from '../support/localServer.js';
import { testRunOptions } from '../support/runOptions.js';

const local = useLocalServer('maestro-device');

// A page that shows what it is told: where the card was clicked, online state, a position, the camera
// permission, the colour scheme.
const kApp = `<!doctype html><html><body style="margin:0;font:16px sans-serif">
<div id="card" style="position:absolute;left:100px;top:120px;width:200px;height:100px;background:#8ab">Card</div>
<div style="position:absolute;left:0;top:240px">
<p id="hit">no hit</p><p id="online"></p><p id="scheme"></p><p id="camera"></p><p id="geo">no position</p>
<button id="locate" onclick="locate()">Locate</button><input id="field"><p id="shape"></p></div>
<script>
const $ = (id) => document.getElementById(id);
const color = new URLSearchParams(location.search).get('color');
if (color) $('card').style.background = color;
$('card').addEventListener('click', (e) => {
  const r = $('card').getBoundingClientRect();
  $('hit').textContent = 'hit ' + Math.round((e.clientX - r.left) / r.width * 100) + '%,' + Math.round((e.clientY - r.top) / r.height * 100) + '%';
});
function locate() {
  navigator.geolocation.getCurrentPosition((p) => { $('geo').textContent = 'at ' + p.coords.latitude.toFixed(3) + ',' + p.coords.longitude.toFixed(3); }, (e) => { $('geo').textContent = 'geo error ' + e.code; });
}
setInterval(() => {
  $('online').textContent = navigator.onLine ? 'online' : 'offline';
  $('shape').textContent = innerWidth > innerHeight ? 'wide screen' : 'tall screen';
  $('scheme').textContent = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  navigator.permissions.query({ name: 'camera' }).then((s) => { $('camera').textContent = 'camera: ' + s.state; });
}, 50);
</script></body></html>`;

const kLong = `<!doctype html><body style="margin:0;font:16px sans-serif">${Array.from({ length: 80 }, (_, i) => `<p style="height:40px;margin:0">Row ${i + 1}</p>`).join('')}</body>`;

let site: Server;
let siteUrl: string;
before(async () => {
  site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(req.url === '/long' ? kLong : kApp);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
after(async () => {
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

async function run(name: string, commands: string, overrides: Partial<RunOptions> = {}): Promise<{ flow: FlowResult; steps: StepRecord[] }> {
  const dir = join(local.dir, name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.yaml`);
  const text = `url: ${siteUrl}/app\n---\n${commands}`;
  writeFileSync(file, text);
  const flow = parseMaestroYaml(text, file);
  const options = testRunOptions(local.dir, { outputDir: join(local.dir, `out-${name}`), ...overrides });
  const result = await runFlows([flow], options, { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  const f = result.flows[0]!;
  return { flow: f, steps: f.attempts.at(-1)!.steps };
}

const failure = (f: FlowResult, steps: StepRecord[]) => JSON.stringify(f.error ?? steps.find((s) => s.status === 'failed')?.error);

test('tapOn with a point inside the element clicks there, and the report titles it as the Maestro command', async () => {
  const { flow, steps } = await run('point', `- launchApp
- tapOn: { id: card, point: "25%,75%" }
- assertVisible: "hit 25%,75%"
- tapOn:
    id: card
    point: "150,10"
- assertVisible: "hit 75%,10%"
`);
  assert.equal(flow.status, 'passed', failure(flow, steps));
  assert.deepEqual(steps.map((s) => s.label), ['launchApp', 'tapOn id: card, point: "25%,75%"', 'assertVisible hit 25%,75%', 'tapOn id: card, point: "150,10"', 'assertVisible hit 75%,10%']);
  assert.deepEqual(steps.map((s) => s.command), ['launchApp', 'tap', 'assertVisible', 'tap', 'assertVisible']);
});

test('device state on a Linux box: permissions, airplane mode (offline), location and travel, dark mode; clearKeychain is noted', async () => {
  const { flow, steps } = await run('state', `- launchApp:
    permissions: { camera: deny, location: allow }
- assertVisible: "camera: denied"
- setAirplaneMode: enabled
- assertVisible: offline
- toggleAirplaneMode
- assertVisible: online
- setLocation: { latitude: 48.8566, longitude: 2.3522 }
- tapOn: Locate
- assertVisible: "at 48.857,2.352"
- travel:
    points: ["48.8566,2.3522", "48.8600,2.3600"]
    speed: 2000
- tapOn: Locate
- assertVisible: "at 48.860,2.360"
- setPermissions: { permissions: { camera: allow } }
- assertVisible: "camera: granted"
- toggleDarkMode
- assertVisible: dark
- assertDarkMode
- clearKeychain
`);
  assert.equal(flow.status, 'passed', failure(flow, steps));
  const by = (label: string) => steps.find((s) => s.label === label)!;
  assert.match(by('launchApp permissions: {camera: deny, location: allow}').message ?? '', /permissions of http:\/\/127\.0\.0\.1:\d+: camera denied, geolocation granted/);
  assert.equal(by('setAirplaneMode enabled').message, 'airplane mode on: the browser is offline');
  assert.match(by('travel points: ["48.8566,2.3522", "48.8600,2.3600"], speed: 2000').message ?? '', /^travelled 2 points in \d+ ms$/);
  assert.equal(by('clearKeychain').message, 'clearKeychain: iOS-only, nothing to clear on a Linux box (Maestro ignores it there too)');
  assert.equal(by('clearKeychain').status, 'passed');
});

test('a ${...} option value is evaluated when the step runs; a value of the wrong type fails then, at its command', async () => {
  const good = await run('expr', `- launchApp
- evalScript: \${output.myTimeout = 4000}
- waitForAnimationToEnd:
    timeout: \${output.myTimeout}
- repeat:
    times: \${output.myTimeout / 2000}
    commands:
      - tapOn: { id: card }
`);
  assert.equal(good.flow.status, 'passed', failure(good.flow, good.steps));
  const wait = good.steps[2]!;
  assert.equal(wait.label, 'waitForAnimationToEnd timeout: ${output.myTimeout}');
  assert.equal(wait.message, 'ran 1 step (each within 4000 ms)');
  assert.equal(good.steps[3]!.attempts, 2, 'repeat times from a ${...}');

  const bad = await run('bad-expr', `- launchApp
- evalScript: \${output.myTimeout = 'soon'}
- waitForAnimationToEnd:
    timeout: \${output.myTimeout}
`);
  assert.equal(bad.flow.status, 'failed');
  const step = bad.steps[2]!;
  assert.equal(step.error?.code, 'STEP_INVALID');
  assert.equal(step.error?.message, 'stepTimeout: ${output.myTimeout} is "soon", not milliseconds nor a duration (e.g. 10s)');
  assert.deepEqual([step.source?.line, step.source?.column], [5, 3], 'at the Maestro command');
});

test('assertScreenshot: path is the baseline beside the flow, cropOn the element alone, thresholdPercentage the share that must match', async () => {
  const commands = `- launchApp
- assertScreenshot:
    path: shots/card
    cropOn: { id: card }
    thresholdPercentage: 99
`;
  const first = await run('shot', commands, { baselines: { pathTemplate: '{flowDir}/__screenshots__/{name}.png', update: 'missing' } });
  assert.equal(first.flow.status, 'passed', failure(first.flow, first.steps));
  const baseline = join(local.dir, 'shot', 'shots', 'card.png');
  assert.ok(existsSync(baseline), 'the baseline is written where Maestro reads it: the path, relative to the flow, .png added');
  const img = decodePng(readFileSync(baseline));
  assert.deepEqual([img.width, img.height], [200, 100], 'the baseline holds the cropOn element only');
  const again = await run('shot', commands);
  assert.equal(again.flow.status, 'passed', failure(again.flow, again.steps));
  assert.equal(again.steps[1]!.label, 'assertScreenshot path: shots/card, cropOn: {id: card}, thresholdPercentage: 99');
  assert.match(again.steps[1]!.message ?? '', /^matches .*shots\/card\.png/);

  // A red card: far more than 1% of its pixels differ; with thresholdPercentage 0 any image matches.
  const red = commands.replace('- launchApp', '- launchApp: { arguments: { color: red } }');
  const changed = await run('shot', red);
  assert.equal(changed.flow.status, 'failed');
  assert.equal(changed.steps[1]!.error?.code, 'ASSERT_SCREENSHOT', failure(changed.flow, changed.steps));
  const lenient = await run('shot', red.replace('thresholdPercentage: 99', 'thresholdPercentage: 0'));
  assert.equal(lenient.flow.status, 'passed', failure(lenient.flow, lenient.steps));
});

test('setClipboard is what pasteText types; takeScreenshot cropOn keeps that element alone; setOrientation turns the screen, and the next flow gets it back', async () => {
  const dir = join(local.dir, 'misc');
  mkdirSync(dir, { recursive: true });
  const first = `url: ${siteUrl}/app\n---\n- launchApp
- setClipboard: hello there
- tapOn: { id: field }
- pasteText
- assertVisible: { id: field, text: hello there }
- takeScreenshot:
    path: card
    cropOn: { id: card }
- assertVisible: wide screen
- setOrientation: PORTRAIT
- assertVisible: tall screen
`;
  const second = `url: ${siteUrl}/app\n---\n- launchApp\n- assertVisible: wide screen\n`;
  const flows = [parseMaestroYaml(first, join(dir, 'first.yaml')), parseMaestroYaml(second, join(dir, 'second.yaml'))];
  const result = await runFlows(flows, testRunOptions(local.dir, { outputDir: join(local.dir, 'out-misc') }), { client: local.client, reporter: new ReporterHost([]), secrets: [] });
  const [a, b] = result.flows.map((f) => ({ flow: f, steps: f.attempts.at(-1)!.steps }));
  assert.equal(a!.flow.status, 'passed', failure(a!.flow, a!.steps));
  assert.equal(b!.flow.status, 'passed', `the next flow on the box gets its screen back: ${failure(b!.flow, b!.steps)}`);
  const shot = a!.steps.find((s) => s.command === 'screenshot')!;
  const png = decodePng(readFileSync(join(local.dir, 'out-misc', shot.attachments![0]!.path)));
  assert.deepEqual([png.width, png.height], [200, 100], 'the cropOn element only');
  const turn = a!.steps.find((s) => s.label === 'setOrientation PORTRAIT')!;
  assert.equal(turn.message, 'orientation portrait');
  assert.ok(turn.actionId, 'the screen-rotation action');
});

test('startRecording / stopRecording record the box between them and attach the video; with the run\'s video on they only say so', async () => {
  const { flow, steps } = await run('record', '- launchApp\n- startRecording: checkout\n- tapOn: { id: card }\n- stopRecording\n');
  assert.equal(flow.status, 'passed', failure(flow, steps));
  const stop = steps[3]!;
  assert.equal(stop.label, 'stopRecording');
  assert.equal(stop.attachments?.[0]?.name, 'checkout.webm');
  assert.equal(stop.attachments?.[0]?.contentType, 'video/webm');
  assert.ok(readFileSync(join(local.dir, 'out-record', stop.attachments![0]!.path)).length > 1000, 'a video');
  assert.match(stop.message ?? '', /^recorded checkout \(\d+\.\d s\)$/);

  const on = await run('record-on', '- launchApp\n- startRecording: checkout\n- stopRecording\n', { video: 'on' });
  assert.equal(on.flow.status, 'passed', failure(on.flow, on.steps));
  assert.equal(on.steps[1]!.message, 'the attempt is recorded already (video: on); this step is a chapter of that video');
});

test('scrollUntilVisible with centerElement scrolls on until the element is past the middle of the screen', async () => {
  const { flow, steps } = await run('center', `- openLink: ${siteUrl}/long\n- scrollUntilVisible:\n    element: Row 40\n    centerElement: true\n`);
  assert.equal(flow.status, 'passed', failure(flow, steps));
  assert.match(steps[1]!.message ?? '', /^visible after \d+ swipes?, near the middle of the screen$/);
});


test('addMedia on a Linux box: the web has no gallery, nothing is added and the step says so (as Maestro does nothing there)', async () => {
  mkdirSync(join(local.dir, 'media'), { recursive: true });
  writeFileSync(join(local.dir, 'media', 'photo.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
  const { flow, steps } = await run('media', '- launchApp\n- addMedia: [photo.png]\n');
  assert.equal(flow.status, 'passed', failure(flow, steps));
  assert.equal(steps[1]!.message, 'media: a Linux box has no gallery, photo.png not added (Maestro does nothing with addMedia on the web either)');
});

test('a ${...} point is evaluated when its command runs: a point of the screen, a point inside an element, a swipe\'s start and end', async () => {
  const { flow, steps } = await run('expr-point', `- launchApp
- evalScript: \${output.x = 150}
- evalScript: \${output.y = 145}
- evalScript: \${output.p = '75%, 50%'}
- tapOn: { point: "\${output.x},\${output.y}" }
- assertVisible: "hit 25%,25%"
- tapOn: { id: card, point: "\${output.p}" }
- assertVisible: "hit 75%,50%"
- swipe:
    start: "\${output.x},\${output.y}"
    end: "\${output.x},300"
`);
  assert.equal(flow.status, 'passed', failure(flow, steps));
  assert.deepEqual(steps.slice(4).map((s) => s.label), ['tapOn point: "${output.x},${output.y}"', 'assertVisible hit 25%,25%', 'tapOn id: card, point: ${output.p}', 'assertVisible hit 75%,50%', 'swipe start: "${output.x},${output.y}", end: "${output.x},300"']);
  assert.ok(steps[4]!.actionId && steps[6]!.actionId && steps[8]!.actionId, 'each an action of the box');
  // Where each landed (the box's own words), and the step's args as written.
  assert.match(steps[4]!.message ?? '', /^tapped \(150, 145\)/);
  assert.match(steps[6]!.message ?? '', /^tapped \(250, 170\)/, '75%,50% of the card at (100, 120), 200×100');
  assert.match(steps[8]!.message ?? '', /^dragged from \(150, 145\) to \(150, 300\)/);
  assert.deepEqual(steps[4]!.args, { target: { runtimePoint: '${output.x},${output.y}' } });
});

test('a ${...} point that is not one fails when its command runs: STEP_INVALID naming the value, at the command', async () => {
  const inside = await run('bad-point', `- launchApp
- evalScript: \${output.p = 'middle'}
- tapOn: { id: card, point: "\${output.p}" }
`);
  assert.equal(inside.flow.status, 'failed');
  const step = inside.steps[2]!;
  assert.equal(step.error?.code, 'STEP_INVALID');
  assert.equal(step.error?.message, 'point: ${output.p} is "middle", not a point inside the element: "x%,y%" (percent of its bounds, 0 to 100) or "x,y" (pixels from its top-left)');
  assert.deepEqual([step.source?.line, step.source?.column], [5, 3], 'at the Maestro command');

  const screen = await run('bad-screen-point', `- launchApp
- swipe:
    start: "\${output.none}"
    end: "10,10"
`);
  const swipe = screen.steps[1]!;
  assert.equal(swipe.error?.code, 'STEP_INVALID', failure(screen.flow, screen.steps));
  assert.equal(swipe.error?.message, 'from point: ${output.none} is "undefined", not a point of the screen: "x,y" (pixels) or "x%,y%" (0 to 100)');
  assert.deepEqual([swipe.source?.line, swipe.source?.column], [4, 3]);
});

test('web emulation ends with the flow\'s connection: on a box the user named, the next run finds the page online, light and asking for the camera again', async () => {
  const box = await local.client.createLinuxBox({ wait: true });
  try {
    const ids = { boxes: { ids: [box.id], createLinux: 0, createAndroid: 0 } };
    const first = await run('emulated', `- launchApp:
    permissions: { camera: deny }
- assertVisible: "camera: denied"
- setAirplaneMode: enabled
- assertVisible: offline
- toggleDarkMode
- assertVisible: dark
`, ids);
    assert.equal(first.flow.status, 'passed', failure(first.flow, first.steps));
    // No launchApp: the page the first run left open, in the same browser (a named box's first flow gets no fresh one).
    const next = await run('emulated-next', '- assertVisible: online\n- assertVisible: light\n- assertVisible: "camera: prompt"\n', ids);
    assert.equal(next.flow.status, 'passed', failure(next.flow, next.steps));
  } finally {
    await local.client.terminateBox(box.id, {});
  }
});
