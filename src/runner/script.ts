// The flow's JavaScript sandbox (evalScript, runScript, assertTrue and `${expression}`): one
// node:vm context per flow attempt, so `output` is shared by every step of the flow and its
// runFlows. node:vm is not a security boundary; the scripts are the flow author's own, and
// the point of the context is a clean global scope with a time limit, not isolation from them.
import vm from 'node:vm';
import { BoxflowError } from '../errors.js';

const kTimeLimitMs = 10_000;

// Runs inside the context. Variables are a `with` scope over a proxy so that a name nothing
// defines reads as undefined (as Maestro's GraalJS globals do) instead of throwing; `var` and
// `let` stay local to the one evaluation, `output` lives on the context's global.
const kPrelude = `
globalThis.output = {};
globalThis.json = (text) => JSON.parse(text);
globalThis.relativePoint = (x, y) => (x * 100) + '%,' + (y * 100) + '%';
globalThis.__logs = [];
globalThis.console = { log: (...a) => { __logs.push(a.map(__show).join(' ')); } };
globalThis.__show = (v) => {
  if (typeof v === 'string') return v;
  if (v !== null && typeof v === 'object') { try { return JSON.stringify(v); } catch { return String(v); } }
  return String(v);
};
globalThis.__run = function (__code, __env) {
  const scope = new Proxy(__env, {
    // __code and __env are this function's own: the scope must not hide them.
    has: (t, k) => typeof k === 'string' && k !== 'eval' && !k.startsWith('__') && (k in t || !(k in globalThis)),
    get: (t, k) => (k === Symbol.unscopables ? undefined : t[k]),
  });
  with (scope) { return eval(__code); }
};
`;

export interface ScriptGlobals {
  vars: Record<string, string>;
  platform: 'android' | 'web';
}

export class ScriptHost {
  #context = vm.createContext({}, { codeGeneration: { strings: true, wasm: false } });
  copiedText: string | undefined;

  constructor() {
    vm.runInContext(kPrelude, this.#context);
  }

  /** Runs `code`; the value of its last expression, as text (undefined → "undefined", objects as JSON). Console lines go to `logs`. */
  run(code: string, globals: ScriptGlobals, where: string, logs?: string[]): string {
    // Globals cross into the context as JSON: no object of this realm (and its Function) leaks in.
    const env = JSON.stringify({ ...globals.vars, maestro: { copiedText: this.copiedText ?? '', platform: globals.platform } });
    const source = `__logs.length = 0; __show(__run(${JSON.stringify(code)}, JSON.parse(${JSON.stringify(env)})))`;
    try {
      return vm.runInContext(source, this.#context, { timeout: kTimeLimitMs, filename: where }) as string;
    } catch (err) {
      const e = err as Error & { code?: string };
      if (e?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new BoxflowError('FLOW_ERROR', `${where}: the script ran longer than ${kTimeLimitMs / 1000}s`);
      throw new BoxflowError('FLOW_ERROR', `${where}: ${e?.name ?? 'Error'}: ${e?.message ?? String(err)}`);
    } finally {
      if (logs) logs.push(...(vm.runInContext('__logs.slice()', this.#context) as string[]));
    }
  }
}

/** Maestro's truth of a condition's text (grammar note §7): blank, false, undefined, null and 0 are false. */
export function isTrueText(text: string): boolean {
  const t = text.trim();
  if (!t || t.toLowerCase() === 'false' || t === 'undefined' || t === 'null') return false;
  const n = Number(t);
  return !(Number.isFinite(n) && n === 0);
}

const kHosts = new WeakMap<object, ScriptHost>();

/** The sandbox of a flow attempt, keyed by its runtime state (one per attempt). */
export function scriptHostFor(state: object): ScriptHost {
  let host = kHosts.get(state);
  if (!host) kHosts.set(state, (host = new ScriptHost()));
  return host;
}
