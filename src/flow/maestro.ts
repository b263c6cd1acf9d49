// Maestro flow files (a config document, `---`, a command list) read as boxflow flows: each
// command becomes the boxflow step with Maestro's meaning (docs: README "Coming from Maestro").
// A command boxflow cannot run is a load-time error at its file:line:col, never a no-op.
import { LineCounter, isMap, isScalar, isSeq, parseAllDocuments, type Document } from 'yaml';
import { combinedError, locatedError } from './located.js';
import { FlowIssue, FlowIssues, type Path } from './parts.js';
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

/** True when `text` is a Maestro flow: a config map, `---`, then a command list. */
export function isMaestroFlow(text: string): boolean {
  if (!/^\s*-{3}\s*$/m.test(text)) return false;
  const { docs } = parseDocs(text);
  if (docs.length < 2 || docs.some((d) => d.errors.length)) return false;
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

class Unsupported extends Error {
  constructor(readonly path: Path, readonly command: string, readonly why: string) {
    super(`Maestro command "${command}" is not supported: ${why}`);
  }
}

const kPlatformOnly: Record<string, string> = {
  clearKeychain: 'it is iOS-only',
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
  killApp: 'use stopApp (boxflow cannot kill without stopping)',
  openBrowser: 'Maestro itself never runs it ("No mapping provided")',
};

const kRandom: Record<string, string> = { inputRandomText: 'text', inputRandomNumber: 'number', inputRandomEmail: 'email', inputRandomPersonName: 'personName' };

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
  return validRe(t) ? `/^(?:${t.replace(/\//g, '\\/')}|${literal})$/is` : `/^${literal}$/is`;
}

const kSelectorKeys = ['text', 'id', 'index', 'enabled', 'checked', 'selected', 'focused', 'below', 'above', 'leftOf', 'rightOf', 'childOf', 'optional', 'label'];

/** A Maestro selector (scalar or map) → a boxflow selector map; `extra` keys are returned apart. */
function selector(v: unknown, path: Path, command: string): Raw {
  if (!isObj(v)) return { text: textRe(String(v)) };
  const out: Raw = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'text') out.text = textRe(String(x));
    else if (k === 'id') out.id = `/^(?:.*\\/)?(?:${String(x)})$/is`;
    else if (k === 'index') out.index = Number(x) >= 0 ? Math.trunc(Number(x)) : (() => { throw new Unsupported([...path, k], command, 'a negative index (counting from the end) has no boxflow form'); })();
    else if (['enabled', 'checked', 'selected', 'focused'].includes(k)) out[k] = x === true || x === 'true';
    else if (['below', 'above', 'leftOf', 'rightOf', 'childOf'].includes(k)) out[k] = selector(x, [...path, k], command);
    else if (k === 'optional' || k === 'label') continue;
    else throw new Unsupported([...path, k], command, `the selector key "${k}" has no boxflow equivalent${kSelectorKeys.includes(k) ? '' : ' (boxflow knows text, id, index, enabled, checked, selected, focused, below, above, leftOf, rightOf, childOf)'}`);
  }
  return out;
}

/** Step options of a Maestro map: label and optional. */
function options(v: unknown): Raw {
  if (!isObj(v)) return {};
  const o: Raw = {};
  if (typeof v.label === 'string') o.label = v.label;
  if (v.optional === true) o.optional = true;
  return o;
}

const ms = (v: unknown) => `${Math.max(0, Math.round(Number(String(v).replace(/_/g, ''))))}ms`;

function condition(v: unknown, path: Path, command: string): Raw {
  if (!isObj(v)) throw new Unsupported(path, command, 'a condition is a map (visible, notVisible, true, platform)');
  const keys = Object.keys(v).filter((k) => k !== 'label' && k !== 'optional');
  if (keys.length !== 1 || (keys[0] !== 'visible' && keys[0] !== 'notVisible')) {
    throw new Unsupported(path, command, `boxflow conditions hold exactly one of visible / notVisible (here: ${keys.join(', ') || 'nothing'})`);
  }
  return { [keys[0]!]: selector(v[keys[0]!], [...path, keys[0]!], command) };
}

class Mapper {
  issues: Unsupported[] = [];

  list(items: unknown, path: Path): Raw[] | string[] {
    if (!Array.isArray(items)) throw new Unsupported(path, 'commands', 'a command list is expected');
    const out: (Raw | string)[] = [];
    items.forEach((item, i) => {
      try {
        out.push(this.command(item, [...path, i]));
      } catch (err) {
        if (!(err instanceof Unsupported)) throw err;
        this.issues.push(err);
      }
    });
    return out as Raw[];
  }

  command(item: unknown, path: Path): Raw | string {
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
    const o = options(v);
    const sel = () => selector(v, at, name);
    switch (name) {
      case 'launchApp': {
        if (v === undefined) return 'launchApp';
        if (typeof v === 'string') return { launchApp: v };
        const bad = Object.keys(v as Raw).find((k) => !['appId', 'url', 'clearState', 'stopApp', 'label', 'optional'].includes(k));
        if (bad) throw new Unsupported([...at, bad], name, `option "${bad}": ${bad === 'arguments' ? 'the Box API cannot pass launch arguments' : bad === 'permissions' ? 'the Box API cannot grant permissions' : bad === 'clearKeychain' ? 'it is iOS-only' : 'unknown option'}`);
        const m = v as Raw;
        const arg: Raw = {};
        if (m.appId ?? m.url) arg.appId = String(m.appId ?? m.url);
        if (m.clearState !== undefined) arg.clearState = m.clearState === true;
        if (m.stopApp !== undefined) arg.stopApp = m.stopApp === true;
        return { launchApp: arg, ...o };
      }
      case 'stopApp':
      case 'clearState':
        return v === undefined ? name : { [name]: typeof v === 'string' ? v : { ...(isObj(v) && v.appId ? { appId: String(v.appId) } : {}) }, ...o };
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
        return { eraseText: Math.max(1, Math.trunc(n)), ...o };
      }
      case 'tapOn':
      case 'doubleTapOn':
      case 'longPressOn': {
        if (isObj(v)) {
          const bad = ['point', 'repeat', 'delay', 'retryTapIfNoChange', 'waitUntilVisible', 'waitToSettleTimeoutMs'].find((k) => k in v);
          if (bad === 'point' && Object.keys(v).filter((k) => k !== 'label' && k !== 'optional').length === 1) {
            return { [name === 'tapOn' ? 'tap' : name === 'doubleTapOn' ? 'doubleTap' : 'longPress']: String(v.point).replace(/\s/g, ''), ...o };
          }
          if (bad && bad !== 'retryTapIfNoChange' && bad !== 'waitToSettleTimeoutMs' && bad !== 'waitUntilVisible') throw new Unsupported([...at, bad], name, `the tap option "${bad}" has no boxflow equivalent`);
          const { retryTapIfNoChange: _r, waitToSettleTimeoutMs: _w, waitUntilVisible: _u, ...rest } = v;
          return { [name === 'tapOn' ? 'tap' : name === 'doubleTapOn' ? 'doubleTap' : 'longPress']: selector(rest, at, name), ...o };
        }
        return { [name === 'tapOn' ? 'tap' : name === 'doubleTapOn' ? 'doubleTap' : 'longPress']: sel(), ...o };
      }
      case 'assertVisible':
      case 'assertNotVisible':
      case 'copyTextFrom':
        return { [name]: sel(), ...o };
      case 'extendedWaitUntil': {
        const m = v as Raw;
        const cond = condition({ ...(m.visible !== undefined ? { visible: m.visible } : {}), ...(m.notVisible !== undefined ? { notVisible: m.notVisible } : {}) }, at, name);
        const [k, s] = Object.entries(cond)[0]!;
        return { [k === 'visible' ? 'assertVisible' : 'assertNotVisible']: s, ...(m.timeout !== undefined ? { timeout: ms(m.timeout) } : {}), ...o };
      }
      case 'inputText':
        return { type: String(isObj(v) ? v.text : v) };
      case 'pressKey': {
        const key = String(v).toLowerCase();
        const mapped = kKeys[key];
        if (!mapped) throw new Unsupported(at, `pressKey: ${String(v)}`, 'boxflow maps Enter, Backspace, Tab, Escape, Space, Home and Back');
        return mapped;
      }
      case 'openLink':
        return { openLink: String(isObj(v) ? v.link : v), ...o };
      case 'waitForAnimationToEnd':
        return isObj(v) && v.timeout !== undefined ? { waitForAnimationToEnd: null, timeout: ms(v.timeout) } : 'waitForAnimationToEnd';
      case 'assertTrue':
        return { assertTrue: String(isObj(v) ? v.condition : v), ...o };
      case 'evalScript': {
        // Maestro runs only the ${...} parts of an evalScript.
        const s = String(isObj(v) ? v.script : v);
        const parts = [...s.matchAll(/(?<!\\)\$\{([^$]*)\}/g)].map((m) => m[1]!);
        if (!parts.length) throw new Unsupported(at, name, 'without ${...} Maestro runs nothing; write the script inside ${...}');
        return { evalScript: parts.join(';\n') };
      }
      case 'runScript': {
        const m = isObj(v) ? v : { file: v };
        if (m.when !== undefined) throw new Unsupported([...at, 'when'], name, 'boxflow runScript has no when condition');
        return { runScript: { file: String(m.file), ...(isObj(m.env) ? { env: m.env } : {}) }, ...o };
      }
      case 'runFlow': {
        const m = isObj(v) ? v : { file: v };
        if (m.commands !== undefined) {
          if (m.when !== undefined) throw new Unsupported([...at, 'when'], name, 'a when condition on inline commands has no boxflow form yet (put the commands in a file)');
          return { repeat: { times: 1, steps: this.list(m.commands, [...at, 'commands']) }, ...o };
        }
        const arg: Raw = { file: String(m.file) };
        if (isObj(m.env)) arg.env = m.env;
        if (m.when !== undefined) arg.when = condition(m.when, [...at, 'when'], name);
        return { runFlow: arg, ...o };
      }
      case 'repeat': {
        const m = v as Raw;
        if (m.times === undefined && m.while === undefined) throw new Unsupported(at, name, 'without times or while Maestro loops forever');
        const arg: Raw = { steps: this.list(m.commands, [...at, 'commands']) };
        if (m.while !== undefined) arg.while = condition(m.while, [...at, 'while'], name);
        if (m.times !== undefined) {
          if (m.while !== undefined) throw new Unsupported([...at, 'times'], name, 'boxflow repeat takes times or while, not both');
          arg.times = Math.max(1, Math.trunc(Number(m.times)));
        }
        return { repeat: arg, ...o };
      }
      case 'retry': {
        const m = v as Raw;
        if (m.file !== undefined) throw new Unsupported([...at, 'file'], name, 'retry of a file has no boxflow form yet (use commands: with runFlow)');
        // Maestro caps maxRetries at 3; a non-integer becomes 1.
        const n = /^\d+$/.test(String(m.maxRetries ?? '1')) ? Math.min(3, Number(m.maxRetries ?? 1)) : 1;
        return { retry: { times: Math.max(1, n), steps: this.list(m.commands, [...at, 'commands']) }, ...o };
      }
      case 'takeScreenshot':
        return { screenshot: String(isObj(v) ? v.path : v), ...o };
      case 'scroll':
        return { swipe: 'up' };
      case 'swipe': {
        const m = v as Raw;
        if (isObj(m) && typeof m.direction === 'string' && Object.keys(m).every((k) => ['direction', 'duration', 'label', 'optional'].includes(k))) {
          return { swipe: { direction: m.direction.toLowerCase(), ...(m.duration !== undefined ? { duration: ms(m.duration) } : {}) }, ...o };
        }
        throw new Unsupported(at, name, 'boxflow maps swipe with a direction only');
      }
      case 'scrollUntilVisible': {
        const m = v as Raw;
        const bad = Object.keys(m).find((k) => !['element', 'direction', 'timeout', 'label', 'optional'].includes(k));
        if (bad) throw new Unsupported([...at, bad], name, `the option "${bad}" has no boxflow equivalent`);
        // Maestro's direction is the scroll direction; boxflow's the same word, default down.
        // Maestro bounds the search by time (default 20 s), not by a number of swipes.
        const arg = { ...selector(m.element, [...at, 'element'], name), direction: String(m.direction ?? 'down').toLowerCase(), maxSwipes: 100 };
        return { scrollUntilVisible: arg, timeout: m.timeout !== undefined ? ms(m.timeout) : '20000ms', ...o };
      }
      default:
        if (kRandom[name]) return { inputRandom: kRandom[name] };
        throw new Unsupported(at, name, 'boxflow does not know this command');
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
  const config = toJs(configDoc) as Raw;
  const commands = toJs(commandsDoc);
  // At the key: the command's or the option's name is what the message is about.
  const locConfig = (p: Path): SourceLocation => locateIn(configDoc, lc, file, p, typeof p.at(-1) === 'string');
  const locCommand = (p: Path): SourceLocation => locateIn(commandsDoc, lc, file, p, typeof p.at(-1) === 'string');
  const mapper = new Mapper();
  const doc: Raw = { name: config.name !== undefined ? String(config.name) : undefined };
  const appId = config.url ?? config.appId;
  if (appId !== undefined) doc.appId = String(appId);
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
  if (located.length === 1) throw locatedError('FLOW_SCHEMA', located[0]!.at, located[0]!.issue.message, text, { key: located[0]!.issue.command });
  if (located.length > 1) throw combinedError(located.map(({ issue, at }) => locatedError('FLOW_SCHEMA', at, issue.message, text, { key: issue.command })));
  if (doc.name === undefined) delete doc.name;
  for (const k of ['onStart', 'onFinish']) if (Array.isArray(doc[k]) && !(doc[k] as unknown[]).length) delete doc[k];
  // A boxflow step's path maps back to its Maestro command: steps[i] → commands[i], onStart → onFlowStart.
  const locate = (path: Path): SourceLocation => {
    const [list, i] = path;
    if (list === 'steps' && typeof i === 'number') return locCommand([i]);
    if (list === 'onStart' && typeof i === 'number') return locConfig(['onFlowStart', i]);
    if (list === 'onFinish' && typeof i === 'number') return locConfig(['onFlowComplete', i]);
    return { file, line: 1, column: 1 };
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

