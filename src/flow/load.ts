// Finding flow files, loading them (YAML or TypeScript), and checking runFlow targets: every
// sub-flow must exist and be valid at load time, and no chain of runFlow may come back on itself.
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, relative, resolve } from 'node:path';
import { BoxflowError } from '../errors.js';
import { FlowIssue, FlowIssues } from './parts.js';
import { combinedError, issueError, locatedError } from './located.js';
import { buildFlow, buildStep } from './validate.js';
import { parseFlowYaml } from './yaml.js';
import { isMaestroFlow, parseMaestroYaml } from './maestro.js';
import { isFlowDefinition, stackLocations } from './tsFlow.js';
import type { Flow, SourceLocation, Step } from './types.js';
import { importTs, TsScope } from './importTs.js';
import { stepPositions } from './tsLocate.js';

const kFlowFile = /\.flow\.(ya?ml|ts)$/i;
const isTs = (file: string) => /\.[cm]?ts$/i.test(file);

async function kindOf(path: string): Promise<'file' | 'dir' | undefined> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? 'dir' : s.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

async function walk(dir: string, out: string[], top: boolean, allMaestro: boolean): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const full = resolve(dir, e.name);
    if (e.isDirectory()) await walk(full, out, false, allMaestro);
    else if (e.isFile() && kFlowFile.test(e.name)) out.push(full);
    else if ((top || allMaestro) && e.isFile() && kMaestroCandidate.test(e.name) && !/^config\.ya?ml$/i.test(e.name) && isMaestroFlow((await readText(full)) ?? '')) out.push(full);
  }
}

// Maestro flows keep their plain names (login.yaml) and, as Maestro runs a folder, only those at the
// top of a folder named are flows (subfolders hold the ones runFlow calls); config.yaml never is.
const kMaestroCandidate = /\.ya?ml$/i;

/**
 * Flow files under `paths` (absolute, sorted per directory, no duplicates). Directories are
 * searched recursively for *.flow.yaml, *.flow.yml and *.flow.ts, and for Maestro flows (any other
 * *.yaml/*.yml at the top of a folder named, holding a config, `---` and a command list); a file named explicitly is
 * taken whatever its name. A missing path throws FLOW_NOT_FOUND. `allMaestro` takes the Maestro flows of
 * subfolders too (validate checks every file; a run runs only the top ones, as Maestro does).
 */
export async function discoverFlows(paths: string[], cwd: string = process.cwd(), allMaestro = false): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    const full = resolve(cwd, p);
    const kind = await kindOf(full);
    if (kind === undefined) throw new BoxflowError('FLOW_NOT_FOUND', `${p}: no such flow file or directory`, { details: { path: full } });
    if (kind === 'file') out.push(full);
    else await walk(full, out, true, allMaestro);
  }
  return [...new Set(out)];
}

function* runFlowSteps(steps: Step[]): Generator<Step & { kind: 'runFlow'; file: string }> {
  for (const s of steps) {
    if (s.kind === 'runFlow' && s.file !== undefined) yield s as Step & { kind: 'runFlow'; file: string };
    // Steps that hold steps: repeat, retry, a runFlow of inline steps.
    if ('steps' in s && s.steps) yield* runFlowSteps(s.steps);
  }
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

class Loader {
  private readonly ts = new TsScope();
  private readonly parsed = new Map<string, Promise<Flow>>();
  private readonly closed = new Map<string, Promise<Flow>>();
  private readonly texts = new Map<string, string>();

  /** A flow and, recursively, every flow it runs. */
  load(file: string, chain: string[] = []): Promise<Flow> {
    let p = this.closed.get(file);
    if (!p) {
      p = this.loadClosure(file, chain);
      this.closed.set(file, p);
    }
    return p;
  }

  private async loadClosure(file: string, chain: string[]): Promise<Flow> {
    const flow = await this.parse(file);
    const here = [...chain, file];
    for (const step of runFlowSteps([...flow.onStart, ...flow.steps, ...flow.onFinish])) {
      if (step.file.includes('${')) continue;
      const at = step.source;
      if (here.includes(step.file)) {
        const loop = [...here.slice(here.indexOf(step.file)), step.file].map((f) => basename(f)).join(' -> ');
        throw locatedError('FLOW_SCHEMA', at, `runFlow: cycle ${loop}; a flow may not run itself, directly or through others`, this.texts.get(at.file), { key: 'runFlow' });
      }
      if ((await kindOf(step.file)) !== 'file') {
        throw locatedError('FLOW_NOT_FOUND', at, `runFlow: no such file ${relative(process.cwd(), step.file) || step.file}`, this.texts.get(at.file), { key: 'runFlow' });
      }
      await this.load(step.file, here);
    }
    return flow;
  }

  /**
   * When `file` failed because a flow it runs is invalid: an error at the runFlow that leads there,
   * so the caller gets its own verdict at its own position (the sub-flow's error names the cause).
   */
  async failedRunFlow(file: string): Promise<BoxflowError | undefined> {
    const flow = await this.parse(file).catch(() => undefined);
    if (!flow) return undefined;
    for (const step of runFlowSteps([...flow.onStart, ...flow.steps, ...flow.onFinish])) {
      const err = await this.closed.get(step.file)?.then(() => undefined, (e: unknown) => e);
      if (!BoxflowError.is(err)) continue;
      // A combined error starts "N problems:": name the first of them.
      const lines = err.message.split('\n');
      const many = /^\d+ problems:$/.test(lines[0]!) ? `${lines[0]!.slice(0, -1)}, the first: ` : '';
      const cause = many + (many ? (lines.find((l) => /:\d+:\d+: /.test(l)) ?? '') : lines[0]!);
      return locatedError(err.code, step.source, `runFlow: ${relative(process.cwd(), step.file) || step.file} is invalid: ${cause}`, this.texts.get(step.source.file), { key: 'runFlow', cause: err });
    }
    return undefined;
  }

  private parse(file: string): Promise<Flow> {
    let p = this.parsed.get(file);
    if (!p) {
      p = isTs(file) ? this.parseTs(file) : this.parseYaml(file);
      this.parsed.set(file, p);
    }
    return p;
  }

  private async parseYaml(file: string): Promise<Flow> {
    const text = await readText(file);
    if (text === undefined) throw new BoxflowError('FLOW_NOT_FOUND', `${file}: cannot read the flow file`, { details: { path: file } });
    this.texts.set(file, text);
    return isMaestroFlow(text) ? parseMaestroYaml(text, file) : parseFlowYaml(text, file);
  }

  private async parseTs(file: string): Promise<Flow> {
    const text = await readText(file);
    if (text === undefined) throw new BoxflowError('FLOW_NOT_FOUND', `${file}: cannot read the flow file`, { details: { path: file } });
    this.texts.set(file, text);
    let mod: Record<string, unknown>;
    try {
      mod = (await importTs(file, text, this.ts)) as Record<string, unknown>;
    } catch (err) {
      throw tsLoadError(file, text, err);
    }
    const inner = mod.default as Record<string, unknown> | undefined;
    const def = [mod.default, inner?.default, mod.flow].find(isFlowDefinition);
    if (!def) {
      throw locatedError('FLOW_SCHEMA', { file, line: 1, column: 1 }, 'a TypeScript flow file must `export default flow(...)`', text);
    }
    const at: SourceLocation = def.source?.file === file ? def.source : flowCallIn(text, file);
    try {
      // Each step of the declarative form is located at its own element of the list.
      const positions = def.fn ? {} : stepPositions(text, offsetOf(text, at));
      const locate = (path: (string | number)[]): SourceLocation => {
        const p = positions[path[0] as 'steps'];
        const pos = typeof path[1] === 'number' ? p?.[path[1]] : undefined;
        return pos ? { file, ...pos } : at;
      };
      const flow = buildFlow(def.doc, { file, locate }, { functionFlow: def.fn !== undefined, source: at });
      if (def.fn) flow.fn = def.fn;
      return flow;
    } catch (err) {
      if (err instanceof FlowIssue) throw issueError(err, at, text);
      if (err instanceof FlowIssues) throw combinedError(err.issues.map((i) => issueError(i, at, text)));
      throw err;
    }
  }
}

// Where a stack frame cannot name the file (tsx loads CommonJS-typed files from data: URLs),
// the `flow(` call found in the source is the next best place.
function offsetOf(text: string, at: SourceLocation): number {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < at.line - 1 && i < lines.length; i++) offset += lines[i]!.length + 1;
  return offset + Math.max(0, at.column - 1);
}

function flowCallIn(text: string, file: string): SourceLocation {
  const m = /export\s+default\s+(flow\s*\()/.exec(text) ?? /\bflow\s*\(/.exec(text);
  if (!m) return { file, line: 1, column: 1 };
  const offset = m.index + (m[1] ? m[0].length - m[1].length : 0);
  const before = text.slice(0, offset).split('\n');
  return { file, line: before.length, column: before.at(-1)!.length + 1 };
}

function tsLoadError(file: string, text: string, err: unknown): BoxflowError {
  const e = err as { message?: string; stack?: string; errors?: { text?: string; location?: { line: number; column: number } }[] };
  let at: SourceLocation = { file, line: 1, column: 1 };
  let detail: string | undefined;
  const esbuild = e.errors?.[0]?.location;
  if (esbuild) at = { file, line: esbuild.line, column: esbuild.column + 1 };
  else {
    const frame = stackLocations(e.stack ?? '').find((l) => l.file === file);
    if (frame) at = frame;
    else {
      const m = new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+):(\\d+): (?:ERROR: )?(.*)`).exec(e.message ?? '');
      if (m) {
        at = { file, line: Number(m[1]), column: Number(m[2]) + 1 };
        detail = m[3];
      }
    }
  }
  const first = e.errors?.[0]?.text ?? detail ?? (e.message ?? String(err)).split('\n').find((l) => l.trim()) ?? 'failed to load';
  return locatedError('FLOW_SYNTAX', at, `TypeScript flow failed to load: ${first.replace(`${file}:`, '')}`, text, { cause: err });
}

/** Loads one flow file (YAML or TypeScript) and validates every flow it runs. Throws the first error. */
export async function loadFlowFile(path: string): Promise<Flow> {
  const file = resolve(path);
  if ((await kindOf(file)) !== 'file') throw new BoxflowError('FLOW_NOT_FOUND', `${path}: no such flow file`, { details: { path: file } });
  return new Loader().load(file);
}

export interface LoadedFlows {
  flows: Flow[];
  /** Every error of every file (each once), so nothing runs before all are fixed. */
  errors: BoxflowError[];
  /** Flows that fail only because a flow they run is invalid: an error at that runFlow each, so every file has a verdict. */
  via: BoxflowError[];
}

/** Discovers and loads every flow under `paths`, collecting all errors instead of stopping at the first. */
export async function loadFlows(paths: string[], cwd: string = process.cwd(), opts: { allMaestro?: boolean } = {}): Promise<LoadedFlows> {
  const errors: BoxflowError[] = [];
  const files: string[] = [];
  for (const p of paths) {
    try {
      files.push(...(await discoverFlows([p], cwd, opts.allMaestro)));
    } catch (err) {
      errors.push(asBoxflowError(err));
    }
  }
  const loader = new Loader();
  const flows: Flow[] = [];
  const via: BoxflowError[] = [];
  for (const file of new Set(files)) {
    try {
      flows.push(await loader.load(file));
    } catch (err) {
      const e = asBoxflowError(err);
      if (!errors.includes(e)) errors.push(e);
      const at = (e.details as { file?: string } | undefined)?.file !== file ? await loader.failedRunFlow(file) : undefined;
      if (at) via.push(at);
    }
  }
  return { flows, errors, via };
}

function asBoxflowError(err: unknown): BoxflowError {
  if (BoxflowError.is(err)) return err;
  return new BoxflowError('FLOW_SYNTAX', (err as Error)?.message ?? String(err), { cause: err });
}

/**
 * Validates one YAML-shaped step, e.g. from a TypeScript `box.*` call, and normalises it.
 * Throws FLOW_SCHEMA located at `source`.
 */
export function normalizeStep(raw: unknown, source: SourceLocation): Step {
  try {
    return buildStep(raw, source);
  } catch (err) {
    if (err instanceof FlowIssue) throw issueError(err, source, undefined);
    throw err;
  }
}

