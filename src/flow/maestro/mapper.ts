// Reads a Maestro command list into boxflow steps: each command's name and value, its label and
// optional, where it stands in the file (errors and labels point there); what the command becomes
// is its translator's (commands.ts).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Path } from '../parts.js';
import { translate } from './commands.js';
import { hasRuntime, isObj, MissingFile, screenPoint, textRe, Unsupported, type Mapping, type Raw } from './common.js';

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

/** Maestro commands boxflow refuses, with the reason (each at its file:line:col, never a silent no-op). */
const kRefused: Record<string, string> = {
  assertNoDefectsWithAI: 'AI assertions need Maestro\'s cloud model, which boxflow does not have',
  assertWithAI: 'AI assertions need Maestro\'s cloud model, which boxflow does not have',
  extractTextWithAI: 'AI extraction needs Maestro\'s cloud model, which boxflow does not have',
  openBrowser: 'Maestro itself never runs it ("No mapping provided")',
};

const kTraits = ['text', 'long-text', 'square'];

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

export class Mapper implements Mapping {
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
    const m = (isObj(v) ? v : {}) as Raw;
    return translate({ name, v, m, at, map: this });
  }
}
