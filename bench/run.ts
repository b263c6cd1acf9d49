// `npm run bench -- <name>` runs bench/<name>.ts. Each bench ends with one JSON line per metric:
// {"bench", "metric", "unit", "ours", "baseline", "ratio"}.
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join, dirname } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const name = process.argv[2];
const names = readdirSync(here).filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_')).map((f) => f.slice(0, -3));
if (!name || !existsSync(join(here, `${name}.ts`))) {
  process.stderr.write(`usage: npm run bench -- <name>\nbenches: ${names.join(', ')}\n`);
  process.exit(2);
}
await import(pathToFileURL(join(here, `${name}.ts`)).href);
