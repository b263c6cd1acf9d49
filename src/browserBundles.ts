// The scripts of boxflow's own pages (the live view, the studio): TypeScript in src/browser, bundled
// by esbuild. The build (scripts/browserBundles.mjs) writes them to dist/browser, which the package
// ships and the built server reads. Run from source (through tsx), they are bundled from src/browser
// on first use, in memory, so that they are never older than the code; esbuild is a devDependency,
// there only in a checkout.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** Each script's entry module, from the repository's root; the name is its file's (`live` → live.js). */
export const kBrowserBundles = { live: 'src/browser/liveView.ts', studio: 'src/browser/studio/main.ts' } as const;
export type BrowserBundle = keyof typeof kBrowserBundles;

/** esbuild's options for the scripts, from the repository's root `root`; the build adds where they go. */
export function browserBuildOptions(root: string) {
  return {
    absWorkingDir: root,
    entryPoints: { ...kBrowserBundles },
    tsconfig: 'src/browser/tsconfig.json',
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    charset: 'utf8',
    logLevel: 'warning',
  } satisfies import('esbuild').BuildOptions;
}

const fromSource = import.meta.url.endsWith('.ts');
const scripts = new Map<BrowserBundle, string>();

/** The script as the browser gets it (read or bundled once per process). */
export function browserScript(name: BrowserBundle): string {
  let text = scripts.get(name);
  if (text === undefined) {
    text = fromSource ? bundleFromSource(name) : readBuilt(name);
    scripts.set(name, text);
  }
  return text;
}

function readBuilt(name: BrowserBundle): string {
  const file = new URL(`../browser/${name}.js`, import.meta.url);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${fileURLToPath(file)} is missing (it is made by \`npm run build\`): ${(err as Error).message}`);
  }
}

function bundleFromSource(name: BrowserBundle): string {
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const options = browserBuildOptions(fileURLToPath(new URL('..', import.meta.url)));
  const result = esbuild.buildSync({ ...options, entryPoints: [options.entryPoints[name]], write: false });
  return result.outputFiles[0]!.text;
}
