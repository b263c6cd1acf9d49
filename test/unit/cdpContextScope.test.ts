// What serve's CDP proxy does to a tenant's commands: "the browser's" cookies, permissions and new
// tabs are the box's browser context's (src/server/http/cdpProxy.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContextScope } from '../../src/server/http/cdpProxy.js';

const msg = (o: unknown) => Buffer.from(JSON.stringify(o));
const sent = (scope: ContextScope, o: unknown) => JSON.parse(Buffer.from(scope.command(msg(o)) as Buffer).toString('utf8')) as { params?: Record<string, unknown> };

test("a browser-level command that names no context gets the box's; one that names a context keeps it", () => {
  const scope = new ContextScope('CTX');
  assert.equal(sent(scope, { id: 1, method: 'Target.createTarget', params: { url: 'about:blank' } }).params?.browserContextId, 'CTX');
  assert.equal(sent(scope, { id: 2, method: 'Storage.setCookies', params: { cookies: [] } }).params?.browserContextId, 'CTX');
  assert.equal(sent(scope, { id: 3, method: 'Browser.grantPermissions' }).params?.browserContextId, 'CTX', 'no params at all');
  assert.equal(sent(scope, { id: 4, method: 'Target.createTarget', params: { url: 'x', browserContextId: 'MINE' } }).params?.browserContextId, 'MINE');
  // Where downloads go is the box's to say: Playwright's connect asks for them in a folder of its own.
  assert.equal(sent(scope, { id: 5, method: 'Browser.setDownloadBehavior', params: { behavior: 'allowAndName' } }).params?.browserContextId, undefined);
  assert.equal(sent(scope, { id: 6, method: 'Browser.getVersion' }).params, undefined);
});

test("a page's commands pass as they are; a session of the browser target is scoped once its attach is answered", () => {
  const scope = new ContextScope('CTX');
  const page = msg({ id: 7, sessionId: 'PAGE', method: 'Target.createTarget', params: { url: 'x' } });
  assert.equal(scope.command(page), page, 'the same bytes, unread');
  const toBrowser = { id: 9, sessionId: 'BROWSER', method: 'Browser.setPermission', params: { permission: { name: 'camera' }, setting: 'denied' } };
  assert.equal(sent(scope, toBrowser).params?.browserContextId, undefined, 'an unknown session is not the browser');
  scope.command(msg({ id: 8, method: 'Target.attachToBrowserTarget' }));
  scope.answer(msg({ id: 8, result: { sessionId: 'BROWSER' } }));
  assert.equal(sent(scope, toBrowser).params?.browserContextId, 'CTX');
  assert.equal(scope.command(page), page, 'still unread');
});

test('what is not a small JSON command passes unread', () => {
  const scope = new ContextScope('CTX');
  for (const data of [Buffer.from('not json'), Buffer.from('[1,2]'), msg({ id: 1, method: 'Target.createTarget', params: { url: `data:text/html,${'x'.repeat(5 * 1024 * 1024)}` } })]) {
    assert.equal(scope.command(data), data);
  }
});
