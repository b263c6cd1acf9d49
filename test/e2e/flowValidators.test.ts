// The build compiles the flow schema's validators ahead of time (scripts/flowValidators.mjs →
// dist/src/flow/flowValidators.cjs), so that `boxflow test` does not spend ~0.8 s compiling a 470 KB
// schema before it runs a flow. The built file must come from the current schema and judge every
// fixture flow as the schema compiled at run time does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { sharedAjv } from '../../src/api/validate.js';
import { flowSchema } from '../../src/flow/schema.js';
import { flowSchemaHash } from '../../src/flow/validate.js';

const kBuilt = resolve('dist/src/flow/flowValidators.cjs');

test('the build ships the flow validators of the current schema, and they judge every fixture flow as the schema does', () => {
  assert.ok(existsSync(kBuilt), 'dist/src/flow/flowValidators.cjs is missing: `npm run build` (or scripts/setup.mjs) writes it');
  const built = createRequire(import.meta.url)(kBuilt) as { document: ValidateFunction; step: ValidateFunction; schemaHash: string };
  assert.equal(built.schemaHash, flowSchemaHash(), 'made from another schema: rebuild');
  const ajv = sharedAjv();
  if (!ajv.getSchema('flow')) ajv.addSchema(flowSchema, 'flow');
  const compiled = ajv.compile({ $ref: 'flow#' });
  let bad = 0;
  for (const dir of ['good', 'bad']) {
    const base = resolve('test/fixtures/flows', dir);
    for (const name of readdirSync(base).filter((n) => n.endsWith('.yaml'))) {
      let doc: unknown;
      try {
        doc = parse(readFileSync(join(base, name), 'utf8'));
      } catch {
        continue; // not YAML at all: the schema never sees it
      }
      const want = compiled(doc);
      assert.equal(built.document(doc), want, `${dir}/${name}`);
      if (!want) {
        bad++;
        assert.equal(built.document.errors?.[0]?.instancePath, compiled.errors?.[0]?.instancePath, `${dir}/${name}: the same first error`);
      }
    }
  }
  assert.ok(bad > 10, `the bad fixtures reach the schema (${bad})`);
});
