// boxflow studio on an Android box (boxflow serve with the fake adb server's device): the layout with
// its bounds, the selector of an element (its resource id), a tap that runs on the device and is added
// to a boxflow flow and to a Maestro flow (tapOn), and a run of the file. The page itself is driven in
// test/e2e/studio.spec.ts on a Linux box.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Box } from '../../src/api/schemas.js';
import { resolveConfig } from '../../src/cli/config.js';
import { startStudioServer, type StudioServer } from '../../src/studio/server.js';
import { useAndroidServer } from '../support/localServer.js';

const kSerial = 'emulator-5554';
const local = useAndroidServer('studio', [kSerial]);
const dir = mkdtempSync(join(tmpdir(), 'boxflow-studio-android-'));
let box: Box | undefined;

after(async () => {
  if (box) await local.client.terminateBox(box.id).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

async function studioOn(file: string): Promise<{ studio: StudioServer; api: <T>(path: string, body?: unknown) => Promise<T> }> {
  const r = resolveConfig({ paths: [] }, {}, undefined, dir);
  box ??= await local.client.createAndroidBox({});
  const studio = await startStudioServer({ file, client: local.client, box: { id: box.id, type: 'android' }, options: { ...r.options, outputDir: join(dir, `out-${Date.now()}`), screenshots: { phases: ['before', 'after'], delay: '0ms' } }, secrets: [local.key] });
  const token = new URL(studio.url).searchParams.get('token')!;
  const api = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(new URL(path, studio.url), { method: body === undefined ? 'GET' : 'POST', headers: { 'x-studio-token': token, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const data = (await res.json()) as T;
    assert.ok(res.ok, `${path}: ${res.status} ${JSON.stringify(data)}`);
    return data;
  };
  return { studio, api };
}

interface TreeNode { i: number; tag: string; id: string; text: string; b: number[] | null; v: boolean }

test('an Android box: the layout has bounds, the element\'s selector is its resource id, a tap runs on the device and is added to the flow', async () => {
  const file = join(dir, 'profile.flow.yaml');
  const { studio, api } = await studioOn(file);
  try {
    const state = await api<{ dialect: string; box: { type: string }; live: { websocketUrl: string } | null; exists: boolean }>('/api/state');
    assert.equal(state.dialect, 'boxflow');
    assert.equal(state.box.type, 'android');
    assert.equal(state.exists, false);
    assert.match(state.live!.websocketUrl, /\/live-view\/.+\/raw\?exp=\d+&sig=/);
    const tree = await api<{ version: number; format: string; nodes: TreeNode[] }>('/api/tree');
    assert.equal(tree.format, 'android');
    const edit = tree.nodes.find((n) => n.id.endsWith('/edit_info'))!;
    assert.ok(edit.b, 'bounds');
    // The element under its centre is that button.
    const at = await api<{ node: number }>('/api/at', { x: (edit.b![0]! + edit.b![2]!) / 2, y: (edit.b![1]! + edit.b![3]!) / 2 });
    assert.equal(at.node, edit.i);
    const ins = await api<{ best: { value: unknown; count: number; unique: boolean } }>('/api/inspect', { version: tree.version, node: edit.i });
    assert.deepEqual(ins.best, { value: { id: 'edit_info' }, kind: 'id', count: 1, unique: true });

    const device = local.fake.device(kSerial);
    const before = device.services.length;
    const act = await api<{ ok: boolean; steps: { status: string; actionId?: string; images: { name: string }[] }[] }>('/api/act', { version: tree.version, node: edit.i, action: 'tap' });
    assert.equal(act.ok, true, JSON.stringify(act));
    assert.match(act.steps[0]!.actionId!, /\S/);
    assert.deepEqual(act.steps[0]!.images.map((i) => i.name).sort(), ['after', 'before']);
    assert.ok(device.services.slice(before).some((l) => /input (tap|swipe) /.test(l)), 'the device was tapped');
    assert.equal(readFileSync(file, 'utf8'), 'name: "profile"\nbox: android\nsteps:\n  - tap: { id: edit_info }\n');

    // An assertion from the element's menu, then the whole file runs green.
    await api('/api/act', { version: tree.version, node: edit.i, action: 'assertVisible' });
    const run = await api<{ status: string; steps: { status: string }[] }>('/api/run', {});
    assert.equal(run.status, 'passed');
    assert.deepEqual(run.steps.map((s) => s.status), ['passed', 'passed']);
  } finally {
    await studio.close();
  }
});

test('a Maestro flow on the Android box: the studio writes tapOn with the id, and runs it', async () => {
  const file = join(dir, 'profile.yaml');
  const { studio, api } = await studioOn(file);
  try {
    assert.equal((await api<{ dialect: string }>('/api/state')).dialect, 'maestro');
    const tree = await api<{ version: number; nodes: TreeNode[] }>('/api/tree');
    const edit = tree.nodes.find((n) => n.id.endsWith('/edit_info'))!;
    const act = await api<{ ok: boolean }>('/api/act', { version: tree.version, node: edit.i, action: 'tap' });
    assert.equal(act.ok, true, JSON.stringify(act));
    // The app is the one on the screen.
    assert.equal(readFileSync(file, 'utf8'), 'appId: com.bilibili.app.in\nname: "profile"\n---\n- tapOn: {id: edit_info}\n');
    const key = await api<{ ok: boolean }>('/api/key', { key: 'back' });
    assert.equal(key.ok, true);
    assert.match(readFileSync(file, 'utf8'), /- tapOn: \{id: edit_info\}\n- back\n$/);
    const run = await api<{ status: string; steps: { status: string; label: string }[] }>('/api/run', { step: 0 });
    assert.equal(run.status, 'passed', JSON.stringify(run));
  } finally {
    await studio.close();
  }
});

test('the studio API wants its session token and its own host name', async () => {
  const { studio } = await studioOn(join(dir, 'x.flow.yaml'));
  try {
    const url = new URL(studio.url);
    assert.equal((await fetch(new URL('/api/state', url))).status, 403);
    assert.equal((await fetch(new URL('/api/state', url), { headers: { 'x-studio-token': 'wrong' } })).status, 403);
    assert.equal((await fetch(new URL('/', url))).status, 403, 'the page without its token');
    assert.equal((await fetch(url)).status, 200);
    // A page of another site that a DNS name points at this port (DNS rebinding) sends its own Host.
    const rebound = await new Promise<number>((resolve, reject) => {
      get({ host: url.hostname, port: url.port, path: '/api/state', headers: { 'x-studio-token': url.searchParams.get('token')!, host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    assert.equal(rebound, 403);
  } finally {
    await studio.close();
  }
});
