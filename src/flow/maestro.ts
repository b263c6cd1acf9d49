// Maestro flow files (a config document, `---`, a command list) read as boxflow flows: each
// command becomes the boxflow step with Maestro's meaning (docs: README "Coming from Maestro").
// A command boxflow cannot run is a load-time error at its file:line:col, never a no-op.
import { existsSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseAllDocuments, type Document } from 'yaml';
import type { ErrorCode } from '../errors.js';
import { combinedError, locatedError } from './located.js';
import { FlowIssue, FlowIssues, type Path } from './parts.js';
import { kRandomKinds } from './steps.js';
import { buildFlow } from './validate.js';
import { locateIn } from './yaml.js';
import type { Flow, SourceLocation } from './types.js';

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** YAML 1.1 booleans as SnakeYAML reads them (y/n are strings), as Maestro parses flows. */
const kBool11 = /^(?:yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|true|True|TRUE|false|False|FALSE)$/;

function parseDocs(text: string) {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc, schema: 'core', uniqueKeys: true });
  return { lc, docs: Array.isArray(docs) ? docs : [] };
}

/** A line that is `---` (perhaps indented: then not a YAML document marker, but what the author meant). */
const kSeparatorLine = /^[ \t]*-{3}[ \t\r]*$/gm;

/**
 * True when `text` is a Maestro flow: a config map, `---`, then a command list. Never throws: a
 * file that is not valid YAML is judged by its lines, so a folder's discovery goes on and the
 * file's own load reports its error at its line and column.
 */
export function isMaestroFlow(text: string): boolean {
  const separators = [...text.matchAll(kSeparatorLine)];
  if (!separators.length) return false;
  const { docs } = parseDocs(text);
  // A YAML error must be reported, not make the file silently "not a flow": judge by the lines before the last `---`.
  if (docs.some((d) => d.errors.length)) return /^(?:appId|url)\s*:/m.test(text.slice(0, separators.at(-1)!.index));
  if (docs.length < 2) return false;
  const config = docs[0]!.contents;
  return isMap(config) && (config.has('appId') || config.has('url')) && isSeq(docs[1]!.contents);
}

/** The value with YAML 1.1 scalars: yes/no/on/off are booleans, as Maestro's SnakeYAML has them. */
function toJs(doc: Document): unknown {
  // Quoted scalars stay strings: only plain ones are YAML 1.1 booleans.
  const plain = doc.clone();
  const walk = (n: unknown): void => {
    if (isScalar(n) && typeof n.value === 'string' && n.type === 'PLAIN' && kBool11.test(n.value)) n.value = /^(?:yes|on|true)$/i.test(n.value);
    else if (isMap(n)) n.items.forEach((p) => walk(p.value));
    else if (isSeq(n)) n.items.forEach(walk);
  };
  walk(plain.contents);
  return plain.toJS({ maxAliasCount: 1000 });
}

/**
 * Maestro's `${NAME}` is JavaScript: a name nothing defines gives undefined. In boxflow `${NAME}`
 * must be defined, so a name the file's own `env:` does not define becomes the expression
 * `${(NAME)}`, which reads the same variable and gives "undefined" without it. Maestro's `\${`
 * (a literal `${`) is boxflow's `$${`.
 */
function lenient(v: unknown, defined: Set<string>): unknown {
  if (typeof v === 'string') {
    return v.replace(/\\\$\{|\$\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}/g, (m, name?: string) => (name === undefined ? '$${' : defined.has(name) ? m : `\${(${name})}`));
  }
  if (Array.isArray(v)) return v.map((x) => lenient(x, defined));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, lenient(x, defined)]));
  return v;
}

class Unsupported extends Error {
  readonly code: ErrorCode = 'FLOW_SCHEMA';
  constructor(readonly path: Path, readonly command: string, readonly why: string) {
    super(`Maestro command "${command}" is not supported: ${why}`);
  }
}

/** Maestro reads runFlow, retry and runScript files when it parses the flow: a missing one is a load-time error. */
class MissingFile extends Unsupported {
  override readonly code = 'FLOW_NOT_FOUND';
  constructor(path: Path, command: string, file: string) {
    super(path, command, '');
    this.message = `${command}: no such file ${relative(process.cwd(), file) || file}`;
  }
}

const kPlatformOnly: Record<string, string> = {
  clearKeychain: 'it is iOS-only (Maestro ignores it on Android and the web: remove it)',
  setAirplaneMode: 'the Box API cannot change airplane mode',
  toggleAirplaneMode: 'the Box API cannot change airplane mode',
  setLocation: 'the Box API cannot set the device location',
  travel: 'the Box API cannot set the device location',
  setOrientation: 'the Box API cannot rotate the device',
  setPermissions: 'the Box API cannot grant or revoke permissions',
  addMedia: 'use the Box API media endpoints outside the flow',
  startRecording: 'boxflow records screenshots per step, not videos',
  stopRecording: 'boxflow records screenshots per step, not videos',
  toggleDarkMode: 'the Box API cannot change the theme',
  assertDarkMode: 'the Box API cannot read the theme',
  assertLightMode: 'the Box API cannot read the theme',
  assertNoDefectsWithAI: 'AI assertions are not available',
  assertWithAI: 'AI assertions are not available',
  extractTextWithAI: 'AI assertions are not available',
  killApp: 'killApp simulates process death (the app killed in the background, its saved state kept), which the Box API cannot do; stopApp stops the app instead',
  openBrowser: 'Maestro itself never runs it ("No mapping provided")',
};

/** Maestro's inputRandomText, inputRandomPersonName, ...: one for each kind of boxflow's inputRandom. */
const kRandom: Record<string, (typeof kRandomKinds)[number]> = Object.fromEntries(kRandomKinds.map((k) => [`inputRandom${k[0]!.toUpperCase()}${k.slice(1)}`, k]));

/** Maestro pressKey names (case-insensitive) → boxflow step. */
const kKeys: Record<string, Raw | string> = {
  enter: { pressKey: 'enter' },
  backspace: { pressKey: 'backspace' },
  tab: { pressKey: 'tab' },
  escape: { pressKey: 'escape' },
  space: { pressKey: 'space' },
  home: 'home',
  back: 'back',
};

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
function validRe(s: string): boolean {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}

/** Maestro text: whole-string regex, case-insensitive, dot-all; the pattern also matches literally. */
function textRe(t: string): string {
  if (t.includes('${')) return `/^(?:${t})$/is`;
  const literal = escapeRe(t);
  // Plain words: one readable pattern (it is also the step's label in reports).
  if (literal === t) return `/^${t}$/i`;
  return validRe(t) ? `/^(?:${t.replace(/\//g, '\\/')}|${literal})$/is` : `/^${literal}$/is`;
}

const kTraits = ['text', 'long-text', 'square'];

/** A Maestro selector (scalar or map) → a boxflow selector map. */
function selector(v: unknown, path: Path, command: string): Raw {
  if (!isObj(v)) return { text: textRe(String(v)) };
  const out: Raw = {};
  const size: Raw = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'text') out.text = textRe(String(x));
    else if (k === 'id') out.id = `/^(?:.*\\/)?(?:${String(x)})$/is`;
    else if (k === 'index') out.index = Math.trunc(Number(x));
    else if (['enabled', 'checked', 'selected', 'focused'].includes(k)) out[k] = x === true || x === 'true';
    else if (['below', 'above', 'leftOf', 'rightOf', 'childOf', 'containsChild'].includes(k)) out[k] = selector(x, [...path, k], command);
    else if (k === 'containsDescendants') {
      if (!Array.isArray(x)) throw new Unsupported([...path, k], command, 'containsDescendants is a list of selectors');
      out[k] = x.map((d, i) => selector(d, [...path, k, i], command));
    } else if (k === 'css') out.css = String(x);
    else if (k === 'traits') {
      // Maestro: space-separated names; an unknown one is an error there too.
      const traits = String(x).split(' ').filter(Boolean).map((t) => t.toLowerCase().replace(/_/g, '-'));
      const bad = traits.find((t) => !kTraits.includes(t));
      if (bad) throw new Unsupported([...path, k], command, `unknown trait "${bad}" (Maestro knows ${kTraits.join(', ')})`);
      out.traits = traits;
    } else if (k === 'width' || k === 'height' || k === 'tolerance') size[k] = Number(x);
    else if (k === 'optional' || k === 'label') continue;
    else throw new Unsupported([...path, k], command, `"${k}" is not a Maestro selector key`);
  }
  if (Object.keys(size).length) out.size = size;
  return out;
}

/** Step options of a Maestro map: label and optional (every Maestro command takes both). */
function options(v: unknown): Raw {
  if (!isObj(v)) return {};
  const o: Raw = {};
  if (typeof v.label === 'string') o.label = v.label;
  if (v.optional === true) o.optional = true;
  return o;
}

/** The mapped step with the command's label and optional: kept for every command, never dropped by one mapping. */
function withOptions(step: Raw | string, o: Raw): Raw | string {
  if (!Object.keys(o).length) return step;
  return typeof step === 'string' ? { [step]: null, ...o } : { ...step, ...o };
}

const ms = (v: unknown) => `${Math.max(0, Math.round(Number(String(v).replace(/_/g, ''))))}ms`;

/** A Maestro screen point: "x%,y%" (0-100) stays a percent target, "x,y" becomes pixels [x, y]. */
function screenPoint(v: unknown, path: Path, command: string): string | number[] {
  const t = String(v).replace(/\s/g, '');
  if (/^\d+(?:\.\d+)?%,\d+(?:\.\d+)?%$/.test(t)) return t;
  const px = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(t);
  if (px) return [Number(px[1]), Number(px[2])];
  throw new Unsupported(path, command, `a point is "x,y" in pixels or "x%,y%", not "${String(v)}"${t.includes('${') ? ' (a ${...} point is not supported)' : ''}`);
}

/**
 * A Maestro condition as boxflow conditions (each one key), all of which must hold, the platform
 * first. `platform` becomes a script test of the box type (`maestro.platform`: android or web).
 */
function conditions(v: unknown, path: Path, command: string): Raw[] {
  if (!isObj(v)) throw new Unsupported(path, command, 'a condition is a map (visible, notVisible, true, platform)');
  const out: Raw[] = [];
  for (const [k, x] of Object.entries(v)) {
    if (k === 'visible' || k === 'notVisible') out.push({ [k]: selector(x, [...path, k], command) });
    else if (k === 'true') out.push({ true: String(x) });
    else if (k === 'platform') {
      const p = String(x).toLowerCase();
      if (!['android', 'ios', 'web'].includes(p)) throw new Unsupported([...path, k], command, `platform is Android, iOS or Web, not "${String(x)}"`);
      out.unshift({ true: `\${maestro.platform === '${p}'}` });
    } else if (k !== 'label' && k !== 'optional') throw new Unsupported([...path, k], command, `"${k}" is not a Maestro condition key (visible, notVisible, true, platform)`);
  }
  if (!out.length) throw new Unsupported(path, command, 'the condition is empty');
  return out;
}

/** `step` run only when every condition holds: each is a one-round `repeat` while it holds. */
function guarded(step: Raw | string, conds: Raw[]): Raw {
  let out = step;
  for (const c of [...conds].reverse()) out = { repeat: { while: c, max: 1, steps: [out] } };
  return out as Raw;
}

/** The `env` of inline commands: variables of that block only (a boxflow repeat's env). */
function scopeEnv(env: unknown, path: Path, command: string): Raw {
  if (env === undefined) return {};
  if (!isObj(env)) throw new Unsupported(path, command, 'env is a map of names to values');
  return { env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) };
}

class Mapper {
  issues: Unsupported[] = [];
  /** The Maestro path each mapped step (object) came from, so errors point into the Maestro file. */
  readonly origin = new WeakMap<object, Path>();

  /** `web`: the flow runs on a Linux box (its app is a URL), where Maestro ignores mobile-only options. */
  constructor(
    readonly web: boolean,
    readonly dir: string,
  ) {}

  /** `file` as written, after checking it exists (a `${...}` path is resolved when it runs). */
  file(file: unknown, path: Path, command: string): string {
    const f = String(file);
    if (!f.includes('${') && !existsSync(resolve(this.dir, f))) throw new MissingFile(path, command, resolve(this.dir, f));
    return f;
  }

  list(items: unknown, path: Path): Raw[] | string[] {
    if (!Array.isArray(items)) throw new Unsupported(path, 'commands', 'a command list is expected');
    const out: (Raw | string)[] = [];
    items.forEach((item, i) => {
      try {
        const step = this.command(item, [...path, i]);
        if (typeof step === 'object') this.origin.set(step, [...path, i]);
        out.push(step);
      } catch (err) {
        if (!(err instanceof Unsupported)) throw err;
        this.issues.push(err);
      }
    });
    return out as Raw[];
  }

  /** One Maestro command as a boxflow step, with the command's label and optional. */
  command(item: unknown, path: Path): Raw | string {
    const step = this.mapCommand(item, path);
    return isObj(item) && Object.keys(item).length === 1 ? withOptions(step, options(Object.values(item)[0])) : step;
  }

  mapCommand(item: unknown, path: Path): Raw | string {
    let name: string;
    let v: unknown;
    if (typeof item === 'string') {
      name = item;
      v = undefined;
    } else if (isObj(item) && Object.keys(item).length === 1) {
      name = Object.keys(item)[0]!;
      v = item[name];
      if (v === null) throw new Unsupported(path, name, `"- ${name}:" needs options (Maestro: "Incorrect Command Format")`);
    } else if (isObj(item)) {
      throw new Unsupported([...path, Object.keys(item)[1] ?? ''], Object.keys(item)[0] ?? '?', `one command per list item; "${Object.keys(item)[1]}" is a second key (missing an indent or dash?)`);
    } else {
      throw new Unsupported(path, String(item), 'a command is a name or a one-key map');
    }
    const at = [...path, ...(typeof item === 'string' ? [] : [name])];
    const why = kPlatformOnly[name];
    if (why) throw new Unsupported(at, name, why);
    const sel = () => selector(v, at, name);
    switch (name) {
      case 'launchApp': {
        if (v === undefined) return 'launchApp';
        if (typeof v === 'string') return { launchApp: v };
        const m = v as Raw;
        // Maestro's default is permissions {all: allow}; on the web it ignores permissions altogether.
        const allowAll = isObj(m.permissions) && Object.keys(m.permissions).length === 1 && m.permissions.all === 'allow';
        const bad = Object.keys(m).find((k) => !['appId', 'url', 'clearState', 'stopApp', 'arguments', 'label', 'optional'].includes(k) && !(k === 'permissions' && this.web));
        if (bad) {
          const why =
            bad === 'permissions'
              ? `boxflow cannot grant or deny permissions on an Android box${allowAll ? ", not even Maestro's default {all: allow}" : ''}`
              : bad === 'clearKeychain'
                ? 'it is iOS-only (Maestro ignores it on Android and the web: remove it)'
                : 'unknown option';
          throw new Unsupported([...at, bad], name, `option "${bad}": ${why}`);
        }
        const arg: Raw = {};
        if (m.appId ?? m.url) arg.appId = String(m.appId ?? m.url);
        if (m.clearState !== undefined) arg.clearState = m.clearState === true;
        if (m.stopApp !== undefined) arg.stopApp = m.stopApp === true;
        if (m.arguments !== undefined) {
          if (!isObj(m.arguments)) throw new Unsupported([...at, 'arguments'], name, 'arguments is a map of names to values');
          arg.arguments = Object.fromEntries(Object.entries(m.arguments).map(([k, x]) => [k, String(x)]));
        }
        return { launchApp: arg };
      }
      case 'stopApp':
      case 'clearState':
        return v === undefined ? name : { [name]: typeof v === 'string' ? v : { ...(isObj(v) && v.appId ? { appId: String(v.appId) } : {}) } };
      case 'back':
      case 'hideKeyboard':
      case 'pasteText':
        return name;
      case 'hide keyboard':
        return 'hideKeyboard';
      case 'action':
        if (v === 'back' || v === 'hideKeyboard' || v === 'pasteText') return String(v);
        if (v === 'scroll') return { swipe: 'up' };
        throw new Unsupported(at, `action: ${String(v)}`, v === 'clearKeychain' ? 'it is iOS-only' : 'Maestro knows back, hideKeyboard, scroll, clearKeychain and pasteText here');
      case 'eraseText': {
        // Maestro's bare eraseText erases 50 characters.
        const n = v === undefined ? 50 : Number(isObj(v) ? v.charactersToErase : v);
        return { eraseText: Math.max(1, Math.trunc(n)) };
      }
      case 'tapOn':
      case 'doubleTapOn':
      case 'longPressOn': {
        const kind = name === 'tapOn' ? 'tap' : name === 'doubleTapOn' ? 'doubleTap' : 'longPress';
        if (!isObj(v)) return { [kind]: sel() };
        // Accepted and not needed: boxflow waits for the element and does not re-tap.
        const { retryTapIfNoChange: _r, waitToSettleTimeoutMs: _w, waitUntilVisible: _u, repeat: times, delay, point, ...rest } = v;
        const keys = Object.keys(rest).filter((k) => k !== 'label' && k !== 'optional');
        if (point !== undefined && keys.length) throw new Unsupported([...at, 'point'], name, 'a point inside an element has no boxflow form (tap the element, or a point of the screen)');
        const tap = { [kind]: point !== undefined ? screenPoint(point, [...at, 'point'], name) : selector(rest, at, name) };
        // Maestro: repeat ≤ 1 is one tap; `delay` (default 100 ms) separates the taps.
        const n = Math.trunc(Number(times ?? 1));
        if (!(n > 1) || kind === 'doubleTap') return tap;
        return { repeat: { times: n, steps: [tap, { sleep: ms(delay ?? 100) }] } };
      }
      case 'assertVisible':
      case 'assertNotVisible':
      case 'copyTextFrom':
        return { [name]: sel() };
      case 'extendedWaitUntil': {
        const m = v as Raw;
        const conds = conditions({ ...(m.visible !== undefined ? { visible: m.visible } : {}), ...(m.notVisible !== undefined ? { notVisible: m.notVisible } : {}) }, at, name);
        if (conds.length > 1) throw new Unsupported(at, name, 'boxflow waits for visible or notVisible, not both at once (write two steps)');
        const [k, s] = Object.entries(conds[0]!)[0]!;
        return { [k === 'visible' ? 'assertVisible' : 'assertNotVisible']: s, ...(m.timeout !== undefined ? { timeout: ms(m.timeout) } : {}) };
      }
      case 'inputText':
        return { type: String(isObj(v) ? v.text : v) };
      case 'pressKey': {
        const key = String(v).toLowerCase();
        const mapped = kKeys[key];
        if (!mapped) throw new Unsupported(at, `pressKey: ${String(v)}`, 'boxflow maps Enter, Backspace, Tab, Escape, Space, Home and Back');
        return mapped;
      }
      case 'openLink': {
        // autoVerify and browser are Android-only in Maestro: the web ignores them.
        const android = isObj(v) ? ['autoVerify', 'browser'].find((k) => v[k] === true && !this.web) : undefined;
        if (android) throw new Unsupported([...at, android], name, android === 'browser' ? 'opening a link in the browser rather than the app that claims it has no boxflow form on Android' : 'the Box API cannot accept the app-link verification dialog');
        return { openLink: String(isObj(v) ? v.link : v) };
      }
      case 'waitForAnimationToEnd':
        return isObj(v) && v.timeout !== undefined ? { waitForAnimationToEnd: null, timeout: ms(v.timeout) } : 'waitForAnimationToEnd';
      case 'assertTrue':
        return { assertTrue: String(isObj(v) ? v.condition : v) };
      case 'evalScript': {
        // Maestro runs only the ${...} parts of an evalScript.
        const s = String(isObj(v) ? v.script : v);
        const parts = [...s.matchAll(/(?<![\\$])\$\{([^$]*)\}/g)].map((m) => m[1]!);
        if (!parts.length) throw new Unsupported(at, name, 'without ${...} Maestro runs nothing; write the script inside ${...}');
        return { evalScript: parts.join(';\n') };
      }
      case 'runScript': {
        const m = isObj(v) ? v : { file: v };
        const step = { runScript: { file: this.file(m.file, isObj(v) ? [...at, 'file'] : at, name), ...(isObj(m.env) ? { env: m.env } : {}) } };
        return m.when !== undefined ? guarded(step, conditions(m.when, [...at, 'when'], name)) : step;
      }
      case 'runFlow': {
        const m = isObj(v) ? v : { file: v };
        if ((m.commands === undefined) === (m.file === undefined)) throw new Unsupported(at, name, 'runFlow takes file or commands (one of them)');
        const conds = m.when !== undefined ? conditions(m.when, [...at, 'when'], name) : [];
        if (m.commands !== undefined) {
          const block = { repeat: { times: 1, ...scopeEnv(m.env, [...at, 'env'], name), steps: this.list(m.commands, [...at, 'commands']) } };
          return conds.length ? guarded(block, conds) : block;
        }
        const arg: Raw = { file: this.file(m.file, isObj(v) ? [...at, 'file'] : at, name) };
        if (isObj(m.env)) arg.env = m.env;
        // The last condition is the runFlow's own; any others guard it.
        if (conds.length) arg.when = conds.pop();
        return conds.length ? guarded({ runFlow: arg }, conds) : { runFlow: arg };
      }
      case 'repeat': {
        const m = v as Raw;
        if (m.times === undefined && m.while === undefined) throw new Unsupported(at, name, 'without times or while Maestro loops forever');
        const arg: Raw = { steps: this.list(m.commands, [...at, 'commands']) };
        const times = m.times === undefined ? undefined : Math.trunc(Number(m.times));
        if (times !== undefined && Number.isNaN(times)) throw new Unsupported([...at, 'times'], name, `times is a number here (a \${...} count is not supported), not "${String(m.times)}"`);
        // Maestro skips a repeat of zero rounds: a condition that never holds does the same.
        if (times !== undefined && times < 1) return { repeat: { while: { true: 'false' }, max: 1, steps: arg.steps } };
        if (m.while === undefined) return { repeat: { ...arg, times } };
        // The platform cannot change between rounds: it guards the loop instead of being re-checked.
        const conds = conditions(m.while, [...at, 'while'], name);
        const constant = conds.filter((c) => typeof c.true === 'string' && c.true.startsWith('${maestro.platform'));
        const loop = conds.filter((c) => !constant.includes(c));
        if (loop.length !== 1) throw new Unsupported([...at, 'while'], name, 'boxflow repeat checks one of visible / notVisible / true per round');
        // Maestro: while the condition holds and fewer than times rounds ran.
        const step = { repeat: { ...arg, while: loop[0], ...(times !== undefined ? { max: times } : {}) } };
        return constant.length ? guarded(step, constant) : step;
      }
      case 'retry': {
        const m = v as Raw;
        if ((m.commands === undefined) === (m.file === undefined)) throw new Unsupported(at, name, 'retry takes file or commands (one of them)');
        // Maestro caps maxRetries at 3; a non-integer becomes 1.
        const n = /^\d+$/.test(String(m.maxRetries ?? '1')) ? Math.min(3, Number(m.maxRetries ?? 1)) : 1;
        const inline = () => this.list(m.commands, [...at, 'commands']);
        const fileStep = () => {
          const step = { runFlow: { file: this.file(m.file, [...at, 'file'], name), ...(isObj(m.env) ? { env: m.env } : {}) } };
          this.origin.set(step, [...at, 'file']);
          return [step];
        };
        const steps =
          m.file !== undefined
            ? fileStep()
            : m.env !== undefined
              ? [{ repeat: { times: 1, ...scopeEnv(m.env, [...at, 'env'], name), steps: inline() } }]
              : inline();
        // maxRetries 0: one attempt, no retry (a boxflow retry retries at least once).
        return n === 0 ? { repeat: { times: 1, steps } } : { retry: { times: n, steps } };
      }
      case 'takeScreenshot':
        return { screenshot: String(isObj(v) ? v.path : v) };
      case 'scroll':
        return { swipe: 'up' };
      case 'swipe': {
        const m = v as Raw;
        if (!isObj(m)) throw new Unsupported(at, name, 'swipe is a map: direction, start and end, or from and direction');
        const bad = Object.keys(m).find((k) => !['direction', 'start', 'end', 'from', 'duration', 'waitToSettleTimeoutMs', 'label', 'optional'].includes(k));
        if (bad) throw new Unsupported([...at, bad], name, `"${bad}" is not a swipe option`);
        const duration = m.duration !== undefined ? { duration: ms(m.duration) } : {};
        if (m.start !== undefined || m.end !== undefined) {
          if (m.start === undefined || m.end === undefined || m.direction !== undefined || m.from !== undefined) throw new Unsupported(at, name, 'a swipe takes start and end together, without direction or from');
          return { swipe: { from: screenPoint(m.start, [...at, 'start'], name), to: screenPoint(m.end, [...at, 'end'], name), ...duration } };
        }
        // Maestro accepts UP or up, not Up.
        const direction = String(m.direction ?? '');
        if (!/^(?:up|down|left|right|UP|DOWN|LEFT|RIGHT)$/.test(direction)) throw new Unsupported([...at, 'direction'], name, `direction is UP, DOWN, LEFT or RIGHT (all upper or all lower case), not "${direction}"`);
        // From an element: boxflow swipes across it in that direction.
        const on = m.from !== undefined ? { on: selector(m.from, [...at, 'from'], name) } : {};
        return { swipe: { direction: direction.toLowerCase(), ...on, ...duration } };
      }
      case 'scrollUntilVisible': {
        const m = v as Raw;
        // How fast and how far each swipe goes is boxflow's own; the search ends when the element is visible.
        const bad = Object.keys(m).find((k) => !['element', 'direction', 'timeout', 'speed', 'visibilityPercentage', 'waitToSettleTimeoutMs', 'label', 'optional'].includes(k) && !(k === 'centerElement' && m[k] !== true));
        if (bad) throw new Unsupported([...at, bad], name, bad === 'centerElement' ? 'boxflow stops scrolling when the element is visible; it cannot center it' : `the option "${bad}" has no boxflow equivalent`);
        // Maestro's direction is the scroll direction; boxflow's the same word, default down.
        // Maestro bounds the search by time (default 20 s), not by a number of swipes.
        const arg = { ...selector(m.element, [...at, 'element'], name), direction: String(m.direction ?? 'down').toLowerCase(), maxSwipes: 100 };
        return { scrollUntilVisible: arg, timeout: m.timeout !== undefined ? ms(m.timeout) : '20000ms' };
      }
      default: {
        const kind = Object.hasOwn(kRandom, name) ? kRandom[name] : undefined;
        if (!kind) throw new Unsupported(at, name, 'boxflow does not know this command');
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
    }
  }
}

/** A Maestro flow file as a boxflow flow document (what `boxflow convert maestro` writes). Throws FLOW_SYNTAX / FLOW_SCHEMA at file:line:col. */
export function maestroToBoxflow(text: string, file: string): { doc: Record<string, unknown>; locate(path: Path): SourceLocation } {
  const { lc, docs } = parseDocs(text);
  const bad = docs.flatMap((d) => d.errors)[0];
  if (bad) {
    const pos = bad.linePos?.[0] ?? { line: 1, col: 1 };
    throw locatedError('FLOW_SYNTAX', { file, line: pos.line, column: pos.col }, `YAML: ${bad.message.split('\n')[0]}`, text);
  }
  const [configDoc, commandsDoc] = docs as [Document, Document];
  const rawConfig = toJs(configDoc) as Raw;
  const defined = new Set(isObj(rawConfig.env) ? Object.keys(rawConfig.env) : []);
  const config = lenient(rawConfig, defined) as Raw;
  const commands = lenient(toJs(commandsDoc), defined);
  // At the key: the command's or the option's name is what the message is about.
  const locConfig = (p: Path): SourceLocation => locateIn(configDoc, lc, file, p, typeof p.at(-1) === 'string');
  const locCommand = (p: Path): SourceLocation => locateIn(commandsDoc, lc, file, p, typeof p.at(-1) === 'string');
  const appId = config.url ?? config.appId;
  const mapper = new Mapper(appId === undefined || /^https?:\/\//i.test(String(appId)), dirname(file));
  const doc: Raw = { name: config.name !== undefined ? String(config.name) : undefined };
  if (appId !== undefined) doc.appId = String(appId);
  // A package is a mobile app: the flow needs an Android box (a URL runs on a Linux box, the default).
  if (appId !== undefined && !/^https?:\/\//i.test(String(appId))) doc.box = 'android';
  if (Array.isArray(config.tags)) doc.tags = config.tags.map(String);
  if (isObj(config.env)) doc.env = config.env;
  const located: Array<{ issue: Unsupported; at: SourceLocation }> = [];
  const take = (where: (p: Path) => SourceLocation) => {
    for (const issue of mapper.issues.splice(0)) located.push({ issue, at: where(issue.path) });
  };
  if (config.onFlowStart !== undefined) doc.onStart = mapper.list(config.onFlowStart, ['onFlowStart']);
  if (config.onFlowComplete !== undefined) doc.onFinish = mapper.list(config.onFlowComplete, ['onFlowComplete']);
  take(locConfig);
  doc.steps = mapper.list(commands, []);
  take(locCommand);
  if (located.length === 1) throw locatedError(located[0]!.issue.code, located[0]!.at, located[0]!.issue.message, text, { key: located[0]!.issue.command });
  if (located.length > 1) throw combinedError(located.map(({ issue, at }) => locatedError(issue.code, at, issue.message, text, { key: issue.command })));
  if (doc.name === undefined) delete doc.name;
  for (const k of ['onStart', 'onFinish']) if (Array.isArray(doc[k]) && !(doc[k] as unknown[]).length) delete doc[k];
  // A boxflow step's path maps back to the Maestro command it came from: the deepest mapped step on the path.
  const locate = (path: Path): SourceLocation => {
    let node: unknown = doc;
    // A bare command (`- back`) maps to a string, which cannot carry its origin: its list says where.
    const top: Record<string, string | undefined> = { onStart: 'onFlowStart', onFinish: 'onFlowComplete' };
    let from: Path | undefined = typeof path[1] !== 'number' ? undefined : path[0] === 'steps' ? [path[1]] : top[path[0] as string] ? [top[path[0] as string]!, path[1]] : undefined;
    for (const seg of path) {
      node = (node as Record<string | number, unknown> | undefined)?.[seg];
      if (typeof node === 'object' && node !== null) from = mapper.origin.get(node) ?? from;
    }
    if (!from) return { file, line: 1, column: 1 };
    return typeof from[0] === 'string' ? locConfig(from) : locCommand(from);
  };
  return { doc, locate };
}

/** Parses a Maestro flow file into a boxflow Flow. Throws BoxflowError FLOW_SYNTAX / FLOW_SCHEMA at file:line:col. */
export function parseMaestroYaml(text: string, file: string): Flow {
  const { doc, locate } = maestroToBoxflow(text, file);
  try {
    return buildFlow(doc, { file, locate });
  } catch (err) {
    if (err instanceof FlowIssue) throw locatedError('FLOW_SCHEMA', locate(err.path), `Maestro command mapped to boxflow: ${err.message}`, text);
    if (err instanceof FlowIssues) throw combinedError(err.issues.map((i) => locatedError('FLOW_SCHEMA', locate(i.path), `Maestro command mapped to boxflow: ${i.message}`, text)));
    throw err;
  }
}

