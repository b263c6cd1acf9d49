// The descriptors a server process inherited: closed at its start (Node's IPC channel kept), and
// kept from its children by sealedStdio. Real processes, real descriptors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/tmp.js';

const kModule = fileURLToPath(new URL('../../src/server/host/inheritedFds.ts', import.meta.url));

/** Runs `code` (ESM, with `m` the module) in a node whose fd 40 is `file` (inherited, not close-on-exec) and whose fd 3 is an IPC channel; resolves its one message. */
function inChild(file: string, code: string): Promise<unknown> {
  const fd = openSync(file, 'r');
  const script = `const m = await import(${JSON.stringify(kModule)}); ${code}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc', ...Array<'ignore'>(36).fill('ignore'), fd] });
  return new Promise((resolve, reject) => {
    child.once('message', (msg) => {
      resolve(msg);
      child.disconnect();
    });
    child.once('exit', (code) => reject(new Error(`the child exited (${code}) without a message`)));
  });
}

test('closeInheritedFds closes what the process inherited, once, and keeps the IPC channel that Node reads', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const file = join(tempDir('boxflow-fds-'), 'inherited');
  writeFileSync(file, 'x');
  const got = await inChild(
    file,
    `const before = m.inheritableFds(); const closed = m.closeInheritedFds(); const again = m.closeInheritedFds();
     const { readlinkSync } = await import('node:fs');
     let fd40; try { fd40 = readlinkSync('/proc/self/fd/40'); } catch { fd40 = 'closed'; }
     process.send({ before, closed, again, fd40, channel: process.channel.fd });`,
  );
  const { before, closed, again, fd40, channel } = got as { before: number[]; closed: number[]; again: number[]; fd40: string; channel: number };
  assert.ok(before.includes(40), `fd 40 is inheritable at first: ${before.join(',')}`);
  assert.ok(closed.includes(40) && !closed.includes(channel), `closed ${closed.join(',')}, channel ${channel}`);
  assert.equal(fd40, 'closed');
  assert.deepEqual(again, [], 'a second server in the same process closes nothing (its terminals are the first one\'s)');
});

test("sealedStdio gives a child /dev/null where the server holds a descriptor a child would inherit", { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const file = join(tempDir('boxflow-fds-'), 'inherited');
  writeFileSync(file, 'x');
  const got = await inChild(
    file,
    `const { spawnSync } = await import('node:child_process');
     const r = spawnSync('readlink', ['/proc/self/fd/40'], { stdio: m.sealedStdio(['ignore', 'pipe', 'ignore']), encoding: 'utf8' });
     const own = (await import('node:fs')).readlinkSync('/proc/self/fd/40');
     process.send({ child: r.stdout.trim(), own });`,
  );
  assert.deepEqual(got, { child: '/dev/null', own: file });
});
