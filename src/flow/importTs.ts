// Imports a user's TypeScript/JavaScript module (flow or config) through tsx, in place: nothing is
// written next to it (a read-only checkout loads, a watcher sees nothing, a crash leaves nothing).
// One written with import/export is loaded as an ES module whatever the project's "type": compiled
// to CommonJS, its `import ... from 'boxflow'` would load a second copy of boxflow (and its HTTP
// client) beside the CLI's own, which fails ("TypeError: Illegal constructor"). Node's module hooks
// say so: the file's URL is handed to a resolve hook that answers format "module" for it, and tsx's
// hooks then compile it as an ES module.
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

export async function importTs(file: string, source?: string): Promise<unknown> {
  const { tsImport } = await import('tsx/esm/api');
  const url = pathToFileURL(file).href;
  const text = source ?? (await readFile(file, 'utf8'));
  const esmSyntax = /^\s*(import|export)\s/m.test(text) && !/\b(require\s*\(|module\.exports|__dirname|__filename)/.test(text);
  if (!esmSyntax || !/\.[tj]sx?$/.test(file) || (await packageType(dirname(file))) === 'module') return tsImport(url, import.meta.url);
  await loadAsModule(url);
  return tsImport(url, import.meta.url);
}
