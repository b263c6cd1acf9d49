// Turns a flow document (parsed YAML, or a TypeScript `flow({...})` object) into a Flow. ajv
// judges validity against the published schema; when it says no, `explain` and the step
// dispatch below find the issue a person can act on and its path.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { parseDuration } from '../api/duration.js';
import { sharedAjv } from '../api/validate.js';
import { BoxflowError } from '../errors.js';
import { explain, describeValue } from './explain.js';
import { flowSchema, flowSchemaText, kTopLevelProps } from './schema.js';
import { didYouMean, hint } from './suggest.js';
import { FlowIssue, FlowIssues, kCommonKeys, kCommonProps, kDefinitions, type JsonSchema, type Path } from './parts.js';
import { envValues, kBareStepNames, kStepNames, stepDef, type NormalizeCtx } from './steps/index.js';
import type { Flow, SourceLocation, Step, StepBody, StepCommon } from './types.js';

// The build compiles both validators ahead of time (scripts/flowValidators.mjs →
// flowValidators.cjs next to this module): compiling the whole schema costs about 0.8 s, which
// every `boxflow test` would pay. That file is used when it was made from this very schema; else
// (a run from source, a build without the step) the schema is compiled here, on first use.
let compiled: { document: ValidateFunction; step: ValidateFunction } | undefined;
function validators() {
  compiled ??= precompiled();
  if (!compiled) {
    const ajv = sharedAjv();
    ajv.addSchema(flowSchema, 'flow');
    compiled = { document: ajv.compile({ $ref: 'flow#' }), step: ajv.compile({ $ref: 'flow#/definitions/step' }) };
  }
  return compiled;
}

/** The hash of the flow schema, which the precompiled validators carry. */
export function flowSchemaHash(): string {
  return createHash('sha256').update(flowSchemaText()).digest('hex');
}

function precompiled(): { document: ValidateFunction; step: ValidateFunction } | undefined {
  try {
    const mod = createRequire(import.meta.url)('./flowValidators.cjs') as { document: ValidateFunction; step: ValidateFunction; schemaHash: string };
    return mod.schemaHash === flowSchemaHash() ? { document: mod.document, step: mod.step } : undefined;
  } catch {
    return undefined;
  }
}
const defs = (flowSchema.definitions ?? kDefinitions) as Record<string, JsonSchema>;
const kTopKeys = Object.keys(kTopLevelProps);

export interface DocContext {
  /** Absolute path of the flow file. */
  file: string;
  /** Where the value at `path` is written (YAML: its node; TS: the `flow(` call). */
  locate(path: Path, atKey?: boolean): SourceLocation;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function formatPath(path: Path): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${seg}` : seg;
  return out;
}

function firstIssue(schema: JsonSchema, value: unknown, path: Path): void {
  const found = explain(schema, value, path, defs)[0];
  if (found) {
    throw new FlowIssue(found.path, found.message, {
      ...(found.atKey ? { atKey: true } : {}),
      ...(found.prefix ? { prefix: found.prefix } : {}),
      ...(found.suggestion ? { suggestion: found.suggestion } : {}),
    });
  }
}

function fromAjv(errors: ErrorObject[] | null | undefined, base: Path): FlowIssue {
  const e = errors?.[0];
  const path = [...base, ...(e?.instancePath ?? '').split('/').slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')))];
  return new FlowIssue(path, e?.message ?? 'is invalid');
}

/** Normalises one step; `checked` means ajv already accepted it, so only the normaliser's own checks run. */
export function processStep(raw: unknown, path: Path, ctx: DocContext, checked: boolean): Step {
  const source = ctx.locate(path);
  if (typeof raw === 'string') {
    if ((kBareStepNames as string[]).includes(raw)) return { ...(stepDef(raw)!.normalize(null, nctx(ctx, [...path, raw], null, checked)) as StepBody), source } as Step;
    const def = stepDef(raw);
    if (def) throw new FlowIssue(path, `step "${raw}" needs an argument, e.g. ${def.example}`, { key: raw });
    const suggestion = didYouMean(raw, kStepNames);
    throw new FlowIssue(path, `unknown step "${raw}"${hint(suggestion)}`, { key: raw, ...(suggestion ? { suggestion } : {}) });
  }
  if (!isObj(raw)) {
    throw new FlowIssue(path, `a step must be a map such as "- tap: Login" or a bare step name, not ${describeValue(raw)}`);
  }
  const keys = Object.keys(raw);
  const names = keys.filter((k) => stepDef(k));
  const unknown = keys.filter((k) => !stepDef(k) && !kCommonKeys.includes(k));
  if (names.length === 0) {
    if (unknown.length) {
      const suggestion = didYouMean(unknown[0]!, kStepNames);
      throw new FlowIssue([...path, unknown[0]!], `unknown step "${unknown[0]}"${hint(suggestion)}`, { atKey: true, prefix: path, ...(suggestion ? { suggestion } : {}) });
    }
    throw new FlowIssue(path, `the step has no step name, only ${keys.join(', ') || 'nothing'}; write e.g. "- tap: Login"`);
  }
  const name = names[0]!;
  const def = stepDef(name)!;
  if (names.length > 1) {
    throw new FlowIssue([...path, names[1]!], `one step per list item: "${name}" and "${names[1]}" are both here; start a new item with "- ${names[1]}:"`, { atKey: true, prefix: path });
  }
  if (unknown.length) {
    const key = unknown[0]!;
    const argKeys = schemaKeys(def.arg);
    const suggestion = didYouMean(key, kCommonKeys);
    const message = argKeys.includes(key)
      ? `"${key}" belongs to ${name}: indent it under "${name}:"`
      : `unknown key "${key}" in a ${name} step${hint(suggestion)}; a step has one step name plus ${kCommonKeys.join(', ')}`;
    throw new FlowIssue([...path, key], message, { atKey: true, prefix: path, ...(suggestion && !argKeys.includes(key) ? { suggestion } : {}) });
  }
  // Step options may sit inside the step's map too; the argument itself is judged without them.
  let arg = raw[name];
  const options: Record<string, unknown> = {};
  const optionPath: Record<string, Path> = {};
  for (const k of kCommonKeys) if (raw[k] !== undefined) ((options[k] = raw[k]), (optionPath[k] = [...path, k]));
  if (isObj(arg)) {
    const map = arg;
    const own = schemaKeys(def.arg);
    const inner = kCommonKeys.filter((k) => map[k] !== undefined && !own.includes(k));
    for (const k of inner) {
      if (options[k] !== undefined) throw new FlowIssue([...path, name, k], `"${k}" is given twice: beside ${name} and inside it; keep one`, { atKey: true, prefix: [...path, name] });
      options[k] = map[k];
      optionPath[k] = [...path, name, k];
    }
    if (inner.length) {
      arg = Object.fromEntries(Object.entries(map).filter(([k]) => !inner.includes(k)));
      // The schema let the options through in the map; what is left must be a whole argument.
      checked = false;
    }
  }
  if (!checked) {
    for (const k of kCommonKeys) if (options[k] !== undefined) firstIssue(kCommonProps[k]!, options[k], optionPath[k]!);
    firstIssue({ $ref: `#/definitions/${name}Arg` }, arg, [...path, name]);
  }
  const body = durationAt([...path, name], () => def.normalize(arg, nctx(ctx, [...path, name], arg, checked)));
  const common: Omit<StepCommon, 'source'> = {};
  if (options.label !== undefined) common.label = options.label as string;
  if (options.optional !== undefined) common.optional = options.optional as boolean;
  if (options.timeout !== undefined) common.timeout = durationAt(optionPath.timeout!, () => parseDuration(options.timeout as string));
  if (options.screenshots !== undefined) common.screenshots = options.screenshots as StepCommon['screenshots'];
  return { ...body, ...common, source } as Step;
}

/** A duration the schema's pattern accepts can still be too long (a timer waits at most 24.8 days): an issue at `path`. */
function durationAt<T>(path: Path, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (BoxflowError.is(err) && err.code === 'INVALID_DURATION') throw new FlowIssue(path, err.message.replace(/^duration: /, ''));
    throw err;
  }
}

function nctx(ctx: DocContext, argPath: Path, arg: unknown, checked: boolean): NormalizeCtx {
  return {
    file: ctx.file,
    path: argPath,
    steps: (list, rel) => list.map((raw, i) => processStep(raw, [...argPath, ...rel, i], ctx, checked)),
    fail: (rel, message, options = {}) => {
      throw new FlowIssue([...argPath, ...rel], message, { atKey: rel.length === 0 && isObj(arg), ...options });
    },
  };
}

/** Every property name an argument schema knows, across its union branches. */
function schemaKeys(schema: JsonSchema): string[] {
  let s = schema;
  while (typeof s.$ref === 'string') s = defs[s.$ref.replace('#/definitions/', '')] ?? {};
  if (Array.isArray(s.anyOf)) return (s.anyOf as JsonSchema[]).flatMap(schemaKeys);
  return Object.keys((s.properties ?? {}) as object);
}

export function defaultFlowName(file: string): string {
  return basename(file).replace(/(\.flow)?\.(ya?ml|[cm]?ts)$/i, '');
}

export interface BuildOptions {
  /** A function flow: options only, no step list. */
  functionFlow?: boolean;
  source?: SourceLocation;
}

/** Validates and normalises a flow document. Throws FlowIssue. */
export function buildFlow(doc: unknown, ctx: DocContext, options: BuildOptions = {}): Flow {
  if (doc === null || doc === undefined) throw new FlowIssue([], 'the flow is empty: it needs at least a "steps:" list');
  if (Array.isArray(doc)) throw new FlowIssue([], 'a flow file is a map, not a list: put the steps under "steps:"');
  if (!isObj(doc)) throw new FlowIssue([], `a flow file must be a map with a "steps:" list, not ${describeValue(doc)}`);
  for (const key of Object.keys(doc)) {
    if (kTopKeys.includes(key)) continue;
    if (stepDef(key)) throw new FlowIssue([key], `"${key}" is a step: steps go in the "steps:" list`, { atKey: true, prefix: [] });
    const suggestion = didYouMean(key, kTopKeys);
    throw new FlowIssue([key], `unknown key "${key}"${hint(suggestion)}; a flow has ${kTopKeys.join(', ')}`, { atKey: true, prefix: [], ...(suggestion ? { suggestion } : {}) });
  }
  if (options.functionFlow && doc.steps !== undefined) {
    throw new FlowIssue(['steps'], 'a function flow has no "steps:" list: its function is the steps', { atKey: true, prefix: [] });
  }
  // A function flow has no step list; a stand-in one lets the same schema judge its options.
  const validateDocument = validators().document;
  const checked = validateDocument(options.functionFlow ? { ...doc, steps: ['closeBrowser'] } : doc);
  if (!checked) {
    for (const key of ['name', 'tags', 'box', 'appId', 'env', 'secrets', 'timeout']) {
      if (doc[key] !== undefined) firstIssue(kTopLevelProps[key]!, doc[key], [key]);
    }
    if (!options.functionFlow && doc.steps === undefined) throw new FlowIssue([], 'missing required key "steps" (the list of steps)');
  }
  const lists: Record<'onStart' | 'onFinish' | 'steps', Step[]> = { onStart: [], onFinish: [], steps: [] };
  // Each step is judged on its own, so one bad step does not hide the next one's problem.
  const issues: FlowIssue[] = [];
  for (const key of ['onStart', 'steps', 'onFinish'] as const) {
    if (doc[key] === undefined) continue;
    if (!checked) firstIssue({ type: 'array', minItems: 1, title: 'a list of steps' }, doc[key], [key]);
    lists[key] = (doc[key] as unknown[]).flatMap((raw, i) => {
      try {
        return [processStep(raw, [key, i], ctx, checked)];
      } catch (err) {
        if (!(err instanceof FlowIssue)) throw err;
        issues.push(err);
        return [];
      }
    });
  }
  if (issues.length === 1) throw issues[0]!;
  if (issues.length > 1) throw new FlowIssues(issues);
  if (!checked) throw fromAjv(validateDocument.errors, []);
  const flow: Flow = {
    name: (doc.name as string | undefined) ?? defaultFlowName(ctx.file),
    file: ctx.file,
    tags: (doc.tags as string[] | undefined) ?? [],
    env: envValues(doc.env as Record<string, unknown> | undefined) ?? {},
    secrets: (doc.secrets as string[] | undefined) ?? [],
    onStart: lists.onStart,
    onFinish: lists.onFinish,
    steps: lists.steps,
    source: options.source ?? ctx.locate([]),
  };
  if (doc.box !== undefined) flow.box = doc.box as string;
  if (doc.appId !== undefined) flow.appId = doc.appId as string;
  if (doc.timeout !== undefined) flow.timeout = durationAt(['timeout'], () => parseDuration(doc.timeout as string));
  if (doc.stepTimeout !== undefined) flow.stepTimeout = durationAt(['stepTimeout'], () => parseDuration(doc.stepTimeout as string));
  return flow;
}

/** Validates one YAML-shaped step (no position map: every issue is reported at `source`). Throws FlowIssue. */
export function buildStep(raw: unknown, source: SourceLocation): Step {
  const ctx: DocContext = { file: source.file, locate: () => source };
  const validateOneStep = validators().step;
  const checked = validateOneStep(raw);
  const step = processStep(raw, [], ctx, checked);
  if (!checked) throw fromAjv(validateOneStep.errors, []);
  return step;
}
