// Bundles the scripts of boxflow's own pages (src/browser: the live view's live.js, the studio's
// studio.js) with esbuild into dist/browser, which the package ships and the built server serves.
// Run after `tsc` (the build, scripts/setup.mjs): the entries and options are those of
// src/browserBundles.ts, read from its build.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { browserBuildOptions } = await import(join(root, 'dist', 'src', 'browserBundles.js'));

const outdir = join(root, 'dist', 'browser');
const result = await build({ ...browserBuildOptions(root), outdir, metafile: true });
process.stdout.write(`wrote ${Object.keys(result.metafile.outputs).join(', ')}\n`);
