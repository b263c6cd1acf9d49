// Requests that try to leave the folder a file server serves, sent as raw request targets (fetch
// would normalise `..` away before sending): `..` plain, percent-encoded, as an encoded slash, in
// the middle of a path, an absolute path, and what a symbolic link inside the folder points at.
import assert from 'node:assert/strict';
import { rawRequest } from './rawHttp.js';

/** Request targets under `prefix` (ending in `/`) that name `name`, a file in the served folder's parent. */
export function escapePaths(prefix: string, name: string): string[] {
  return [
    `${prefix}../${name}`,
    `${prefix}..%2f${name}`,
    `${prefix}%2e%2e/${name}`,
    `${prefix}%2e%2e%2f${name}`,
    `${prefix}sub/../../${name}`,
    `${prefix}sub/..%2f..%2f${name}`,
    `${prefix}%2fetc%2fpasswd`,
    `${prefix}/etc/passwd`,
  ];
}

/** Each of `paths` is refused as `{ code, message }` (403 FORBIDDEN or 404 NOT_FOUND) and shows nothing of `secret`. */
export async function assertRefused(baseUrl: string, paths: string[], secret: string): Promise<void> {
  for (const path of paths) {
    const res = await rawRequest(baseUrl, { method: 'GET', path });
    assert.ok(!res.text.includes(secret), `${path} must not show the file outside`);
    assert.ok(res.status === 403 || res.status === 404, `${path}: ${res.status} ${res.text}`);
    const body = JSON.parse(res.text) as { code: string; message: string };
    assert.equal(body.code, res.status === 403 ? 'FORBIDDEN' : 'NOT_FOUND', `${path}: ${res.text}`);
    assert.equal(typeof body.message, 'string');
  }
}
