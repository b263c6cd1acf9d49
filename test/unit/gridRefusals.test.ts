// Every endpoint a grid box refuses (the grid kind's declaration, src/server/devices/kinds.ts) is named where a
// user looks for it: the grid section of docs/scaling.md, the GRID_UNSUPPORTED row of docs/errors.md
// and the code's summary in src/errors.ts. An endpoint is named as `METHOD path`, with the path under
// /boxes/{boxId} written from there (`POST /commands`); a refusal of some requests only also names them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { endpoints, type EndpointName } from '../../src/api/schemas.js';
import { errorCodes } from '../../src/errors.js';
import { kGridKind, refusedEndpoints } from '../../src/server/devices/index.js';

/** What a grid box refuses because it runs on a grid node (what it shares with a local box has other codes). */
const refusals = refusedEndpoints(kGridKind).filter(([, r]) => r.code === 'GRID_UNSUPPORTED');

/** How the docs name an endpoint. */
function named(name: EndpointName): string {
  const { method, path } = endpoints[name];
  return `${method} ${path.replace(/^\/boxes\/\{boxId\}(?=\/)/, '')}`;
}

const doc = (file: string) => readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8');

/** The text from the heading `heading` to the next heading of its level or above. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start !== -1, `no heading "${heading}"`);
  const level = heading.split(' ')[0]!.length;
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level}} `));
  return end === -1 ? rest : rest.slice(0, end);
}

const places: Record<string, () => string> = {
  'docs/scaling.md, section "Linux boxes on a Selenium Grid"': () => section(doc('scaling.md'), '### Linux boxes on a Selenium Grid'),
  'docs/errors.md, row GRID_UNSUPPORTED': () => doc('errors.md').split('\n').find((l) => l.startsWith('| GRID_UNSUPPORTED |')) ?? '',
  'src/errors.ts, summary of GRID_UNSUPPORTED': () => errorCodes.GRID_UNSUPPORTED.summary,
};

test('the table refuses the endpoints that need the box\'s own machine: commands, run-code, every fs endpoint, the terminal, file: URLs, envs and working dir', () => {
  const all = new Set(refusals.map(([name]) => name));
  for (const name of Object.keys(endpoints) as EndpointName[]) {
    if (endpoints[name].path.includes('/fs')) assert.ok(all.has(name), `${named(name)} is a file endpoint: a grid box has no files here`);
  }
  for (const name of ['runCommand', 'runCode', 'websocketUrl', 'webTerminalUrl', 'openTab', 'updateTab', 'createLinuxBox'] as const) assert.ok(all.has(name), name);
});

for (const [where, read] of Object.entries(places)) {
  test(`${where} names every endpoint a grid box refuses`, () => {
    const text = read().replaceAll('`', '');
    const missing = refusals.filter(([name]) => !text.includes(named(name))).map(([name]) => named(name));
    assert.deepEqual(missing, [], `${where} does not name: ${missing.join(', ')}`);
    const conditions = [...new Set(refusals.flatMap(([, r]) => (r.only ? [r.only.replaceAll('`', '')] : [])))];
    const unsaid = conditions.filter((c) => !text.includes(c));
    assert.deepEqual(unsaid, [], `${where} does not say which requests only are refused: ${unsaid.join(', ')}`);
  });
}
