// What a box's processes can reach and how they end, as a tenant would attack it, as root with real
// Chromium and real processes: nothing a box started outlives it, however it hides (another
// session, a user namespace, a new pid every moment); serve's removal of the box never follows a
// link out of it; a box sees neither another box's processes nor their environment or command lines,
// and no command line on the machine carries a box's environment or command; a fork bomb stays in
// its box; a box in `error` still counts against its key's cap; a box has at most 8 terminals.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { BoxClient } from '../../src/api/client.js';
import type { Box } from '../../src/api/schemas.js';
import { kBoxMaxProcesses } from '../../src/server/host/boxUser.js';
import { createApiKey, startServer } from '../../src/server/index.js';
import { kMaxTerminalsPerBox } from '../../src/server/http/terminal.js';
import { rejects } from '../support/apiErrors.js';
import { liveProcesses } from '../support/procs.js';
import { tempDir } from '../support/tmp.js';
import { waitFor } from '../support/waitFor.js';

const asRoot = process.getuid?.() === 0;
const skip = !asRoot && 'needs root (box users and namespaces)';
const kSecret = 'box-ends-secret-5e0c7a91d2';
const dir = tempDir('boxflow-box-ends-');
chmodSync(dir, 0o755);
const dataDir = join(dir, 'srv');
let server: Awaited<ReturnType<typeof startServer>>;
let alice: BoxClient;
let bob: BoxClient;

before(async () => {
  server = await startServer({ port: 0, dataDir, secret: kSecret, log: () => {}, maxBoxesPerKey: 3 });
  alice = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'alice'), maxRetries: 0, timeoutMs: 60_000 });
  bob = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'bob'), maxRetries: 0, timeoutMs: 60_000 });
});
after(async () => {
  await alice?.close();
  await bob?.close();
  await server?.close();
});

function boxUid(box: Box): number {
  return statSync(join(dataDir, 'boxes', box.id, 'work')).uid;
}

test('terminating a box ends every process it started, also one that left its session and namespaces and changes pid all the time; removing the box follows none of its links', { skip }, async () => {
  // Root's files outside any box, which the box's user may read but not remove.
  const victim = join(tempDir('boxflow-victim-'), 'keep');
  mkdirSync(victim, { recursive: true });
  for (let i = 0; i < 50; i++) writeFileSync(join(victim, `f${i}`), 'root-owned');
  chmodSync(join(victim, '..'), 0o755);

  const box = await alice.createLinuxBox();
  const uid = boxUid(box);
  // Each generation swaps /work/x between a folder and a link to the victim, starts the next one in
  // a new session (and, where it can, a user and network namespace of its own), and exits.
  const hop = `if [ -L "$HOME/work/x" ]; then rm "$HOME/work/x"; mkdir "$HOME/work/x"; touch "$HOME/work/x/a" "$HOME/work/x/b"; else rm -rf "$HOME/work/x"; ln -s ${victim} "$HOME/work/x"; fi; (unshare -rn setsid sh "$0" || setsid sh "$0") >/dev/null 2>&1 & exit 0`;
  await alice.runCommand(box.id, { command: `printf '%s\\n' '${hop.replaceAll("'", `'\\''`)}' > "$HOME/work/hop.sh"` });
  const running = alice.runCommand(box.id, { command: 'setsid sh "$HOME/work/hop.sh"; sleep 600', timeout: '5m' }).catch((err: unknown) => err);
  await waitFor(() => liveProcesses().some((p) => p.uid === uid && p.cmdline.includes('hop.sh')), { what: 'the hopper runs' });

  await alice.terminateBox(box.id);
  await running;
  assert.deepEqual(liveProcesses().filter((p) => p.uid === uid), [], 'a process of the box outlived it');
  assert.equal(readdirSync(victim).length, 50, 'files outside the box were removed');
  assert.ok(!existsSync(join(dataDir, 'boxes', box.id)), 'the box directory is gone');
});

test("a box sees only its own processes; no command line on the machine holds a box's environment or its command", { skip }, async () => {
  const a = await alice.createLinuxBox();
  const b = await bob.createLinuxBox({ config: { envs: { BOB_TOKEN: 'bob-token-71c3e9' } } });
  try {
    const secretRun = bob.runCommand(b.id, { command: 'echo bob-command-4d2a >/dev/null; sleep 600314', envs: { BOB_RUN: 'bob-run-token-a90b' }, timeout: '5m' }).catch((err: unknown) => err);
    await waitFor(() => liveProcesses().some((p) => p.cmdline === 'sleep\x00600314\x00'), { what: "bob's command runs" });
    for (const p of liveProcesses()) {
      for (const s of ['bob-token-71c3e9', 'bob-run-token-a90b', 'bob-command-4d2a']) assert.ok(!p.cmdline.includes(s), `process ${p.pid} shows "${s}" on its command line: ${p.cmdline.replaceAll('\0', ' ')}`);
    }
    const seen = await alice.runCommand(a.id, { command: "for f in /proc/[0-9]*; do cat $f/cmdline $f/environ; echo; done 2>/dev/null; echo; ls /proc | grep -c '^[0-9]'" });
    for (const s of ['bob-token-71c3e9', 'bob-run-token-a90b', 'bob-command-4d2a', '600314']) assert.ok(!seen.stdout.includes(s), `alice's box read "${s}"`);
    assert.ok(Number(seen.stdout.trim().split('\n').pop()) <= 4, `alice's box sees other processes: ${seen.stdout}`);
    await bob.terminateBox(b.id);
    await secretRun;
  } finally {
    await alice.terminateBox(a.id);
  }
});

test(`a fork bomb stays in its box: one box user holds at most ${kBoxMaxProcesses} processes, and the box goes on`, { skip }, async () => {
  const box = await alice.createLinuxBox();
  try {
    const r = await alice.runCommand(box.id, { command: `i=0; while [ $i -lt ${kBoxMaxProcesses + 200} ]; do sleep 60 & i=$((i+1)); done; echo all-started`, timeout: '1m' });
    assert.notEqual(r.exitCode, 0);
    assert.doesNotMatch(r.stdout, /all-started/);
    assert.match(r.stderr, /fork/i);
    assert.deepEqual(liveProcesses().filter((p) => p.uid === boxUid(box)), [], 'what the command started ended with it');
    assert.equal((await alice.runCommand(box.id, { command: 'echo fine' })).stdout, 'fine\n');
  } finally {
    await alice.terminateBox(box.id);
  }
});

test('a box in error still counts against its key: its directory, uids and processes are still there', { skip }, async () => {
  const carol = new BoxClient({ baseUrl: server.baseUrl, apiKey: await createApiKey(kSecret, 'carol'), maxRetries: 0, timeoutMs: 60_000 });
  try {
    const boxes = [await carol.createLinuxBox(), await carol.createLinuxBox(), await carol.createLinuxBox()];
    // The tenant closes its own browser over its CDP URL: the box goes to `error`.
    const url = await carol.cdpUrl(boxes[0]!.id);
    const ws = new WebSocket(url);
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    ws.send(JSON.stringify({ id: 1, method: 'Browser.close' }));
    await waitFor(async () => (await carol.getBox(boxes[0]!.id)).status === 'error', { what: 'Browser.close to put the box in error', intervalMs: 50 });
    ws.close();
    await rejects(carol.createLinuxBox(), 429, 'TOO_MANY_BOXES');
    await carol.terminateBox(boxes[0]!.id);
    await carol.terminateBox((await carol.createLinuxBox()).id);
    for (const b of boxes.slice(1)) await carol.terminateBox(b.id);
  } finally {
    await carol.close();
  }
});

test(`a box has at most ${kMaxTerminalsPerBox} terminals: the next is refused with 429 before the upgrade, and a closed one frees its place`, { skip }, async () => {
  const box = await alice.createLinuxBox();
  const open: WebSocket[] = [];
  try {
    const { url } = await alice.webTerminalUrl(box.id);
    const wsUrl = url.replace(/^http/, 'ws');
    const connect = () =>
      new Promise<WebSocket | number>((resolve, reject) => {
        const ws = new WebSocket(wsUrl);
        ws.once('open', () => resolve(ws));
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('error', reject);
      });
    for (let i = 0; i < kMaxTerminalsPerBox; i++) {
      const ws = await connect();
      assert.ok(ws instanceof WebSocket, `terminal ${i + 1} opens`);
      open.push(ws);
    }
    assert.equal(await connect(), 429);
    const first = open.shift()!;
    await new Promise((r) => {
      first.once('close', r);
      first.close();
    });
    const again = await waitFor(
      async () => {
        const ws = await connect();
        return ws instanceof WebSocket && ws;
      },
      { what: 'a closed terminal to free its place', timeoutMs: 5_000, intervalMs: 50 },
    );
    open.push(again);
  } finally {
    for (const ws of open) ws.close();
    await alice.terminateBox(box.id);
  }
});
