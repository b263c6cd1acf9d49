// The one data: URI reader (screenshots the runner decodes or stores).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeDataUri } from '../../src/api/dataUri.js';

test('a data: URI gives its bytes and media type, base64 or percent-encoded', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]);
  assert.deepEqual(decodeDataUri(`data:image/png;base64,${png.toString('base64')}`), { mime: 'image/png', bytes: png });
  assert.deepEqual(decodeDataUri(`data:image/png;name=a.png;base64,${png.toString('base64')}`).bytes, png);
  assert.deepEqual(decodeDataUri(`data:,${encodeURIComponent('a,b é')}`), { mime: 'text/plain', bytes: Buffer.from('a,b é') });
});

test('what is not a data: URI is INVALID_ARGUMENT, not garbage bytes', () => {
  assert.throws(() => decodeDataUri('data:image/png;base64'), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => decodeDataUri('https://example.com/a.png'), { code: 'INVALID_ARGUMENT' });
});
