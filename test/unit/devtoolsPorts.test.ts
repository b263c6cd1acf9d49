// Boxes cannot reach the DevTools port range (see process.ts). A server listening on port 0 (an app
// under test, a test's own server) must never get a port there, or boxes could not open it: the
// range stays outside the kernel's ephemeral ports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { kDevtoolsPorts } from '../../src/server/chromium/process.js';

test('the DevTools port range lies outside the ephemeral ports that port 0 hands out', () => {
  const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number) as [number, number];
  assert.ok(kDevtoolsPorts.last < low || kDevtoolsPorts.first > high, `${kDevtoolsPorts.first}-${kDevtoolsPorts.last} overlaps ${low}-${high}`);
  assert.equal(kDevtoolsPorts.first % 100, 0);
  assert.equal((kDevtoolsPorts.last + 1) % 100, 0);
});
