// boxflow studio's local web server: the page (src/studio/page.ts, its script src/browser/studio) and the API it calls.
// It holds one box and one flow file. The screen comes from the box's live view (its websocket, when
// the service is boxflow serve; else screenshots), the layout from the runner's own LayoutSource, the
// selectors from selectors.ts, and every action is a step run by the runner (runFlows on the box) that
// is added to the file, in the file's own style, once it passed. Runs of the file, or of one step, go
// through the same runner and answer each step's record with its images.
//
// The server (src/loopback: fastify, errors as `{ code, message }`) listens on loopback; every API call
// carries the session's token in a header (a page of another site cannot send that header, nor read
// the answers), a Host that is not this server's is refused (DNS rebinding), and no other site may
// embed an answer (the step images, which <img> loads without the header).
import type { StepView } from './pageTypes.js';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { basename, dirname, relative, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parseAllDocuments } from 'yaml';
import type { BoxClient } from '../api/client.js';
import { decodeDataUri } from '../api/dataUri.js';
import { BoxflowError } from '../errors.js';
import { loadFlowFile, parseFlowYaml, parseMaestroYaml } from '../flow/index.js';
import type { Flow, Step } from '../flow/types.js';
import { normaliseText } from '../layout/text.js';
import type { LayoutNode, LayoutTree } from '../layout/types.js';
import { Masker } from '../mask.js';
import { listenLoopback, loopbackApp } from '../loopback/app.js';
import { serveFiles } from '../loopback/files.js';
import { LayoutSource } from '../runner/layoutSource.js';
import type { RunOptions } from '../runner/options.js';
import { runFlows } from '../runner/run.js';
import type { BoxInfo, RunResult, StepRecord } from '../runner/types.js';
import { deleteStep, dialectOf, insertStep, moveStep, newFlowText, stepItems } from './flowFile.js';
import { studioPageHtml, studioScript } from './page.js';
import { elementAt, fieldValue, suggestSelectors, type Dialect, type Suggestion } from './selectors.js';
import { dragSteps, elementSteps, kElementActions, keySteps, kKeys, openSteps, pointInside, screenTapSteps, typeSteps, type ElementAction, type Point, type StudioKey } from './steps.js';

export interface StudioServerOptions {
  /** The flow file (absolute); it need not exist yet. */
  file: string;
  client: BoxClient;
  box: BoxInfo;
  /** How steps run: the config's options (appBaseUrl, env, timeouts, screenshots); outputDir is where their images go. */
  options: RunOptions;
  /** Values never to show (the API key). */
  secrets?: string[];
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
}

export interface StudioServer {
  /** The page, with the session's token: http://HOST:PORT/?token=… */
  url: string;
  close(): Promise<void>;
}

/** Layouts kept, so a pointer's element stays valid while the next layout is read. */
const kKeptTrees = 6;
/** A layout this fresh is answered again rather than read anew. */
const kTreeFreshMs = 700;
const kMaxNodes = 6_000;
const kMaxBody = 256 * 1024;
/** What the output folder serves: the images of the steps' records. */
const kImage = /\.(png|jpe?g|webp|gif)$/i;

interface TreeEntry {
  version: number;
  tree: LayoutTree;
  at: number;
  /** The layout as the page gets it. */
  json: string;
}



export async function startStudioServer(opts: StudioServerOptions): Promise<StudioServer> {
  const token = randomBytes(18).toString('base64url');
  const file = resolve(opts.file);
  const web = opts.box.type === 'linux';
  const masker = new Masker(opts.secrets ?? []);
  const layout = new LayoutSource(opts.client, opts.box);
  const outputDir = opts.options.outputDir;
  await mkdir(outputDir, { recursive: true });
  const trees: TreeEntry[] = [];
  let version = 0;
  let reading: Promise<TreeEntry> | undefined;
  /** Results of the last run of each step (by its index in the file), and the last run's. */
  const results = new Map<number, StepView>();
  /** The step that ran last (-1: none before the first): new steps go after it, as the box is in its state. */
  let cursor: number | undefined;
  /** Results and the cursor follow the steps when the list changes: `to(i)` is where step i is now. */
  const renumber = (to: (i: number) => number | undefined, cursorTo = to) => {
    const kept = [...results].map(([i, v]) => [to(i), v] as const);
    results.clear();
    for (const [i, v] of kept) if (i !== undefined) results.set(i, v);
    if (cursor !== undefined) cursor = cursorTo(cursor);
  };
  let lastRun: { status: string; steps: StepView[]; at: string } | undefined;
  let live: { websocketUrl?: string; url?: string } | undefined;
  // Box work (actions, runs) one at a time, in order.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => {});
    return next;
  };

  const readText = async (): Promise<string | undefined> => (existsSync(file) ? readFile(file, 'utf8') : undefined);
  const dialectNow = async () => dialectOf(file, await readText());
  const name = basename(file).replace(/(\.flow)?\.ya?ml$/i, '');

  // ------------------------------------------------------------ layout
  async function readTree(): Promise<TreeEntry> {
    const last = trees.at(-1);
    if (last && Date.now() - last.at < kTreeFreshMs) return last;
    reading ??= (async () => {
      try {
        const tree = await layout.tree();
        const json = JSON.stringify(treeJson(tree));
        const prev = trees.at(-1);
        // An unchanged layout keeps its version: the page need not redraw the tree.
        if (prev && prev.json === json) {
          prev.at = Date.now();
          prev.tree = tree;
          return prev;
        }
        const entry = { version: ++version, tree, at: Date.now(), json };
        trees.push(entry);
        while (trees.length > kKeptTrees) trees.shift();
        return entry;
      } finally {
        reading = undefined;
      }
    })();
    return reading;
  }

  function treeJson(tree: LayoutTree) {
    const index = new Map<LayoutNode, number>();
    tree.nodes.forEach((n, i) => index.set(n, i));
    const nodes = tree.nodes.slice(1, kMaxNodes).map((n) => ({
      i: index.get(n)!,
      p: n.parent ? (index.get(n.parent) ?? 0) : -1,
      tag: n.tag,
      id: n.id,
      text: masker.text(normaliseText(n.text).slice(0, 120)),
      desc: masker.text(n.desc.slice(0, 120)),
      b: n.bounds ? [n.bounds.left, n.bounds.top, n.bounds.right, n.bounds.bottom] : null,
      v: n.visible,
    }));
    return { format: tree.format, screen: tree.screen ?? null, nodes };
  }

  function nodeOf(v: unknown, i: unknown): { entry: TreeEntry; node: LayoutNode } {
    const entry = trees.find((t) => t.version === v) ?? trees.at(-1);
    if (!entry) throw new BoxflowError('CONFLICT', 'no layout has been read yet');
    const node = typeof i === 'number' ? entry.tree.nodes[i] : undefined;
    if (!node || !node.parent) throw new BoxflowError('INVALID_REQUEST', `no element ${String(i)} in layout ${String(v)}`);
    return { entry, node };
  }

  const suggestionJson = (s: Suggestion, dialect: Dialect) => ({
    dialect,
    best: s.best,
    candidates: s.candidates,
    yaml: s.best.value,
  });

  // ------------------------------------------------------------ running steps
  /** Runs done; a visual image's URL carries it, as the next run of its step rewrites the file under its name. */
  let runs = 0;
  const resultUrl = (p: string, fresh = false) => `/results/${p.split('/').map(encodeURIComponent).join('/')}${fresh ? `?run=${runs}` : ''}`;
  const view = (r: StepRecord): StepView => {
    const images: StepView['images'] = [];
    // before, after, trace, failure and attachments are stored by their content's hash (data/…); the
    // visual images by the assertion's name (visual/<flow>/<name>-expected.png, …).
    for (const [k, p] of Object.entries(r.screenshots ?? {})) if (p) images.push({ name: k, url: resultUrl(p) });
    const v = r.visual;
    if (v) for (const k of ['expected', 'actual', 'diff', 'previous'] as const) if (v[k]) images.push({ name: k, url: resultUrl(v[k], true) });
    for (const a of r.attachments ?? []) if (a.contentType.startsWith('image/')) images.push({ name: a.name, url: resultUrl(a.path) });
    return {
      id: r.id,
      label: r.label,
      command: r.command,
      status: r.status,
      durationMs: r.durationMs,
      ...(r.actionId ? { actionId: r.actionId } : {}),
      ...(r.message ? { message: r.message } : {}),
      ...(r.error ? { error: { code: r.error.code, message: r.error.message } } : {}),
      images,
    };
  };

  /** Runs `steps` of `flow` on the studio's box, as one attempt of a flow; answers the top-level records. */
  async function runSteps(flow: Flow, steps: Step[] | undefined): Promise<{ result: RunResult; records: StepRecord[] }> {
    const records: StepRecord[] = [];
    const f: Flow = { ...flow, box: undefined, ...(steps ? { steps, onStart: [], onFinish: [] } : {}) };
    const noop = async () => {};
    const reporter = {
      onBegin: noop,
      onFlowBegin: noop,
      onStepBegin: noop,
      onStepEnd: async (_f: unknown, s: StepRecord) => {
        if (/^\d+$/.test(s.id)) records.push(s);
      },
      onFlowEnd: noop,
      onError: noop,
      onEnd: noop,
    };
    // A screenshot assertion written in the studio takes the screen as its baseline when it has none yet (and passes).
    const baselines = { ...opts.options.baselines, update: opts.options.baselines.update === 'default' ? ('missing' as const) : opts.options.baselines.update };
    const options: RunOptions = { ...opts.options, baselines, workers: 1, retries: 0, shard: undefined, grep: undefined, tags: [], boxes: { ids: [opts.box.id], createLinux: 0, createAndroid: 0 } };
    delete options.video;
    runs++;
    const result = await runFlows([f], options, { client: opts.client, reporter, secrets: opts.secrets ?? [], masker });
    // A run leaves a box it was given as it found it (its resolution and scale put back); in the
    // studio the box stays as the steps left it, as the next step written will find it when the file runs.
    const last = (command: string) => records.filter((r) => r.command === command && r.status === 'passed').at(-1)?.args as Record<string, unknown> | undefined;
    const res = last('setResolution');
    if (res && typeof res.width === 'number' && typeof res.height === 'number') await opts.client.setResolution(opts.box.id, { width: res.width, height: res.height }).catch(() => {});
    const scale = last('setScale');
    if (scale && typeof scale.scale === 'number') await opts.client.updateSettings(opts.box.id, { scale: scale.scale }).catch(() => {});
    // The box may have changed: the next look reads the layout anew.
    trees.forEach((t) => (t.at = 0));
    return { result, records };
  }

  /** The site a Maestro file is for (its `url`, or an `appId` that is a URL). */
  const flowAppUrl = (text: string | undefined): string | undefined => {
    if (!text?.trim() || dialectOf(file, text) !== 'maestro') return undefined;
    const config = parseAllDocuments(text)[0]?.toJS() as Record<string, unknown> | null | undefined;
    return [config?.url, config?.appId].find((v): v is string => typeof v === 'string');
  };
  /** The URL of the page the box shows (Linux boxes). */
  const activeTabUrl = async (): Promise<string | undefined> => {
    if (!web) return undefined;
    const tabs = await opts.client.listTabs(opts.box.id).catch(() => undefined);
    return tabs?.data.find((t) => t.active)?.url;
  };

  const parseText = (text: string, dialect: Dialect): Flow => (dialect === 'maestro' ? parseMaestroYaml(text, file) : parseFlowYaml(text, file));

  /**
   * Adds `items` to the file's steps after step `after` (the one selected on the page; else the step
   * that ran last; else at the end), runs them on the box, and keeps the file only when they passed.
   */
  async function addAndRun(items: unknown[], after?: unknown): Promise<{ ok: boolean; steps: StepView[]; added: number[] }> {
    return serial(async () => {
      const before = await readText();
      const dialect = dialectOf(file, before);
      // A new Maestro file names its app: the site (appBaseUrl), or the package on the Android screen.
      const pkg = web ? undefined : trees.at(-1)?.tree.nodes.find((n) => n.attributes.package && n.attributes.package !== 'com.android.systemui')?.attributes.package;
      const app = web ? opts.options.appBaseUrl : pkg;
      const base = before !== undefined && before.trim() ? before : newFlowText(dialect, { name, web, ...(app ? { app } : {}) });
      const count = stepItems(base, dialect).length;
      const chosen = typeof after === 'number' && Number.isInteger(after) && after >= -1 ? after : cursor;
      const first = chosen === undefined ? count : Math.min(chosen + 1, count);
      const text = items.reduce<string>((t, item, k) => insertStep(t, dialect, item, first + k), base);
      const flow = parseText(text, dialect);
      const added = flow.steps.slice(first, first + items.length);
      const { records } = await runSteps(flow, added);
      const ok = records.length === items.length && records.every((r) => r.status === 'passed' || r.status === 'warned');
      const views = records.map(view);
      if (ok) {
        // Written only when the file is as it was when the step was made (an edit meanwhile wins).
        if ((await readText()) === before) {
          await mkdir(dirname(file), { recursive: true });
          await writeFile(file, text);
        }
        renumber((i) => (i >= first ? i + items.length : i));
        views.forEach((v, k) => results.set(first + k, v));
        cursor = first + items.length - 1;
      }
      return { ok, steps: views, added: ok ? items.map((_, k) => first + k) : [] };
    });
  }

  async function runFile(step: number | undefined): Promise<{ status: string; steps: StepView[] }> {
    return serial(async () => {
      const text = await readText();
      if (text === undefined) throw new BoxflowError('CONFLICT', `${relative(process.cwd(), file) || file} does not exist yet: add a step first`);
      if (step === undefined) {
        const flow = await loadFlowFile(file);
        const { result, records } = await runSteps(flow, undefined);
        const views = records.map(view);
        results.clear();
        // onStart steps come first in the records; the file's steps are the ones after them.
        const offset = flow.onStart.length;
        const ran = views.slice(offset, offset + flow.steps.length);
        ran.forEach((v, k) => results.set(k, v));
        cursor = ran.length ? ran.length - 1 : undefined;
        const attempt = result.flows[0]?.attempts.at(-1);
        lastRun = { status: result.flows[0]?.status ?? 'failed', steps: views, at: new Date().toISOString() };
        if (!views.length && attempt?.error) lastRun.steps = [{ id: '-', label: 'the flow', command: '', status: 'failed', durationMs: 0, error: { code: attempt.error.code, message: attempt.error.message }, images: [] }];
        return lastRun;
      }
      const dialect = dialectOf(file, text);
      const flow = parseText(text, dialect);
      const s = flow.steps[step];
      if (!s) throw new BoxflowError('INVALID_REQUEST', `the flow has no step ${step + 1}`);
      const { records } = await runSteps(flow, [s]);
      const views = records.map(view);
      if (views[0]) results.set(step, views[0]);
      cursor = step;
      return { status: views[0]?.status ?? 'failed', steps: views };
    });
  }

  // ------------------------------------------------------------ HTTP
  const app = loopbackApp({ bodyLimit: kMaxBody, text: (m) => masker.text(m) });
  const host = opts.host ?? '127.0.0.1';
  // The port is known once listening; the Host check reads it then (no request comes before).
  const allowedHosts = new Set<string>();
  const tokenOk = (given: unknown) => {
    const a = Buffer.from(typeof given === 'string' ? given : '');
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  };
  app.addHook('onRequest', async (req, reply) => {
    if (!allowedHosts.has(String(req.headers.host ?? ''))) throw new BoxflowError('FORBIDDEN', 'this server answers its own host name only');
    // No other site may embed what this server answers (its images carry no token: <img> sends no header).
    void reply.headers({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cross-origin-resource-policy': 'same-origin', 'cache-control': 'no-store' });
  });
  app.get('/', async (req, reply) => {
    if (!tokenOk((req.query as Record<string, unknown>).token)) throw new BoxflowError('FORBIDDEN', 'open the URL boxflow studio printed (it carries the session token)');
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self' ws: wss:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
      .send(studioPageHtml());
  });
  app.get('/studio.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(studioScript()));
  // Every image a step's record names (before, after, trace, failure, the visual expected, actual,
  // diff and previous, attachments) is in the output folder; nothing else of it is served.
  await serveFiles(app, { root: outputDir, prefix: '/results/', allow: (p) => kImage.test(p), headers: { 'cache-control': 'no-cache' } });
  await app.register(async (api) => {
    api.addHook('onRequest', async (req) => {
      if (!tokenOk(req.headers['x-studio-token'])) throw new BoxflowError('FORBIDDEN', 'the session token is missing or wrong');
    });
    apiRoutes(api);
  }, { prefix: '/api' });
  const listening = await listenLoopback(app, host, opts.port ?? 0);
  const { port } = listening;
  const hostName = listening.host;
  for (const h of [`${hostName}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`]) allowedHosts.add(h);

  const pointOf = (v: unknown): Point | undefined => {
    const p = v as Partial<Point> | null | undefined;
    return p && typeof p.x === 'number' && typeof p.y === 'number' && Number.isFinite(p.x) && Number.isFinite(p.y) && Math.abs(p.x) < 1e5 && Math.abs(p.y) < 1e5 ? { x: p.x, y: p.y } : undefined;
  };

  function apiRoutes(api: FastifyInstance): void {
    const post = (path: string, handler: (b: Record<string, unknown>) => Promise<unknown>) =>
      api.post(path, { schema: { body: { type: 'object' } } }, async (req) => handler(req.body as Record<string, unknown>));

    api.get('/state', async () => {
      const text = await readText();
      const dialect = dialectOf(file, text);
      live ??= await opts.client.liveViewUrl(opts.box.id).catch(() => ({}));
      let problem: string | undefined;
      if (text?.trim()) {
        try {
          parseText(text, dialect);
        } catch (err) {
          problem = masker.text((err as Error).message);
        }
      }
      return {
        file: basename(file),
        path: file,
        exists: text !== undefined,
        dialect,
        box: opts.box,
        live: live.websocketUrl ? { websocketUrl: live.websocketUrl, ...(live.url ? { url: live.url } : {}) } : null,
        text: text ?? '',
        steps: text ? stepItems(text, dialect) : [],
        results: Object.fromEntries(results),
        cursor: cursor ?? null,
        lastRun: lastRun ?? null,
        problem: problem ?? null,
      };
    });
    api.get('/tree', async (req, reply) => {
      const entry = await readTree();
      if (Number((req.query as Record<string, unknown>).since) === entry.version) return { version: entry.version, unchanged: true };
      return reply.type('application/json; charset=utf-8').send(`{"version":${entry.version},${entry.json.slice(1)}`);
    });
    api.get('/screen', async (_req, reply) => {
      const shot = await opts.client.screenshot(opts.box.id, { outputFormat: 'base64' });
      return reply.type('image/png').send(decodeDataUri(shot.uri).bytes);
    });
    post('/at', async (b) => {
      const entry = await readTree();
      const node = typeof b.x === 'number' && typeof b.y === 'number' ? elementAt(entry.tree, b.x, b.y) : undefined;
      return { version: entry.version, node: node ? entry.tree.nodes.indexOf(node) : null };
    });
    post('/inspect', async (b) => {
      const { entry, node } = nodeOf(b.version, b.node);
      const dialect = await dialectNow();
      const value = fieldValue(entry.tree, node);
      const field = value !== undefined ? { value: masker.text(value.slice(0, 200)) } : {};
      return { version: entry.version, node: b.node, text: masker.text(normaliseText(node.text).slice(0, 200)), ...field, ...suggestionJson(suggestSelectors(entry.tree, node, dialect), dialect) };
    });
    post('/act', async (b) => {
      const action = b.action as ElementAction;
      if (!(kElementActions as readonly string[]).includes(action)) throw new BoxflowError('INVALID_REQUEST', `unknown action ${String(action)}`);
      const dialect = await dialectNow();
      const { entry, node } = nodeOf(b.version, b.node);
      const selector = b.selector !== undefined ? b.selector : suggestSelectors(entry.tree, node, dialect).best.value;
      const masks = Array.isArray(b.masks) ? b.masks.map((m) => (typeof m === 'number' ? suggestSelectors(entry.tree, nodeOf(entry.version, m).node, dialect).best.value : m)) : [];
      // A click inside a large element: where in it (the page says when the element is large).
      const at = pointOf(b.at);
      const inside = at && node.bounds ? pointInside([node.bounds.left, node.bounds.top, node.bounds.right, node.bounds.bottom], at) : undefined;
      const value = fieldValue(entry.tree, node);
      const more = { ...(value !== undefined ? { value } : {}), ...(typeof b.name === 'string' ? { name: b.name } : {}), ...(inside ? { at: inside } : {}) };
      const items = elementSteps(dialect, action, selector, { text: normaliseText(node.text), masks, crop: b.crop === true, ...more });
      if (typeof items === 'string') throw new BoxflowError('UNPROCESSABLE', items);
      return addAndRun(items, b.after);
    });
    post('/type', async (b) => {
      if (typeof b.text !== 'string' || !b.text) throw new BoxflowError('INVALID_REQUEST', 'type needs a text');
      return addAndRun(typeSteps(await dialectNow(), b.text, b.pressEnter === true), b.after);
    });
    post('/open', async (b) => {
      if (typeof b.url !== 'string' || !b.url.trim()) throw new BoxflowError('INVALID_REQUEST', 'open needs a URL');
      const text = await readText();
      const dialect = dialectOf(file, text);
      const url = b.url.trim();
      const bases = dialect === 'maestro' && !URL.canParse(url) ? [flowAppUrl(text), opts.options.appBaseUrl, await activeTabUrl()] : [];
      const items = openSteps(dialect, url, bases);
      if (typeof items === 'string') throw new BoxflowError('UNPROCESSABLE', items);
      return addAndRun(items, b.after);
    });
    post('/key', async (b) => {
      if (!(kKeys as readonly string[]).includes(String(b.key))) throw new BoxflowError('INVALID_REQUEST', `key is one of ${kKeys.join(', ')}`);
      return addAndRun(keySteps(await dialectNow(), b.key as StudioKey), b.after);
    });
    // What the hand did where no element is aimed at: a tap on the screen, or a drag along its path.
    post('/gesture', async (b) => {
      const dialect = await dialectNow();
      const tap = pointOf(b.tap);
      if (tap) return addAndRun(screenTapSteps(dialect, tap, trees.at(-1)?.tree.screen), b.after);
      const path = Array.isArray(b.path) ? b.path.map(pointOf) : [];
      if (path.length < 2 || path.length > 2000 || path.some((p) => !p)) throw new BoxflowError('INVALID_REQUEST', 'a gesture is {tap: {x, y}} or {path: [{x, y}, …] (2 to 2000 points), durationMs}');
      return addAndRun(dragSteps(dialect, path as Point[], typeof b.durationMs === 'number' ? b.durationMs : 500), b.after);
    });
    // Steps moved or deleted on the page: the file keeps its style; results and the cursor follow.
    post('/edit', async (b) => {
      const step = b.step;
      if (!(typeof step === 'number' && Number.isInteger(step))) throw new BoxflowError('INVALID_REQUEST', 'edit needs the step (its index)');
      return serial(async () => {
        const text = await readText();
        const dialect = dialectOf(file, text);
        const count = text ? stepItems(text, dialect).length : 0;
        if (text === undefined || step < 0 || step >= count) throw new BoxflowError('INVALID_REQUEST', `the flow has no step ${step + 1}`);
        if (b.op === 'delete') {
          await writeFile(file, deleteStep(text, dialect, step));
          renumber((i) => (i === step ? undefined : i > step ? i - 1 : i), (i) => (i >= step ? i - 1 : i));
        } else if (b.op === 'move' && typeof b.to === 'number' && Number.isInteger(b.to)) {
          const to = Math.max(0, Math.min(b.to, count - 1));
          await writeFile(file, moveStep(text, dialect, step, to));
          const order = [...Array(count).keys()];
          order.splice(to, 0, ...order.splice(step, 1));
          renumber((i) => (i < 0 || i >= count ? i : order.indexOf(i)));
        } else throw new BoxflowError('INVALID_REQUEST', 'edit is {op: "delete", step} or {op: "move", step, to}');
        return { ok: true };
      });
    });
    post('/run', async (b) => {
      const step = typeof b.step === 'number' && Number.isInteger(b.step) && b.step >= 0 ? b.step : undefined;
      return runFile(step);
    });
  }

  return {
    url: `http://${hostName}:${port}/?token=${token}`,
    async close() {
      await queue.catch(() => {});
      await layout.close();
      await app.close();
    },
  };
}
