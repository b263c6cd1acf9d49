// Imports a user's TypeScript/JavaScript module (flow or config) through tsx, in place: nothing is
// written next to it (a read-only checkout loads, a watcher sees nothing, a crash leaves nothing).
// One written with import/export is loaded as an ES module whatever the project's "type": compiled
// to CommonJS, its `import ... from 'boxflow'` would load a second copy of boxflow (and its HTTP
// client) beside the CLI's own, which fails ("TypeError: Illegal constructor"). Node's module hooks
// say so: the file's URL is handed to a resolve hook that answers format "module" for it, and tsx's
// hooks then compile it as an ES module.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';

/**
 * The hooks, as a data: URL (they run on the loader's thread, from source and from dist alike). The
 * URLs to load as ES modules arrive on a port, each acknowledged once the hook knows it.
 */
const kHooks = `const esm = new Set();
export function initialize({ port }) {
  port.on('message', ({ id, url }) => {
    esm.add(url);
    port.postMessage(id);
  });
}
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  return esm.has(resolved.url.split('?')[0]) ? { ...resolved, format: 'module' } : resolved;
}
`;

/**
 * A resolve hook that runs before a tsx scope's own: boxflow's modules (its package's folder, what
 * `import ... from 'boxflow'` reaches) are resolved out of the scope, to the copy the CLI itself has
 * loaded, so that a flow's helpers are boxflow's own and no second copy is evaluated for each scope.
 */
const kShareHooks = `let root;
export function initialize(data) { root = data.root; }
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!root || !resolved.url.startsWith(root) || !resolved.url.includes('tsx-namespace=')) return resolved;
  const url = new URL(resolved.url);
  url.searchParams.delete('tsx-namespace');
  return { ...resolved, url: url.href };
}
`;

/** The folder of the boxflow package's modules ('boxflow' resolves into it), if it resolves. */
function boxflowRoot(): string | undefined {
  try {
    const entry = import.meta.resolve('boxflow');
    return entry.startsWith('file:') ? new URL('..', new URL('.', entry)).href : undefined;
  } catch {
    return undefined;
  }
}

let hooks: { port: MessagePort; waiting: Map<number, () => void>; next: number } | undefined;

/** Makes the resolve hook answer format "module" for `url` (a file: URL without query). */
async function loadAsModule(url: string): Promise<void> {
  if (!hooks) {
    const { port1, port2 } = new MessageChannel();
    register(`data:text/javascript,${encodeURIComponent(kHooks)}`, { data: { port: port2 }, transferList: [port2] });
    const waiting = new Map<number, () => void>();
    port1.on('message', (id: number) => {
      waiting.get(id)?.();
      waiting.delete(id);
      if (!waiting.size) port1.unref();
    });
    port1.unref();
    hooks = { port: port1, waiting, next: 0 };
  }
  const { port, waiting } = hooks;
  const id = ++hooks.next;
  const known = new Promise<void>((resolve) => waiting.set(id, resolve));
  port.ref(); // held until acknowledged, so the process does not end while it waits
  port.postMessage({ id, url });
  await known;
}

/** The "type" of the package.json nearest to `dir` (CommonJS when there is none). */
async function packageType(dir: string): Promise<string | undefined> {
  for (let d = dir; ; d = dirname(d)) {
    const text = await readFile(join(d, 'package.json'), 'utf8').catch(() => undefined);
    if (text !== undefined) {
      try {
        return (JSON.parse(text) as { type?: string }).type;
      } catch {
        return undefined;
      }
    }
    if (dirname(d) === d) return undefined;
  }
}

/**
 * One registration of tsx's hooks, under a namespace of its own: the modules imported through it
 * are evaluated once for all its imports ('boxflow' itself, a helper two flows share). tsx's
 * tsImport registers new hooks and evaluates every module again on each call: about 0.45 s a flow.
 * A scope is fresh: a file changed since another scope loaded it is read anew.
 */
export class TsScope {
  #api: Promise<{ import: (specifier: string, parent: string) => Promise<unknown> }> | undefined;

  import(url: string): Promise<unknown> {
    this.#api ??= import('tsx/esm/api').then(({ register: registerTsx }) => {
      const api = registerTsx({ namespace: randomUUID() });
      const root = boxflowRoot();
      if (root) register(`data:text/javascript,${encodeURIComponent(kShareHooks)}`, { data: { root } });
      return api;
    });
    return this.#api.then((api) => api.import(url, import.meta.url));
  }
}

export async function importTs(file: string, source?: string, scope: TsScope = new TsScope()): Promise<unknown> {
  const url = pathToFileURL(file).href;
  const text = source ?? (await readFile(file, 'utf8'));
  const esmSyntax = /^\s*(import|export)\s/m.test(text) && !/\b(require\s*\(|module\.exports|__dirname|__filename)/.test(text);
  if (!esmSyntax || !/\.[tj]sx?$/.test(file)) {
    const { tsImport } = await import('tsx/esm/api');
    return tsImport(url, import.meta.url);
  }
  if ((await packageType(dirname(file))) !== 'module') await loadAsModule(url);
  return scope.import(url);
}
