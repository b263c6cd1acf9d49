// Keeps the dependency arrows of the table below (cli → runner, server, reporters; runner → flow,
// api, layout, visual; reporters → runner result types; server → api, png; flow → api, layout types; visual → png;
// server, runner → cdp; server, studio → src/browserBundles.ts; browser → studio types; api, layout, png, cdp →
// nothing internal; everyone → src/errors.ts and src/mask.ts) true, and keeps npm packages
// with the folder that owns them, and keeps modules free of import cycles (type-only imports count: a
// cycle of types still ties two modules into one). It reads the import lines of every .ts under src/
// and reporters/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

type Area = 'cli' | 'runner' | 'reporters' | 'server' | 'flow' | 'api' | 'layout' | 'visual' | 'png' | 'errors' | 'mask' | 'index' | 'playwright' | 'studio' | 'loopback' | 'cdp' | 'browser' | 'bundles';

/** What each area may import besides itself and the leaves src/errors.ts and src/mask.ts. `types` = `import type` only. */
const kAllowed: Record<Area, Partial<Record<Area, 'all' | 'types'>>> = {
  index: { cli: 'all', runner: 'all', reporters: 'all', server: 'all', flow: 'all', api: 'all', layout: 'all', visual: 'all' },
  cli: { runner: 'all', server: 'all', reporters: 'all', flow: 'all', api: 'all', layout: 'all', visual: 'all', studio: 'all' },
  runner: { flow: 'all', api: 'all', layout: 'all', visual: 'all', cdp: 'all' },
  reporters: { runner: 'all', flow: 'all', loopback: 'all' }, // narrowed to result types, events and the code frame below
  // png: the PNG codec the visual comparison and the server's trace drawing share.
  server: { api: 'all', png: 'all', cdp: 'all', bundles: 'all' },
  flow: { api: 'all', layout: 'types' },
  api: {},
  layout: {},
  visual: { png: 'all' },
  png: {},
  // boxflow/test: the box fixture runs flows with the runner, starts the embedded server, reads the config.
  playwright: { runner: 'all', flow: 'all', api: 'all', layout: 'all', visual: 'all', server: 'all', cli: 'all' },
  errors: {},
  mask: {},
  // boxflow studio: a page on a box that writes flow files; it runs steps with the runner.
  studio: { runner: 'all', flow: 'all', api: 'all', layout: 'all', loopback: 'all', bundles: 'all' },
  // The local HTTP servers' one fastify app and file serving (the studio's, show-report's).
  loopback: {},
  // The one DevTools protocol client: serve's page connections, the runner's queued CDP-only steps.
  cdp: {},
  // The pages' scripts (the live view's, the studio's), bundled for the browser: they read the studio's page types.
  browser: { studio: 'types' },
  // Those scripts as the servers serve them (src/browserBundles.ts).
  bundles: {},
};

/** Leaf modules every area may import; they import nothing internal. */
const kLeaves = new Set<Area>(['errors', 'mask']);

/** reporters/ may read the runner's result model and its event stream, nothing that runs flows. */
const kReporterRunnerFiles = new Set(['src/runner/types.ts', 'src/runner/events.ts']);

/** ...and the code frame, so a frame reads the same from the runner and from a reporter. */
const kReporterFlowFiles = new Set(['src/flow/codeFrame.ts']);

/** flow may import values from these pure layout files only (the selector keys and text matching); types from any. */
const kFlowLayoutFiles = new Set(['src/layout/types.ts', 'src/layout/text.ts']);

/** boxflow/test reads the CLI's config loading and starts the embedded server as the CLI does (one helper), nothing else of the CLI. */
const kPlaywrightCliFiles = new Set(['src/cli/config.ts', 'src/cli/embedded.ts']);

/** npm packages that belong to one area (or to the few named). */
const kPackageOwners: Record<string, Area | Area[]> = {
  undici: 'api',
  pngjs: 'png',
  pixelmatch: 'visual',
  fastify: ['server', 'loopback'],
  '@fastify/static': 'loopback',
  '@fastify/multipart': 'server',
  '@fastify/websocket': 'server',
  // An optional peer dependency: only the boxflow/test entry may load it.
  '@playwright/test': 'playwright',
  // A devDependency: only the bundling of the pages' scripts from source may load it.
  esbuild: 'bundles',
};

/**
 * Import cycles known to exist, each to be broken by moving the shared types out. The scan fails once
 * one is gone, so that its entry goes too.
 */
const kKnownCycles = new Set<string>([]);

interface ImportLine {
  file: string;
  line: number;
  spec: string;
  typeOnly: boolean;
}

function listTs(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(root, join(e.parentPath ?? (e as unknown as { path: string }).path, e.name)))
    .filter((f) => !f.includes('/viewer/') && !f.includes('node_modules'))
    .sort();
}

/** Every .ts under src/ and reporters/ with its text. */
function sources(): Array<{ file: string; text: string }> {
  return [...listTs('src'), ...listTs('reporters')].map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));
}

/** Blanks out comments (keeping newlines, so offsets map to the same lines). */
function stripComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/(^|[\s;{}])\/\/[^\n]*/g, (m, lead: string) => lead + ' '.repeat(m.length - lead.length));
}

function importLines(file: string, text: string): ImportLine[] {
  const code = stripComments(text);
  const lineOf = (index: number) => code.slice(0, index).split('\n').length;
  const out: ImportLine[] = [];
  // import x from '…', import { a, type B } from '…', import type … from '…', export … from '…'
  const fromRe = /(?:^|[\n;])\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;
  for (const m of code.matchAll(fromRe)) {
    const clause = m[3] ?? '';
    const named = /^\{([\s\S]*)\}$/.exec(clause.trim());
    const allTypes = named !== null && named[1]!.split(',').map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith('type '));
    out.push({ file, line: lineOf(m.index + m[0].indexOf(m[1]!)), spec: m[4]!, typeOnly: Boolean(m[2]) || allTypes });
  }
  // import '…' (side effects)
  for (const m of code.matchAll(/(?:^|[\n;])\s*import\s*['"]([^'"]+)['"]/g)) {
    out.push({ file, line: lineOf(m.index + m[0].indexOf('import')), spec: m[1]!, typeOnly: false });
  }
  // import('…'), and the type position `typeof import('…')`
  for (const m of code.matchAll(/(typeof\s+)?\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    out.push({ file, line: lineOf(m.index + (m[1]?.length ?? 0)), spec: m[2]!, typeOnly: Boolean(m[1]) });
  }
  return out.sort((a, b) => a.line - b.line);
}

function areaOf(file: string): Area | undefined {
  if (file === 'src/errors.ts') return 'errors';
  if (file === 'src/mask.ts') return 'mask';
  if (file === 'src/browserBundles.ts') return 'bundles';
  if (file === 'src/index.ts') return 'index';
  if (file.startsWith('reporters/')) return 'reporters';
  const m = /^src\/([^/]+)\//.exec(file);
  return m && m[1]! in kAllowed ? (m[1] as Area) : undefined;
}

/** The repository-relative .ts file a relative specifier points at. */
function target(file: string, spec: string): string {
  const abs = resolve(root, dirname(file), spec).replace(/\.js$/, '.ts');
  return relative(root, abs);
}

function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function violations(files: Array<{ file: string; text: string }>): string[] {
  const problems: string[] = [];
  for (const { file, text } of files) {
    const from = areaOf(file);
    for (const imp of importLines(file, text)) {
      const where = `${imp.file}:${imp.line}`;
      if (imp.spec.startsWith('.')) {
        const to = target(file, imp.spec);
        const toArea = areaOf(to);
        if (!from) problems.push(`${where}: ${file} is in no known folder of src/ (add it to kAllowed)`);
        if (!from || toArea === from || (toArea && kLeaves.has(toArea))) continue;
        const arrow = `${from} → ${toArea ?? to}`;
        const rule = toArea ? kAllowed[from][toArea] : undefined;
        if (!rule) problems.push(`${where}: forbidden arrow ${arrow} (import '${imp.spec}')`);
        else if (rule === 'types' && !imp.typeOnly && !(from === 'flow' && kFlowLayoutFiles.has(to))) problems.push(`${where}: ${arrow} may import types only; use \`import type\` (import '${imp.spec}')`);
        else if (from === 'reporters' && toArea === 'runner' && !kReporterRunnerFiles.has(to)) {
          problems.push(`${where}: forbidden arrow reporters → ${to}: reporters read only ${[...kReporterRunnerFiles].join(', ')}`);
        } else if (from === 'reporters' && toArea === 'flow' && !kReporterFlowFiles.has(to)) {
          problems.push(`${where}: forbidden arrow reporters → ${to}: reporters read only ${[...kReporterFlowFiles].join(', ')} of flow/`);
        } else if (from === 'playwright' && toArea === 'cli' && !kPlaywrightCliFiles.has(to)) {
          problems.push(`${where}: forbidden arrow playwright → ${to}: boxflow/test reads only ${[...kPlaywrightCliFiles].join(', ')}`);
        }
      } else if (!imp.spec.startsWith('node:')) {
        const owner = kPackageOwners[packageName(imp.spec)];
        const owners = owner === undefined ? [] : [owner].flat();
        if (owners.length && !(from && owners.includes(from)) && !imp.typeOnly) problems.push(`${where}: the package ${packageName(imp.spec)} belongs to ${owners.map((o) => `src/${o}/`).join(' and ')}; ${from ?? file} imports it`);
      }
    }
  }
  return problems;
}

/** One cycle per group of modules that import each other, as `a → b → a` starting at its first file by name. */
function cycles(files: Array<{ file: string; text: string }>): string[] {
  const known = new Set(files.map((f) => f.file));
  const graph = new Map<string, string[]>();
  for (const { file, text } of files) {
    const to = importLines(file, text).filter((i) => i.spec.startsWith('.')).map((i) => target(file, i.spec));
    graph.set(file, [...new Set(to.filter((t) => known.has(t)))].sort());
  }
  // Tarjan's strongly connected components; a component of two or more files holds a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group = stack.splice(stack.indexOf(v));
    if (group.length > 1 || graph.get(v)!.includes(v)) groups.push(group.sort());
  };
  for (const f of [...graph.keys()].sort()) if (!index.has(f)) visit(f);
  // The shortest way from the group's first file back to itself, by breadth-first search inside the group.
  return groups.map((group) => {
    const start = group[0]!;
    const prev = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
      const v = queue.shift()!;
      for (const w of graph.get(v)!) {
        if (!group.includes(w) || prev.has(w)) continue;
        prev.set(w, v);
        queue.push(w);
      }
      if (prev.has(start)) break;
    }
    const path = [start];
    for (let v = prev.get(start)!; v !== start; v = prev.get(v)!) path.unshift(v);
    return [start, ...path].join(' → ');
  });
}

test('the import reader sees static, export-from, multi-line, side-effect and dynamic imports with their lines', () => {
  const text = [
    "import { a } from './a.js';", // 1
    'import {', // 2
    '  b,',
    '  type C,',
    "} from '../b.js';", // 5
    "import type { D } from './d.js';", // 6
    "export { e } from './e.js'; export * from './f.js';", // 7
    "// import { no } from './comment.js';", // 8
    "const m = await import('./dyn.js');", // 9
    "import './side.js';", // 10
    "type T = typeof import('./t.js');", // 11
    "import { type X, type Y } from './types.js';", // 12
    "const s = 'from \\'./not-an-import.js\\'';", // 13
  ].join('\n');
  const got = importLines('src/x/y.ts', text).map((i) => `${i.line} ${i.spec}${i.typeOnly ? ' (type)' : ''}`);
  assert.deepEqual(got, [
    '1 ./a.js', '2 ../b.js', '6 ./d.js (type)', '7 ./e.js', '7 ./f.js', '9 ./dyn.js', '10 ./side.js', '11 ./t.js (type)', '12 ./types.js (type)',
  ]);
});

test('the rules catch forbidden arrows, value imports where only types may go, and misplaced packages', () => {
  const found = violations([
    { file: 'src/api/client.ts', text: "import { run } from '../runner/run.js';\nimport { BoxflowError } from '../errors.js';" },
    { file: 'src/layout/query.ts', text: "import { x } from '../flow/index.js';" },
    { file: 'src/server/http/app.ts', text: "import type { S } from '../../runner/types.js';\nimport { request } from 'undici';" },
    { file: 'src/flow/steps.ts', text: "import { parseTree } from '../layout/index.js';\nimport type { Selector } from '../layout/types.js';\nimport { kKeyNames } from '../api/schemas.js';\nimport { textMatcher } from '../layout/text.js';" },
    { file: 'reporters/list.ts', text: "import type { RunResult } from '../src/runner/types.js';\nimport { run } from '../src/runner/run.js';" },
    { file: 'reporters/junit.ts', text: "import { codeFrame } from '../src/flow/codeFrame.js';\nimport { loadFlows } from '../src/flow/load.js';" },
    { file: 'src/runner/run.ts', text: "import { serve } from '../server/index.js';\nimport { PNG } from 'pngjs';\nimport { Step } from '../flow/index.js';" },
    { file: 'src/visual/compare.ts', text: "import pixelmatch from 'pixelmatch';\nimport { PNG } from 'pngjs';" },
    { file: 'src/png/png.ts', text: "import { PNG } from 'pngjs';" },
    { file: 'src/cli/main.ts', text: "import { list } from '../../reporters/index.js';\nimport { serve } from '../server/index.js';\nconst f = await import('fastify');" },
    { file: 'reporters/junit.ts', text: "import { Masker } from '../src/mask.js';" },
    { file: 'src/api/client.ts', text: "import { Masker } from '../mask.js';" },
    { file: 'src/mask.ts', text: "import { run } from './runner/run.js';" },
  ]);
  assert.deepEqual(found, [
    "src/api/client.ts:1: forbidden arrow api → runner (import '../runner/run.js')",
    "src/layout/query.ts:1: forbidden arrow layout → flow (import '../flow/index.js')",
    "src/server/http/app.ts:1: forbidden arrow server → runner (import '../../runner/types.js')",
    'src/server/http/app.ts:2: the package undici belongs to src/api/; server imports it',
    "src/flow/steps.ts:1: flow → layout may import types only; use `import type` (import '../layout/index.js')",
    'reporters/list.ts:2: forbidden arrow reporters → src/runner/run.ts: reporters read only src/runner/types.ts, src/runner/events.ts',
    'reporters/junit.ts:2: forbidden arrow reporters → src/flow/load.ts: reporters read only src/flow/codeFrame.ts of flow/',
    "src/runner/run.ts:1: forbidden arrow runner → server (import '../server/index.js')",
    'src/runner/run.ts:2: the package pngjs belongs to src/png/; runner imports it',
    'src/visual/compare.ts:2: the package pngjs belongs to src/png/; visual imports it',
    'src/cli/main.ts:3: the package fastify belongs to src/server/ and src/loopback/; cli imports it',
    "src/mask.ts:1: forbidden arrow mask → runner (import './runner/run.js')",
  ]);
});

test('src/ and reporters/ follow the dependency arrows of the table above', () => {
  const files = sources();
  assert.ok(files.some((f) => f.file === 'src/api/client.ts'), 'the scan found the sources');
  const found = violations(files);
  assert.deepEqual(found, [], `forbidden imports:\n  ${found.join('\n  ')}`);
});

test('the cycle finder names each cycle by its files, type-only imports included', () => {
  const found = cycles([
    { file: 'src/runner/executor.ts', text: "import { handlers } from './steps/index.js';" },
    { file: 'src/runner/steps/index.ts', text: "import { tap } from './actions.js';" },
    { file: 'src/runner/steps/actions.ts', text: "import type { StepRun } from '../executor.js';\nimport { pollUntil } from '../poll.js';" },
    { file: 'src/runner/poll.ts', text: "import { kBackoffMs } from '../visual/stable.js';" },
    { file: 'src/visual/stable.ts', text: '' },
    { file: 'src/api/a.ts', text: "import { b } from './b.js';" },
    { file: 'src/api/b.ts', text: "const a = await import('./a.js');" },
  ]);
  assert.deepEqual(found, [
    'src/api/a.ts → src/api/b.ts → src/api/a.ts',
    'src/runner/executor.ts → src/runner/steps/index.ts → src/runner/steps/actions.ts → src/runner/executor.ts',
  ]);
});

test('src/ and reporters/ have no import cycles', () => {
  const files = sources();
  const found = cycles(files);
  const unexpected = found.filter((c) => !kKnownCycles.has(c));
  assert.deepEqual(unexpected, [], `import cycles:\n  ${unexpected.join('\n  ')}`);
  const gone = [...kKnownCycles].filter((c) => !found.includes(c));
  assert.deepEqual(gone, [], `these cycles are gone: remove them from kKnownCycles:\n  ${gone.join('\n  ')}`);
});

test('boxflow/test may read the CLI config and nothing else of the CLI, and owns @playwright/test', () => {
  const found = violations([
    { file: 'src/playwright/index.ts', text: "import { runTest } from '../cli/commands.js';\nimport { loadConfigFile } from '../cli/config.js';\nimport { test } from '@playwright/test';" },
    { file: 'src/runner/run.ts', text: "import { test } from '@playwright/test';\nimport type { TestInfo } from '@playwright/test';" },
  ]);
  assert.deepEqual(found, [
    'src/playwright/index.ts:1: forbidden arrow playwright → src/cli/commands.ts: boxflow/test reads only src/cli/config.ts, src/cli/embedded.ts',
    'src/runner/run.ts:1: the package @playwright/test belongs to src/playwright/; runner imports it',
  ]);
});

// ------------------------------------------------------------------ the rooms of src/server

/** src/server's rooms, top to bottom: a module imports its own room and those below it, never one above. */
const kServerRooms = ['http', 'boxes', 'devices', 'host'] as const;
/**
 * The kinds of box, each a folder of devices/; a kind reads no other kind but these. The files shared
 * by the kinds (devices/*.ts) name a kind's types only, and only devices/index.ts makes a kind's device.
 */
const kKindReads: Record<string, readonly string[]> = { linux: [], grid: ['linux'], android: [] };

/** A server file's room (and, in devices/, its kind); src/server/index.ts is the package's entry, above them all. */
function roomOf(file: string): { room: number; kind?: string } | undefined {
  const m = /^src\/server\/([^/]+)\/(?:([^/]+)\/)?/.exec(file);
  if (!m) return undefined;
  const room = kServerRooms.indexOf(m[1] as (typeof kServerRooms)[number]);
  if (room === -1) return undefined;
  return m[1] === 'devices' && m[2] && m[2] in kKindReads ? { room, kind: m[2] } : { room };
}

function roomProblems(files: Array<{ file: string; text: string }>): string[] {
  const problems: string[] = [];
  for (const { file, text } of files) {
    if (!file.startsWith('src/server/')) continue;
    const from = roomOf(file);
    if (!from) {
      if (file !== 'src/server/index.ts') problems.push(`${file} is in no room of src/server (${kServerRooms.join(', ')})`);
      continue;
    }
    for (const imp of importLines(file, text).filter((i) => i.spec.startsWith('.'))) {
      const to = target(file, imp.spec);
      if (!to.startsWith('src/server/')) continue;
      const into = roomOf(to);
      const where = `${file}:${imp.line}`;
      if (!into) problems.push(`${where}: imports ${to}, above the rooms`);
      else if (into.room < from.room) problems.push(`${where}: climbs from ${kServerRooms[from.room]} up to ${kServerRooms[into.room]} (${to})`);
      else if (into.kind && from.kind !== into.kind && !(from.kind && kKindReads[from.kind]!.includes(into.kind)) && !(from.kind === undefined && (file === 'src/server/devices/index.ts' || imp.typeOnly)) && from.room === into.room) {
        problems.push(`${where}: ${from.kind ? `the ${from.kind} kind reads the ${into.kind} kind` : `devices/ reads the ${into.kind} kind outside devices/index.ts`} (${to})`);
      }
    }
  }
  return problems;
}

test('the room rules catch an import that climbs, a kind that reads another, and a file outside the rooms', () => {
  assert.deepEqual(
    roomProblems([
      { file: 'src/server/devices/android/a.ts', text: "import { x } from '../../boxes/boxes.js';\nimport { y } from '../linux/b.js';\nimport { z } from '../../host/c.js';" },
      { file: 'src/server/devices/grid/g.ts', text: "import { y } from '../linux/b.js';" },
      { file: 'src/server/devices/kinds.ts', text: "import { y } from './linux/b.js';\nimport type { Y } from './linux/b.js';" },
      { file: 'src/server/http/h.ts', text: "import { y } from '../devices/linux/b.js';" },
      { file: 'src/server/loose.ts', text: '' },
    ]),
    [
      'src/server/devices/android/a.ts:1: climbs from devices up to boxes (src/server/boxes/boxes.ts)',
      'src/server/devices/android/a.ts:2: the android kind reads the linux kind (src/server/devices/linux/b.ts)',
      'src/server/devices/kinds.ts:1: devices/ reads the linux kind outside devices/index.ts (src/server/devices/linux/b.ts)',
      'src/server/loose.ts is in no room of src/server (http, boxes, devices, host)',
    ],
  );
});

test('src/server: imports only go down its rooms (http → boxes → devices → host), and a kind of box reads no other', () => {
  assert.deepEqual(roomProblems(sources()), []);
});
