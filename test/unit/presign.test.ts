import { test } from 'node:test';
import assert from 'node:assert/strict';
import { presign, verifyPresigned } from '../../src/server/http/secret.js';

const kSecret = 'presign-unit-secret-0123456789abcdef';

test('a URL signed to last a second is valid for that whole second, then expires', () => {
  const now = 1_700_000_000_500; // half-way through a second: rounding down would cut it to 0.5 s
  const query = new URLSearchParams(presign(kSecret, '/p', now + 1000));
  verifyPresigned(kSecret, '/p', query, now + 999);
  assert.throws(() => verifyPresigned(kSecret, '/p', query, now + 2000), { code: 'PRESIGN_EXPIRED' });
  assert.throws(() => verifyPresigned(kSecret, '/other', query, now), { code: 'PRESIGN_INVALID' });
});
