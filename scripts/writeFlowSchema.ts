// Writes schema/flow.schema.json from the step table (src/flow). test/unit/flowSchema.test.ts
// fails when the checked-in file is stale: run `npm run schema:write` after changing a step.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flowSchemaText } from '../src/flow/schema.js';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'schema', 'flow.schema.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, flowSchemaText());
process.stdout.write(`wrote ${out}\n`);
