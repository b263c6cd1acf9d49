// Maestro's commands, each a translator to the boxflow step with Maestro's meaning (docs: README
// "Coming from Maestro"): the table mapper.ts looks a command up in. A name not in it is one of
// Maestro's inputRandom* commands, else not a Maestro command.
import { kRandomKinds } from '../steps/index.js';
import type { Path } from '../parts.js';
import { didYouMean, hint } from '../suggest.js';
import { guarded, hasRuntime, isObj, onlyExpression, scopeEnv, screenPoint, UnknownCommand, Unsupported, type Command, type Mapping, type Raw, type Translator } from './common.js';

/** Every command Maestro's parser knows (YamlFluentCommand), for "did you mean". */
const kMaestroCommands = [
  'launchApp', 'stopApp', 'killApp', 'clearState', 'clearKeychain', 'tapOn', 'doubleTapOn', 'longPressOn', 'swipe', 'scroll', 'scrollUntilVisible',
  'hideKeyboard', 'back', 'pressKey', 'assertVisible', 'assertNotVisible', 'extendedWaitUntil', 'assertTrue', 'waitForAnimationToEnd', 'assertScreenshot',
  'assertDarkMode', 'assertLightMode', 'assertWithAI', 'assertNoDefectsWithAI', 'extractTextWithAI', 'inputText', 'inputRandomText', 'inputRandomNumber',
  'inputRandomEmail', 'inputRandomPersonName', 'inputRandomCityName', 'inputRandomCountryName', 'inputRandomColorName', 'eraseText', 'copyTextFrom',
  'pasteText', 'setClipboard', 'setPermissions', 'openLink', 'setLocation', 'travel', 'setOrientation', 'setAirplaneMode', 'toggleAirplaneMode',
  'setDarkMode', 'toggleDarkMode', 'addMedia', 'takeScreenshot', 'startRecording', 'stopRecording', 'runFlow', 'repeat', 'retry', 'runScript', 'evalScript',
  'action',
];

/** Maestro's inputRandomText, inputRandomPersonName, ...: one for each kind of boxflow's inputRandom. */
const kRandom: Record<string, (typeof kRandomKinds)[number]> = Object.fromEntries(kRandomKinds.map((k) => [`inputRandom${k[0]!.toUpperCase()}${k.slice(1)}`, k]));

/**
 * Maestro pressKey names (KeyCode.kt, case-insensitive) → boxflow step: a key name where the Box API
 * has one, else the Android KEYCODE Maestro sends (AndroidDriver.pressKey), which Android boxes send
 * with `input keyevent` and Linux boxes refuse when the step runs (Maestro's web takes Enter and
 * Backspace only).
 */
const kKeys: Record<string, Raw | string> = {
  enter: { pressKey: 'enter' },
  backspace: { pressKey: 'backspace' },
  tab: { pressKey: 'tab' },
  escape: { pressKey: 'escape' },
  space: { pressKey: 'space' },
  home: 'home',
  back: 'back',
  'volume up': { pressKey: 'volumeUp' },
  'volume down': { pressKey: 'volumeDown' },
  'remote dpad up': { pressKey: 'arrowUp' },
  'remote dpad down': { pressKey: 'arrowDown' },
  'remote dpad left': { pressKey: 'arrowLeft' },
  'remote dpad right': { pressKey: 'arrowRight' },
  'remote media play pause': { pressKey: 'mediaPlayPause' },
  'remote media stop': { pressKey: 'mediaStop' },
  'remote media next': { pressKey: 'mediaNextTrack' },
  'remote media previous': { pressKey: 'mediaPreviousTrack' },
  lock: { pressKey: { keyCode: 276 } },
  power: { pressKey: { keyCode: 26 } },
  'remote dpad center': { pressKey: { keyCode: 23 } },
  'remote media rewind': { pressKey: { keyCode: 89 } },
  'remote media fast forward': { pressKey: { keyCode: 90 } },
  'remote system navigation up': { pressKey: { keyCode: 280 } },
  'remote system navigation down': { pressKey: { keyCode: 281 } },
  'remote button a': { pressKey: { keyCode: 96 } },
  'remote button b': { pressKey: { keyCode: 97 } },
  'remote menu': { pressKey: { keyCode: 82 } },
  'tv input': { pressKey: { keyCode: 178 } },
  'tv input hdmi 1': { pressKey: { keyCode: 243 } },
  'tv input hdmi 2': { pressKey: { keyCode: 244 } },
  'tv input hdmi 3': { pressKey: { keyCode: 245 } },
};

/** Maestro's image extensions (Orchestra.normalizeScreenshotPath): any other path gets .png. */
const kImageExt = /\.(?:png|jpe?g|gif|bmp|tiff?|wbmp)$/i;

/** Permission values: allow, deny or unset (a ${...} is checked when the step runs). */
function permissions(v: Raw, path: Path, command: string): Raw {
  for (const [k, x] of Object.entries(v)) {
    if (!hasRuntime(x) && !['allow', 'deny', 'unset'].includes(String(x))) throw new Unsupported([...path, k], command, `a permission is allow, deny or unset, not "${String(x)}"`);
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
}

/** Degrees as a number; a ${...} stays text, evaluated and checked when the step runs. */
function degrees(v: unknown, path: Path, command: string, max: number): number | string {
  if (hasRuntime(v)) return String(v);
  const n = Number(v);
  if (!(Math.abs(n) <= max)) throw new Unsupported(path, command, `"${String(v)}" is not a number from -${max} to ${max}`);
  return n;
}

/**
 * Maestro 2.x assertScreenshot: `path` is the baseline image, relative to the flow (`.png` added
 * unless it has an image extension); `thresholdPercentage` (default 95) is the share of pixels
 * that must match, each within 10% of the colour range, so maxDiffPixelRatio is (100 − it) / 100
 * and the per-pixel threshold 0.1; `cropOn` compares that element's region alone.
 */
function assertScreenshot(v: unknown, at: Path, name: string, map: Mapping): Raw {
  const m: Raw = isObj(v) ? v : { path: v };
  const bad = Object.keys(m).find((k) => !['path', 'thresholdPercentage', 'cropOn', 'label', 'optional'].includes(k));
  if (bad) throw new Unsupported([...at, bad], name, `"${bad}" is not an option of assertScreenshot (path, thresholdPercentage, cropOn)`);
  if (m.path === undefined || m.path === null || m.path === '') throw new Unsupported(at, name, 'assertScreenshot needs path, the baseline image');
  const file = String(m.path);
  const baseline = kImageExt.test(file) ? file : `${file}.png`;
  const arg: Raw = { name: baseline.slice(baseline.lastIndexOf('/') + 1).replace(kImageExt, '').replace(/[\\:*?"<>|]/g, '_') || 'screenshot', baseline, threshold: 0.1 };
  const t = m.thresholdPercentage ?? 95;
  const expr = onlyExpression(t);
  if (expr !== undefined) arg.maxDiffPixelRatio = `\${(100 - (${expr})) / 100}`;
  else if (hasRuntime(t)) throw new Unsupported([...at, 'thresholdPercentage'], name, `thresholdPercentage is a number or one \${...}, not "${String(t)}"`);
  else {
    const n = Number(t);
    if (!(n >= 0 && n <= 100)) throw new Unsupported([...at, 'thresholdPercentage'], name, `thresholdPercentage is a number from 0 to 100, not "${String(t)}"`);
    arg.maxDiffPixelRatio = Math.round((100 - n) * 1e6) / 1e8;
  }
  if (m.cropOn !== undefined) arg.crop = map.selector(m.cropOn, [...at, 'cropOn'], name);
  return { assertScreenshot: arg };
}

const appCommand: Translator = ({ name, v }) => v === undefined ? name : { [name]: typeof v === 'string' ? v : { ...(isObj(v) && v.appId ? { appId: String(v.appId) } : {}) } };

const sameName: Translator = ({ name }) => name;

const tapCommand: Translator = ({ name, v, at, map }) => {
  const kind = name === 'tapOn' ? 'tap' : name === 'doubleTapOn' ? 'doubleTap' : 'longPress';
  if (!isObj(v)) return { [kind]: map.selector(v, at, name) };
  // Accepted and not needed: boxflow waits for the element and does not re-tap.
  const { retryTapIfNoChange: _r, waitToSettleTimeoutMs: _w, waitUntilVisible: _u, repeat: times, delay, ...rest } = v;
  const tap = { [kind]: map.target(rest, at, name) };
  // Maestro: repeat ≤ 1 is one tap; `delay` (default 100 ms) separates the taps.
  if (hasRuntime(times)) throw new Unsupported([...at, 'repeat'], name, `repeat is a number here (a \${...} count is not supported), not "${String(times)}"`);
  const n = Math.trunc(Number(times ?? 1));
  if (!(n > 1) || kind === 'doubleTap') return tap;
  return { repeat: { times: n, steps: [tap, { sleep: map.ms(delay ?? 100, [...at, 'delay'], name) }] } };
};

const selectorCommand: Translator = ({ name, v, at, map }) => ({ [name]: map.selector(v, at, name) });

export const kCommands: Record<string, Translator> = {
  launchApp: ({ name, v, m, at, map }) => {
    if (v === undefined) return map.web ? 'launchApp' : { launchApp: { permissions: { all: 'allow' } } };
    if (typeof v === 'string') return map.web ? { launchApp: v } : { launchApp: { appId: v, permissions: { all: 'allow' } } };
    const bad = Object.keys(m).find((k) => !['appId', 'url', 'clearState', 'stopApp', 'arguments', 'permissions', 'clearKeychain', 'label', 'optional'].includes(k));
    if (bad) throw new Unsupported([...at, bad], name, `option "${bad}": unknown option`);
    const arg: Raw = {};
    if (m.appId ?? m.url) arg.appId = String(m.appId ?? m.url);
    if (m.clearState !== undefined) arg.clearState = m.clearState === true;
    if (m.stopApp !== undefined) arg.stopApp = m.stopApp === true;
    if (m.clearKeychain === true) arg.clearKeychain = true;
    if (m.arguments !== undefined) {
      if (!isObj(m.arguments)) throw new Unsupported([...at, 'arguments'], name, 'arguments is a map of names to values');
      arg.arguments = Object.fromEntries(Object.entries(m.arguments).map(([k, x]) => [k, String(x)]));
    }
    // Maestro sets permissions at every launch, {all: allow} by default on Android. On the web it
    // ignores them; boxflow gives the site the ones a flow names (the browser's permission
    // overrides), and no default.
    if (m.permissions !== undefined && !isObj(m.permissions)) throw new Unsupported([...at, 'permissions'], name, 'permissions is a map of names to allow, deny or unset');
    if (m.permissions !== undefined) arg.permissions = permissions(m.permissions as Raw, [...at, 'permissions'], name);
    else if (!map.web) arg.permissions = { all: 'allow' };
    return Object.keys(arg).length ? { launchApp: arg } : 'launchApp';
  },
  setPermissions: ({ name, m, at }) => {
    if (!isObj(m.permissions)) throw new Unsupported([...at, 'permissions'], name, 'permissions is a map of names to allow, deny or unset');
    const perms = permissions(m.permissions, [...at, 'permissions'], name);
    return { setDevice: { permissions: perms, ...(m.appId ?? m.url ? { appId: String(m.appId ?? m.url) } : {}) } };
  },
  stopApp: appCommand,
  clearState: appCommand,
  killApp: ({ v, m, map }) => {
    // Android: process death (`am kill`); the web has none, and Maestro stops the app instead.
    const appId = typeof v === 'string' ? v : m.appId !== undefined ? String(m.appId) : undefined;
    if (map.web) return appId === undefined ? 'stopApp' : { stopApp: appId };
    return { stopApp: { ...(appId !== undefined ? { appId } : {}), processDeath: true } };
  },
  clearKeychain: () => ({ setDevice: { clearKeychain: true } }),
  back: sameName,
  hideKeyboard: sameName,
  pasteText: sameName,
  'hide keyboard': () => 'hideKeyboard',
  action: ({ v, at }) => {
    if (v === 'back' || v === 'hideKeyboard' || v === 'pasteText') return String(v);
    if (v === 'scroll') return { swipe: 'up' };
    if (v === 'clearKeychain') return { setDevice: { clearKeychain: true } };
    throw new Unsupported(at, `action: ${String(v)}`, 'Maestro knows back, hideKeyboard, scroll, clearKeychain and pasteText here');
  },
  eraseText: ({ name, v, at }) => {
    // Maestro's bare eraseText erases 50 characters; the count is read when the flow is parsed.
    const raw = v === undefined ? 50 : isObj(v) ? v.charactersToErase : v;
    const n = Math.trunc(Number(raw));
    if (!Number.isFinite(n)) throw new Unsupported(at, name, `the count is a number (Maestro reads it when it parses the flow, so a \${...} is not evaluated), not "${String(raw)}"`);
    return { eraseText: Math.max(1, n) };
  },
  tapOn: tapCommand,
  doubleTapOn: tapCommand,
  longPressOn: tapCommand,
  assertVisible: selectorCommand,
  assertNotVisible: selectorCommand,
  copyTextFrom: selectorCommand,
  extendedWaitUntil: ({ name, m, at, map }) => {
    const conds = map.conditions({ ...(m.visible !== undefined ? { visible: m.visible } : {}), ...(m.notVisible !== undefined ? { notVisible: m.notVisible } : {}) }, at, name);
    if (conds.length > 1) throw new Unsupported(at, name, 'boxflow waits for visible or notVisible, not both at once (write two steps)');
    const [k, s] = Object.entries(conds[0]!)[0]!;
    return map.withTimeout({ [k === 'visible' ? 'assertVisible' : 'assertNotVisible']: s }, m.timeout, [...at, 'timeout'], name);
  },
  inputText: ({ v }) => ({ type: String(isObj(v) ? v.text : v) }),
  pressKey: ({ v, at }) => {
    const key = String(isObj(v) ? v.key : v).toLowerCase();
    const mapped = Object.hasOwn(kKeys, key) ? kKeys[key] : undefined;
    if (!mapped) {
      const suggestion = didYouMean(key, Object.keys(kKeys));
      throw new Unsupported(at, `pressKey: ${String(v)}`, `Maestro has no key "${String(v)}"${hint(suggestion)}`);
    }
    return mapped;
  },
  openLink: ({ v, map }) => {
    // autoVerify and browser are Android-only in Maestro: the web ignores them.
    const link = String(isObj(v) ? v.link : v);
    const android = !map.web && isObj(v) ? { ...(v.browser === true ? { browser: true } : {}), ...(v.autoVerify === true ? { autoVerify: true } : {}) } : {};
    return Object.keys(android).length ? { openLink: { link, ...android } } : { openLink: link };
  },
  waitForAnimationToEnd: ({ name, v, at, map }) => isObj(v) && v.timeout !== undefined ? map.withTimeout('waitForAnimationToEnd', v.timeout, [...at, 'timeout'], name) : 'waitForAnimationToEnd',
  assertTrue: ({ v }) => ({ assertTrue: String(isObj(v) ? v.condition : v) }),
  evalScript: ({ name, v, at }) => {
    // Maestro runs only the ${...} parts of an evalScript.
    const s = String(isObj(v) ? v.script : v);
    const parts = [...s.matchAll(/(?<![\\$])\$\{([^$]*)\}/g)].map((x) => x[1]!);
    if (!parts.length) throw new Unsupported(at, name, 'without ${...} Maestro runs nothing; write the script inside ${...}');
    return { evalScript: parts.join(';\n') };
  },
  runScript: ({ name, v, at, map }) => {
    const r = isObj(v) ? v : { file: v };
    const step = { runScript: { file: map.file(r.file, isObj(v) ? [...at, 'file'] : at, name), ...(isObj(r.env) ? { env: r.env } : {}) } };
    return r.when !== undefined ? guarded(step, map.conditions(r.when, [...at, 'when'], name)) : step;
  },
  runFlow: ({ name, v, at, map }) => {
    const r = isObj(v) ? v : { file: v };
    if ((r.commands === undefined) === (r.file === undefined)) throw new Unsupported(at, name, 'runFlow takes file or commands (one of them)');
    const conds = r.when !== undefined ? map.conditions(r.when, [...at, 'when'], name) : [];
    // The last condition is the runFlow's own; any others guard it.
    const when = conds.length ? { when: conds.pop() } : {};
    if (r.commands !== undefined) {
      const block = { runFlow: { ...when, ...scopeEnv(r.env, [...at, 'env'], name), steps: map.list(r.commands, [...at, 'commands']) } };
      return conds.length ? guarded(block, conds) : block;
    }
    const arg: Raw = { file: map.file(r.file, isObj(v) ? [...at, 'file'] : at, name) };
    if (isObj(r.env)) arg.env = r.env;
    Object.assign(arg, when);
    return conds.length ? guarded({ runFlow: arg }, conds) : { runFlow: arg };
  },
  repeat: ({ name, m, at, map }) => {
    if (m.times === undefined && m.while === undefined) throw new Unsupported(at, name, 'without times or while Maestro loops forever');
    const steps = map.list(m.commands, [...at, 'commands']);
    // A ${...} count is evaluated when the loop starts (Maestro: when the command runs).
    const times = m.times === undefined ? undefined : hasRuntime(m.times) ? String(m.times) : Math.trunc(Number(m.times));
    if (typeof times === 'number' && Number.isNaN(times)) throw new Unsupported([...at, 'times'], name, `times is a number or a \${...}, not "${String(m.times)}"`);
    // Maestro skips a repeat of zero rounds: a block whose condition never holds does the same.
    if (typeof times === 'number' && times < 1) return { runFlow: { when: { true: 'false' }, steps } };
    if (m.while === undefined) return { repeat: { times, steps } };
    if (typeof times === 'string') throw new Unsupported([...at, 'times'], name, 'with while, times is a number here (a ${...} bound on the rounds is not supported)');
    // The platform cannot change between rounds: it guards the loop instead of being re-checked.
    const conds = map.conditions(m.while, [...at, 'while'], name);
    const constant = conds.filter((c) => typeof c.true === 'string' && c.true.startsWith('${maestro.platform'));
    const loop = conds.filter((c) => !constant.includes(c));
    if (loop.length !== 1) throw new Unsupported([...at, 'while'], name, 'boxflow repeat checks one of visible / notVisible / true per round');
    // Maestro: while the condition holds and fewer than times rounds ran.
    const step = { repeat: { while: loop[0], ...(times !== undefined ? { max: times } : {}), steps } };
    return constant.length ? guarded(step, constant) : step;
  },
  retry: ({ name, m, at, map }) => {
    if ((m.commands === undefined) === (m.file === undefined)) throw new Unsupported(at, name, 'retry takes file or commands (one of them)');
    // Maestro caps maxRetries at 3; a non-integer becomes 1; a ${...} is evaluated when it runs.
    const expr = onlyExpression(m.maxRetries);
    const n = expr !== undefined ? `\${Math.min(3, ${expr})}` : /^\d+$/.test(String(m.maxRetries ?? '1')) ? Math.min(3, Number(m.maxRetries ?? 1)) : 1;
    const inline = () => map.list(m.commands, [...at, 'commands']);
    const fileStep = () => {
      const step = { runFlow: { file: map.file(m.file, [...at, 'file'], name), ...(isObj(m.env) ? { env: m.env } : {}) } };
      map.origin.set(step, [...at, 'file']);
      return [step];
    };
    const steps = m.file !== undefined ? fileStep() : m.env !== undefined ? [{ runFlow: { ...scopeEnv(m.env, [...at, 'env'], name), steps: inline() } }] : inline();
    // maxRetries 0: one attempt, no retry.
    return n === 0 ? { runFlow: { steps } } : { retry: { times: n, steps } };
  },
  takeScreenshot: ({ name, v, m, at, map }) => {
    const shot = String(isObj(v) ? v.path : v);
    return m.cropOn !== undefined ? { screenshot: { name: shot, crop: map.selector(m.cropOn, [...at, 'cropOn'], name) } } : { screenshot: shot };
  },
  assertScreenshot: ({ name, v, at, map }) => assertScreenshot(v, at, name, map),
  scroll: () => ({ swipe: 'up' }),
  swipe: ({ name, v, m, at, map }) => {
    if (!isObj(v)) throw new Unsupported(at, name, 'swipe is a map: direction, start and end, or from and direction');
    const bad = Object.keys(m).find((k) => !['direction', 'start', 'end', 'from', 'duration', 'waitToSettleTimeoutMs', 'label', 'optional'].includes(k));
    if (bad) throw new Unsupported([...at, bad], name, `"${bad}" is not a swipe option`);
    const duration = m.duration !== undefined ? { duration: map.ms(m.duration, [...at, 'duration'], name) } : {};
    if (m.start !== undefined || m.end !== undefined) {
      if (m.start === undefined || m.end === undefined || m.direction !== undefined || m.from !== undefined) throw new Unsupported(at, name, 'a swipe takes start and end together, without direction or from');
      return { swipe: { from: screenPoint(m.start, [...at, 'start'], name), to: screenPoint(m.end, [...at, 'end'], name), ...duration } };
    }
    // Maestro accepts UP or up, not Up.
    const direction = String(m.direction ?? '');
    if (!/^(?:up|down|left|right|UP|DOWN|LEFT|RIGHT)$/.test(direction)) throw new Unsupported([...at, 'direction'], name, `direction is UP, DOWN, LEFT or RIGHT (all upper or all lower case), not "${direction}"`);
    // From an element (its centre, or its point): toward the screen's edge, as Maestro swipes.
    const from = m.from !== undefined ? { from: map.target(m.from, [...at, 'from'], name) } : {};
    return { swipe: { direction: direction.toLowerCase(), ...from, ...duration } };
  },
  scrollUntilVisible: ({ name, m, at, map }) => {
    // How fast and how far each swipe goes is boxflow's own; the search ends when the element is visible.
    const bad = Object.keys(m).find((k) => !['element', 'direction', 'timeout', 'speed', 'visibilityPercentage', 'waitToSettleTimeoutMs', 'centerElement', 'label', 'optional'].includes(k));
    if (bad) throw new Unsupported([...at, bad], name, `the option "${bad}" has no boxflow equivalent`);
    // Maestro's direction is the scroll direction; boxflow's the same word, default down.
    // Maestro bounds the search by time (default 20 s), not by a number of swipes.
    const arg = { ...map.selector(m.element, [...at, 'element'], name), direction: String(m.direction ?? 'down').toLowerCase(), maxSwipes: 100, ...(m.centerElement === true ? { center: true } : {}) };
    return map.withTimeout({ scrollUntilVisible: arg }, m.timeout ?? 20000, [...at, 'timeout'], name);
  },
  setAirplaneMode: ({ name, v, at }) => {
    // Maestro: enabled / disabled, as the value or {value}.
    const value = String(isObj(v) ? v.value : v);
    if (value !== 'enabled' && value !== 'disabled') throw new Unsupported(isObj(v) ? [...at, 'value'] : at, name, `setAirplaneMode takes enabled or disabled, not "${value}"`);
    return { setDevice: { airplaneMode: value === 'enabled' } };
  },
  toggleAirplaneMode: () => ({ setDevice: { airplaneMode: 'toggle' } }),
  setLocation: ({ name, m, at }) => {
    if (m.latitude === undefined || m.longitude === undefined) throw new Unsupported(at, name, 'setLocation takes latitude and longitude');
    return { setDevice: { location: { latitude: degrees(m.latitude, [...at, 'latitude'], name, 90), longitude: degrees(m.longitude, [...at, 'longitude'], name, 180) } } };
  },
  travel: ({ name, m, at }) => {
    if (!Array.isArray(m.points) || !m.points.length) throw new Unsupported([...at, 'points'], name, 'travel takes points, a list of "latitude,longitude"');
    const speed = m.speed === undefined ? 4 : Number(m.speed);
    if (!(speed > 0)) throw new Unsupported([...at, 'speed'], name, `speed is metres per second, a positive number, not "${String(m.speed)}"`);
    const path = m.points.map((p, i) => {
      const text = String(p);
      if (hasRuntime(text)) return text;
      const parts = text.split(',').map((x) => Number(x.trim()));
      if (parts.length !== 2 || !(Math.abs(parts[0]!) <= 90 && Math.abs(parts[1]!) <= 180)) throw new Unsupported([...at, 'points', i], name, `a travel point is "latitude,longitude", not "${text}"`);
      return `${parts[0]},${parts[1]}`;
    });
    return { setDevice: { location: { path, speed } } };
  },
  setOrientation: ({ name, v, at }) => {
    const o = String(isObj(v) ? v.orientation : v);
    const known: Record<string, string> = { portrait: 'portrait', landscapeleft: 'landscapeLeft', landscaperight: 'landscapeRight', upsidedown: 'upsideDown' };
    if (hasRuntime(o)) return { setDevice: { orientation: o } };
    const mapped = known[o.replace(/_/g, '').toLowerCase()];
    if (!mapped) throw new Unsupported(isObj(v) ? [...at, 'orientation'] : at, name, `orientation is portrait, landscape_left, landscape_right or upside_down (any case), not "${o}"`);
    return { setDevice: { orientation: mapped } };
  },
  setDarkMode: ({ name, v, at }) => {
    const value = String(isObj(v) ? v.value : v);
    if (value !== 'enabled' && value !== 'disabled') throw new Unsupported(isObj(v) ? [...at, 'value'] : at, name, `setDarkMode takes enabled or disabled, not "${value}"`);
    return { setDevice: { darkMode: value === 'enabled' } };
  },
  toggleDarkMode: () => ({ setDevice: { darkMode: 'toggle' } }),
  assertDarkMode: () => ({ assertDevice: { darkMode: true } }),
  assertLightMode: () => ({ assertDevice: { darkMode: false } }),
  addMedia: ({ name, v, at, map }) => {
    // Maestro reads the files when it parses the flow: each must exist.
    const files = Array.isArray(v) ? v : isObj(v) && Array.isArray(v.files) ? v.files : undefined;
    if (!files?.length) throw new Unsupported(at, name, 'addMedia takes a list of files (or {files: [...]})');
    return { setDevice: { media: files.map((f, i) => map.file(f, Array.isArray(v) ? [...at, i] : [...at, 'files', i], name)) } };
  },
  startRecording: ({ v }) => {
    // Maestro always adds .mp4 to the path; the video is attached to the report under the path's name.
    const file = String(isObj(v) ? v.path : v);
    return { record: { start: file.replace(/[\\:*?"<>|]/g, '_') } };
  },
  stopRecording: () => ({ record: 'stop' }),
  setClipboard: ({ v }) => ({ setDevice: { clipboard: String(isObj(v) ? v.text : v) } }),
};

/** The boxflow step of a Maestro command: its translator's, or inputRandom for Maestro's inputRandom* commands. */
export function translate(command: Command): Raw | string {
  if (Object.hasOwn(kCommands, command.name)) return kCommands[command.name]!(command);
  const { name, v, at } = command;
  const kind = Object.hasOwn(kRandom, name) ? kRandom[name] : undefined;
  if (!kind) {
    const suggestion = didYouMean(name, kMaestroCommands);
    throw new UnknownCommand(at, name, suggestion);
  }
  if (v === undefined) return { inputRandom: kind };
  if (!isObj(v)) throw new Unsupported(at, name, `${name} takes a map of options (length, label, optional), not "${String(v)}"`);
  const bad = Object.keys(v).find((k) => !['length', 'label', 'optional'].includes(k));
  if (bad) throw new Unsupported([...at, bad], name, `"${bad}" is not an option of ${name} (length, label, optional)`);
  if (v.length === undefined) return { inputRandom: kind };
  // Maestro's length (text and number; default 8): the number of characters typed.
  const length = Math.trunc(Number(v.length));
  if (Number.isNaN(length)) throw new Unsupported([...at, 'length'], name, `length is a number here (a \${...} length is not supported), not "${String(v.length)}"`);
  return { inputRandom: { type: kind, length } };
}
