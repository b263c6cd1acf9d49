// The published schema is generated from the step table; these tests keep the shipped file
// current and check that the schema and the loader agree on what is a valid flow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { flowSchema, flowSchemaText, kBareStepNames, kStepNames, loadFlowFile } from '../../src/flow/index.js';
import { kKeyNames } from '../../src/api/schemas.js';

const kShipped = resolve('schema/flow.schema.json');

test('schema/flow.schema.json is current (run `npm run schema:write` after changing a step)', () => {
  assert.equal(readFileSync(kShipped, 'utf8'), flowSchemaText());
});

const ajv = new Ajv({ strict: false, allErrors: true });
const validate = ajv.compile(JSON.parse(readFileSync(kShipped, 'utf8')));

test('the shipped schema is draft-07 with a title and a description for every step', () => {
  assert.equal(flowSchema.$schema, 'http://json-schema.org/draft-07/schema#');
  const defs = flowSchema.definitions as Record<string, { description?: string }>;
  for (const name of kStepNames) assert.ok(defs[`${name}Arg`]?.description, `${name} has no description`);
  const step = defs.step as { anyOf: { title?: string; enum?: string[] }[] };
  assert.deepEqual(step.anyOf.slice(1).map((b) => b.title), kStepNames);
  const bare = ['closeAllApps', 'closeBrowser', 'webTerminal', 'cdpUrl', 'launchApp', 'stopApp', 'clearState', 'back', 'home', 'hideKeyboard', 'eraseText', 'waitForAnimationToEnd', 'pasteText'];
  assert.deepEqual(step.anyOf[0]!.enum, bare);
  assert.deepEqual([...kBareStepNames].sort(), [...bare].sort());
});

test('the schema accepts every good flow the loader accepts', () => {
  for (const file of ['all_steps.flow.yaml', 'minimal.flow.yaml', 'subflows/login.yaml', 'nested/deep.flow.yml']) {
    const doc = parse(readFileSync(join('test/fixtures/flows/good', file), 'utf8'));
    assert.ok(validate(doc), `${file}: ${JSON.stringify(validate.errors?.[0])}`);
  }
});

test('the schema rejects the bad flows the loader rejects for schema reasons', async () => {
  const dir = resolve('test/fixtures/flows/bad');
  // Checks a JSON Schema cannot express: cross-key rules, point ranges, regex syntax, files.
  const loaderOnly = new Set(['032', '033', '039', '040', '042', '043', '047', '051', '067', '068']);
  let checked = 0;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.flow.yaml'))) {
    const err = await loadFlowFile(join(dir, f)).then(() => undefined, (e: { code: string }) => e);
    if (err?.code !== 'FLOW_SCHEMA' || loaderOnly.has(f.slice(0, 3))) continue;
    const doc = parse(readFileSync(join(dir, f), 'utf8'));
    assert.equal(validate(doc), false, `${f} passes the published schema`);
    checked++;
  }
  assert.ok(checked >= 40, String(checked));
});

test('pressKey accepts exactly the key names of the Box API, alone or joined by +', () => {
  const ok = (pressKey: unknown) => validate({ steps: [{ pressKey }] });
  for (const k of kKeyNames) assert.ok(ok(k) && ok(`control+${k}`), k);
  assert.ok(!ok('ctrl'));
  assert.ok(!ok('control+'));
  assert.ok(!ok('Enter'));
});
