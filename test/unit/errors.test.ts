// docs/errors.md documents every code of src/errors.ts, once, in the same order, with the same
// HTTP status and exit class; and the error helpers behave as callers rely on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BoxflowError, errorCodes, exitClassOf, type ErrorCode } from '../../src/errors.js';

interface Row { code: string; http: string; exit: string; meaning: string; line: number }

function docRows(): Row[] {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const lines = doc.split('\n');
  const header = lines.findIndex((l) => /^\|\s*code\s*\|\s*HTTP\s*\|\s*exit\s*\|\s*meaning\s*\|\s*$/.test(l));
  assert.ok(header !== -1, 'docs/errors.md has a table `| code | HTTP | exit | meaning |`');
  const rows: Row[] = [];
  for (let i = header + 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
    const cells = lines[i]!.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    assert.equal(cells.length, 4, `docs/errors.md:${i + 1} has ${cells.length} cells: ${lines[i]}`);
    rows.push({ code: cells[0]!.replaceAll('`', ''), http: cells[1]!, exit: cells[2]!, meaning: cells[3]!, line: i + 1 });
  }
  return rows;
}

const codes = Object.keys(errorCodes) as ErrorCode[];

test('every code in src/errors.ts has a row in docs/errors.md', () => {
  const documented = new Set(docRows().map((r) => r.code));
  const missing = codes.filter((c) => !documented.has(c));
  assert.deepEqual(missing, [], `add rows to docs/errors.md for: ${missing.join(', ')}`);
});

test('every row of docs/errors.md is a code of src/errors.ts, listed once', () => {
  const rows = docRows();
  const unknown = rows.filter((r) => !(r.code in errorCodes)).map((r) => `docs/errors.md:${r.line} ${r.code}`);
  assert.deepEqual(unknown, [], 'rows for codes that src/errors.ts does not have');
  const seen = new Set<string>();
  const twice = rows.filter((r) => (seen.has(r.code) ? true : (seen.add(r.code), false))).map((r) => r.code);
  assert.deepEqual(twice, [], 'codes documented twice');
});

test('the rows follow the order of errorCodes', () => {
  assert.deepEqual(docRows().map((r) => r.code), codes);
});

test('each row states the code\'s HTTP status, exit class and a meaning', () => {
  for (const r of docRows()) {
    const info = errorCodes[r.code as ErrorCode] as { status?: number; exit: number; summary: string } | undefined;
    if (!info) continue;
    assert.equal(r.http, info.status === undefined ? '—' : String(info.status), `HTTP of ${r.code} (docs/errors.md:${r.line})`);
    assert.equal(r.exit, String(info.exit), `exit of ${r.code} (docs/errors.md:${r.line})`);
    assert.ok(r.meaning.length > 0, `meaning of ${r.code}`);
  }
});

test('exit classes: bad input is 2, a failed assertion 1, and an unknown code counts as infrastructure (3)', () => {
  assert.equal(exitClassOf('FLOW_SCHEMA'), 2);
  assert.equal(exitClassOf('ASSERT_LAYOUT'), 1);
  assert.equal(exitClassOf('NO_SUCH_CODE'), 3);
});

test('BoxflowError: code, status, cause, details, and a brand that survives package copies', () => {
  const cause = new Error('low level');
  const err = new BoxflowError('NOT_FOUND', 'no such thing', { cause, details: { id: 1 } });
  assert.equal(err.code, 'NOT_FOUND');
  assert.equal(err.status, 404);
  assert.equal(err.cause, cause);
  assert.deepEqual(err.details, { id: 1 });
  assert.equal(new BoxflowError('TIMEOUT', 'x').status, undefined);
  assert.ok(BoxflowError.is(err));
  assert.ok(!BoxflowError.is(new Error('x')));
  assert.ok(!BoxflowError.is({ code: 'NOT_FOUND' }));
  assert.ok(BoxflowError.is({ [Symbol.for('boxflow.error')]: true }), 'matched by the Symbol.for brand, not instanceof');
});
