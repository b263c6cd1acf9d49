// The client's pure wire helpers: query encoding, Retry-After parsing, status → code, base URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeForStatus, encodeQuery, normalizeBaseUrl, retryAfterMs } from '../../src/api/client.js';

test('encodeQuery: arrays comma-joined then percent-encoded, as the reference SDK sends them', () => {
  assert.equal(encodeQuery({ pkgType: ['system', 'thirdParty'] }), '?pkgType=system%2CthirdParty');
  assert.equal(encodeQuery({ pkgType: ['thirdParty'] }), '?pkgType=thirdParty');
  assert.equal(encodeQuery({ pkgType: [] }), '');
  assert.equal(encodeQuery({ a: undefined }), '');
  assert.equal(encodeQuery(undefined), '');
  assert.equal(encodeQuery({ page: 2, wait: true, off: false, none: null }), '?page=2&wait=true&off=false&none=');
  assert.equal(encodeQuery({ q: 'a b&c=d/é' }), '?q=a%20b%26c%3Dd%2F%C3%A9');
});

test('retryAfterMs: retry-after-ms first, then Retry-After in seconds or as an HTTP date, only below 60 s', () => {
  assert.equal(retryAfterMs({ 'retry-after-ms': '250' }), 250);
  assert.equal(retryAfterMs({ 'retry-after-ms': '12.5' }), 12.5);
  assert.equal(retryAfterMs({ 'retry-after': '2' }), 2000);
  assert.equal(retryAfterMs({ 'retry-after': '0.5' }), 500);
  assert.equal(retryAfterMs({ 'retry-after-ms': '100', 'retry-after': '5' }), 100, 'the ms header wins');
  assert.equal(retryAfterMs({ 'retry-after-ms': 'soon', 'retry-after': '3' }), 3000, 'a bad ms header falls back');
  const date = new Date(Date.now() + 10_000).toUTCString();
  const fromDate = retryAfterMs({ 'retry-after': date })!;
  assert.ok(fromDate > 8_000 && fromDate <= 10_000, String(fromDate));
  assert.equal(retryAfterMs({ 'retry-after': '120' }), undefined, '60 s or more is not honoured');
  assert.equal(retryAfterMs({ 'retry-after-ms': '-1' }), undefined);
  assert.equal(retryAfterMs({ 'retry-after': 'tomorrow-ish' }), undefined);
  assert.equal(retryAfterMs({}), undefined);
});

test('codeForStatus: one stable code per status class', () => {
  const table: Array<[number, string]> = [
    [400, 'INVALID_REQUEST'], [401, 'UNAUTHORIZED'], [403, 'FORBIDDEN'], [404, 'NOT_FOUND'], [409, 'CONFLICT'],
    [422, 'UNPROCESSABLE'], [429, 'RATE_LIMITED'], [500, 'SERVER_ERROR'], [502, 'SERVER_ERROR'], [503, 'SERVER_ERROR'],
    [599, 'SERVER_ERROR'], [405, 'HTTP_ERROR'], [408, 'HTTP_ERROR'], [413, 'HTTP_ERROR'], [418, 'HTTP_ERROR'], [302, 'HTTP_ERROR'],
  ];
  for (const [status, code] of table) assert.equal(codeForStatus(status), code, String(status));
});

test('normalizeBaseUrl: must end in /api/v1; trailing slashes are dropped', () => {
  assert.equal(normalizeBaseUrl('https://gbox.ai/api/v1/'), 'https://gbox.ai/api/v1');
  assert.equal(normalizeBaseUrl('http://localhost:28080/api/v1'), 'http://localhost:28080/api/v1');
  assert.equal(normalizeBaseUrl('http://h/prefix/api/v1//'), 'http://h/prefix/api/v1');
  for (const bad of ['http://h/', 'http://h/api', 'http://h/api/v2', 'http://h/api/v1/boxes', 'gbox.ai/api/v1']) {
    assert.throws(() => normalizeBaseUrl(bad), (err: unknown) => (err as { code?: string }).code === 'INVALID_ARGUMENT', bad);
  }
});
