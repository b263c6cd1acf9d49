// The flow's JavaScript sandbox (evalScript, runScript, assertTrue and `${expression}`): one
// node:vm context per flow attempt, so `output` is shared by every step of the flow and its
// runFlows. node:vm is not a security boundary; the scripts are the flow author's own, and
// the point of the context is a clean global scope with a time limit, not isolation from them.
import vm from 'node:vm';
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { BoxflowError } from '../errors.js';
import { interpolate } from '../flow/index.js';

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
globalThis.http = (() => {
  const request = (url, options) => {
    const o = options || {};
    if (o.multipartForm !== undefined) throw new Error('http: multipartForm is not supported by boxflow; send the body as a string');
    const body = o.body === undefined || o.body === null ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    const answer = JSON.parse(__http(JSON.stringify({ url: String(url), method: String(o.method || 'GET').toUpperCase(), headers: o.headers || {}, body })));
    if (answer.error) throw new Error(answer.error);
    return answer;
  };
  const as = (method) => (url, options) => request(url, { ...(options || {}), method });
  return { request, get: as('GET'), post: as('POST'), put: as('PUT'), delete: as('DELETE') };
})();
globalThis.faker = (() => {
  const int = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
  const pick = (list) => list[int(0, list.length - 1)];
  const digits = (n) => Array.from({ length: n }, (_, i) => String(int(i === 0 ? 1 : 0, 9))).join('');
  const first = ['Alice', 'Bruno', 'Chloe', 'David', 'Emma', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Keiko', 'Liam', 'Maya', 'Noah', 'Olga', 'Pablo'];
  const last = ['Martin', 'Smith', 'Garcia', 'Nguyen', 'Kowalski', 'Rossi', 'Schmidt', 'Tanaka', 'Dubois', 'Silva', 'Olsen', 'Haddad'];
  const words = ['alpha', 'bravo', 'river', 'stone', 'cloud', 'amber', 'maple', 'orbit', 'pixel', 'quartz', 'delta', 'ember', 'lumen', 'sierra', 'tango', 'velvet'];
  const cities = ['Lisbon', 'Osaka', 'Denver', 'Lyon', 'Porto', 'Austin', 'Bergen', 'Cork', 'Graz', 'Tartu'];
  const countries = ['Portugal', 'Japan', 'Canada', 'France', 'Norway', 'Ireland', 'Austria', 'Estonia', 'Chile', 'Kenya'];
  const colors = ['red', 'green', 'blue', 'yellow', 'purple', 'orange', 'teal', 'black', 'white', 'grey'];
  const user = () => (pick(first) + '.' + pick(last)).toLowerCase() + int(1, 999);
  const sentence = (n) => { const w = Array.from({ length: n || int(4, 9) }, () => pick(words)).join(' '); return w[0].toUpperCase() + w.slice(1) + '.'; };
  const name = { firstName: () => pick(first), lastName: () => pick(last), fullName: () => pick(first) + ' ' + pick(last), name: () => pick(first) + ' ' + pick(last), username: user };
  const groups = {
    name,
    internet: {
      emailAddress: () => user() + '@example.com', safeEmailAddress: () => user() + '@example.com', username: user,
      password: (min, max) => { const n = int(min || 8, max || (min ? min + 8 : 16)); return Array.from({ length: n }, () => pick([...'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'])).join(''); },
      domainName: () => pick(words) + '.example.com', url: () => 'https://' + pick(words) + '.example.com/', uuid: () => 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'.replace(/[xy]/g, (c) => (c === 'x' ? int(0, 15) : int(8, 11)).toString(16)),
    },
    number: {
      numberBetween: (lo, hi) => int(Number(lo), Number(hi) - 1), digits: (n) => digits(n), digit: () => String(int(0, 9)),
      randomDigit: () => int(0, 9), randomDigitNotZero: () => int(1, 9), randomNumber: () => int(0, 999999999),
    },
    lorem: {
      word: () => pick(words), words: (n) => Array.from({ length: n || 3 }, () => pick(words)), sentence: (n) => sentence(n),
      paragraph: () => Array.from({ length: int(3, 5) }, () => sentence()).join(' '), characters: (n) => Array.from({ length: n || 16 }, () => pick([...'abcdefghijklmnopqrstuvwxyz0123456789'])).join(''),
    },
    address: {
      city: () => pick(cities), country: () => pick(countries), zipCode: () => digits(5), streetAddress: () => int(1, 999) + ' ' + pick(words)[0].toUpperCase() + pick(words).slice(1) + ' Street',
      fullAddress: () => int(1, 999) + ' ' + pick(last) + ' Street, ' + pick(cities) + ', ' + pick(countries),
    },
    phoneNumber: { phoneNumber: () => '+1 555 ' + digits(3) + ' ' + digits(4), cellPhone: () => '+1 555 ' + digits(3) + ' ' + digits(4) },
    color: { name: () => pick(colors) },
    company: { name: () => pick(last) + ' ' + pick(['Inc', 'LLC', 'Group', 'and Sons']) },
    commerce: { productName: () => pick(['Small', 'Sleek', 'Rustic', 'Ergonomic']) + ' ' + pick(['Steel', 'Wooden', 'Cotton']) + ' ' + pick(['Chair', 'Lamp', 'Shoes', 'Table']) },
  };
  const list = (g) => Object.keys(g).join(', ');
  return new Proxy({}, {
    get: (_, group) => {
      if (typeof group !== 'string') return undefined;
      const g = groups[group];
      if (!g) throw new Error('faker.' + group + '() is not supported by boxflow (it has ' + list(groups) + ')');
      return () => new Proxy(g, {
        get: (t, m) => {
          if (typeof m !== 'string') return undefined;
          if (!Object.hasOwn(t, m)) throw new Error('faker.' + group + '().' + m + '() is not supported by boxflow (' + group + '() has ' + list(t) + ')');
          return t[m];
        },
      });
    },
  });
})();
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

// Maestro's http calls are synchronous: a worker thread fetches while the script's thread waits.
const kHttpWorker = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', async ({ flag, port, url, method, headers, body, timeoutMs }) => {
  let answer;
  try {
    const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    answer = { ok: res.ok, status: res.status, body: await res.text(), headers: Object.fromEntries(res.headers) };
  } catch (err) {
    const why = err && err.name === 'TimeoutError' ? 'no answer within ' + timeoutMs + ' ms' : String((err && err.cause && err.cause.message) || (err && err.message) || err);
    answer = { error: 'http ' + method + ' ' + url + ': ' + why };
  }
  port.postMessage(answer);
  const f = new Int32Array(flag);
  Atomics.store(f, 0, 1);
  Atomics.notify(f, 0);
});
`;
let httpWorker: Worker | undefined;

/** One HTTP exchange, blocking until the answer or `timeoutMs`; the answer (or `{error}`) as JSON. */
function httpSync(requestJson: string, timeoutMs: number): string {
  const request = JSON.parse(requestJson) as { url: string; method: string };
  if (timeoutMs <= 0) return JSON.stringify({ error: `http ${request.method} ${request.url}: the script's time limit is used up` });
  if (!httpWorker) {
    httpWorker = new Worker(kHttpWorker, { eval: true });
    httpWorker.unref();
  }
  const flag = new SharedArrayBuffer(4);
  const { port1, port2 } = new MessageChannel();
  httpWorker.postMessage({ ...JSON.parse(requestJson), flag, port: port2, timeoutMs }, [port2]);
  Atomics.wait(new Int32Array(flag), 0, 0, timeoutMs + 1_000);
  const answer = receiveMessageOnPort(port1);
  port1.close();
  return JSON.stringify(answer?.message ?? { error: `http ${request.method} ${request.url}: no answer within ${timeoutMs} ms` });
}

/** As Maestro: the shell's non-empty MAESTRO_* variables are script globals (flow variables win). */
function maestroShellVars(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('MAESTRO_') && !!e[1]));
}

export class ScriptHost {
  #context = vm.createContext({}, { codeGeneration: { strings: true, wasm: false } });
  /** performance.now() by which the running script must end. */
  #deadline = 0;
  copiedText: string | undefined;

  constructor() {
    // Strings in, a string out: no object of this realm reaches the scripts.
    this.#context.__http = (request: string) => httpSync(String(request), Math.floor(this.#deadline - performance.now()));
    vm.runInContext(kPrelude, this.#context);
  }

  /** Runs `code`; the value of its last expression, as text (undefined → "undefined", objects as JSON). Console lines go to `logs`. */
  run(code: string, globals: ScriptGlobals, where: string, logs?: string[]): string {
    // Globals cross into the context as JSON: no object of this realm (and its Function) leaks in.
    const env = JSON.stringify({ ...maestroShellVars(), ...globals.vars, maestro: { copiedText: this.copiedText ?? '', platform: globals.platform } });
    const source = `__logs.length = 0; __show(__run(${JSON.stringify(code)}, JSON.parse(${JSON.stringify(env)})))`;
    this.#deadline = performance.now() + kTimeLimitMs;
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

/** Where a flow attempt keeps its sandbox: its FlowState (steps/types.ts). */
export interface ScriptState {
  script?: ScriptHost;
}

/** The sandbox of a flow attempt (one per attempt, kept in its state). */
export function scriptHostFor(state: ScriptState): ScriptHost {
  return (state.script ??= new ScriptHost());
}

/**
 * `base` plus `env`, defined in order as Maestro defines variables: a value's `${...}` reads the
 * variables defined before it, so `USER: ${USER || 'guest'}` keeps a USER given with -e.
 */
export function defineVariables(base: Record<string, string>, env: Record<string, string>, state: ScriptState, boxType: 'linux' | 'android'): Record<string, string> {
  const vars = { ...base };
  const platform = boxType === 'linux' ? 'web' : 'android';
  for (const [name, value] of Object.entries(env)) {
    vars[name] = value.includes('${') ? interpolate(value, vars, process.env, (expr) => scriptHostFor(state).run(expr, { vars, platform }, `${name}: \${${expr}}`)) : value;
  }
  return vars;
}
