// The one assertion for a refused Box API call: the client's BoxApiError with this status and code.
import assert from 'node:assert/strict';
import { BoxApiError } from '../../src/api/client.js';

export async function rejects(promise: Promise<unknown>, status: number, code: string): Promise<BoxApiError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof BoxApiError, String(err));
    assert.equal(err.httpStatus, status, err.message);
    assert.equal(err.serverCode, code, err.message);
    return err;
  }
  assert.fail(`expected ${status} ${code}`);
}
