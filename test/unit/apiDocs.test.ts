// docs/api.md's endpoint table is written by hand; this keeps it equal to the `endpoints` table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { endpoints } from '../../src/api/schemas.js';

const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

interface Row { name: string; method: string; path: string; status: string; source: string }

function endpointRows(): Row[] {
  const section = doc.slice(doc.indexOf('## Endpoints'), doc.indexOf('\n## ', doc.indexOf('## Endpoints') + 1));
  return section
    .split('\n')
    .filter((l) => /^\| `\w+` \| (GET|POST|PUT|PATCH|DELETE) \|/.test(l))
    .map((l) => {
      const cells = l.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
      return { name: cells[0]!.replaceAll('`', ''), method: cells[1]!, path: cells[2]!.replaceAll('`', ''), status: cells[5]!, source: cells[6]! };
    });
}

test('every endpoint appears in docs/api.md with its client method, HTTP method, path, status and source', () => {
  const rows = endpointRows();
  for (const [name, ep] of Object.entries(endpoints)) {
    const row = rows.find((r) => r.name === name);
    assert.ok(row, `docs/api.md has no row for \`${name}\` (${ep.method} ${ep.path})`);
    assert.deepEqual(
      { method: row.method, path: row.path, status: row.status, source: row.source },
      { method: ep.method, path: ep.path, status: String(ep.status), source: ep.spec ? 'spec' : 'extra' },
      `row for ${name}`,
    );
  }
});

test('docs/api.md lists no endpoint the contract does not have, and none twice', () => {
  const rows = endpointRows();
  assert.equal(rows.length, Object.keys(endpoints).length, rows.map((r) => r.name).join(', '));
  assert.equal(new Set(rows.map((r) => `${r.method} ${r.path}`)).size, rows.length);
  for (const r of rows) assert.ok(r.name in endpoints, `docs/api.md lists \`${r.name}\`, which is not in endpoints`);
});

test('the spec has 18 operations; the table marks exactly those as spec', () => {
  assert.equal(Object.values(endpoints).filter((e) => e.spec).length, 18);
});
