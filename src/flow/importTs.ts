// Imports a user's TypeScript/JavaScript module (flow or config) through tsx. One written with
// import/export is loaded as an ES module whatever the project's "type": compiled to CommonJS, its
// `import ... from 'boxflow'` would load a second copy of boxflow (and its HTTP client) beside the
// CLI's own, which fails ("TypeError: Illegal constructor"). So such a module is imported from a
// sibling .mts/.mjs copy (same folder: its relative imports still resolve), removed right after;
// stack locations in the copy are mapped back to the file (originalFile).
import { readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const kCopies = new Map<string, string>();
let counter = 0;

/** The user's file for a path that may be one of the copies made here. */
export function originalFile(file: string): string {
  return kCopies.get(file) ?? file;
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
  const text = source ?? (await readFile(file, 'utf8'));
  const esmSyntax = /^\s*(import|export)\s/m.test(text) && !/\b(require\s*\(|module\.exports|__dirname|__filename)/.test(text);
  if (!esmSyntax || !/\.[tj]sx?$/.test(file) || (await packageType(dirname(file))) === 'module') return tsImport(pathToFileURL(file).href, import.meta.url);
  const ext = /\.tsx?$/.test(file) ? 'mts' : 'mjs';
  const copy = join(dirname(file), `.${basename(file).replace(/\.[tj]sx?$/, '')}.boxflow-${process.pid}-${++counter}.${ext}`);
  kCopies.set(copy, file);
  await writeFile(copy, text);
  try {
    return await tsImport(pathToFileURL(copy).href, import.meta.url);
  } finally {
    await rm(copy, { force: true });
  }
}
