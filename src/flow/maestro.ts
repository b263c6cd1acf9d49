// Maestro flow files (a config document, `---`, a command list) read as boxflow flows: each
// command becomes the boxflow step with Maestro's meaning (docs: README "Coming from Maestro").
// A command boxflow cannot run is a load-time error at its file:line:col, never a no-op.
import { existsSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseAllDocuments, type Document } from 'yaml';
import type { ErrorCode } from '../errors.js';
import { combinedError, locatedError } from './located.js';
import { FlowIssue, FlowIssues, type Path } from './parts.js';
import { kRandomKinds } from './steps/index.js';
import { didYouMean, hint } from './suggest.js';
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
function lenient(v: unknown, defined: Set<string> | 'all', undefinedNames?: Set<string>): unknown {
  if (typeof v === 'string') {
    return v.replace(/\\\$\{|\$\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}/g, (m, name?: string) => {
      if (name === undefined) return '$${';
      if (defined === 'all' || defined.has(name)) return m;
      undefinedNames?.add(name);
      return `\${(${name})}`;
    });
  }
  if (Array.isArray(v)) return v.map((x) => lenient(x, defined, undefinedNames));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, lenient(x, defined, undefinedNames)]));
  return v;
}

/**
 * A command as its Maestro file writes it, on one line: `tapOn id: email`, `inputText ${USER}`,
 * `runFlow when: {visible: Login}` (inline commands left out): the step's label in reports.
 */
function written(item: unknown): string {
  const value = (v: unknown, top: boolean): string => {
    if (Array.isArray(v)) return `[${v.map((x) => value(x, false)).join(', ')}]`;
    if (isObj(v)) {
      const parts = Object.entries(v).filter(([k]) => !(top && (k === 'label' || k === 'commands'))).map(([k, x]) => `${k}: ${value(x, false)}`);
      return top ? parts.join(', ') : `{${parts.join(', ')}}`;
    }
    if (v === null || v === undefined) return '';
    // Inside a map or a list, a text that would read as several values is quoted.
    return !top && typeof v === 'string' && /[,:{}[\]]|^\s|\s$/.test(v.replace(/\$\{[^}]*\}/g, '')) ? JSON.stringify(v) : String(v);
  };
  if (!isObj(item)) return String(item);
  const [name, v] = Object.entries(item)[0] ?? ['?', undefined];
  const rest = value(v, true);
  return rest ? `${name} ${rest}` : name;
}

class Unsupported extends Error {
  readonly code: ErrorCode = 'FLOW_SCHEMA';
  constructor(readonly path: Path, readonly command: string, readonly why: string) {
    super(`Maestro command "${command}" is not supported: ${why}`);
  }
}

/** Maestro reads runFlow, retry and runScript files when it parses the flow: a missing one is a load-time error. */
/** A name Maestro does not know: "Invalid Command" there too, with the nearest command it does. */
class UnknownCommand extends Unsupported {
  constructor(path: Path, command: string, suggestion: string | undefined) {
    super(path, command, '');
    this.message = `"${command}" is not a Maestro command${hint(suggestion)}`;
  }
}

class MissingFile extends Unsupported {
  override readonly code = 'FLOW_NOT_FOUND';
  constructor(path: Path, command: string, file: string) {
    super(path, command, '');
    this.message = `${command}: no such file ${relative(process.cwd(), file) || file}`;
  }
}

/** Maestro commands boxflow refuses, with the reason (each at its file:line:col, never a silent no-op). */
const kRefused: Record<string, string> = {
  assertNoDefectsWithAI: 'AI assertions need Maestro\'s cloud model, which boxflow does not have',
  assertWithAI: 'AI assertions need Maestro\'s cloud model, which boxflow does not have',
  extractTextWithAI: 'AI extraction needs Maestro\'s cloud model, which boxflow does not have',
  openBrowser: 'Maestro itself never runs it ("No mapping provided")',
};

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
const hasRuntime = (v: unknown) => typeof v === 'string' && v.includes('${');

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

/**
 * A Maestro screen point: "x%,y%" (0-100) stays a percent target, "x,y" becomes pixels [x, y]; a
 * `${...}` one becomes `{point}`, evaluated (and its form checked) when the step runs, as Maestro does.
 */
function screenPoint(v: unknown, path: Path, command: string): Raw | string | number[] {
  if (hasRuntime(v)) return { point: String(v) };
  const t = String(v).replace(/\s/g, '');
  if (/^\d+(?:\.\d+)?%,\d+(?:\.\d+)?%$/.test(t)) return t;
  const px = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(t);
  if (px) return [Number(px[1]), Number(px[2])];
  throw new Unsupported(path, command, `a point is "x,y" in pixels or "x%,y%", not "${String(v)}"`);
}

/** `step` run only when every condition holds: inline steps with `when`, one block per condition. */
function guarded(step: Raw | string, conds: Raw[]): Raw {
  let out = step;
  for (const c of [...conds].reverse()) out = { runFlow: { when: c, steps: [out] } };
  return out as Raw;
}

/** The `env` of inline commands: variables of that block only. */
function scopeEnv(env: unknown, path: Path, command: string): Raw {
  if (env === undefined) return {};
  if (!isObj(env)) throw new Unsupported(path, command, 'env is a map of names to values');
  return { env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) };
}

/** The one `${...}` a value is, its expression; undefined when it is anything else. */
const onlyExpression = (v: unknown): string | undefined => (typeof v === 'string' ? /^\s*\$\{([^$]*)\}\s*$/.exec(v)?.[1] : undefined);

/** Maestro's image extensions (Orchestra.normalizeScreenshotPath): any other path gets .png. */
const kImageExt = /\.(?:png|jpe?g|gif|bmp|tiff?|wbmp)$/i;

class Mapper {
  issues: Unsupported[] = [];
  /** The Maestro path each mapped step (object) came from, so errors point into the Maestro file. */
  readonly origin = new WeakMap<object, Path>();
  /** Each command list the mapper wrote: the Maestro command each of its steps is, as written there, and where. */
  readonly written = new WeakMap<unknown[], string[]>();
  readonly paths = new WeakMap<unknown[], Path[]>();

  /**
   * `web`: the flow runs on a Linux box (its app is a URL), where Maestro ignores mobile-only options.
   * `idiomatic`: the form `boxflow convert` writes, for a person to keep (plain ids).
   */
  constructor(
    readonly web: boolean,
    readonly dir: string,
    readonly raw: (path: Path) => unknown,
    readonly idiomatic: boolean,
  ) {}

  /** `file` as written, after checking it exists (a `${...}` path is resolved when it runs). */
  file(file: unknown, path: Path, command: string): string {
    const f = String(file);
    if (!f.includes('${') && !existsSync(resolve(this.dir, f))) throw new MissingFile(path, command, resolve(this.dir, f));
    return f;
  }

  /** A Maestro selector (scalar or map) → a boxflow selector map; `point` is left to the caller. */
  selector(v: unknown, path: Path, command: string): Raw {
    if (!isObj(v)) return { text: textRe(String(v)) };
    const out: Raw = {};
    const size: Raw = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'text') out.text = textRe(String(x));
      else if (k === 'id') {
        out.id = this.id(String(x));
      } else if (k === 'index') out.index = Math.trunc(Number(x));
      else if (['enabled', 'checked', 'selected', 'focused'].includes(k)) out[k] = x === true || x === 'true';
      else if (['below', 'above', 'leftOf', 'rightOf', 'childOf', 'containsChild'].includes(k)) out[k] = this.selector(x, [...path, k], command);
      else if (k === 'containsDescendants') {
        if (!Array.isArray(x)) throw new Unsupported([...path, k], command, 'containsDescendants is a list of selectors');
        out[k] = x.map((d, i) => this.selector(d, [...path, k, i], command));
      } else if (k === 'css') out.css = String(x);
      else if (k === 'traits') {
        // Maestro: space-separated names; an unknown one is an error there too.
        const traits = String(x).split(' ').filter(Boolean).map((t) => t.toLowerCase().replace(/_/g, '-'));
        const bad = traits.find((t) => !kTraits.includes(t));
        if (bad) throw new Unsupported([...path, k], command, `unknown trait "${bad}" (Maestro knows ${kTraits.join(', ')})`);
        out.traits = traits;
      } else if (k === 'width' || k === 'height' || k === 'tolerance') size[k] = Number(x);
      else if (k === 'optional' || k === 'label') continue;
      else if (k === 'point') throw new Unsupported([...path, k], command, 'a point is not a selector key here');
      else throw new Unsupported([...path, k], command, `"${k}" is not a Maestro selector key`);
    }
    if (Object.keys(size).length) out.size = size;
    return out;
  }

  /**
   * Maestro's id: a regex matched whole, case-insensitively, against the id or its part after the
   * last `/`. Converted, a plain lower-case id is written as boxflow's plain id (matched whole or
   * after the last `/`), another name as a short case-insensitive pattern; a run keeps Maestro's regex.
   */
  id(x: string): string {
    if (this.idiomatic && /^[a-z0-9_-]+$/.test(x)) return x;
    if (this.idiomatic && /^[A-Za-z0-9_-]+$/.test(x)) return `/(?:^|\\/)${x}$/i`;
    return `/^(?:.*\\/)?(?:${x})$/is`;
  }

  /** A selector that may carry `point` (a point inside the element, or alone a point of the screen): a boxflow target. */
  target(v: unknown, path: Path, command: string): Raw | string | number[] {
    if (!isObj(v) || v.point === undefined) return this.selector(v, path, command);
    const { point, ...rest } = v;
    const keys = Object.keys(rest).filter((k) => k !== 'label' && k !== 'optional');
    if (!keys.length) return screenPoint(point, [...path, 'point'], command);
    // A ${...} point is evaluated, and its form checked, when the step runs.
    if (hasRuntime(point)) return { ...this.selector(rest, path, command), point: String(point) };
    const t = String(point).replace(/\s/g, '');
    if (!/^\d+(?:\.\d+)?%,\d+(?:\.\d+)?%$|^\d+,\d+$/.test(t)) {
      throw new Unsupported([...path, 'point'], command, `a point inside an element is "x%,y%" (percent of its bounds) or "x,y" (pixels from its top-left), not "${String(point)}"`);
    }
    return { ...this.selector(rest, path, command), point: t };
  }

  /**
   * A Maestro condition as boxflow conditions (each one key), all of which must hold, the platform
   * first. `platform` becomes a script test of the box type (`maestro.platform`: android or web).
   */
  conditions(v: unknown, path: Path, command: string): Raw[] {
    if (!isObj(v)) throw new Unsupported(path, command, 'a condition is a map (visible, notVisible, true, platform)');
    const out: Raw[] = [];
    for (const [k, x] of Object.entries(v)) {
      if (k === 'visible' || k === 'notVisible') out.push({ [k]: this.selector(x, [...path, k], command) });
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

  /** Milliseconds as a boxflow duration; a `${...}` is refused here (callers that can take one check first). */
  ms(v: unknown, path: Path, command: string): string {
    if (hasRuntime(v)) throw new Unsupported(path, command, `a \${...} value is not supported here ("${String(v)}")`);
    const n = Number(String(v).replace(/_/g, ''));
    if (!Number.isFinite(n)) throw new Unsupported(path, command, `"${String(v)}" is not a number of milliseconds`);
    return `${Math.max(0, Math.round(n))}ms`;
  }

  /**
   * `step` with a Maestro timeout: a number is the step's timeout; a `${...}` is evaluated when the
   * step runs (inline steps whose stepTimeout it is), its type checked then.
   */
  withTimeout(step: Raw | string, timeout: unknown, path: Path, command: string): Raw | string {
    if (timeout === undefined) return step;
    if (hasRuntime(timeout)) return { runFlow: { stepTimeout: String(timeout), steps: [step] } };
    const t = this.ms(timeout, path, command);
    return typeof step === 'string' ? { [step]: null, timeout: t } : { ...step, timeout: t };
  }

  list(items: unknown, path: Path): Raw[] | string[] {
    if (!Array.isArray(items)) throw new Unsupported(path, 'commands', 'a command list is expected');
    const out: (Raw | string)[] = [];
    const texts: string[] = [];
    const paths: Path[] = [];
    items.forEach((item, i) => {
      try {
        const step = this.command(item, [...path, i]);
        if (typeof step === 'object') this.origin.set(step, [...path, i]);
        out.push(step);
        texts.push(written(this.raw([...path, i])));
        paths.push([...path, i]);
      } catch (err) {
        if (!(err instanceof Unsupported)) throw err;
        this.issues.push(err);
      }
    });
    this.written.set(out, texts);
    this.paths.set(out, paths);
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
    const why = kRefused[name];
    if (why) throw new Unsupported(at, name, why);
    const sel = () => this.selector(v, at, name);
    const m = (isObj(v) ? v : {}) as Raw;
    switch (name) {
      case 'launchApp': {
        if (v === undefined) return this.web ? 'launchApp' : { launchApp: { permissions: { all: 'allow' } } };
        if (typeof v === 'string') return this.web ? { launchApp: v } : { launchApp: { appId: v, permissions: { all: 'allow' } } };
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
        if (m.permissions !== undefined) arg.permissions = this.permissions(m.permissions as Raw, [...at, 'permissions'], name);
        else if (!this.web) arg.permissions = { all: 'allow' };
        return Object.keys(arg).length ? { launchApp: arg } : 'launchApp';
      }
      case 'setPermissions': {
        if (!isObj(m.permissions)) throw new Unsupported([...at, 'permissions'], name, 'permissions is a map of names to allow, deny or unset');
        const perms = this.permissions(m.permissions, [...at, 'permissions'], name);
        return { setDevice: { permissions: perms, ...(m.appId ?? m.url ? { appId: String(m.appId ?? m.url) } : {}) } };
      }
      case 'stopApp':
      case 'clearState':
        return v === undefined ? name : { [name]: typeof v === 'string' ? v : { ...(isObj(v) && v.appId ? { appId: String(v.appId) } : {}) } };
      case 'killApp': {
        // Android: process death (`am kill`); the web has none, and Maestro stops the app instead.
        const appId = typeof v === 'string' ? v : m.appId !== undefined ? String(m.appId) : undefined;
        if (this.web) return appId === undefined ? 'stopApp' : { stopApp: appId };
        return { stopApp: { ...(appId !== undefined ? { appId } : {}), processDeath: true } };
      }
      case 'clearKeychain':
        return { setDevice: { clearKeychain: true } };
      case 'back':
      case 'hideKeyboard':
      case 'pasteText':
        return name;
      case 'hide keyboard':
        return 'hideKeyboard';
      case 'action':
        if (v === 'back' || v === 'hideKeyboard' || v === 'pasteText') return String(v);
        if (v === 'scroll') return { swipe: 'up' };
        if (v === 'clearKeychain') return { setDevice: { clearKeychain: true } };
        throw new Unsupported(at, `action: ${String(v)}`, 'Maestro knows back, hideKeyboard, scroll, clearKeychain and pasteText here');
      case 'eraseText': {
        // Maestro's bare eraseText erases 50 characters; the count is read when the flow is parsed.
        const raw = v === undefined ? 50 : isObj(v) ? v.charactersToErase : v;
        const n = Math.trunc(Number(raw));
        if (!Number.isFinite(n)) throw new Unsupported(at, name, `the count is a number (Maestro reads it when it parses the flow, so a \${...} is not evaluated), not "${String(raw)}"`);
        return { eraseText: Math.max(1, n) };
      }
      case 'tapOn':
      case 'doubleTapOn':
      case 'longPressOn': {
        const kind = name === 'tapOn' ? 'tap' : name === 'doubleTapOn' ? 'doubleTap' : 'longPress';
        if (!isObj(v)) return { [kind]: sel() };
        // Accepted and not needed: boxflow waits for the element and does not re-tap.
        const { retryTapIfNoChange: _r, waitToSettleTimeoutMs: _w, waitUntilVisible: _u, repeat: times, delay, ...rest } = v;
        const tap = { [kind]: this.target(rest, at, name) };
        // Maestro: repeat ≤ 1 is one tap; `delay` (default 100 ms) separates the taps.
        if (hasRuntime(times)) throw new Unsupported([...at, 'repeat'], name, `repeat is a number here (a \${...} count is not supported), not "${String(times)}"`);
        const n = Math.trunc(Number(times ?? 1));
        if (!(n > 1) || kind === 'doubleTap') return tap;
        return { repeat: { times: n, steps: [tap, { sleep: this.ms(delay ?? 100, [...at, 'delay'], name) }] } };
      }
      case 'assertVisible':
      case 'assertNotVisible':
      case 'copyTextFrom':
        return { [name]: sel() };
      case 'extendedWaitUntil': {
        const conds = this.conditions({ ...(m.visible !== undefined ? { visible: m.visible } : {}), ...(m.notVisible !== undefined ? { notVisible: m.notVisible } : {}) }, at, name);
        if (conds.length > 1) throw new Unsupported(at, name, 'boxflow waits for visible or notVisible, not both at once (write two steps)');
        const [k, s] = Object.entries(conds[0]!)[0]!;
        return this.withTimeout({ [k === 'visible' ? 'assertVisible' : 'assertNotVisible']: s }, m.timeout, [...at, 'timeout'], name);
      }
      case 'inputText':
        return { type: String(isObj(v) ? v.text : v) };
      case 'pressKey': {
        const key = String(isObj(v) ? v.key : v).toLowerCase();
        const mapped = Object.hasOwn(kKeys, key) ? kKeys[key] : undefined;
        if (!mapped) {
          const suggestion = didYouMean(key, Object.keys(kKeys));
          throw new Unsupported(at, `pressKey: ${String(v)}`, `Maestro has no key "${String(v)}"${hint(suggestion)}`);
        }
        return mapped;
      }
      case 'openLink': {
        // autoVerify and browser are Android-only in Maestro: the web ignores them.
        const link = String(isObj(v) ? v.link : v);
        const android = !this.web && isObj(v) ? { ...(v.browser === true ? { browser: true } : {}), ...(v.autoVerify === true ? { autoVerify: true } : {}) } : {};
        return Object.keys(android).length ? { openLink: { link, ...android } } : { openLink: link };
      }
      case 'waitForAnimationToEnd':
        return isObj(v) && v.timeout !== undefined ? this.withTimeout('waitForAnimationToEnd', v.timeout, [...at, 'timeout'], name) : 'waitForAnimationToEnd';
      case 'assertTrue':
        return { assertTrue: String(isObj(v) ? v.condition : v) };
      case 'evalScript': {
        // Maestro runs only the ${...} parts of an evalScript.
        const s = String(isObj(v) ? v.script : v);
        const parts = [...s.matchAll(/(?<![\\$])\$\{([^$]*)\}/g)].map((x) => x[1]!);
        if (!parts.length) throw new Unsupported(at, name, 'without ${...} Maestro runs nothing; write the script inside ${...}');
        return { evalScript: parts.join(';\n') };
      }
      case 'runScript': {
        const r = isObj(v) ? v : { file: v };
        const step = { runScript: { file: this.file(r.file, isObj(v) ? [...at, 'file'] : at, name), ...(isObj(r.env) ? { env: r.env } : {}) } };
        return r.when !== undefined ? guarded(step, this.conditions(r.when, [...at, 'when'], name)) : step;
      }
      case 'runFlow': {
        const r = isObj(v) ? v : { file: v };
        if ((r.commands === undefined) === (r.file === undefined)) throw new Unsupported(at, name, 'runFlow takes file or commands (one of them)');
        const conds = r.when !== undefined ? this.conditions(r.when, [...at, 'when'], name) : [];
        // The last condition is the runFlow's own; any others guard it.
        const when = conds.length ? { when: conds.pop() } : {};
        if (r.commands !== undefined) {
          const block = { runFlow: { ...when, ...scopeEnv(r.env, [...at, 'env'], name), steps: this.list(r.commands, [...at, 'commands']) } };
          return conds.length ? guarded(block, conds) : block;
        }
        const arg: Raw = { file: this.file(r.file, isObj(v) ? [...at, 'file'] : at, name) };
        if (isObj(r.env)) arg.env = r.env;
        Object.assign(arg, when);
        return conds.length ? guarded({ runFlow: arg }, conds) : { runFlow: arg };
      }
      case 'repeat': {
        if (m.times === undefined && m.while === undefined) throw new Unsupported(at, name, 'without times or while Maestro loops forever');
        const steps = this.list(m.commands, [...at, 'commands']);
        // A ${...} count is evaluated when the loop starts (Maestro: when the command runs).
        const times = m.times === undefined ? undefined : hasRuntime(m.times) ? String(m.times) : Math.trunc(Number(m.times));
        if (typeof times === 'number' && Number.isNaN(times)) throw new Unsupported([...at, 'times'], name, `times is a number or a \${...}, not "${String(m.times)}"`);
        // Maestro skips a repeat of zero rounds: a block whose condition never holds does the same.
        if (typeof times === 'number' && times < 1) return { runFlow: { when: { true: 'false' }, steps } };
        if (m.while === undefined) return { repeat: { times, steps } };
        if (typeof times === 'string') throw new Unsupported([...at, 'times'], name, 'with while, times is a number here (a ${...} bound on the rounds is not supported)');
        // The platform cannot change between rounds: it guards the loop instead of being re-checked.
        const conds = this.conditions(m.while, [...at, 'while'], name);
        const constant = conds.filter((c) => typeof c.true === 'string' && c.true.startsWith('${maestro.platform'));
        const loop = conds.filter((c) => !constant.includes(c));
        if (loop.length !== 1) throw new Unsupported([...at, 'while'], name, 'boxflow repeat checks one of visible / notVisible / true per round');
        // Maestro: while the condition holds and fewer than times rounds ran.
        const step = { repeat: { while: loop[0], ...(times !== undefined ? { max: times } : {}), steps } };
        return constant.length ? guarded(step, constant) : step;
      }
      case 'retry': {
        if ((m.commands === undefined) === (m.file === undefined)) throw new Unsupported(at, name, 'retry takes file or commands (one of them)');
        // Maestro caps maxRetries at 3; a non-integer becomes 1; a ${...} is evaluated when it runs.
        const expr = onlyExpression(m.maxRetries);
        const n = expr !== undefined ? `\${Math.min(3, ${expr})}` : /^\d+$/.test(String(m.maxRetries ?? '1')) ? Math.min(3, Number(m.maxRetries ?? 1)) : 1;
        const inline = () => this.list(m.commands, [...at, 'commands']);
        const fileStep = () => {
          const step = { runFlow: { file: this.file(m.file, [...at, 'file'], name), ...(isObj(m.env) ? { env: m.env } : {}) } };
          this.origin.set(step, [...at, 'file']);
          return [step];
        };
        const steps = m.file !== undefined ? fileStep() : m.env !== undefined ? [{ runFlow: { ...scopeEnv(m.env, [...at, 'env'], name), steps: inline() } }] : inline();
        // maxRetries 0: one attempt, no retry.
        return n === 0 ? { runFlow: { steps } } : { retry: { times: n, steps } };
      }
      case 'takeScreenshot': {
        const shot = String(isObj(v) ? v.path : v);
        return m.cropOn !== undefined ? { screenshot: { name: shot, crop: this.selector(m.cropOn, [...at, 'cropOn'], name) } } : { screenshot: shot };
      }
      case 'assertScreenshot':
        return this.assertScreenshot(v, at, name);
      case 'scroll':
        return { swipe: 'up' };
      case 'swipe': {
        if (!isObj(v)) throw new Unsupported(at, name, 'swipe is a map: direction, start and end, or from and direction');
        const bad = Object.keys(m).find((k) => !['direction', 'start', 'end', 'from', 'duration', 'waitToSettleTimeoutMs', 'label', 'optional'].includes(k));
        if (bad) throw new Unsupported([...at, bad], name, `"${bad}" is not a swipe option`);
        const duration = m.duration !== undefined ? { duration: this.ms(m.duration, [...at, 'duration'], name) } : {};
        if (m.start !== undefined || m.end !== undefined) {
          if (m.start === undefined || m.end === undefined || m.direction !== undefined || m.from !== undefined) throw new Unsupported(at, name, 'a swipe takes start and end together, without direction or from');
          return { swipe: { from: screenPoint(m.start, [...at, 'start'], name), to: screenPoint(m.end, [...at, 'end'], name), ...duration } };
        }
        // Maestro accepts UP or up, not Up.
        const direction = String(m.direction ?? '');
        if (!/^(?:up|down|left|right|UP|DOWN|LEFT|RIGHT)$/.test(direction)) throw new Unsupported([...at, 'direction'], name, `direction is UP, DOWN, LEFT or RIGHT (all upper or all lower case), not "${direction}"`);
        // From an element (its centre, or its point): toward the screen's edge, as Maestro swipes.
        const from = m.from !== undefined ? { from: this.target(m.from, [...at, 'from'], name) } : {};
        return { swipe: { direction: direction.toLowerCase(), ...from, ...duration } };
      }
      case 'scrollUntilVisible': {
        // How fast and how far each swipe goes is boxflow's own; the search ends when the element is visible.
        const bad = Object.keys(m).find((k) => !['element', 'direction', 'timeout', 'speed', 'visibilityPercentage', 'waitToSettleTimeoutMs', 'centerElement', 'label', 'optional'].includes(k));
        if (bad) throw new Unsupported([...at, bad], name, `the option "${bad}" has no boxflow equivalent`);
        // Maestro's direction is the scroll direction; boxflow's the same word, default down.
        // Maestro bounds the search by time (default 20 s), not by a number of swipes.
        const arg = { ...this.selector(m.element, [...at, 'element'], name), direction: String(m.direction ?? 'down').toLowerCase(), maxSwipes: 100, ...(m.centerElement === true ? { center: true } : {}) };
        return this.withTimeout({ scrollUntilVisible: arg }, m.timeout ?? 20000, [...at, 'timeout'], name);
      }
      case 'setAirplaneMode': {
        // Maestro: enabled / disabled, as the value or {value}.
        const value = String(isObj(v) ? v.value : v);
        if (value !== 'enabled' && value !== 'disabled') throw new Unsupported(isObj(v) ? [...at, 'value'] : at, name, `setAirplaneMode takes enabled or disabled, not "${value}"`);
        return { setDevice: { airplaneMode: value === 'enabled' } };
      }
      case 'toggleAirplaneMode':
        return { setDevice: { airplaneMode: 'toggle' } };
      case 'setLocation': {
        if (m.latitude === undefined || m.longitude === undefined) throw new Unsupported(at, name, 'setLocation takes latitude and longitude');
        return { setDevice: { location: { latitude: this.degrees(m.latitude, [...at, 'latitude'], name, 90), longitude: this.degrees(m.longitude, [...at, 'longitude'], name, 180) } } };
      }
      case 'travel': {
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
      }
      case 'setOrientation': {
        const o = String(isObj(v) ? v.orientation : v);
        const known: Record<string, string> = { portrait: 'portrait', landscapeleft: 'landscapeLeft', landscaperight: 'landscapeRight', upsidedown: 'upsideDown' };
        if (hasRuntime(o)) return { setDevice: { orientation: o } };
        const mapped = known[o.replace(/_/g, '').toLowerCase()];
        if (!mapped) throw new Unsupported(isObj(v) ? [...at, 'orientation'] : at, name, `orientation is portrait, landscape_left, landscape_right or upside_down (any case), not "${o}"`);
        return { setDevice: { orientation: mapped } };
      }
      case 'setDarkMode': {
        const value = String(isObj(v) ? v.value : v);
        if (value !== 'enabled' && value !== 'disabled') throw new Unsupported(isObj(v) ? [...at, 'value'] : at, name, `setDarkMode takes enabled or disabled, not "${value}"`);
        return { setDevice: { darkMode: value === 'enabled' } };
      }
      case 'toggleDarkMode':
        return { setDevice: { darkMode: 'toggle' } };
      case 'assertDarkMode':
        return { assertDevice: { darkMode: true } };
      case 'assertLightMode':
        return { assertDevice: { darkMode: false } };
      case 'addMedia': {
        // Maestro reads the files when it parses the flow: each must exist.
        const files = Array.isArray(v) ? v : isObj(v) && Array.isArray(v.files) ? v.files : undefined;
        if (!files?.length) throw new Unsupported(at, name, 'addMedia takes a list of files (or {files: [...]})');
        return { setDevice: { media: files.map((f, i) => this.file(f, Array.isArray(v) ? [...at, i] : [...at, 'files', i], name)) } };
      }
      case 'startRecording': {
        // Maestro always adds .mp4 to the path; the video is attached to the report under the path's name.
        const file = String(isObj(v) ? v.path : v);
        return { record: { start: file.replace(/[\\:*?"<>|]/g, '_') } };
      }
      case 'stopRecording':
        return { record: 'stop' };
      case 'setClipboard':
        return { setDevice: { clipboard: String(isObj(v) ? v.text : v) } };
      default: {
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
    }
  }

  /** Permission values: allow, deny or unset (a ${...} is checked when the step runs). */
  permissions(v: Raw, path: Path, command: string): Raw {
    for (const [k, x] of Object.entries(v)) {
      if (!hasRuntime(x) && !['allow', 'deny', 'unset'].includes(String(x))) throw new Unsupported([...path, k], command, `a permission is allow, deny or unset, not "${String(x)}"`);
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
  }

  /** Degrees as a number; a ${...} stays text, evaluated and checked when the step runs. */
  degrees(v: unknown, path: Path, command: string, max: number): number | string {
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
  assertScreenshot(v: unknown, at: Path, name: string): Raw {
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
    if (m.cropOn !== undefined) arg.crop = this.selector(m.cropOn, [...at, 'cropOn'], name);
    return { assertScreenshot: arg };
  }
}

/** A Maestro flow file as a boxflow flow document (what `boxflow convert maestro` writes). Throws FLOW_SYNTAX / FLOW_SCHEMA at file:line:col. */
export function maestroToBoxflow(text: string, file: string, opts: { idiomatic?: boolean } = {}): { doc: Record<string, unknown>; locate(path: Path): SourceLocation } {
  const { lc, docs } = parseDocs(text);
  const bad = docs.flatMap((d) => d.errors)[0];
  if (bad) {
    const pos = bad.linePos?.[0] ?? { line: 1, col: 1 };
    throw locatedError('FLOW_SYNTAX', { file, line: pos.line, column: pos.col }, `YAML: ${bad.message.split('\n')[0]}`, text);
  }
  const [configDoc, commandsDoc] = docs as [Document, Document];
  const rawConfig = toJs(configDoc) as Raw;
  const rawCommands = toJs(commandsDoc);
  // Run as Maestro runs it, a name nothing defines reads undefined; converted, it stays ${NAME} (boxflow checks it).
  const defined = opts.idiomatic ? 'all' : new Set(isObj(rawConfig.env) ? Object.keys(rawConfig.env) : []);
  const config = lenient(rawConfig, defined) as Raw;
  const commands = lenient(rawCommands, defined);
  const rawAt = (p: Path): unknown => p.reduce<unknown>((n, seg) => (n as Record<string | number, unknown> | undefined)?.[seg], typeof p[0] === 'string' ? rawConfig : rawCommands);
  // At the key: the command's or the option's name is what the message is about.
  const locConfig = (p: Path): SourceLocation => locateIn(configDoc, lc, file, p, typeof p.at(-1) === 'string');
  const locCommand = (p: Path): SourceLocation => locateIn(commandsDoc, lc, file, p, typeof p.at(-1) === 'string');
  const appId = config.url ?? config.appId;
  const mapper = new Mapper(appId === undefined || /^https?:\/\//i.test(String(appId)), dirname(file), rawAt, opts.idiomatic ?? false);
  const doc: Raw = { name: config.name !== undefined ? String(config.name) : undefined };
  if (appId !== undefined) doc.appId = String(appId);
  // A package is a mobile app: the flow needs an Android box (a URL runs on a Linux box, the default).
  if (appId !== undefined && !/^https?:\/\//i.test(String(appId))) doc.box = 'android';
  if (Array.isArray(config.tags)) doc.tags = config.tags.map(String);
  if (isObj(config.env)) doc.env = config.env;
  if (opts.idiomatic) {
    // Converted, a ${NAME} the file does not define is declared as what the flow reads: given (with
    // -e, or by the flow that runs it), else "undefined" as Maestro reads it; the steps keep ${NAME}.
    const known = new Set(isObj(rawConfig.env) ? Object.keys(rawConfig.env) : []);
    const read = new Set<string>();
    lenient({ ...rawConfig, env: undefined }, known, read);
    lenient(rawCommands, known, read);
    if (read.size) doc.env = { ...(doc.env as Raw | undefined), ...Object.fromEntries([...read].map((n) => [n, `\${${n} || 'undefined'}`])) };
  }
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
  // A boxflow step's path maps back to the Maestro command it came from: the deepest mapped step on
  // the path. A step that is a command of a Maestro list (not a step a mapping added) carries the
  // command as written there, its label in reports.
  const locate = (path: Path): SourceLocation => {
    let node: unknown = doc;
    let from: Path | undefined;
    let command: string | undefined;
    path.forEach((seg, i) => {
      const parent = node;
      node = (parent as Record<string | number, unknown> | undefined)?.[seg];
      if (Array.isArray(parent) && typeof seg === 'number') {
        from = mapper.paths.get(parent)?.[seg] ?? from;
        command = i === path.length - 1 ? mapper.written.get(parent)?.[seg] : undefined;
      }
      if (typeof node === 'object' && node !== null) from = mapper.origin.get(node) ?? from;
    });
    const at = !from ? { file, line: 1, column: 1 } : typeof from[0] === 'string' ? locConfig(from) : locCommand(from);
    return command !== undefined && !opts.idiomatic ? { ...at, command } : at;
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

