// How serve reads DevTools messages as bytes (src/server/devices/linux/chromium/cdpMessage.ts): a client's command
// passes with its params unread only when nothing after them can add a key; anything nested deeper
// than Chromium reads is refused with its id; the pipe's stream is split without joining a message,
// and one longer than its bound is let go with only its two ends kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerHead, eventHead, NulSplitter, readCommand, sessionTail, sliceParts } from '../../src/server/devices/linux/chromium/cdpMessage.js';

const b = (s: string) => Buffer.from(s);
const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

test("Playwright's shape passes with its params as bytes; any other shape is parsed and written again", () => {
  const msg = b('{"id":7,"method":"Runtime.evaluate","params":{"expression":"\\"}\\\\","x":[1,{}]},"sessionId":"ABC"}');
  const read = readCommand(msg);
  assert.ok(read && 'command' in read);
  assert.equal(read.command.id, 7);
  assert.equal(read.command.method, 'Runtime.evaluate');
  assert.equal(read.command.sessionId, 'ABC');
  assert.equal(read.command.params.toString(), '{"expression":"\\"}\\\\","x":[1,{}]}');
  assert.equal(read.command.params.buffer, msg.buffer, 'a view of the message, not a copy');

  const other = readCommand(b('{ "method": "Browser.getVersion", "id": 3 }'));
  assert.ok(other && 'command' in other);
  assert.deepEqual({ ...other.command, params: other.command.params.toString() }, { id: 3, method: 'Browser.getVersion', sessionId: undefined, params: '{}' });
});

test('no key can be added after the params: a message that has one is read whole, the last key winning as it does for the browser', () => {
  for (const text of [
    '{"id":1,"method":"Browser.getVersion","params":{},"sessionId":"MINE","sessionId":"VICTIM"}',
    '{"id":1,"method":"Browser.getVersion","params":{},"id":2,"sessionId":"VICTIM"}',
    '{"id":1,"method":"Browser.getVersion","params":{"a":"}"},"sessionId":"VICTIM","x":{"sessionId":"MINE"}}',
  ]) {
    const read = readCommand(b(text));
    assert.ok(read && 'command' in read, text);
    const parsed = JSON.parse(text) as { id: number; sessionId: string };
    assert.equal(read.command.sessionId, parsed.sessionId, text);
    assert.equal(read.command.id, parsed.id, text);
  }
  // Brackets that do not pair are not one object: read whole (and refused as JSON).
  assert.equal(readCommand(b('{"id":1,"method":"A.b","params":{"a":1]}')), undefined);
});

test('a command nested deeper than the browser reads is refused with its id, wherever the id is; 299 levels pass', () => {
  const refused = (text: string) => {
    const read = readCommand(b(text));
    return read && 'refused' in read ? read : undefined;
  };
  assert.equal(refused(`{"id":1,"method":"A.b","params":${deep(100_000)},"sessionId":"S"}`)?.sessionId, 'S');
  assert.equal(refused(`{"method":"A.b","params":${deep(100_000)},"id":4}`)?.id, 4);
  assert.equal(refused(`{"id":5,"method":"A.b","params":{"x":${'['.repeat(4_000_000)}}}`)?.id, 5);
  assert.equal(readCommand(b('['.repeat(4_000_000))), undefined, 'no id: nobody to answer, and not parsed');
  const fits = readCommand(b(`{"id":6,"method":"A.b","params":${deep(298)}}`));
  assert.ok(fits && 'command' in fits);
});

test('ids, methods and sessions are read from the two ends of the browser\'s messages', () => {
  assert.deepEqual(answerHead(b('{"id":12,"result":{}}')), { id: 12, idEnd: 8 });
  assert.equal(answerHead(b('{"method":"X.y","params":{}}')), undefined);
  assert.equal(answerHead(b('{"id":99999999999999999,"result":{}}')), undefined, 'not a safe integer');
  assert.equal(eventHead(b('{"method":"Target.attachedToTarget","params":{}}')), 'Target.attachedToTarget');
  assert.deepEqual(sessionTail(b('{"id":1,"result":{},"sessionId":"AB12"}')), { sessionId: 'AB12', length: 20 });
  assert.equal(sessionTail(b('{"id":1,"result":{"sessionId":"AB12"}}')), undefined, 'a nested key is not the message\'s');
});

test('the pipe is split without joining messages; one over its bound is let go with only its ends kept', () => {
  const got: string[] = [];
  const dropped: Array<{ head: string; tail: string; size: number }> = [];
  const splitter = new NulSplitter(
    (head) => (answerHead(head) ? 1_000 : 300),
    (parts, size) => got.push(Buffer.concat(sliceParts(parts, 0, size)).toString()),
    (head, tail, size) => dropped.push({ head: head.toString().slice(0, 20), tail: tail.toString().slice(-20), size }),
  );
  const small = `{"id":1,"result":{"v":"${'a'.repeat(500)}"}}`;
  const event = `{"method":"Runtime.consoleAPICalled","params":{"v":"${'b'.repeat(5_000)}"},"sessionId":"S1"}`;
  const answer = `{"id":2,"result":{"v":"${'c'.repeat(2_000)}"},"sessionId":"S2"}`;
  const stream = Buffer.from(`${small}\0${event}\0${answer}\0{"id":3,"result":{}}\0`);
  for (let i = 0; i < stream.length; i += 7) splitter.push(stream.subarray(i, i + 7));
  assert.deepEqual(got, [small, '{"id":3,"result":{}}']);
  assert.deepEqual(dropped, [
    { head: '{"method":"Runtime.c', tail: '"},"sessionId":"S1"}', size: event.length },
    { head: '{"id":2,"result":{"v', tail: '"},"sessionId":"S2"}', size: answer.length },
  ]);
});
